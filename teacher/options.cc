#include "teacher/options.h"

#include <charconv>
#include <cmath>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "seragen/base/strings.h"

namespace seragen::teacher {
namespace {

std::vector<std::string> Split(std::string_view s, char sep) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (true) {
    std::size_t pos = s.find(sep, start);
    parts.push_back(std::string(TrimLineSpace(s.substr(start, pos == std::string_view::npos ? pos : pos - start))));
    if (pos == std::string_view::npos) break;
    start = pos + 1;
  }
  return parts;
}

Result<double> ParseNumber(std::string_view text, std::string_view what) {
  std::string t(TrimLineSpace(text));
  double value = 0;
  auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), value);
  if (t.empty() || ec != std::errc() || ptr != t.data() + t.size() || !std::isfinite(value)) {
    return InvalidArgumentError(std::string(what) + ": '" + t + "' is not a number");
  }
  return value;
}

Status CheckRate(double rate, std::string_view what) {
  if (rate < 0 || rate > 1) {
    return InvalidArgumentError(std::string(what) + ": rate " + std::to_string(rate) + " is outside [0, 1]");
  }
  return Status::Ok();
}

// The names of the enumerations' values, as the settings file and the flags
// spell them.
template <typename E>
using NamedValue = std::pair<std::string_view, E>;
constexpr NamedValue<ReasoningMode> kReasoningNames[] = {{"none", ReasoningMode::kNone},
                                                         {"reasoning", ReasoningMode::kReasoning},
                                                         {"reasoning_content", ReasoningMode::kReasoningContent},
                                                         {"think", ReasoningMode::kThinkTag}};
constexpr NamedValue<RawMarkupStyle> kRawMarkupNames[] = {
    {"hermes", RawMarkupStyle::kHermes}, {"qwen_xml", RawMarkupStyle::kQwenXml}, {"glm", RawMarkupStyle::kGlm}};
constexpr NamedValue<StrictMode> kStrictNames[] = {{"off", StrictMode::kOff},
                                                   {"vllm", StrictMode::kVllm},
                                                   {"sglang", StrictMode::kSglang},
                                                   {"llamacpp", StrictMode::kLlamaCpp},
                                                   {"openai", StrictMode::kOpenAI}};

template <typename E, std::size_t N>
std::optional<E> FindByName(const NamedValue<E> (&table)[N], std::string_view text) {
  for (const auto& [name, value] : table) {
    if (name == text) return value;
  }
  return std::nullopt;
}

}  // namespace

bool LatencyModel::IsZero() const {
  switch (kind) {
    case Kind::kZero: return true;
    case Kind::kFixed: return fixed_ms <= 0;
    case Kind::kUniform: return max_ms <= 0;
    case Kind::kExponential: return mean_ms <= 0;
  }
  return true;
}

double FaultRates::Total() const { return http500 + http502 + http503 + http429 + reset + hang + truncate + midstream; }

Result<LatencyModel> ParseLatencySpec(std::string_view spec) {
  LatencyModel model;
  std::vector<std::string> parts = Split(spec, ',');
  const std::string& head = parts[0];
  const std::string where = "latency spec '" + std::string(spec) + "'";
  if (head.empty() || head == "zero" || head == "0" || head == "none") {
    model.kind = LatencyModel::Kind::kZero;
  } else if (head.rfind("fixed:", 0) == 0) {
    model.kind = LatencyModel::Kind::kFixed;
    SG_ASSIGN_OR_RETURN(model.fixed_ms, ParseNumber(head.substr(6), where));
  } else if (head.rfind("uniform:", 0) == 0) {
    model.kind = LatencyModel::Kind::kUniform;
    std::vector<std::string> range = Split(head.substr(8), '-');
    if (range.size() != 2) return InvalidArgumentError(where + ": uniform needs MIN-MAX");
    SG_ASSIGN_OR_RETURN(model.min_ms, ParseNumber(range[0], where));
    SG_ASSIGN_OR_RETURN(model.max_ms, ParseNumber(range[1], where));
    if (model.min_ms > model.max_ms) return InvalidArgumentError(where + ": MIN is above MAX");
  } else if (head.rfind("exp:", 0) == 0) {
    model.kind = LatencyModel::Kind::kExponential;
    SG_ASSIGN_OR_RETURN(model.mean_ms, ParseNumber(head.substr(4), where));
  } else {
    return InvalidArgumentError(where + ": expected zero, fixed:MS, uniform:MIN-MAX or exp:MEAN");
  }
  for (std::size_t i = 1; i < parts.size(); ++i) {
    const std::string& p = parts[i];
    if (p.rfind("tail=", 0) == 0) {
      std::vector<std::string> tail = Split(p.substr(5), 'x');
      if (tail.size() != 2) return InvalidArgumentError(where + ": tail needs RATExMULTIPLIER");
      SG_ASSIGN_OR_RETURN(model.tail_rate, ParseNumber(tail[0], where));
      SG_ASSIGN_OR_RETURN(model.tail_multiplier, ParseNumber(tail[1], where));
      SG_RETURN_IF_ERROR(CheckRate(model.tail_rate, where + " tail"));
    } else if (p.rfind("first=", 0) == 0) {
      SG_ASSIGN_OR_RETURN(model.first_chunk_fraction, ParseNumber(p.substr(6), where));
      SG_RETURN_IF_ERROR(CheckRate(model.first_chunk_fraction, where + " first"));
    } else {
      return InvalidArgumentError(where + ": unknown part '" + p + "'");
    }
  }
  if (model.fixed_ms < 0 || model.min_ms < 0 || model.mean_ms < 0) {
    return InvalidArgumentError(where + ": delays must not be negative");
  }
  return model;
}

