#include "teacher/wire_format.h"

#include <nlohmann/json.hpp>

#include "seragen/base/json_depth.h"
#include "seragen/base/rng.h"
#include "seragen/base/utf8.h"

namespace seragen::teacher {
namespace {

using ojson = nlohmann::ordered_json;

std::string Dump(const ojson& j) { return j.dump(-1, ' ', false, ojson::error_handler_t::replace); }

// Splits `text` into pieces of about `size` bytes without cutting UTF-8 sequences.
std::vector<std::string> Pieces(const std::string& text, int size) {
  std::vector<std::string> out;
  std::size_t pos = 0;
  const std::size_t want = static_cast<std::size_t>(std::max(1, size));
  while (pos < text.size()) {
    std::string_view rest(text.data() + pos, text.size() - pos);
    std::size_t n = Utf8SafePrefixLength(rest, want);
    if (n == 0) n = std::min(rest.size(), want + 3);  // a sequence longer than the piece
    out.emplace_back(rest.substr(0, n));
    pos += n;
  }
  return out;
}

// Where reasoning goes and what `content` becomes, per mode.
struct Shaped {
  std::string reasoning_field;  // "" when reasoning is not a separate field
  std::string reasoning;
  std::string content;
  bool content_null = false;
};

Shaped Shape(const PolicyReply& reply, ReasoningMode mode) {
  Shaped s;
  s.content = reply.content;
  if (!reply.reasoning.empty()) {
    switch (mode) {
      case ReasoningMode::kNone:
        s.content = reply.content.empty() ? reply.reasoning : reply.reasoning + "\n\n" + reply.content;
        break;
      case ReasoningMode::kReasoning:
        s.reasoning_field = "reasoning";
        s.reasoning = reply.reasoning;
        break;
      case ReasoningMode::kReasoningContent:
        s.reasoning_field = "reasoning_content";
        s.reasoning = reply.reasoning;
        break;
      case ReasoningMode::kThinkTag: s.content = "<think>" + reply.reasoning + "</think>\n" + reply.content; break;
    }
  }
  s.content_null = s.content.empty() && !reply.tool_calls.empty();
  return s;
}

ojson Usage(const PolicyReply& reply, const WireContext& ctx) {
  if (!reply.usage_json.empty()) {  // a script's hostile usage, sent as written
    ojson scripted = ojson::parse(reply.usage_json, nullptr, false);
    if (!scripted.is_discarded()) return scripted;
  }
  int completion = CompletionTokens(reply);
  ojson usage{{"prompt_tokens", ctx.prompt_tokens},
              {"completion_tokens", completion},
              {"total_tokens", ctx.prompt_tokens + completion}};
  if (ctx.cached_tokens >= 0) usage["prompt_tokens_details"] = ojson{{"cached_tokens", ctx.cached_tokens}};
  return usage;
}

ojson ChunkBase(const WireContext& ctx) {
  return ojson{
      {"id", ctx.completion_id}, {"object", "chat.completion.chunk"}, {"created", ctx.created}, {"model", ctx.model}};
}

std::string Event(const ojson& j) { return "data: " + Dump(j) + "\n\n"; }

std::string RawMarkup(const ToolCallOut& call, RawMarkupStyle style) {
  ojson args = CheckJsonDepth(call.arguments, "arguments", kMaxToolArgumentsDepth).ok()
                   ? ojson::parse(call.arguments, nullptr, false)
                   : ojson::object();
  if (args.is_discarded() || !args.is_object()) args = ojson::object();
  switch (style) {
    case RawMarkupStyle::kHermes:
      return "<tool_call>\n" + Dump(ojson{{"name", call.name}, {"arguments", args}}) + "\n</tool_call>";
    case RawMarkupStyle::kQwenXml: {
      std::string out = "<tool_call>\n<function=" + call.name + ">\n";
      for (auto& [k, v] : args.items()) {
        out += "<parameter=" + k + ">\n" + (v.is_string() ? v.get<std::string>() : Dump(v)) + "\n</parameter>\n";
      }
      return out + "</function>\n</tool_call>";
    }
    case RawMarkupStyle::kGlm: {
      std::string out = "<tool_call>" + call.name + "\n";
      for (auto& [k, v] : args.items()) {
        out += "<arg_key>" + k + "</arg_key>\n<arg_value>" + (v.is_string() ? v.get<std::string>() : Dump(v)) +
               "</arg_value>\n";
      }
      return out + "</tool_call>";
    }
  }
  return {};
}

}  // namespace

PolicyReply ApplyGlitches(PolicyReply reply, const PolicyKnobs& knobs, std::uint64_t glitch_seed) {
  if (reply.tool_calls.empty()) return reply;
  Rng rng(glitch_seed);
  double u = rng.UniformDouble();
  if (u < knobs.raw_markup_rate) {
    std::string markup = RawMarkup(reply.tool_calls.front(), knobs.raw_markup_style);
    reply.content = reply.content.empty() ? markup : reply.content + "\n" + markup;
    reply.tool_calls.clear();
    reply.finish_reason = "stop";
    return reply;
  }
  u -= knobs.raw_markup_rate;
  if (u >= 0 && u < knobs.invalid_json_rate) {
    std::string& a = reply.tool_calls.front().arguments;
    a = a.substr(0, a.size() > 4 ? a.size() - 3 : 1);
    return reply;
  }
  u -= knobs.invalid_json_rate;
  if (u >= 0 && u < knobs.multi_call_rate) {
    ToolCallOut second = reply.tool_calls.front();
    second.id += "b";
    reply.tool_calls.push_back(second);
  }
  return reply;
}

int CompletionTokens(const PolicyReply& reply) {
  std::size_t bytes = reply.reasoning.size() + reply.content.size();
  for (const ToolCallOut& c : reply.tool_calls) bytes += c.name.size() + c.arguments.size() + 8;
  return EstimateTokens(bytes);
}

std::string RenderCompletion(const PolicyReply& reply, const WireContext& ctx) {
  Shaped s = Shape(reply, ctx.reasoning);
  ojson message = {{"role", "assistant"}};
  message["content"] = s.content_null ? ojson(nullptr) : ojson(s.content);
  if (!s.reasoning_field.empty()) message[s.reasoning_field] = s.reasoning;
  if (!reply.tool_calls.empty()) {
    ojson calls = ojson::array();
    for (const ToolCallOut& c : reply.tool_calls) {
      calls.push_back(
          {{"id", c.id}, {"type", "function"}, {"function", {{"name", c.name}, {"arguments", c.arguments}}}});
    }
    message["tool_calls"] = calls;
  }
  ojson body = {
      {"id", ctx.completion_id},
      {"object", "chat.completion"},
      {"created", ctx.created},
      {"model", ctx.model},
      {"choices",
       ojson::array(
           {ojson{{"index", 0}, {"message", message}, {"logprobs", nullptr}, {"finish_reason", reply.finish_reason}}})},
      {"usage", Usage(reply, ctx)}};
  return Dump(body);
}

std::vector<std::string> RenderStream(const PolicyReply& reply, const WireContext& ctx) {
  std::vector<std::string> events;
  Shaped s = Shape(reply, ctx.reasoning);
  auto delta_event = [&](ojson delta) {
    ojson chunk = ChunkBase(ctx);
    chunk["choices"] = ojson::array(
        {ojson{{"index", 0}, {"delta", std::move(delta)}, {"logprobs", nullptr}, {"finish_reason", nullptr}}});
    events.push_back(Event(chunk));
  };
  delta_event(ojson{{"role", "assistant"}, {"content", ""}});
  if (!s.reasoning_field.empty()) {
    for (const std::string& piece : Pieces(s.reasoning, ctx.piece_bytes))
      delta_event(ojson{{s.reasoning_field, piece}});
  }
  for (const std::string& piece : Pieces(s.content, ctx.piece_bytes)) delta_event(ojson{{"content", piece}});
  for (std::size_t i = 0; i < reply.tool_calls.size(); ++i) {
    const ToolCallOut& c = reply.tool_calls[i];
    delta_event(ojson{{"tool_calls", ojson::array({ojson{{"index", i},
                                                         {"id", c.id},
                                                         {"type", "function"},
                                                         {"function", {{"name", c.name}, {"arguments", ""}}}}})}});
    for (const std::string& piece : Pieces(c.arguments, ctx.piece_bytes)) {
      delta_event(ojson{{"tool_calls", ojson::array({ojson{{"index", i}, {"function", {{"arguments", piece}}}}})}});
    }
  }
  ojson last = ChunkBase(ctx);
  last["choices"] = ojson::array(
      {ojson{{"index", 0}, {"delta", ojson::object()}, {"logprobs", nullptr}, {"finish_reason", reply.finish_reason}}});
  events.push_back(Event(last));
  if (ctx.include_usage) {
    ojson usage = ChunkBase(ctx);
    usage["choices"] = ojson::array();
    usage["usage"] = Usage(reply, ctx);
    events.push_back(Event(usage));
  }
  events.push_back("data: [DONE]\n\n");
  return events;
}

std::string RenderStreamError(const std::string& message) {
  return Event(ojson{{"error", {{"message", message}, {"type", "server_error"}, {"param", nullptr}, {"code", 500}}}});
}

std::string RenderError(const std::string& message, const std::string& type, int code) {
  return Dump(ojson{{"error", {{"message", message}, {"type", type}, {"param", nullptr}, {"code", code}}}});
}

std::string RenderContextOverflow(int window, int prompt_tokens) {
  return RenderError("This model's maximum context length is " + std::to_string(window) +
                         " tokens. However, you requested " + std::to_string(prompt_tokens) +
                         " tokens in the messages, Please reduce the length of the messages.",
                     "BadRequestError", 400);
}

std::string RenderModels(const std::string& model_id, int context_window, std::int64_t created) {
  return Dump(ojson{{"object", "list"},
                    {"data", ojson::array({ojson{{"id", model_id},
                                                 {"object", "model"},
                                                 {"created", created},
                                                 {"owned_by", "seragen"},
                                                 {"root", model_id},
                                                 {"parent", nullptr},
                                                 {"max_model_len", context_window}}})}});
}

}  // namespace seragen::teacher
