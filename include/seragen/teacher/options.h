// Options of the built-in scripted teacher: what it pretends to be, how it
// answers (policy knobs), how slow it is (latency) and how often it fails
// (faults). Plain values; parsing helpers return errors that name the bad
// field. Everything here is deterministic input to the server.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "seragen/base/result.h"
#include "seragen/base/status.h"

namespace seragen::teacher {

// Strict server modes (--validate): requests the imitated server would refuse
// get its error instead of an answer (the rules: strict_validation.h).
enum class StrictMode { kOff, kVllm, kSglang, kLlamaCpp, kOpenAI };

// off | vllm | sglang | llamacpp | openai
Result<StrictMode> ParseStrictMode(std::string_view name);
std::string_view StrictModeName(StrictMode mode);

// How long the teacher "thinks" before answering. Samples are drawn per
// request from a seeded generator, so a run with the same seed and the same
// request sequence sees the same delays.
struct LatencyModel {
  enum class Kind { kZero, kFixed, kUniform, kExponential };
  Kind kind = Kind::kZero;
  double fixed_ms = 0;  // kFixed
  double min_ms = 0;    // kUniform
  double max_ms = 0;    // kUniform
  double mean_ms = 0;   // kExponential
  // Long tail: with probability tail_rate the sampled delay is multiplied.
  double tail_rate = 0;
  double tail_multiplier = 10;
  // For streams: fraction of the delay spent before the first chunk; the
  // rest is spread evenly between chunks.
  double first_chunk_fraction = 0.5;

  bool IsZero() const;
};

// Per-request failure probabilities (each in [0, 1]; their sum must be <= 1).
// One fault at most per request; the draw is seeded by (seed, request body,
// how many times this exact body was seen), so a retry can succeed.
struct FaultRates {
  double http500 = 0;
  double http502 = 0;
  double http503 = 0;
  double http429 = 0;
  double reset = 0;             // TCP reset before any response byte
  double hang = 0;              // no response until hang_seconds pass (or Stop())
  double truncate = 0;          // body cut short (non-stream) / stream cut without [DONE]
  double midstream = 0;         // streams only: an SSE error event after some chunks
  int retry_after_seconds = 1;  // Retry-After on 429
  double hang_seconds = 600;

  double Total() const;
};

// How tool calls are presented when the policy calls a tool.
enum class ReasoningMode { kNone, kReasoning, kReasoningContent, kThinkTag };
enum class RawMarkupStyle { kHermes, kQwenXml, kGlm };

struct PolicyKnobs {
  ReasoningMode reasoning = ReasoningMode::kReasoning;
  // Rates of wire-level glitches on tool-calling turns (seeded per attempt,
  // like faults): tool call left as raw markup in `content` with no
  // structured call, arguments that are not valid JSON, two calls in a turn.
  double raw_markup_rate = 0;
  RawMarkupStyle raw_markup_style = RawMarkupStyle::kHermes;
  double invalid_json_rate = 0;
  double multi_call_rate = 0;
  // Behaviour of the scripted agent.
  double check_command_rate = 0.5;       // run a quick check before submitting
  double rollout2_same_edit_rate = 0.6;  // rollout 2 repeats the edit its issue came from
  // > 0: a deliberately weaker agent for evaluation tests (--give-up-after):
  // rollout 2 submits whatever its working copy holds at this turn.
  int rollout2_give_up_after_turns = 0;
  double judge_yes_rate = 0.9;
  // Split streamed text and arguments into pieces of about this many bytes.
  int stream_piece_bytes = 24;
};

// Tool names for the roles the scripted agent needs. Tools offered in a
// request are matched by these names first, then by their parameters.
struct ToolRoles {
  std::string shell = "bash";
  std::string editor = "editor";
  std::string submit = "submit";
};

struct TeacherOptions {
  std::string bind_address = "127.0.0.1";
  int port = 0;  // 0: ephemeral, see Server::port()
  int threads = 1;
  int listen_backlog = 4096;
  std::uint64_t seed = 0;
  std::string model_id = "seragen-scripted-teacher (not a model)";
  // Non-empty: requests under /v1/ without "Authorization: Bearer <api_key>"
  // get a 401, as a server started with an API key does (--api-key-env).
  std::string api_key;
  // Reported by /v1/models as max_model_len; prompts whose estimated token
  // count exceeds it get a context-overflow 400.
  int context_window = 131072;
  // Prefix cache imitating vLLM's (16-token blocks, least recently used
  // dropped): 200 answers report usage.prompt_tokens_details.cached_tokens.
  // 0: no cache and no cached-token report.
  std::int64_t prefix_cache_blocks = 65536;
  // Directory with system.md, rollout1.md, rollout2.md, issue_writer.md,
  // judge.md and categories.yaml.
  std::string prompts_dir;
  // Optional JSONL file with one digest line per request.
  std::string request_log_path;
  // Output tags the teacher answers in when the prompt does not reveal them.
  std::string issue_tag = "issue";
  std::string judge_tag = "answer";
  // Strict server mode (--validate, --no-jinja): requests the imitated
  // server would refuse get its error instead of an answer.
  StrictMode strict = StrictMode::kOff;
  bool jinja = true;
  LatencyModel latency;
  FaultRates faults;
  PolicyKnobs knobs;
  ToolRoles tools;
  // Replay mode: answer from this script file (see script_policy.h) instead
  // of the rule-based policy, for the kinds it names. "" = off.
  std::string script_path;
  // Optional file with every chat request body, one per line (body_log.h).
  std::string body_log_path;
};

// "zero" | "fixed:MS" | "uniform:MIN-MAX" | "exp:MEAN", optionally followed by
// ",tail=RATExMULT" and ",first=FRACTION". Example: "exp:800,tail=0.02x20".
Result<LatencyModel> ParseLatencySpec(std::string_view spec);

// Comma-separated NAME=RATE with NAME in 500, 502, 503, 429, reset, hang,
// truncate, midstream; also retry_after=SECONDS and hang_seconds=SECONDS.
// "none" or "" means no faults. Example: "503=0.02,429=0.01,reset=0.005".
Result<FaultRates> ParseFaultSpec(std::string_view spec);

// Validates ranges (rates in [0,1], fault sum <= 1, port, threads, window).
Status ValidateOptions(const TeacherOptions& options);

// "none" | "reasoning" | "reasoning_content" | "think". The settings file
// (configs/teacher.yaml) is read by LoadTeacherSettingsFile (settings.h).
Result<ReasoningMode> ParseReasoningMode(std::string_view text);

// "hermes" | "qwen_xml" | "glm".
Result<RawMarkupStyle> ParseRawMarkupStyle(std::string_view text);

}  // namespace seragen::teacher
