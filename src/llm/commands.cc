#include "seragen/llm/commands.h"

#include <fmt/format.h>

#include <algorithm>
#include <future>

#include "llm/error_classifier.h"
#include "seragen/base/clock.h"
#include "seragen/http/curl_client.h"
#include "seragen/llm/endpoint_options.h"
#include "seragen/llm/http_chat_client.h"
#include "seragen/llm/server_profile.h"
#include "seragen/loop/event_loop.h"

namespace seragen::llm {

namespace {

http::Response Fetch(http::Client& client, http::Request request) {
  std::promise<http::Response> promise;
  auto future = promise.get_future();
  client.Send(std::move(request), [&promise](http::Response r) { promise.set_value(std::move(r)); });
  return future.get();
}

Status FailureOf(const http::Response& r, const std::string& what) {
  Classification c =
      r.transport_ok() ? ClassifyHttpError(r.status, r.body) : ClassifyTransport(r.error, r.error_message);
  return MakeFailure(c.failure_class, what + ": " + c.message);
}

Result<PingReport> Ping(http::Client& client, const EndpointOptions& ep, std::chrono::milliseconds timeout,
                        http::Response* models_response = nullptr) {
  PingReport report;
  report.base_url = ep.base_url;
  auto start = std::chrono::steady_clock::now();
  http::Response r = Fetch(client, ProbeRequest(ep, ep.base_url + "/models", timeout));
  report.latency = std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - start);
  if (!r.transport_ok() || r.status != 200) return FailureOf(r, "GET " + ep.base_url + "/models");
  auto models = ParseModelsResponse(r.body);
  if (!models.ok()) {
    return MakeFailure(FailureClass::kConfig, "GET " + ep.base_url + "/models: " + models.status().message());
  }
  report.models = std::move(*models);
  if (models_response) *models_response = r;
  if (report.models.server_kind == "llamacpp") {
    http::Response props = Fetch(client, ProbeRequest(ep, ServerRoot(ep.base_url) + "/props", timeout));
    if (props.transport_ok() && props.status == 200) {
      if (auto n = ParseLlamaCppPropsContext(props.body); n.ok()) report.props_context = *n;
    }
  }
  return report;
}

// One chat request on its own client over `client`, with up to 3 attempts.
Result<ChatResponse> SendOnce(http::Client& client, loop::EventLoop& loop, const EndpointOptions& ep,
                              const ChatRequest& request, std::chrono::milliseconds timeout, bool stream) {
  ChatClientOptions chat_options;
  chat_options.endpoints.push_back(ep);
  chat_options.retry.max_attempts = 3;
  HttpChatClient chat(client, loop, SystemClock(), chat_options);
  std::promise<Result<ChatResponse>> promise;
  auto future = promise.get_future();
  CallOptions call;
  call.stream = stream;
  call.attempt_timeout = timeout;
  call.deadline = timeout * 3;
  chat.Complete(request, call, [&promise](Result<ChatResponse> r) { promise.set_value(std::move(r)); });
  return future.get();
}

bool OffersTool(const std::vector<ToolSpec>& tools, const std::string& name) {
  return std::any_of(tools.begin(), tools.end(), [&](const ToolSpec& t) { return t.name == name; });
}

// The answer to the tool-check request, judged: a call of an offered tool
// with arguments that are one JSON object.
ToolCheck JudgeToolAnswer(const Result<ChatResponse>& answer, const std::vector<ToolSpec>& tools) {
  ToolCheck check;
  check.ran = true;
  if (!answer.ok()) {
    check.detail = "the request failed: " + answer.status().Text();
    return check;
  }
  const ChatResponse& r = *answer;
  check.served_model = r.model;
  if (r.tool_calls.empty()) {
    check.detail = r.tool_issue != ToolIssue::kNone
                       ? fmt::format("no parsed tool call ({}: {})", ToolIssueName(r.tool_issue), r.tool_issue_detail)
                       : fmt::format("the answer has no tool call (finish_reason {}, {} bytes of text)",
                                     r.finish_reason.empty() ? "-" : r.finish_reason, r.content.size());
    return check;
  }
  const ToolCall& c = r.tool_calls.front();
  if (!OffersTool(tools, c.name)) {
    check.detail = fmt::format("the model called '{}', which was not offered", c.name.substr(0, 64));
  } else if (!c.arguments_valid) {
    check.detail = fmt::format("{}({}) has arguments that are not one JSON object: {}", c.name,
                               c.arguments_raw.substr(0, 120), c.arguments_error);
  } else {
    check.works = true;
    check.detail = fmt::format("{}({})", c.name, c.arguments_raw.substr(0, 120));
  }
  return check;
}

ToolCheck RunToolCheck(http::Client& client, loop::EventLoop& loop, EndpointOptions ep, const PingOptions& options,
                       ServerKind kind, const std::string& model) {
  ep.wire = ResolveWireOptions(kind, model, options.overrides);
  ChatRequest request;
  request.model = model;
  request.messages.push_back({Role::kUser, options.tool_check_prompt});
  request.tools = options.tool_check_tools;
  request.tool_choice.mode = ToolChoice::Mode::kAuto;
  return JudgeToolAnswer(SendOnce(client, loop, ep, request, options.timeout, false), request.tools);
}

}  // namespace

