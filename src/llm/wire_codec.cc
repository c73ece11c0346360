#include "seragen/llm/wire_codec.h"

#include <algorithm>
#include <cctype>
#include <cstdint>

#include "llm/codec_internal.h"
#include "llm/error_classifier.h"
#include "llm/json_util.h"
#include "seragen/base/enum_names.h"
#include "seragen/base/json_depth.h"
#include "seragen/base/strings.h"
#include "seragen/llm/failure.h"
#include "seragen/llm/request_seed.h"
#include "seragen/llm/tool_arguments.h"

namespace seragen::llm {

using internal::Dump;
using internal::Json;
using internal::StringOr;
using internal::TryParse;

namespace {

Json EncodeMessage(const Message& m, const WireOptions& options) {
  Json out = Json::object();
  out["role"] = std::string(RoleName(m.role));
  std::string content = m.content;
  if (m.role == Role::kAssistant && !m.reasoning.empty()) {
    using F = WireOptions::ReasoningField;
    switch (options.reasoning_field) {
      case F::kReasoning: out["reasoning"] = m.reasoning; break;
      case F::kReasoningContent: out["reasoning_content"] = m.reasoning; break;
      case F::kBoth:
        out["reasoning"] = m.reasoning;
        out["reasoning_content"] = m.reasoning;
        break;
      case F::kThinkTagInContent: content = "<think>" + m.reasoning + "</think>" + content; break;
      case F::kOmit: break;
    }
  }
  if (m.role == Role::kAssistant && content.empty() && !m.tool_calls.empty()) {
    out["content"] = nullptr;
  } else {
    out["content"] = content;
  }
  if (!m.name.empty()) out["name"] = m.name;
  if (m.role == Role::kTool) out["tool_call_id"] = m.tool_call_id;
  if (m.role == Role::kAssistant && !m.tool_calls.empty()) {
    Json calls = Json::array();
    for (const auto& c : m.tool_calls) {
      calls.push_back(
          {{"id", c.id}, {"type", "function"}, {"function", {{"name", c.name}, {"arguments", ModelArgumentsText(c)}}}});
    }
    out["tool_calls"] = std::move(calls);
  }
  return out;
}

std::string ContentText(const Json& content) {
  if (content.is_string()) return content.get<std::string>();
  if (content.is_array()) {  // content parts
    std::string text;
    for (const auto& part : content) {
      if (part.is_object()) text += StringOr(part, "text");
      else if (part.is_string()) text += part.get<std::string>();
    }
    return text;
  }
  return {};
}

std::string ArgumentsText(const Json& arguments) {
  if (arguments.is_string()) return arguments.get<std::string>();
  if (arguments.is_null()) return {};
  return Dump(arguments);  // some servers send an object instead of a string
}

using ReasoningField = WireOptions::ReasoningField;
using MaxTokensField = WireOptions::MaxTokensField;
using ParallelToolCalls = WireOptions::ParallelToolCalls;

constexpr std::pair<ReasoningField, std::string_view> kReasoningFieldNames[] = {
    {ReasoningField::kReasoning, "reasoning"},
    {ReasoningField::kReasoningContent, "reasoning_content"},
    {ReasoningField::kBoth, "both"},
    {ReasoningField::kThinkTagInContent, "think_tag"},
    {ReasoningField::kOmit, "omit"}};
constexpr std::pair<MaxTokensField, std::string_view> kMaxTokensFieldNames[] = {
    {MaxTokensField::kMaxTokens, "max_tokens"}, {MaxTokensField::kMaxCompletionTokens, "max_completion_tokens"}};
constexpr std::pair<ParallelToolCalls, std::string_view> kParallelToolCallsNames[] = {
    {ParallelToolCalls::kAsRequested, "as_requested"},
    {ParallelToolCalls::kOmit, "omit"},
    {ParallelToolCalls::kFalse, "false"},
    {ParallelToolCalls::kTrue, "true"}};

}  // namespace

std::string ModelArgumentsText(const ToolCall& call) {
  if (auto parsed = TryParse(call.arguments_raw, kMaxToolArgumentsDepth); parsed && parsed->is_object()) {
    return call.arguments_raw;  // unchanged bytes: the model's text, and the server's prefix cache stays warm
  }
  if (call.arguments_valid) {
    if (auto parsed = TryParse(call.arguments_json, kMaxToolArgumentsDepth); parsed && parsed->is_object()) {
      return call.arguments_json;
    }
  }
  return "{}";
}

Result<ReasoningField> ParseReasoningField(std::string_view name) {
  return ParseNamed<ReasoningField>(kReasoningFieldNames, name, "reasoning field",
                                    "reasoning, reasoning_content, both, think_tag or omit");
}

std::string_view ReasoningFieldName(ReasoningField field) {
  return NameOf<ReasoningField>(kReasoningFieldNames, field, "reasoning");
}

std::string_view MaxTokensFieldName(MaxTokensField field) {
  return NameOf<MaxTokensField>(kMaxTokensFieldNames, field, "max_tokens");
}

Result<MaxTokensField> ParseMaxTokensField(std::string_view name) {
  return ParseNamed<MaxTokensField>(kMaxTokensFieldNames, name, "max tokens field",
                                    "max_tokens or max_completion_tokens");
}

std::string_view ParallelToolCallsName(ParallelToolCalls mode) {
  return NameOf<ParallelToolCalls>(kParallelToolCallsNames, mode, "as_requested");
}

Result<ParallelToolCalls> ParseParallelToolCalls(std::string_view name) {
  return ParseNamed<ParallelToolCalls>(kParallelToolCallsNames, name, "parallel_tool_calls mode",
                                       "omit, false or true");
}

Result<std::string> EncodeChatRequest(const ChatRequest& request, const WireOptions& options) {
  Json body = Json::object();
  body["model"] = request.model;
  Json messages = Json::array();
  for (const auto& m : request.messages) messages.push_back(EncodeMessage(m, options));
  body["messages"] = std::move(messages);
  const bool has_tools = !request.tools.empty();
  if (has_tools) {
    Json tools = Json::array();
    for (const auto& t : request.tools) {
      auto params = TryParse(t.parameters_json);
      if (!params || !params->is_object()) {
        return InvalidArgumentError("tool '" + t.name + "': parameters is not a JSON object");
      }
      tools.push_back({{"type", "function"},
                       {"function", {{"name", t.name}, {"description", t.description}, {"parameters", *params}}}});
    }
    body["tools"] = std::move(tools);
  }
  using M = ToolChoice::Mode;
  switch (has_tools ? request.tool_choice.mode : M::kUnset) {  // tool_choice without tools is rejected
    case M::kUnset: break;
    case M::kAuto: body["tool_choice"] = "auto"; break;
    case M::kNone: body["tool_choice"] = "none"; break;
    case M::kRequired: body["tool_choice"] = "required"; break;
    case M::kNamed:
      body["tool_choice"] = {{"type", "function"}, {"function", {{"name", request.tool_choice.name}}}};
      break;
  }
  using P = WireOptions::ParallelToolCalls;
  if (has_tools) {
    switch (options.parallel_tool_calls) {
      case P::kAsRequested:
        if (request.parallel_tool_calls) body["parallel_tool_calls"] = *request.parallel_tool_calls;
        break;
      case P::kOmit: break;
      case P::kFalse: body["parallel_tool_calls"] = false; break;
      case P::kTrue: body["parallel_tool_calls"] = true; break;
    }
  }
  const auto& s = request.sampling;
  if (options.send_sampling) {
    if (s.temperature) body["temperature"] = *s.temperature;
    if (s.top_p) body["top_p"] = *s.top_p;
    if (s.presence_penalty) body["presence_penalty"] = *s.presence_penalty;
    if (s.frequency_penalty) body["frequency_penalty"] = *s.frequency_penalty;
  }
  if (request.max_tokens) {
    body[std::string(MaxTokensFieldName(options.max_tokens_field))] = *request.max_tokens;
  }
  if (request.seed) {
    if (*request.seed > kMaxPortableSeed) {
      return InvalidArgumentError("seed " + std::to_string(*request.seed) + " is outside 0.." +
                                  std::to_string(kMaxPortableSeed) + " (not accepted by every server)");
    }
    body["seed"] = *request.seed;
  }
  if (!request.stop.empty()) body["stop"] = request.stop;
  if (options.stream) {
    body["stream"] = true;
    if (options.stream_include_usage) body["stream_options"] = {{"include_usage", true}};
  }
  if (!TrimAsciiSpace(request.extra_body_json).empty()) {
    auto extra = TryParse(request.extra_body_json);
    if (!extra || !extra->is_object()) {
      return InvalidArgumentError("extra_body_json is not a JSON object");
    }
    for (auto it = extra->begin(); it != extra->end(); ++it) body[it.key()] = it.value();
    // extra_body must not undo the guarantees above.
    if (!options.stream && !body.contains("stream")) body.erase("stream_options");
    if (body.contains("max_tokens") && body.contains("max_completion_tokens")) {
      return InvalidArgumentError("extra_body_json sets " +
                                  std::string(options.max_tokens_field == WireOptions::MaxTokensField::kMaxTokens
                                                  ? "max_completion_tokens"
                                                  : "max_tokens") +
                                  " while the request already sends the other one (never both)");
    }
    if (auto t = body.find("tools"); t != body.end() && t->is_array() && t->empty()) body.erase("tools");
  }
  return Dump(body);
}

std::vector<std::string> SplitGluedJsonObjects(std::string_view text) {
  std::vector<std::string> objects;
  std::size_t i = 0, n = text.size();
  while (i < n) {
    while (i < n && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
    if (i >= n) break;
    if (text[i] != '{') return {};
    // The object starting at i ends at the bracket that closes it.
    const std::size_t start = i;
    std::size_t end = std::string_view::npos;
    int depth = 0;
    ForEachJsonBracket(text.substr(start), [&](std::size_t offset, char c) {
      depth += (c == '{' || c == '[') ? 1 : -1;
      if (depth != 0) return true;
      end = start + offset + 1;
      return false;
    });
    if (end == std::string_view::npos) return {};
    i = end;
    std::string piece(text.substr(start, end - start));
    auto parsed = TryParse(piece);
    if (!parsed || !parsed->is_object()) return {};
    objects.push_back(std::move(piece));
  }
  if (objects.size() < 2) return {};
  return objects;
}

void ParseToolCallArguments(ToolCall& call) {
  call.arguments_valid = false;
  call.arguments_json = "{}";
  call.arguments_error.clear();
  std::string_view trimmed = TrimAsciiSpace(call.arguments_raw);
  if (trimmed.empty()) {  // zero-argument call
    call.arguments_valid = true;
    return;
  }
  if (Status depth = CheckJsonDepth(trimmed, "the arguments JSON", kMaxToolArgumentsDepth); !depth.ok()) {
    call.arguments_error = depth.message();
    return;
  }
  Json parsed;
  try {
    parsed = Json::parse(trimmed.begin(), trimmed.end());
  } catch (const Json::exception& e) {
    auto glued = SplitGluedJsonObjects(trimmed);
    if (!glued.empty()) {
      call.arguments_error =
          std::to_string(glued.size()) + " JSON objects glued together (\"}{\"): several calls in one";
    } else {
      call.arguments_error = std::string("arguments are not valid JSON: ") + e.what();
    }
    return;
  }
  if (parsed.is_string()) {  // double-serialised object: "\"{\\\"a\\\":1}\""
    if (auto inner = TryParse(parsed.get<std::string>(), kMaxToolArgumentsDepth); inner && inner->is_object()) {
      parsed = std::move(*inner);
    }
  }
  if (!parsed.is_object()) {
    call.arguments_error = std::string("arguments must be a JSON object, got ") + parsed.type_name();
    return;
  }
  call.arguments_valid = true;
  call.arguments_json = Dump(parsed);
}

void ExtractThinkTag(ChatResponse& response) {
  if (!response.reasoning.empty()) return;
  static constexpr std::string_view kOpen = "<think>", kClose = "</think>";
  const std::string& c = response.content;
  std::size_t lead = 0;
  while (lead < c.size() && std::isspace(static_cast<unsigned char>(c[lead]))) ++lead;
  std::string reasoning, rest;
  if (c.compare(lead, kOpen.size(), kOpen) == 0) {
    std::size_t body = lead + kOpen.size();
    std::size_t close = c.find(kClose, body);
    if (close == std::string::npos) {
      reasoning = c.substr(body);  // thinking cut off (e.g. by max_tokens)
    } else {
      reasoning = c.substr(body, close - body);
      rest = c.substr(close + kClose.size());
    }
  } else {
    std::size_t close = c.find(kClose);
    if (close == std::string::npos || c.rfind(kOpen, close) != std::string::npos) return;
    reasoning = c.substr(0, close);  // template put <think> in the prompt
    rest = c.substr(close + kClose.size());
  }
  response.reasoning = std::string(TrimAsciiSpace(reasoning));
  std::size_t skip = 0;
  while (skip < rest.size() && std::isspace(static_cast<unsigned char>(rest[skip]))) ++skip;
  response.content = rest.substr(skip);
  response.reasoning_source = ReasoningSource::kThinkTag;
}

void DetectToolIssue(ChatResponse& response) {
  response.tool_issue = ToolIssue::kNone;
  response.tool_issue_detail.clear();
  static constexpr std::string_view kMarkers[] = {"<tool_call>", "<function=", "<arg_key>", "[TOOL_CALLS]"};
  auto find_marker = [](const std::string& text) -> std::string_view {
    for (auto m : kMarkers)
      if (text.find(m) != std::string::npos) return m;
    return {};
  };
  if (response.tool_calls.empty()) {
    if (auto m = find_marker(response.content); !m.empty()) {
      response.tool_issue = ToolIssue::kToolFormat;
      response.tool_issue_detail =
          "tool markup " + std::string(m) + " left in content with no parsed tool calls (server-side parser failure)";
    } else if (auto r = find_marker(response.reasoning); !r.empty()) {
      response.tool_issue = ToolIssue::kToolFormat;
      response.tool_issue_detail = "tool markup " + std::string(r) +
                                   " inside the reasoning with no parsed tool calls (call emitted while thinking)";
    } else if (response.finish_reason == "tool_calls") {
      response.tool_issue = ToolIssue::kToolFormat;
      response.tool_issue_detail = "finish_reason is tool_calls but no tool call was parsed";
    }
    return;
  }
  for (std::size_t i = 0; i < response.tool_calls.size(); ++i) {
    const auto& c = response.tool_calls[i];
    if (c.name.empty()) {
      response.tool_issue = ToolIssue::kToolFormat;
      response.tool_issue_detail = "tool call " + std::to_string(i) + " has no function name";
      return;
    }
    if (!c.arguments_valid) {
      response.tool_issue = ToolIssue::kToolArgs;
      response.tool_issue_detail = "tool call " + std::to_string(i) + " (" + c.name + "): " + c.arguments_error;
      if (response.finish_reason == "length") response.tool_issue_detail += " (output cut off by max_tokens)";
      return;
    }
  }
}

void FinalizeResponse(ChatResponse& response) {
  ExtractThinkTag(response);
  for (auto& call : response.tool_calls) ParseToolCallArguments(call);
  DetectToolIssue(response);
}

namespace {

// cached_tokens only as an integer in [0, prompt_tokens]; anything else
// (negative, larger than the prompt, fractional, a string) is unknown.
std::optional<std::int64_t> CachedTokens(const Json& details, std::int64_t prompt_tokens) {
  auto it = details.find("cached_tokens");
  if (it == details.end() || !(it->is_number_integer() || it->is_number_unsigned())) return std::nullopt;
  if (it->is_number_unsigned() && it->get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX)) return std::nullopt;
  const std::int64_t v = it->get<std::int64_t>();
  if (v < 0 || v > prompt_tokens) return std::nullopt;
  return v;
}

}  // namespace

namespace internal {
Status ReadUsage(const Json& usage, Usage& out) {
  if (!usage.is_object()) return Status::Ok();
  std::int64_t counts[3] = {0, 0, -1};
  const char* names[3] = {"prompt_tokens", "completion_tokens", "total_tokens"};
  for (int i = 0; i < 3; ++i) {
    auto it = usage.find(names[i]);
    if (it == usage.end() || it->is_null()) continue;
    std::optional<std::int64_t> n = ExactInteger(*it);
    if (!n || *n < 0) {
      return MakeFailure(FailureClass::kTransientServer, std::string("usage.") + names[i] + " is " +
                                                             Dump(*it).substr(0, 40) +
                                                             ", not a token count (an integer from 0 to 2^53)");
    }
    counts[i] = *n;
  }
  out.present = true;
  out.prompt_tokens = counts[0];
  out.completion_tokens = counts[1];
  out.total_tokens = counts[2] >= 0 ? counts[2] : counts[0] + counts[1];
  out.cached_prompt_tokens.reset();
  out.reasoning_tokens.reset();
  if (auto it = usage.find("prompt_tokens_details"); it != usage.end() && it->is_object()) {
    out.cached_prompt_tokens = CachedTokens(*it, out.prompt_tokens);
  }
  if (auto it = usage.find("completion_tokens_details"); it != usage.end() && it->is_object()) {
    out.reasoning_tokens = IntField(*it, "reasoning_tokens");
  }
  return Status::Ok();
}

// A top-level error object in a 2xx body or stream chunk; nullopt when none.
std::optional<Status> InBandError(const Json& j) {
  if (!j.is_object()) return std::nullopt;
  bool flat = StringOr(j, "object") == "error";
  auto it = j.find("error");
  bool nested = it != j.end() && !it->is_null();
  if (!flat && !nested) return std::nullopt;
  ErrorEnvelope info = ParseErrorBody(Dump(j));
  Classification c = ClassifyInBandError(info);
  return MakeFailure(c.failure_class, c.message);
}
}  // namespace internal

Result<ChatResponse> DecodeChatResponse(std::string_view body) {
  std::string parse_error;
  auto parsed = TryParse(body, kMaxJsonDepth, &parse_error);
  if (!parsed || !parsed->is_object()) {
    if (parsed) parse_error = std::string("a JSON ") + parsed->type_name();
    return MakeFailure(
        FailureClass::kTransientServer,
        "response body is not a JSON object (" + std::to_string(body.size()) + " bytes: " + parse_error + ")");
  }
  const Json& j = *parsed;
  if (auto err = internal::InBandError(j)) return *err;
  ChatResponse r;
  r.raw_body = std::string(body);
  r.id = StringOr(j, "id");
  r.model = StringOr(j, "model");
  auto choices = j.find("choices");
  if (choices == j.end() || !choices->is_array() || choices->empty() || !(*choices)[0].is_object()) {
    return MakeFailure(FailureClass::kTransientServer, "response has no choices");
  }
  const Json& choice = (*choices)[0];
  r.finish_reason = StringOr(choice, "finish_reason");
  if (r.finish_reason == "error") {
    return MakeFailure(FailureClass::kTransientServer, "finish_reason is \"error\" (provider failed mid-answer)");
  }
  auto msg_it = choice.find("message");
  if (msg_it != choice.end() && msg_it->is_object()) {
    const Json& msg = *msg_it;
    auto content = msg.find("content");
    r.content_was_null = content == msg.end() || content->is_null();
    if (!r.content_was_null) r.content = ContentText(*content);
    std::string reasoning = StringOr(msg, "reasoning");
    if (!reasoning.empty()) {
      r.reasoning = reasoning;
      r.reasoning_source = ReasoningSource::kReasoningField;
    } else if (std::string rc = StringOr(msg, "reasoning_content"); !rc.empty()) {
      r.reasoning = rc;
      r.reasoning_source = ReasoningSource::kReasoningContentField;
    }
    if (auto calls = msg.find("tool_calls"); calls != msg.end() && calls->is_array()) {
      for (const auto& c : *calls) {
        if (!c.is_object()) continue;
        ToolCall call;
        call.id = StringOr(c, "id");
        if (auto f = c.find("function"); f != c.end() && f->is_object()) {
          call.name = StringOr(*f, "name");
          if (auto a = f->find("arguments"); a != f->end()) call.arguments_raw = ArgumentsText(*a);
        }
        r.tool_calls.push_back(std::move(call));
      }
    }
  }
  if (auto u = j.find("usage"); u != j.end()) SG_RETURN_IF_ERROR(internal::ReadUsage(*u, r.usage));
  FinalizeResponse(r);
  return r;
}

}  // namespace seragen::llm
