// Replay mode of the scripted teacher (`seragen-teacher --script FILE`): the
// answers come from a file that lists, per request kind, the assistant turns
// to return in order, instead of from the rule-based policy. Tool-call
// arguments are raw strings sent as they are, so a script can play malformed
// or deeply nested arguments, escape attempts and resource attacks (the
// hostile-model suite uses it). It is still a scripted stand-in, not a model.
//
// Script file (YAML; JSON is accepted too):
//
//   rollout1:                      # any of: rollout1, rollout2, issue_writer,
//     - tool: bash                 #   judge, unknown_agent, unknown_chat
//       arguments: '{"command": "ls"}'
//     - content: "text"            # a turn without a tool call
//       reasoning: "thinking"      # optional, placed per --reasoning
//     - tool_calls:                # several calls in one turn
//         - {name: submit, arguments: '{}', id: call_a}
//       finish_reason: tool_calls  # default: tool_calls with calls, else stop
//     - content: "x"               # test-harness faults of one answer:
//       usage: '{"prompt_tokens": 1e30}'  # raw JSON text sent as `usage`
//       endless: true              # the body (or stream) never ends
//
// Request kinds the script does not name are answered by the rule-based
// policy. Turn N of a kind is the reply to the N-th request (from 0) of one
// conversation (ConversationId), counted per server; a request past the last
// turn gets a short text saying the script ended (a format error for an agent).
#pragma once

#include <cstddef>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "seragen/base/result.h"
#include "teacher/policy.h"

namespace seragen::teacher {

struct ScriptedCall {
  std::string id;  // "" = derived from conversation and turn
  std::string name;
  std::string arguments;  // raw text, sent unchanged (need not be JSON)
};

struct ScriptedTurn {
  std::string content;
  std::string reasoning;
  std::vector<ScriptedCall> tool_calls;
  std::string finish_reason;  // "" = tool_calls when there are calls, else stop
  // Test-harness faults (hostile-server cases): raw JSON text sent as the
  // answer's `usage` ("" = the computed one); an answer whose body or event
  // stream never ends.
  std::string usage;
  bool endless = false;
};

struct Script {
  // Keyed by RequestKindName ("rollout1", "issue_writer", ...).
  std::map<std::string, std::vector<ScriptedTurn>> turns;
};

// Largest script file accepted (a script is test input, but still bounded).
inline constexpr std::size_t kMaxScriptBytes = 64u << 20;

// Parses script text. Errors are kParseError (not YAML) or kInvalidArgument
// naming the file and the entry, e.g. "s.yaml: rollout1[2].arguments: must be
// a string holding the raw JSON text".
Result<Script> ParseScript(std::string_view text, const std::string& name);

// Reads and parses a script file (kNotFound / kIoError / kOutOfRange for a
// missing, unreadable or too large file).
Result<Script> LoadScriptFile(const std::string& path);

// Thread-safe: one instance serves every connection of a server.
class ScriptPolicy {
 public:
  explicit ScriptPolicy(Script script) : script_(std::move(script)) {}

  // The reply to `request`: the next scripted turn of its conversation when
  // the script names its kind, else the rule-based Decide(request, context).
  PolicyReply Reply(const ChatRequest& request, const PolicyContext& context);

 private:
  // Index of this request within its (kind, conversation); advances it.
  std::size_t NextTurn(const std::string& key);

  const Script script_;
  std::mutex mu_;
  std::map<std::string, std::size_t> next_;  // "kind:conversation" -> next turn
};

}  // namespace seragen::teacher
