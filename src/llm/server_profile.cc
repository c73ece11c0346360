#include "seragen/llm/server_profile.h"

#include <fmt/format.h>

#include <cctype>
#include <future>

#include "llm/error_classifier.h"
#include "llm/json_util.h"
#include "seragen/base/strings.h"
#include "seragen/llm/failure.h"
#include "seragen/llm/models_probe.h"

namespace seragen::llm {

namespace {

std::string HostOf(std::string_view base_url) {
  std::size_t scheme_end = base_url.find("://");
  std::size_t start = scheme_end == std::string_view::npos ? 0 : scheme_end + 3;
  std::size_t end = base_url.find_first_of("/:", start);
  return AsciiLower(base_url.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
}

bool HostIs(const std::string& host, std::string_view domain) {
  return host == domain ||
         (host.size() > domain.size() && host.compare(host.size() - domain.size(), domain.size(), domain) == 0 &&
          host[host.size() - domain.size() - 1] == '.');
}

}  // namespace

std::string_view ServerKindName(ServerKind kind) {
  switch (kind) {
    case ServerKind::kGeneric: return "generic";
    case ServerKind::kVllm: return "vllm";
    case ServerKind::kSglang: return "sglang";
    case ServerKind::kLlamaCpp: return "llamacpp";
    case ServerKind::kOpenAI: return "openai";
    case ServerKind::kOpenRouter: return "openrouter";
  }
  return "generic";
}

Result<ServerKind> ParseServerKind(std::string_view name) {
  for (ServerKind k : {ServerKind::kGeneric, ServerKind::kVllm, ServerKind::kSglang, ServerKind::kLlamaCpp,
                       ServerKind::kOpenAI, ServerKind::kOpenRouter}) {
    if (ServerKindName(k) == name) return k;
  }
  return InvalidArgumentError("unknown server kind '" + std::string(name) +
                              "' (expected auto, vllm, sglang, llamacpp, openai, openrouter or generic)");
}

bool IsOpenAiReasoningModel(std::string_view model_id) {
  std::string id = AsciiLower(model_id);
  if (id.starts_with("openai/")) id = id.substr(7);
  if (id.starts_with("gpt-5")) return true;
  if (id.size() >= 2 && id[0] == 'o' && std::isdigit(static_cast<unsigned char>(id[1])))
    return true;  // o1, o3, o4-mini
  return false;
}

WireOptions ProfileDefaults(ServerKind kind, std::string_view model_id) {
  using F = WireOptions::ReasoningField;
  using M = WireOptions::MaxTokensField;
  using P = WireOptions::ParallelToolCalls;
  WireOptions w;
  switch (kind) {
    case ServerKind::kVllm:  // honours parallel_tool_calls=false; reads `reasoning` in history
      w.reasoning_field = F::kReasoning;
      w.parallel_tool_calls = P::kFalse;
      break;
    case ServerKind::kSglang:  // does not enforce parallel_tool_calls; reasoning_content
      w.reasoning_field = F::kReasoningContent;
      w.parallel_tool_calls = P::kOmit;
      break;
    case ServerKind::kLlamaCpp:  // older builds ignore max_completion_tokens
      w.reasoning_field = F::kReasoningContent;
      w.parallel_tool_calls = P::kFalse;
      break;
    case ServerKind::kOpenAI: {
      const bool reasoning_model = IsOpenAiReasoningModel(model_id);
      w.reasoning_field = F::kOmit;  // no reasoning field in Chat Completions history
      w.max_tokens_field = M::kMaxCompletionTokens;
      w.send_sampling = !reasoning_model;
      w.parallel_tool_calls = reasoning_model ? P::kOmit : P::kFalse;
      break;
    }
    case ServerKind::kOpenRouter:
      w.reasoning_field = F::kReasoning;
      w.parallel_tool_calls = P::kFalse;
      if (IsOpenAiReasoningModel(model_id)) w.send_sampling = false;
      break;
    case ServerKind::kGeneric:
      w.reasoning_field = F::kReasoning;
      w.parallel_tool_calls = P::kOmit;
      break;
  }
  return w;
}

WireOptions ResolveWireOptions(ServerKind kind, std::string_view model_id, const RequestOverrides& o) {
  WireOptions w = ProfileDefaults(kind, model_id);
  if (o.max_tokens_field) w.max_tokens_field = *o.max_tokens_field;
  if (o.send_sampling) w.send_sampling = *o.send_sampling;
  if (o.parallel_tool_calls) w.parallel_tool_calls = *o.parallel_tool_calls;
  if (o.reasoning_field) w.reasoning_field = *o.reasoning_field;
  return w;
}

std::string DescribeWireOptions(const WireOptions& w) {
  return fmt::format(
      "max tokens field    {}  (llm.max_tokens_field)\n"
      "sampling fields     {}  (llm.sampling_fields)\n"
      "parallel_tool_calls {}  (llm.parallel_tool_calls)\n"
      "reasoning in history {} (llm.reasoning_field)\n",
      MaxTokensFieldName(w.max_tokens_field), w.send_sampling ? "send" : "omit",
      ParallelToolCallsName(w.parallel_tool_calls), ReasoningFieldName(w.reasoning_field));
}

Detection DetectFromFacts(const DetectionFacts& f) {
  auto is = [](ServerKind k, std::string evidence) { return Detection{k, std::move(evidence)}; };
  if (AsciiLower(f.server_header).find("llama.cpp") != std::string::npos) {
    return is(ServerKind::kLlamaCpp, "Server: " + f.server_header + " header");
  }
  if (f.props_ok) return is(ServerKind::kLlamaCpp, "/props answers with build_info");
  if (f.owned_by == "vllm")
    return is(ServerKind::kVllm, std::string("/models owned_by vllm") + (f.version_ok ? ", /version" : ""));
  if (f.owned_by == "sglang") return is(ServerKind::kSglang, "/models owned_by sglang");
  if (f.owned_by == "llamacpp") return is(ServerKind::kLlamaCpp, "/models owned_by llamacpp");
  if (f.server_info_ok) return is(ServerKind::kSglang, "/server_info answers");
  if (HostIs(f.host, "openrouter.ai")) return is(ServerKind::kOpenRouter, "host " + f.host);
  if (HostIs(f.host, "api.openai.com")) return is(ServerKind::kOpenAI, "host " + f.host);
  if (f.openrouter_shape) return is(ServerKind::kOpenRouter, "/models entries carry context_length");
  if (f.version_ok) return is(ServerKind::kVllm, "/version answers (no owned_by)");
  return is(ServerKind::kGeneric, "no server-specific sign (owned_by '" + f.owned_by + "')");
}

namespace {

http::Response Fetch(http::Client& client, const EndpointOptions& ep, std::string url,
                     std::chrono::milliseconds timeout) {
  http::Request req = ProbeRequest(ep, std::move(url), timeout);
  std::promise<http::Response> promise;
  auto future = promise.get_future();
  client.Send(std::move(req), [&promise](http::Response r) { promise.set_value(std::move(r)); });
  return future.get();
}

bool JsonHas(const std::string& body, std::string_view key) {
  auto parsed = internal::TryParse(body);
  return parsed && parsed->is_object() && parsed->contains(std::string(key));
}

}  // namespace

Result<Detection> DetectServer(http::Client& client, const EndpointOptions& ep, std::chrono::milliseconds timeout) {
  http::Response models = Fetch(client, ep, ep.base_url + "/models", timeout);
  if (!models.transport_ok() || models.status != 200) {
    Classification c = models.transport_ok() ? ClassifyHttpError(models.status, models.body)
                                             : ClassifyTransport(models.error, models.error_message);
    return MakeFailure(c.failure_class, "GET " + ep.base_url + "/models: " + c.message);
  }
  return DetectServerFrom(client, ep, models, timeout);
}

Detection DetectServerFrom(http::Client& client, const EndpointOptions& ep, const http::Response& models,
                           std::chrono::milliseconds timeout) {
  DetectionFacts facts;
  facts.host = HostOf(ep.base_url);
  facts.server_header = models.FindHeader("server").value_or("");
  if (auto report = ParseModelsResponse(models.body); report.ok()) {
    facts.owned_by = report->models.front().owned_by;
    facts.openrouter_shape = report->server_kind == "openrouter";
  }
  Detection d = DetectFromFacts(facts);
  if (d.kind != ServerKind::kGeneric) return d;
  // Only self-hosted servers need the extra paths.
  const std::string root = ServerRoot(ep.base_url);
  http::Response props = Fetch(client, ep, root + "/props", timeout);
  facts.props_ok = props.transport_ok() && props.status == 200 && JsonHas(props.body, "build_info");
  if (!facts.props_ok) {
    for (const char* path : {"/server_info", "/get_server_info"}) {
      http::Response info = Fetch(client, ep, root + path, timeout);
      if (info.transport_ok() && info.status == 200 && JsonHas(info.body, "version")) facts.server_info_ok = true;
      if (facts.server_info_ok) break;
    }
  }
  if (!facts.props_ok && !facts.server_info_ok) {
    http::Response version = Fetch(client, ep, root + "/version", timeout);
    facts.version_ok = version.transport_ok() && version.status == 200 && JsonHas(version.body, "version");
  }
  return DetectFromFacts(facts);
}

void ResolveServerProfiles(std::string_view server, std::string_view model, const RequestOverrides& overrides,
                           const DetectFn& detect, std::vector<EndpointOptions>& endpoints, const log::Logger& logger) {
  for (EndpointOptions& eo : endpoints) {
    ServerKind kind = ServerKind::kGeneric;
    std::string how = "configured (llm.server)";
    if (server == "auto") {
      Result<Detection> detected = detect(eo);
      if (detected.ok()) {
        kind = detected->kind;
        how = "detected: " + detected->evidence;
      } else {
        how = "not detected (" + detected.status().message() + "); set llm.server";
      }
    } else if (Result<ServerKind> parsed = ParseServerKind(server); parsed.ok()) {
      kind = *parsed;
    }
    eo.wire = ResolveWireOptions(kind, model, overrides);
    logger.Info("endpoint {}: server {} ({}); max tokens field {}, sampling {}, parallel_tool_calls {}, reasoning {}",
                eo.base_url, ServerKindName(kind), how, MaxTokensFieldName(eo.wire->max_tokens_field),
                eo.wire->send_sampling ? "sent" : "omitted", ParallelToolCallsName(eo.wire->parallel_tool_calls),
                ReasoningFieldName(eo.wire->reasoning_field));
  }
}

}  // namespace seragen::llm
