// The scripted policy: a pure, deterministic function from (request, seed,
// knobs) to what the "model" says. It plays an agent on rollout requests,
// writes issues for issue-writer requests and answers judge requests. All
// state comes from the conversation itself.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "teacher/chat_request.h"
#include "teacher/edit_memory.h"
#include "teacher/options.h"
#include "teacher/prompt_set.h"

namespace seragen::teacher {

struct ToolCallOut {
  std::string id;
  std::string name;
  std::string arguments;  // JSON text
};

struct PolicyReply {
  RequestKind kind = RequestKind::kUnknownChat;
  std::string reasoning;  // thinking text (placed per ReasoningMode by the wire layer)
  std::string content;    // visible text
  std::vector<ToolCallOut> tool_calls;
  std::string finish_reason = "stop";
  bool rollout_start = false;  // an agent request with no assistant turn yet
  // Replay-mode faults (ScriptedTurn): raw `usage` JSON text ("" = computed),
  // and an answer that never ends.
  std::string usage_json;
  bool endless = false;
};

struct PolicyContext {
  std::uint64_t seed = 0;
  const PromptSet* prompts = nullptr;  // required
  PolicyKnobs knobs;
  ToolRoles roles;
  std::string fallback_issue_tag = "issue";
  std::string fallback_judge_tag = "answer";
  // Rollout-1 edits and their task's function, shared by the policies of one
  // server (nullptr: none kept).
  EditMemory* edits = nullptr;
};

// Identity of a conversation: hex digest of its system and first user
// message. Every seeded choice of a conversation derives from it.
std::string ConversationId(const ChatRequest& request);

// Number of assistant messages so far (the turn index).
int AssistantTurns(const ChatRequest& request);

PolicyReply Decide(const ChatRequest& request, const PolicyContext& context);

// Parts, exposed for tests.
PolicyReply DecideRollout(const ChatRequest& request, const RequestInfo& info, const PolicyContext& context);
PolicyReply WriteIssue(const ChatRequest& request, const RequestInfo& info, const PolicyContext& context);
PolicyReply JudgePatch(const ChatRequest& request, const RequestInfo& info, const PolicyContext& context);

}  // namespace seragen::teacher
