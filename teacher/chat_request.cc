#include "teacher/chat_request.h"

#include <nlohmann/json.hpp>

#include "seragen/base/json_depth.h"

namespace seragen::teacher {
namespace {

using nlohmann::json;

// Message content is a string, null, or an array of parts with "text".
Result<std::string> ContentText(const json& content, const std::string& where) {
  if (content.is_null()) return std::string();
  if (content.is_string()) return content.get<std::string>();
  if (content.is_array()) {
    std::string out;
    for (const json& part : content) {
      if (part.is_object() && part.contains("text") && part["text"].is_string()) {
        out += part["text"].get<std::string>();
      }
    }
    return out;
  }
  return InvalidArgumentError(where + ": content must be a string, null or an array of parts");
}

}  // namespace

int EstimateTokens(std::size_t bytes) { return static_cast<int>(bytes / 4) + 1; }

Result<ChatRequest> ParseChatRequest(std::string_view body) {
  json root;
  SG_RETURN_IF_ERROR(CheckJsonDepth(body, "request body"));
  try {
    root = json::parse(body);
  } catch (const json::exception& e) {
    return ParseError(std::string("request body is not valid JSON: ") + e.what());
  }
  if (!root.is_object()) return InvalidArgumentError("request body: expected a JSON object");
  ChatRequest req;
  try {
    if (root.contains("model") && root["model"].is_string()) req.model = root["model"].get<std::string>();
    if (!root.contains("messages") || !root["messages"].is_array() || root["messages"].empty()) {
      return InvalidArgumentError("messages: required, a non-empty array");
    }
    const json& messages = root["messages"];
    for (std::size_t i = 0; i < messages.size(); ++i) {
      const json& m = messages[i];
      const std::string where = "messages[" + std::to_string(i) + "]";
      if (!m.is_object()) return InvalidArgumentError(where + ": expected an object");
      if (!m.contains("role") || !m["role"].is_string()) return InvalidArgumentError(where + ".role: missing");
      MessageIn msg;
      msg.role = m["role"].get<std::string>();
      if (m.contains("content")) {
        SG_ASSIGN_OR_RETURN(msg.content, ContentText(m["content"], where + ".content"));
      }
      if (m.contains("tool_call_id") && m["tool_call_id"].is_string()) {
        msg.tool_call_id = m["tool_call_id"].get<std::string>();
      }
      if (m.contains("tool_calls") && m["tool_calls"].is_array()) {
        for (const json& tc : m["tool_calls"]) {
          ToolCallIn call;
          if (tc.contains("id") && tc["id"].is_string()) call.id = tc["id"].get<std::string>();
          if (tc.contains("function") && tc["function"].is_object()) {
            const json& f = tc["function"];
            if (f.contains("name") && f["name"].is_string()) call.name = f["name"].get<std::string>();
            if (f.contains("arguments")) {
              call.arguments = f["arguments"].is_string() ? f["arguments"].get<std::string>() : f["arguments"].dump();
            }
          }
          req.text_bytes += call.arguments.size() + call.name.size();
          msg.tool_calls.push_back(std::move(call));
        }
      }
      req.text_bytes += msg.content.size() + 4;
      req.messages.push_back(std::move(msg));
    }
    if (root.contains("tools") && root["tools"].is_array()) {
      for (const json& t : root["tools"]) {
        if (!t.is_object() || !t.contains("function") || !t["function"].is_object()) continue;
        const json& f = t["function"];
        ToolSpecIn spec;
        if (f.contains("name") && f["name"].is_string()) spec.name = f["name"].get<std::string>();
        if (f.contains("parameters") && f["parameters"].is_object()) {
          const json& params = f["parameters"];
          if (params.contains("properties") && params["properties"].is_object()) {
            for (const auto& [key, value] : params["properties"].items()) {
              spec.parameters.push_back(key);
              if (key == "command" && value.is_object() && value.contains("enum") && value["enum"].is_array()) {
                for (const json& e : value["enum"]) {
                  if (e.is_string()) spec.command_choices.push_back(e.get<std::string>());
                }
              }
            }
          }
        }
        spec.schema = f.dump();
        req.text_bytes += spec.schema.size();
        req.tools.push_back(std::move(spec));
      }
    }
    if (root.contains("stream") && root["stream"].is_boolean()) req.stream = root["stream"].get<bool>();
    if (root.contains("stream_options") && root["stream_options"].is_object()) {
      const json& so = root["stream_options"];
      if (so.contains("include_usage") && so["include_usage"].is_boolean()) {
        req.include_usage = so["include_usage"].get<bool>();
      }
    }
  } catch (const json::exception& e) {
    return InvalidArgumentError(std::string("request body: ") + e.what());
  }
  return req;
}

}  // namespace seragen::teacher