EndpointProbe ProbeEndpointModels(const PingOptions& options) {
  EndpointProbe probe;
  Result<EndpointOptions> ep = MakeEndpointOptions(options.base_url, options.api_key_env);
  if (ep.ok()) {
    if (auto headers = ResolveHeaders(options.headers); headers.ok()) {
      ep->headers = std::move(*headers);
    } else {
      ep = headers.status();
    }
  }
  if (!ep.ok()) {
    probe.detail = ep.status().message();
    return probe;
  }
  loop::EventLoop loop;
  http::CurlClient client(loop);
  const std::string what = "GET " + ep->base_url + "/models";
  http::Response r = Fetch(client, ProbeRequest(*ep, ep->base_url + "/models", options.timeout));
  if (!r.transport_ok() || r.status != 200) {
    Classification c =
        r.transport_ok() ? ClassifyHttpError(r.status, r.body) : ClassifyTransport(r.error, r.error_message);
    probe.detail = what + ": " + c.message.substr(0, c.message.size() - c.hint.size());
    if (c.failure_class == FailureClass::kConfig) {
      const bool credentials = r.transport_ok() && (r.status == 401 || r.status == 403);
      probe.outcome = credentials ? ProbeOutcome::kRefusedCredentials : ProbeOutcome::kRefusedAddress;
    }
    return probe;
  }
  auto models = ParseModelsResponse(r.body);
  if (!models.ok()) {
    probe.outcome = ProbeOutcome::kRefusedAddress;
    probe.detail = what + ": " + models.status().message();
    return probe;
  }
  probe.outcome = ProbeOutcome::kListed;
  for (ModelInfo& m : models->models) probe.model_ids.push_back(std::move(m.id));
  return probe;
}

Result<PingReport> PingEndpoint(const PingOptions& options) {
  SG_ASSIGN_OR_RETURN(EndpointOptions ep, MakeEndpointOptions(options.base_url, options.api_key_env));
  SG_ASSIGN_OR_RETURN(ep.headers, ResolveHeaders(options.headers));
  loop::EventLoop loop;
  http::CurlClient client(loop);
  http::Response models;
  SG_ASSIGN_OR_RETURN(PingReport report, Ping(client, ep, options.timeout, &models));
  ServerKind kind = ServerKind::kGeneric;
  if (options.server == "auto") {
    Detection d = DetectServerFrom(client, ep, models, options.timeout);
    kind = d.kind;
    report.server_evidence = "detected: " + d.evidence;
  } else {
    SG_ASSIGN_OR_RETURN(kind, ParseServerKind(options.server));
    report.server_evidence = "configured";
  }
  report.server = std::string(ServerKindName(kind));
  std::vector<std::string> served;
  for (const ModelInfo& m : report.models.models) served.push_back(m.id);
  const ModelChoice choice = ChooseModel(options.model, served);
  report.model = choice.model;
  report.model_listed = choice.listed;
  report.settings = DescribeWireOptions(ResolveWireOptions(kind, report.model, options.overrides));
  if (!options.tool_check_prompt.empty() && (report.model_listed || options.allow_unlisted_model)) {
    report.tool_check = RunToolCheck(client, loop, ep, options, kind, report.model);
  }
  return report;
}

