#include "teacher/script_policy.h"

#include <yaml-cpp/yaml.h>

#include <sys/stat.h>
#include <fstream>
#include <sstream>

#include "teacher/prompt_set.h"

namespace seragen::teacher {
namespace {

constexpr const char* kKinds[] = {"rollout1", "rollout2", "issue_writer", "judge", "unknown_agent", "unknown_chat"};

bool KnownKind(const std::string& key) {
  for (const char* k : kKinds) {
    if (key == k) return true;
  }
  return false;
}

// Reads a string scalar at `path`; a missing node leaves *out unchanged.
Status ReadString(const YAML::Node& map, const char* key, const std::string& path, std::string* out) {
  const YAML::Node node = map[key];
  if (!node) return Status::Ok();
  if (!node.IsScalar()) return InvalidArgumentError(path + "." + key + ": must be a string");
  *out = node.Scalar();
  return Status::Ok();
}

Result<ScriptedCall> ParseCall(const YAML::Node& node, const std::string& path) {
  if (!node.IsMap()) return InvalidArgumentError(path + ": expected a mapping with name and arguments");
  for (const auto& kv : node) {
    const std::string key = kv.first.Scalar();
    if (key != "name" && key != "arguments" && key != "id") {
      return InvalidArgumentError(path + "." + key + ": unknown key (name, arguments, id)");
    }
  }
  ScriptedCall call;
  SG_RETURN_IF_ERROR(ReadString(node, "name", path, &call.name));
  SG_RETURN_IF_ERROR(ReadString(node, "id", path, &call.id));
  if (call.name.empty()) return InvalidArgumentError(path + ".name: missing (the tool to call)");
  if (!node["arguments"]) return InvalidArgumentError(path + ".arguments: missing (use '{}' for none)");
  if (!node["arguments"].IsScalar()) {
    return InvalidArgumentError(path + ".arguments: must be a string holding the raw JSON text (it is sent as-is)");
  }
  call.arguments = node["arguments"].Scalar();
  return call;
}

Result<ScriptedTurn> ParseTurn(const YAML::Node& node, const std::string& path) {
  if (!node.IsMap()) return InvalidArgumentError(path + ": expected a mapping (tool/arguments, content, tool_calls)");
  static const char* kKeys[] = {"tool",       "arguments",     "id",    "content", "reasoning",
                                "tool_calls", "finish_reason", "usage", "endless"};
  for (const auto& kv : node) {
    const std::string key = kv.first.Scalar();
    bool known = false;
    for (const char* k : kKeys) known = known || key == k;
    if (!known) {
      return InvalidArgumentError(path + "." + key +
                                  ": unknown key (tool, arguments, id, content, reasoning, tool_calls, finish_reason, "
                                  "usage, endless)");
    }
  }
  ScriptedTurn turn;
  SG_RETURN_IF_ERROR(ReadString(node, "content", path, &turn.content));
  SG_RETURN_IF_ERROR(ReadString(node, "reasoning", path, &turn.reasoning));
  SG_RETURN_IF_ERROR(ReadString(node, "finish_reason", path, &turn.finish_reason));
  SG_RETURN_IF_ERROR(ReadString(node, "usage", path, &turn.usage));
  if (!turn.usage.empty() && turn.usage.front() != '{') {
    return InvalidArgumentError(path + ".usage: must be a string holding a raw JSON object");
  }
  std::string endless;
  SG_RETURN_IF_ERROR(ReadString(node, "endless", path, &endless));
  if (!endless.empty() && endless != "true" && endless != "false") {
    return InvalidArgumentError(path + ".endless: must be true or false");
  }
  turn.endless = endless == "true";
  if (node["tool"]) {
    if (node["tool_calls"]) return InvalidArgumentError(path + ": give either tool (one call) or tool_calls, not both");
    YAML::Node call(YAML::NodeType::Map);
    call["name"] = node["tool"];
    if (node["arguments"]) call["arguments"] = node["arguments"];
    if (node["id"]) call["id"] = node["id"];
    SG_ASSIGN_OR_RETURN(ScriptedCall c, ParseCall(call, path));
    turn.tool_calls.push_back(std::move(c));
  } else if (node["arguments"] || node["id"]) {
    return InvalidArgumentError(path + ": arguments and id belong to a call; add tool: NAME");
  } else if (node["tool_calls"]) {
    const YAML::Node calls = node["tool_calls"];
    if (!calls.IsSequence()) return InvalidArgumentError(path + ".tool_calls: expected a list of calls");
    for (std::size_t i = 0; i < calls.size(); ++i) {
      SG_ASSIGN_OR_RETURN(ScriptedCall c, ParseCall(calls[i], path + ".tool_calls[" + std::to_string(i) + "]"));
      turn.tool_calls.push_back(std::move(c));
    }
  }
  return turn;
}

}  // namespace

Result<Script> ParseScript(std::string_view text, const std::string& name) {
  if (text.size() > kMaxScriptBytes) {
    return OutOfRangeError(name + ": the script is larger than " + std::to_string(kMaxScriptBytes) + " bytes");
  }
  YAML::Node root;
  try {
    root = YAML::Load(std::string(text));
  } catch (const YAML::Exception& e) {
    return ParseError(name + ": not a YAML/JSON script: " + e.what());
  }
  if (!root.IsMap()) {
    return InvalidArgumentError(name +
                                ": expected a mapping from request kind (rollout1, rollout2, issue_writer, "
                                "judge, unknown_agent, unknown_chat) to a list of turns");
  }
  Script script;
  try {
    for (const auto& kv : root) {
      const std::string kind = kv.first.Scalar();
      if (!KnownKind(kind)) {
        return InvalidArgumentError(name + ": " + kind +
                                    ": unknown request kind (rollout1, rollout2, issue_writer, judge, unknown_agent, "
                                    "unknown_chat)");
      }
      if (!kv.second.IsSequence()) return InvalidArgumentError(name + ": " + kind + ": expected a list of turns");
      std::vector<ScriptedTurn>& turns = script.turns[kind];
      for (std::size_t i = 0; i < kv.second.size(); ++i) {
        auto turn = ParseTurn(kv.second[i], kind + "[" + std::to_string(i) + "]");
        if (!turn.ok()) return turn.status().WithContext(name);
        turns.push_back(std::move(*turn));
      }
    }
  } catch (const YAML::Exception& e) {
    return ParseError(name + ": " + e.what());
  }
  return script;
}

Result<Script> LoadScriptFile(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return NotFoundError("teacher script " + path + ": no such file");
  if (!S_ISREG(st.st_mode)) return InvalidArgumentError("teacher script " + path + ": not a regular file");
  if (static_cast<std::size_t>(st.st_size) > kMaxScriptBytes) {
    return OutOfRangeError("teacher script " + path + ": larger than " + std::to_string(kMaxScriptBytes) + " bytes");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return IoError("teacher script " + path + ": cannot be read");
  std::ostringstream ss;
  ss << in.rdbuf();
  return ParseScript(ss.str(), path);
}

std::size_t ScriptPolicy::NextTurn(const std::string& key) {
  std::lock_guard<std::mutex> lock(mu_);
  if (next_.size() > 200000) next_.clear();  // bounded memory on long runs
  return next_[key]++;
}

PolicyReply ScriptPolicy::Reply(const ChatRequest& request, const PolicyContext& context) {
  const RequestInfo info = context.prompts->Classify(request);
  const std::string kind(RequestKindName(info.kind));
  auto it = script_.turns.find(kind);
  if (it == script_.turns.end()) return Decide(request, context);

  const std::string conversation = ConversationId(request);
  const std::size_t index = NextTurn(kind + ":" + conversation);
  PolicyReply reply;
  reply.kind = info.kind;
  reply.rollout_start = !request.tools.empty() && index == 0;
  if (index >= it->second.size()) {
    reply.content = "The teacher script has no turn " + std::to_string(index) + " for " + kind +
                    " requests (it lists " + std::to_string(it->second.size()) + ").";
    reply.finish_reason = "stop";
    return reply;
  }
  const ScriptedTurn& turn = it->second[index];
  reply.content = turn.content;
  reply.reasoning = turn.reasoning;
  reply.usage_json = turn.usage;
  reply.endless = turn.endless;
  for (std::size_t i = 0; i < turn.tool_calls.size(); ++i) {
    const ScriptedCall& c = turn.tool_calls[i];
    std::string id = c.id.empty()
                         ? "call_" + conversation.substr(0, 8) + "_" + std::to_string(index) + "_" + std::to_string(i)
                         : c.id;
    reply.tool_calls.push_back(ToolCallOut{std::move(id), c.name, c.arguments});
  }
  reply.finish_reason = !turn.finish_reason.empty() ? turn.finish_reason
                        : reply.tool_calls.empty()  ? "stop"
                                                    : "tool_calls";
  return reply;
}

}  // namespace seragen::teacher
