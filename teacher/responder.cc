#include "teacher/responder.h"

#include <cmath>

#include "seragen/base/hash.h"
#include "seragen/base/rng.h"
#include "teacher/policy.h"
#include "teacher/strict_validation.h"
#include "teacher/wire_format.h"

namespace seragen::teacher {
namespace {

double SampleLatencyMs(const LatencyModel& m, Rng& rng) {
  double ms = 0;
  switch (m.kind) {
    case LatencyModel::Kind::kZero: return 0;
    case LatencyModel::Kind::kFixed: ms = m.fixed_ms; break;
    case LatencyModel::Kind::kUniform: ms = m.min_ms + rng.UniformDouble() * (m.max_ms - m.min_ms); break;
    case LatencyModel::Kind::kExponential: ms = rng.Exponential(m.mean_ms); break;
  }
  if (rng.Bernoulli(m.tail_rate)) ms *= m.tail_multiplier;
  return std::max(0.0, ms);
}

FaultKind DrawFault(const FaultRates& f, Rng& rng) {
  double u = rng.UniformDouble();
  const std::pair<double, FaultKind> table[] = {
      {f.http500, FaultKind::k500},       {f.http502, FaultKind::k502},        {f.http503, FaultKind::k503},
      {f.http429, FaultKind::k429},       {f.reset, FaultKind::kReset},        {f.hang, FaultKind::kHang},
      {f.truncate, FaultKind::kTruncate}, {f.midstream, FaultKind::kMidstream}};
  for (const auto& [rate, kind] : table) {
    if (u < rate) return kind;
    u -= rate;
  }
  return FaultKind::kNone;
}

// Faults that replace the answer (HTTP errors, reset, hang): fills *plan and
// returns true; false for no fault or one applied to the answer itself.
bool PlanInjectedFault(const FaultRates& faults, double total_ms, ResponsePlan* plan) {
  switch (plan->fault) {
    case FaultKind::k500:
    case FaultKind::k502:
    case FaultKind::k503: {
      plan->status = plan->fault == FaultKind::k500 ? 500 : plan->fault == FaultKind::k502 ? 502 : 503;
      plan->stream = false;
      plan->body = RenderError("The scripted teacher injected a " + std::to_string(plan->status) + " fault.",
                               "server_error", plan->status);
      plan->record.status = plan->status;
      plan->delay = std::chrono::milliseconds(static_cast<long>(total_ms / 4));
      return true;
    }
    case FaultKind::k429:
      plan->status = 429;
      plan->stream = false;
      plan->headers.emplace_back("Retry-After", std::to_string(faults.retry_after_seconds));
      plan->body = RenderError("Rate limit reached (injected by the scripted teacher). Please try again in " +
                                   std::to_string(faults.retry_after_seconds) + "s.",
                               "rate_limit_exceeded", 429);
      plan->record.status = 429;
      return true;
    case FaultKind::kReset: plan->record.status = 0; return true;
    case FaultKind::kHang:
      plan->record.status = 0;
      plan->hang = std::chrono::milliseconds(static_cast<long>(faults.hang_seconds * 1000));
      return true;
    default: return false;
  }
}

// The answer: an SSE stream or one JSON body, with its delays and any cut.
void PlanAnswer(const PolicyReply& reply, const WireContext& wire, const LatencyModel& latency, double total_ms,
                ResponsePlan* plan) {
  if (plan->stream) {
    plan->content_type = "text/event-stream";
    plan->events = RenderStream(reply, wire);
    const double first = total_ms * latency.first_chunk_fraction;
    plan->delay = std::chrono::milliseconds(static_cast<long>(first));
    if (plan->events.size() > 1) {
      plan->chunk_gap = std::chrono::milliseconds(
          static_cast<long>((total_ms - first) / static_cast<double>(plan->events.size() - 1)));
    }
    if (plan->fault == FaultKind::kTruncate || plan->fault == FaultKind::kMidstream) {
      plan->cut_at = std::max<std::size_t>(1, plan->events.size() / 2);
    }
  } else {
    plan->body = RenderCompletion(reply, wire);
    plan->delay = std::chrono::milliseconds(static_cast<long>(total_ms));
    if (plan->fault == FaultKind::kTruncate) plan->cut_at = plan->body.size() / 2;
  }
}

// An answer that never ends: the opening of a completion whose content then
// goes on without end, or content events without end.
void PlanEndless(ResponsePlan* plan) {
  plan->fault = FaultKind::kEndless;
  plan->record.fault = "endless";
  if (plan->stream) {
    plan->body.clear();
    const std::string event = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"" + std::string(8000, 'x') +
                              "\"},\"finish_reason\":null}]}\n\n";
    plan->endless_piece.clear();
    for (int i = 0; i < 8; ++i) plan->endless_piece += event;
  } else {
    plan->body = R"({"id":"chatcmpl-endless","object":"chat.completion","choices":[{"index":0,"message":{"role":)"
                 R"("assistant","content":")";
    plan->endless_piece = std::string(65536, 'x');
  }
}

}  // namespace

std::string_view FaultKindName(FaultKind kind) {
  switch (kind) {
    case FaultKind::kNone: return "none";
    case FaultKind::k500: return "500";
    case FaultKind::k502: return "502";
    case FaultKind::k503: return "503";
    case FaultKind::k429: return "429";
    case FaultKind::kReset: return "reset";
    case FaultKind::kHang: return "hang";
    case FaultKind::kTruncate: return "truncate";
    case FaultKind::kMidstream: return "midstream";
    case FaultKind::kContextOverflow: return "overflow";
    case FaultKind::kBadRequest: return "bad_request";
    case FaultKind::kEndless: return "endless";
  }
  return "none";
}

