#include "seragen/journal/record.h"

#include <fmt/format.h>

#include <array>
#include <nlohmann/json.hpp>
#include <utility>

#include "seragen/base/json_depth.h"

namespace seragen::journal {
namespace {

using Json = nlohmann::ordered_json;

constexpr std::array<std::pair<Stage, std::string_view>, 8> kStageNames = {{
    {Stage::kPlanned, "planned"},
    {Stage::kRollout1Done, "rollout1_done"},
    {Stage::kIssueDone, "issue_done"},
    {Stage::kJudgeDone, "judge_done"},
    {Stage::kRollout2Done, "rollout2_done"},
    {Stage::kVerified, "verified"},
    {Stage::kFailed, "failed"},
    {Stage::kSkipped, "skipped"},
}};

std::string Dump(const Json& j) {
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// Parses one line into a JSON object; kDataLoss when it is not one.
Result<Json> ParseObject(std::string_view line) {
  if (Status depth = CheckJsonDepth(line, "journal line"); !depth.ok()) return DataLossError(depth.message());
  Json j = Json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return DataLossError("not a complete JSON object");
  if (!j.is_object()) return DataLossError("not a JSON object");
  return j;
}

Status FieldError(std::string_view field, std::string_view want) {
  return ParseError(fmt::format("field '{}' {}", field, want));
}

// Typed field readers. `required` fields must be present; optional ones keep
// the default when absent.
Status ReadString(const Json& j, std::string_view field, bool required, std::string* out) {
  auto it = j.find(std::string(field));
  if (it == j.end()) return required ? FieldError(field, "is missing") : Status::Ok();
  if (!it->is_string()) return FieldError(field, "must be a string");
  *out = it->get<std::string>();
  return Status::Ok();
}

Status ReadInt(const Json& j, std::string_view field, bool required, std::int64_t* out) {
  auto it = j.find(std::string(field));
  if (it == j.end()) return required ? FieldError(field, "is missing") : Status::Ok();
  if (!it->is_number_integer()) return FieldError(field, "must be an integer");
  *out = it->get<std::int64_t>();
  return Status::Ok();
}

Status ReadInt(const Json& j, std::string_view field, bool required, int* out) {
  std::int64_t v = *out;
  SG_RETURN_IF_ERROR(ReadInt(j, field, required, &v));
  if (v < INT32_MIN || v > INT32_MAX) return FieldError(field, "is out of range");
  *out = static_cast<int>(v);
  return Status::Ok();
}

Status ValidateRef(const std::string& role, const std::string& path) {
  if (path.empty() || path.front() == '/') {
    return InvalidArgumentError(
        fmt::format("journal ref '{}' must be a relative path, got '{}'", role, path));
  }
  std::string_view rest = path;
  while (true) {
    auto slash = rest.find('/');
    if (rest.substr(0, slash) == "..") {
      return InvalidArgumentError(
          fmt::format("journal ref '{}' must stay inside the shard directory, got '{}'", role, path));
    }
    if (slash == std::string_view::npos) break;
    rest.remove_prefix(slash + 1);
  }
  return Status::Ok();
}

Result<JournalRecord> DecodeTask(const Json& j) {
  JournalRecord r;
  SG_RETURN_IF_ERROR(ReadString(j, "task_id", true, &r.task_id));
  if (r.task_id.empty()) return FieldError("task_id", "must not be empty");
  std::string stage;
  SG_RETURN_IF_ERROR(ReadString(j, "stage", true, &stage));
  auto parsed_stage = ParseStage(stage);
  if (!parsed_stage.ok()) return ParseError(parsed_stage.status().message());
  r.stage = *parsed_stage;
  SG_RETURN_IF_ERROR(ReadString(j, "status", false, &r.status));
  SG_RETURN_IF_ERROR(ReadInt(j, "attempt", false, &r.attempt));
  SG_RETURN_IF_ERROR(ReadString(j, "at", false, &r.at));
  if (auto it = j.find("timings_ms"); it != j.end()) {
    if (!it->is_object()) return FieldError("timings_ms", "must be an object");
    for (const auto& [key, value] : it->items()) {
      if (!value.is_number_integer()) return FieldError("timings_ms." + key, "must be an integer");
      r.timings_ms[key] = value.get<std::int64_t>();
    }
  }
  if (auto it = j.find("tokens"); it != j.end()) {
    if (!it->is_object()) return FieldError("tokens", "must be an object");
    SG_RETURN_IF_ERROR(ReadInt(*it, "prompt", false, &r.tokens.prompt_tokens));
    SG_RETURN_IF_ERROR(ReadInt(*it, "completion", false, &r.tokens.completion_tokens));
    SG_RETURN_IF_ERROR(ReadInt(*it, "reasoning", false, &r.tokens.reasoning_tokens));
    SG_RETURN_IF_ERROR(ReadInt(*it, "cached", false, &r.tokens.cached_prompt_tokens));
    SG_RETURN_IF_ERROR(ReadInt(*it, "calls", false, &r.tokens.calls));
  }
  if (auto it = j.find("refs"); it != j.end()) {
    if (!it->is_object()) return FieldError("refs", "must be an object");
    for (const auto& [key, value] : it->items()) {
      if (!value.is_string()) return FieldError("refs." + key, "must be a string");
      r.refs[key] = value.get<std::string>();
    }
  }
  if (auto it = j.find("error"); it != j.end()) {
    if (!it->is_object()) return FieldError("error", "must be an object");
    ErrorInfo e;
    SG_RETURN_IF_ERROR(ReadString(*it, "class", false, &e.error_class));
    SG_RETURN_IF_ERROR(ReadString(*it, "message", false, &e.message));
    if (auto rt = it->find("retryable"); rt != it->end()) {
      if (!rt->is_boolean()) return FieldError("error.retryable", "must be true or false");
      e.retryable = rt->get<bool>();
    }
    r.error = std::move(e);
  }
  if (auto it = j.find("extra"); it != j.end()) {
    if (!it->is_object()) return FieldError("extra", "must be an object");
    r.extra_json = Dump(*it);
  }
  return r;
}

}  // namespace

std::string_view StageName(Stage stage) {
  for (const auto& [s, name] : kStageNames) {
    if (s == stage) return name;
  }
  return "unknown";
}

Result<Stage> ParseStage(std::string_view name) {
  for (const auto& [s, n] : kStageNames) {
    if (n == name) return s;
  }
  return InvalidArgumentError(fmt::format("unknown journal stage '{}'", name));
}

bool IsTerminalStage(Stage stage) {
  return stage == Stage::kVerified || stage == Stage::kFailed || stage == Stage::kSkipped;
}

std::string EncodeHeader(const JournalHeader& h) {
  Json j;
  j["format"] = h.format;
  j["version"] = h.version;
  j["config_hash"] = h.config_hash;
  j["shard"] = h.shard;
  j["shards"] = h.shards;
  j["created"] = h.created;
  return Dump(j);
}

Result<std::string> EncodeRecord(const JournalRecord& r) {
  if (r.task_id.empty()) return InvalidArgumentError("journal record has an empty task id");
  if (r.attempt < 1) {
    return InvalidArgumentError(
        fmt::format("journal record for task {}: attempt must be >= 1, got {}", r.task_id, r.attempt));
  }
  Json j;
  j["type"] = "task";
  j["task_id"] = r.task_id;
  j["stage"] = std::string(StageName(r.stage));
  if (!r.status.empty()) j["status"] = r.status;
  j["attempt"] = r.attempt;
  if (!r.at.empty()) j["at"] = r.at;
  if (!r.timings_ms.empty()) j["timings_ms"] = r.timings_ms;
  if (r.tokens != TokenUsage{}) {
    j["tokens"] = {{"prompt", r.tokens.prompt_tokens},
                   {"completion", r.tokens.completion_tokens},
                   {"reasoning", r.tokens.reasoning_tokens},
                   {"calls", r.tokens.calls}};
    if (r.tokens.cached_prompt_tokens != 0) j["tokens"]["cached"] = r.tokens.cached_prompt_tokens;
  }
  if (!r.refs.empty()) {
    for (const auto& [role, path] : r.refs) {
      SG_RETURN_IF_ERROR(ValidateRef(role, path).WithContext("task " + r.task_id));
    }
    j["refs"] = r.refs;
  }
  if (r.error) {
    j["error"] = {{"class", r.error->error_class},
                  {"message", r.error->message},
                  {"retryable", r.error->retryable}};
  }
  if (!r.extra_json.empty()) {
    Json extra = CheckJsonDepth(r.extra_json, "extra").ok()
                     ? Json::parse(r.extra_json, nullptr, /*allow_exceptions=*/false)
                     : Json(Json::value_t::discarded);
    if (extra.is_discarded() || !extra.is_object()) {
      return InvalidArgumentError(fmt::format(
          "journal record for task {}: extra must be a JSON object", r.task_id));
    }
    j["extra"] = std::move(extra);
  }
  return Dump(j);
}

std::string EncodeConfigHashChange(const ConfigHashChange& c) {
  Json j;
  j["type"] = "config_change";
  j["from"] = c.from;
  j["to"] = c.to;
  j["at"] = c.at;
  return Dump(j);
}

Result<JournalHeader> DecodeHeader(std::string_view line) {
  SG_ASSIGN_OR_RETURN(Json j, ParseObject(line));
  JournalHeader h;
  SG_RETURN_IF_ERROR(ReadString(j, "format", true, &h.format));
  if (h.format != kJournalFormat) {
    return ParseError(fmt::format("not a seragen journal (format '{}', expected '{}')", h.format,
                                  kJournalFormat));
  }
  SG_RETURN_IF_ERROR(ReadInt(j, "version", true, &h.version));
  if (h.version != kJournalVersion) {
    return FailedPreconditionError(fmt::format(
        "journal format version {} is not supported; this seragen reads version {} "
        "(use the seragen that wrote it, or a new run directory)",
        h.version, kJournalVersion));
  }
  SG_RETURN_IF_ERROR(ReadString(j, "config_hash", true, &h.config_hash));
  SG_RETURN_IF_ERROR(ReadInt(j, "shard", true, &h.shard));
  SG_RETURN_IF_ERROR(ReadInt(j, "shards", true, &h.shards));
  SG_RETURN_IF_ERROR(ReadString(j, "created", false, &h.created));
  if (h.shards < 1 || h.shard < 0 || h.shard >= h.shards) {
    return ParseError(fmt::format("header has shard {} of {}, which is impossible", h.shard, h.shards));
  }
  return h;
}

Result<JournalEntry> DecodeEntry(std::string_view line) {
  SG_ASSIGN_OR_RETURN(Json j, ParseObject(line));
  std::string type;
  SG_RETURN_IF_ERROR(ReadString(j, "type", true, &type));
  JournalEntry entry;
  if (type == "task") {
    SG_ASSIGN_OR_RETURN(JournalRecord r, DecodeTask(j));
    entry.record = std::move(r);
  } else if (type == "config_change") {
    ConfigHashChange c;
    SG_RETURN_IF_ERROR(ReadString(j, "from", true, &c.from));
    SG_RETURN_IF_ERROR(ReadString(j, "to", true, &c.to));
    SG_RETURN_IF_ERROR(ReadString(j, "at", false, &c.at));
    entry.config_change = std::move(c);
  } else {
    return ParseError(fmt::format("unknown record type '{}' (written by a newer seragen?)", type));
  }
  return entry;
}

}  // namespace seragen::journal