std::string FormatPingReport(const PingReport& report) {
  std::string out = fmt::format("endpoint   {}\nserver     {}\nlatency    {:.1f} ms (GET /models)\n", report.base_url,
                                report.models.server_kind, static_cast<double>(report.latency.count()) / 1000.0);
  for (const auto& m : report.models.models) {
    std::string ctx = m.context_window ? fmt::format("{} ({})", *m.context_window, m.context_source) : "unknown";
    out += fmt::format("model      {}  owned_by={}  context={}{}\n", m.id, m.owned_by.empty() ? "-" : m.owned_by, ctx,
                       m.parent.empty() ? "" : "  parent=" + m.parent);
  }
  if (report.props_context) out += fmt::format("served ctx {} (/props n_ctx)\n", *report.props_context);
  if (!report.server.empty()) {
    out += fmt::format("profile    {} ({})\nrequest settings a run uses with this endpoint:\n{}", report.server,
                       report.server_evidence, report.settings);
  }
  if (!report.model_listed) {
    out += fmt::format(
        "model      '{}' is NOT listed by this endpoint: a run stops with exit code 2 (set llm.model to a listed id, "
        "or llm.allow_unlisted_model: true when a gateway routes names it does not list)\n",
        report.model);
  }
  const ToolCheck& t = report.tool_check;
  if (t.ran && t.works) {
    out += fmt::format("tool call  works: {} (answered by model '{}')\n", t.detail, t.served_model);
  } else if (t.ran) {
    out += fmt::format(
        "tool call  FAILED: {}\n           a run needs tool calling: start vLLM with --enable-auto-tool-choice "
        "--tool-call-parser NAME, llama.cpp with --jinja, SGLang with --tool-call-parser NAME (docs/SERVERS.md)\n",
        t.detail);
  }
  return out;
}

Result<ChatCommandReport> RunChatCommand(const ChatCommandOptions& options) {
  if (options.prompt.empty()) return InvalidArgumentError("--prompt is empty");
  SG_ASSIGN_OR_RETURN(EndpointOptions ep, MakeEndpointOptions(options.base_url, options.api_key_env));
  loop::EventLoop loop;
  http::CurlClient client(loop);
  ChatCommandReport report;
  report.model = options.model;
  const auto probe_timeout = std::min(options.timeout, std::chrono::milliseconds(30000));
  std::optional<http::Response> models;
  if (report.model.empty()) {
    models.emplace();
    SG_ASSIGN_OR_RETURN(PingReport ping, Ping(client, ep, probe_timeout, &*models));
    report.model = ping.models.models.front().id;
  }
  // Send only what this server accepts (e.g. max_completion_tokens for OpenAI reasoning models).
  ServerKind kind = ServerKind::kGeneric;
  if (options.server == "auto") {
    if (models) {
      kind = DetectServerFrom(client, ep, *models, probe_timeout).kind;
    } else if (auto detected = DetectServer(client, ep, probe_timeout); detected.ok()) {
      kind = detected->kind;
    }
  } else {
    SG_ASSIGN_OR_RETURN(kind, ParseServerKind(options.server));
  }
  ep.wire = ProfileDefaults(kind, report.model);
  ChatRequest request;
  request.model = report.model;
  if (!options.system_prompt.empty()) request.messages.push_back({Role::kSystem, options.system_prompt});
  request.messages.push_back({Role::kUser, options.prompt});
  request.max_tokens = options.max_tokens;
  Result<ChatResponse> result = SendOnce(client, loop, ep, request, options.timeout, options.stream);
  if (!result.ok()) return result.status();
  report.response = std::move(*result);
  return report;
}

std::string FormatChatReport(const ChatCommandReport& report) {
  const ChatResponse& r = report.response;
  std::string out = fmt::format("model      {}\nfinish     {}\n", report.model, r.finish_reason);
  if (r.usage.present) {
    out +=
        fmt::format("usage      prompt={} completion={} cached={}\n", r.usage.prompt_tokens, r.usage.completion_tokens,
                    r.usage.cached_prompt_tokens ? std::to_string(*r.usage.cached_prompt_tokens) : "unknown");
  }
  out += fmt::format("latency    {:.1f} ms total, first byte {:.1f} ms, attempts {}\n",
                     static_cast<double>(r.timings.total.count()) / 1000.0,
                     static_cast<double>(r.timings.first_byte.count()) / 1000.0, r.timings.attempts);
  if (!r.reasoning.empty()) {
    out += fmt::format("reasoning  ({})\n{}\n", ReasoningSourceName(r.reasoning_source), r.reasoning);
  }
  for (const auto& c : r.tool_calls) out += fmt::format("tool call  {}({})\n", c.name, c.arguments_raw);
  if (r.tool_issue != ToolIssue::kNone)
    out += fmt::format("tool issue {}: {}\n", ToolIssueName(r.tool_issue), r.tool_issue_detail);
  out += "content\n" + r.content + "\n";
  return out;
}

}  // namespace seragen::llm