Result<FaultRates> ParseFaultSpec(std::string_view spec) {
  FaultRates rates;
  std::string trimmed(TrimLineSpace(spec));
  if (trimmed.empty() || trimmed == "none") return rates;
  const std::string where = "fault spec '" + trimmed + "'";
  for (const std::string& item : Split(trimmed, ',')) {
    std::size_t eq = item.find('=');
    if (eq == std::string::npos) return InvalidArgumentError(where + ": '" + item + "' lacks '='");
    std::string name(TrimLineSpace(item.substr(0, eq)));
    SG_ASSIGN_OR_RETURN(double value, ParseNumber(item.substr(eq + 1), where + " " + name));
    double* rate = nullptr;
    if (name == "500") rate = &rates.http500;
    else if (name == "502") rate = &rates.http502;
    else if (name == "503") rate = &rates.http503;
    else if (name == "429") rate = &rates.http429;
    else if (name == "reset") rate = &rates.reset;
    else if (name == "hang") rate = &rates.hang;
    else if (name == "truncate") rate = &rates.truncate;
    else if (name == "midstream") rate = &rates.midstream;
    if (rate != nullptr) {
      SG_RETURN_IF_ERROR(CheckRate(value, where + " " + name));
      *rate = value;
    } else if (name == "retry_after") {
      if (value < 0 || value > 3600) return InvalidArgumentError(where + ": retry_after out of range");
      rates.retry_after_seconds = static_cast<int>(value);
    } else if (name == "hang_seconds") {
      if (value < 0) return InvalidArgumentError(where + ": hang_seconds is negative");
      rates.hang_seconds = value;
    } else {
      return InvalidArgumentError(where + ": unknown fault '" + name +
                                  "' (known: 500, 502, 503, 429, reset, hang, truncate, midstream, "
                                  "retry_after, hang_seconds)");
    }
  }
  if (rates.Total() > 1.0 + 1e-9) return InvalidArgumentError(where + ": fault rates add up to more than 1");
  return rates;
}

Status ValidateOptions(const TeacherOptions& o) {
  if (o.port < 0 || o.port > 65535)
    return InvalidArgumentError("teacher.port: " + std::to_string(o.port) + " is not a TCP port");
  if (o.threads < 1 || o.threads > 64) return InvalidArgumentError("teacher.threads: must be 1..64");
  if (o.context_window < 16) return InvalidArgumentError("teacher.context_window: must be at least 16 tokens");
  if (o.prefix_cache_blocks < 0) return InvalidArgumentError("teacher.prefix_cache_blocks: must be 0 or more");
  if (o.listen_backlog < 1) return InvalidArgumentError("teacher.listen_backlog: must be positive");
  if (o.model_id.empty()) return InvalidArgumentError("teacher.model_id: must not be empty");
  if (o.prompts_dir.empty()) return InvalidArgumentError("teacher.prompts_dir: must name the prompts directory");
  if (o.faults.Total() > 1.0 + 1e-9) return InvalidArgumentError("teacher.faults: rates add up to more than 1");
  const PolicyKnobs& k = o.knobs;
  SG_RETURN_IF_ERROR(CheckRate(k.raw_markup_rate, "teacher.policy.raw_markup_rate"));
  SG_RETURN_IF_ERROR(CheckRate(k.invalid_json_rate, "teacher.policy.invalid_json_rate"));
  SG_RETURN_IF_ERROR(CheckRate(k.multi_call_rate, "teacher.policy.multi_call_rate"));
  SG_RETURN_IF_ERROR(CheckRate(k.check_command_rate, "teacher.policy.check_command_rate"));
  SG_RETURN_IF_ERROR(CheckRate(k.rollout2_same_edit_rate, "teacher.policy.rollout2_same_edit_rate"));
  SG_RETURN_IF_ERROR(CheckRate(k.judge_yes_rate, "teacher.policy.judge_yes_rate"));
  if (k.stream_piece_bytes < 1) return InvalidArgumentError("teacher.policy.stream_piece_bytes: must be positive");
  if (o.tools.shell.empty() || o.tools.editor.empty() || o.tools.submit.empty()) {
    return InvalidArgumentError("teacher.tools: role names must not be empty");
  }
  return Status::Ok();
}

Result<ReasoningMode> ParseReasoningMode(std::string_view text) {
  if (auto mode = FindByName(kReasoningNames, text)) return *mode;
  return InvalidArgumentError("reasoning: '" + std::string(text) +
                              "' is not one of none, reasoning, reasoning_content, think");
}

Result<RawMarkupStyle> ParseRawMarkupStyle(std::string_view text) {
  if (auto style = FindByName(kRawMarkupNames, text)) return *style;
  return InvalidArgumentError("raw_markup_style: '" + std::string(text) + "' is not one of hermes, qwen_xml, glm");
}

Result<StrictMode> ParseStrictMode(std::string_view name) {
  if (auto mode = FindByName(kStrictNames, name)) return *mode;
  return InvalidArgumentError("--validate: unknown server '" + std::string(name) +
                              "' (expected vllm, sglang, llamacpp, openai or off)");
}

std::string_view StrictModeName(StrictMode mode) {
  for (const auto& [name, value] : kStrictNames) {
    if (value == mode) return name;
  }
  return "off";
}

}  // namespace seragen::teacher