Responder::Responder(TeacherOptions options, PromptSet prompts, std::shared_ptr<ScriptPolicy> script)
    : options_(std::move(options)), prompts_(std::move(prompts)), script_(std::move(script)) {
  if (options_.prefix_cache_blocks > 0) {
    cache_ = std::make_unique<PrefixCache>(static_cast<std::size_t>(options_.prefix_cache_blocks));
  }
}

int Responder::NextAttempt(const std::string& digest) {
  std::lock_guard<std::mutex> lock(mu_);
  if (attempts_.size() > 200000) attempts_.clear();  // bounded memory on long load tests
  return attempts_[digest]++;
}

std::string Responder::ModelsBody() const {
  std::string body = RenderModels(options_.model_id, options_.context_window, kFixedCreated);
  if (options_.strict == StrictMode::kOff) return body;
  // Present the owner the imitated server reports (auto detection reads it).
  const std::string vllm = "\"owned_by\":\"seragen\"";
  if (auto pos = body.find(vllm); pos != std::string::npos) {
    body.replace(pos, vllm.size(), "\"owned_by\":\"" + std::string(OwnedByFor(options_.strict)) + "\"");
  }
  return body;
}

ResponsePlan Responder::PlanChat(std::string_view body) {
  ResponsePlan plan;
  const std::string digest = Sha256Hex(body).substr(0, 32);
  plan.record.digest = digest;
  auto parsed = ParseChatRequest(body);
  if (!parsed.ok()) {
    plan.status = 400;
    plan.fault = FaultKind::kBadRequest;
    plan.body = RenderError(parsed.status().message(), "invalid_request_error", 400);
    plan.record.kind = "invalid";
    plan.record.fault = "bad_request";
    plan.record.status = 400;
    return plan;
  }
  const ChatRequest& request = *parsed;
  StrictOptions strict{options_.strict, options_.jinja, options_.model_id};
  if (auto rejection = ValidateStrict(body, strict)) {
    plan.status = rejection->status;
    plan.fault = FaultKind::kBadRequest;
    plan.body = std::move(rejection->body);
    plan.record.kind = "rejected";
    plan.record.fault = "rejected";
    plan.record.status = rejection->status;
    plan.record.rejection = rejection->message;
    return plan;
  }
  const int attempt = NextAttempt(digest);
  const std::string attempt_key = digest + ":" + std::to_string(attempt);
  plan.stream = request.stream;
  plan.record.attempt = attempt;
  plan.record.stream = request.stream;
  plan.record.conversation = ConversationId(request);
  plan.record.turn = AssistantTurns(request);

  PolicyContext ctx;
  ctx.seed = options_.seed;
  ctx.prompts = &prompts_;
  ctx.knobs = options_.knobs;
  ctx.roles = options_.tools;
  ctx.fallback_issue_tag = options_.issue_tag;
  ctx.fallback_judge_tag = options_.judge_tag;
  ctx.edits = &edits_;
  PolicyReply reply = script_ ? script_->Reply(request, ctx) : Decide(request, ctx);
  plan.record.kind = std::string(RequestKindName(reply.kind));
  plan.record.rollout_start = reply.rollout_start;

  const int prompt_tokens = EstimateTokens(request.text_bytes);
  if (prompt_tokens > options_.context_window) {
    plan.status = 400;
    plan.stream = false;
    plan.fault = FaultKind::kContextOverflow;
    plan.body = RenderContextOverflow(options_.context_window, prompt_tokens);
    plan.record.fault = "overflow";
    plan.record.status = 400;
    return plan;
  }

  Rng fault_rng = Rng::Derive(options_.seed, attempt_key, "fault");
  plan.fault = DrawFault(options_.faults, fault_rng);
  if (plan.fault == FaultKind::kMidstream && !request.stream) plan.fault = FaultKind::kNone;
  Rng latency_rng = Rng::Derive(options_.seed, attempt_key, "latency");
  const double total_ms = SampleLatencyMs(options_.latency, latency_rng);

  WireContext wire;
  wire.completion_id = "chatcmpl-" + Sha256Hex(std::to_string(options_.seed) + ":" + digest).substr(0, 29);
  wire.created = kFixedCreated;
  wire.model = options_.model_id;
  wire.prompt_tokens = prompt_tokens;
  wire.reasoning = options_.knobs.reasoning;
  wire.include_usage = request.include_usage;
  wire.piece_bytes = options_.knobs.stream_piece_bytes;
  reply = ApplyGlitches(std::move(reply), options_.knobs, Rng::Derive(options_.seed, attempt_key, "glitch").NextU64());

  plan.record.fault = std::string(FaultKindName(plan.fault));
  if (PlanInjectedFault(options_.faults, total_ms, &plan)) return plan;
  if (cache_) wire.cached_tokens = cache_->LookupAndInsert(RenderPromptForCache(request), prompt_tokens);
  PlanAnswer(reply, wire, options_.latency, total_ms, &plan);
  if (reply.endless) PlanEndless(&plan);
  plan.record.status = 200;
  return plan;
}

}  // namespace seragen::teacher
