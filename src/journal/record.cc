#include "seragen/journal/record.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <utility>

#include "journal/json_fields.h"
#include "journal/record_extra_json.h"
#include "journal/simd_fields.h"
#include "seragen/base/utf8.h"

namespace seragen::journal {
namespace {

using internal::Dump;
using internal::FieldError;
using internal::FindObject;
using internal::Json;
using internal::ParseLineObject;
using internal::PutText;
using internal::ReadBool;
using internal::ReadInt;
using internal::ReadText;
using internal::SimdObject;

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

// Names inside a record (timing names, ref roles and paths) are ours; they
// must be UTF-8 so that they can be JSON keys and paths without a second form.
Status ValidateName(std::string_view what, const std::string& name, const std::string& task_id) {
  if (IsValidUtf8(name)) return Status::Ok();
  return InvalidArgumentError(fmt::format("journal record for task {}: {} '{}' is not valid UTF-8", RepairUtf8(task_id),
                                          what, RepairUtf8(name)));
}

Status ValidateRef(const std::string& role, const std::string& path) {
  if (path.empty() || path.front() == '/') {
    return InvalidArgumentError(
        fmt::format("journal ref '{}' must be a relative path, got '{}'", RepairUtf8(role), RepairUtf8(path)));
  }
  std::string_view rest = path;
  while (true) {
    auto slash = rest.find('/');
    if (rest.substr(0, slash) == "..") {
      return InvalidArgumentError(fmt::format("journal ref '{}' must stay inside the shard directory, got '{}'",
                                              RepairUtf8(role), RepairUtf8(path)));
    }
    if (slash == std::string_view::npos) break;
    rest.remove_prefix(slash + 1);
  }
  return Status::Ok();
}

// Calls visit(object, key, value) for each member of the object `field` of
// `j` (none when absent); a FieldError when it is not an object.
template <typename Visit>
Status ForEachMember(SimdObject j, std::string_view field, Visit visit) {
  SimdObject o;
  SG_ASSIGN_OR_RETURN(bool present, FindObject(j, field, "", &o));
  if (!present) return Status::Ok();
  for (auto member : o) SG_RETURN_IF_ERROR(visit(o, std::string(member.key), member.value));
  return Status::Ok();
}

// One token count object ("tokens", or an endpoint's in "endpoint_tokens").
Status DecodeTokens(SimdObject o, const std::string& prefix, TokenUsage* t) {
  for (auto [name, count] : {std::pair{"prompt", &t->prompt_tokens}, std::pair{"completion", &t->completion_tokens},
                             std::pair{"reasoning", &t->reasoning_tokens},
                             std::pair{"cached", &t->cached_prompt_tokens}, std::pair{"calls", &t->calls}}) {
    SG_RETURN_IF_ERROR(ReadInt(o, name, false, count, prefix));
  }
  return Status::Ok();
}

Json EncodeTokens(const TokenUsage& t) {
  Json j = {{"prompt", t.prompt_tokens},
            {"completion", t.completion_tokens},
            {"reasoning", t.reasoning_tokens},
            {"calls", t.calls}};
  if (t.cached_prompt_tokens != 0) j["cached"] = t.cached_prompt_tokens;
  return j;
}

// "timings_ms", "tokens" and "endpoint_tokens".
Status DecodeCounts(SimdObject j, JournalRecord* r) {
  SG_RETURN_IF_ERROR(ForEachMember(j, "timings_ms", [r](SimdObject o, const std::string& key, auto) {
    return ReadInt(o, key, true, &r->timings_ms[key], "timings_ms.");
  }));
  SG_RETURN_IF_ERROR(
      ForEachMember(j, "endpoint_tokens", [r](SimdObject, const std::string& key, simdjson::dom::element value) {
        SimdObject o;
        if (value.get_object().get(o) != simdjson::SUCCESS) {
          return FieldError("endpoint_tokens." + key, "must be an object");
        }
        return DecodeTokens(o, "endpoint_tokens." + key + ".", &r->endpoint_tokens[key]);
      }));
  SimdObject o;
  SG_ASSIGN_OR_RETURN(bool has_tokens, FindObject(j, "tokens", "", &o));
  return has_tokens ? DecodeTokens(o, "tokens.", &r->tokens) : Status::Ok();
}

// "refs" and "error".
Status DecodeRefsAndError(SimdObject j, JournalRecord* r) {
  SG_RETURN_IF_ERROR(ForEachMember(j, "refs", [r](SimdObject, const std::string& key, simdjson::dom::element value) {
    std::string_view path;
    if (value.get_string().get(path) != simdjson::SUCCESS) return FieldError("refs." + key, "must be a string");
    r->refs[key] = std::string(path);
    return Status::Ok();
  }));
  SimdObject o;
  SG_ASSIGN_OR_RETURN(bool has_error, FindObject(j, "error", "", &o));
  if (has_error) {
    ErrorInfo e;
    std::string error_class;
    SG_RETURN_IF_ERROR(ReadText(o, "class", false, &error_class, "error."));
    e.error_class = ParseErrorClass(error_class);
    SG_RETURN_IF_ERROR(ReadText(o, "message", false, &e.message, "error."));
    SG_RETURN_IF_ERROR(ReadBool(o, "retryable", false, &e.retryable, "error."));
    r->error = std::move(e);
  }
  return Status::Ok();
}

Result<JournalRecord> DecodeTask(SimdObject j) {
  JournalRecord r;
  SG_RETURN_IF_ERROR(ReadText(j, "task_id", true, &r.task_id));
  if (r.task_id.empty()) return FieldError("task_id", "must not be empty");
  std::string stage;
  SG_RETURN_IF_ERROR(ReadText(j, "stage", true, &stage));
  auto parsed_stage = ParseStage(stage);
  if (!parsed_stage.ok()) return ParseError(parsed_stage.status().message());
  r.stage = *parsed_stage;
  SG_RETURN_IF_ERROR(ReadText(j, "status", false, &r.status));
  SG_RETURN_IF_ERROR(ReadInt(j, "attempt", false, &r.attempt));
  SG_RETURN_IF_ERROR(ReadText(j, "at", false, &r.at));
  SG_RETURN_IF_ERROR(DecodeCounts(j, &r));
  SG_RETURN_IF_ERROR(DecodeRefsAndError(j, &r));
  SimdObject extra;
  SG_ASSIGN_OR_RETURN(bool has_extra, FindObject(j, "extra", "", &extra));
  if (has_extra) {
    SG_ASSIGN_OR_RETURN(r.extra, internal::ExtraFromJson(r.stage, extra));
  }
  return r;
}

}  // namespace

TokenUsage& TokenUsage::operator+=(const TokenUsage& add) {
  prompt_tokens += add.prompt_tokens;
  completion_tokens += add.completion_tokens;
  reasoning_tokens += add.reasoning_tokens;
  calls += add.calls;
  cached_prompt_tokens += add.cached_prompt_tokens;
  return *this;
}

void AddEndpointTokens(EndpointTokens& into, const EndpointTokens& add) {
  for (const auto& [endpoint, tokens] : add) into[endpoint] += tokens;
}

EndpointTokens AttributedTokens(const JournalRecord& record) {
  TokenUsage rest = record.tokens;
  EndpointTokens out;
  auto take = [](std::int64_t& from, std::int64_t part) {
    const std::int64_t taken = std::clamp<std::int64_t>(part, 0, std::max<std::int64_t>(from, 0));
    from -= taken;
    return taken;
  };
  for (const auto& [endpoint, t] : record.endpoint_tokens) {
    TokenUsage& part = out[endpoint];
    part.prompt_tokens += take(rest.prompt_tokens, t.prompt_tokens);
    part.completion_tokens += take(rest.completion_tokens, t.completion_tokens);
    part.reasoning_tokens += take(rest.reasoning_tokens, t.reasoning_tokens);
    part.cached_prompt_tokens += take(rest.cached_prompt_tokens, t.cached_prompt_tokens);
    part.calls += take(rest.calls, t.calls);
  }
  if (rest != TokenUsage{}) out[""] += rest;
  return out;
}

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
  PutText(j, "format", h.format);
  j["version"] = h.version;
  PutText(j, "config_hash", h.config_hash);
  j["shard"] = h.shard;
  j["shards"] = h.shards;
  PutText(j, "created", h.created);
  return Dump(j);
}

Result<std::string> EncodeRecord(const JournalRecord& r) {
  if (r.task_id.empty()) return InvalidArgumentError("journal record has an empty task id");
  if (r.attempt < 1) {
    return InvalidArgumentError(
        fmt::format("journal record for task {}: attempt must be >= 1, got {}", RepairUtf8(r.task_id), r.attempt));
  }
  Json j;
  j["type"] = "task";
  PutText(j, "task_id", r.task_id);
  j["stage"] = std::string(StageName(r.stage));
  if (!r.status.empty()) PutText(j, "status", r.status);
  j["attempt"] = r.attempt;
  if (!r.at.empty()) PutText(j, "at", r.at);
  for (const auto& [name, ms] : r.timings_ms) {
    SG_RETURN_IF_ERROR(ValidateName("timing name", name, r.task_id));
    j["timings_ms"][name] = ms;
  }
  if (r.tokens != TokenUsage{}) j["tokens"] = EncodeTokens(r.tokens);
  for (const auto& [endpoint, tokens] : r.endpoint_tokens) {
    j["endpoint_tokens"][RepairUtf8(endpoint)] = EncodeTokens(tokens);  // a name is never a reason to lose a record
  }
  if (!r.refs.empty()) {
    for (const auto& [role, path] : r.refs) {
      SG_RETURN_IF_ERROR(ValidateName("ref role", role, r.task_id));
      SG_RETURN_IF_ERROR(ValidateName("ref path", path, r.task_id));
      SG_RETURN_IF_ERROR(ValidateRef(role, path).WithContext("task " + RepairUtf8(r.task_id)));
    }
    j["refs"] = r.refs;
  }
  if (r.error) {
    Json e;
    PutText(e, "class", ErrorClassName(r.error->error_class));
    PutText(e, "message", r.error->message);
    e["retryable"] = r.error->retryable;
    j["error"] = std::move(e);
  }
  if (!internal::ExtraFitsStage(r.extra, r.stage)) {
    return InvalidArgumentError(
        fmt::format("journal record for task {}: its extra data is not of the kind stage {} carries",
                    RepairUtf8(r.task_id), StageName(r.stage)));
  }
  if (!std::holds_alternative<std::monostate>(r.extra)) j["extra"] = internal::ExtraToJson(r.extra);
  return Dump(j);
}

std::string EncodeConfigHashChange(const ConfigHashChange& c) {
  Json j;
  j["type"] = "config_change";
  PutText(j, "from", c.from);
  PutText(j, "to", c.to);
  PutText(j, "at", c.at);
  if (!c.previous_config.empty()) PutText(j, "previous_config", c.previous_config);
  return Dump(j);
}

Result<JournalHeader> DecodeHeader(std::string_view line) {
  SG_ASSIGN_OR_RETURN(SimdObject j, ParseLineObject(line));
  JournalHeader h;
  SG_RETURN_IF_ERROR(ReadText(j, "format", true, &h.format));
  if (h.format != kJournalFormat) {
    return ParseError(fmt::format("not a seragen journal (format '{}', expected '{}')", h.format, kJournalFormat));
  }
  SG_RETURN_IF_ERROR(ReadInt(j, "version", true, &h.version));
  if (h.version != kJournalVersion) {
    return FailedPreconditionError(
        fmt::format("journal format version {} is not supported; this seragen reads version {} "
                    "(use the seragen that wrote it, or a new run directory)",
                    h.version, kJournalVersion));
  }
  SG_RETURN_IF_ERROR(ReadText(j, "config_hash", true, &h.config_hash));
  SG_RETURN_IF_ERROR(ReadInt(j, "shard", true, &h.shard));
  SG_RETURN_IF_ERROR(ReadInt(j, "shards", true, &h.shards));
  SG_RETURN_IF_ERROR(ReadText(j, "created", false, &h.created));
  if (h.shards < 1 || h.shard < 0 || h.shard >= h.shards) {
    return ParseError(fmt::format("header has shard {} of {}, which is impossible", h.shard, h.shards));
  }
  return h;
}

Result<JournalEntry> DecodeEntry(std::string_view line) {
  SG_ASSIGN_OR_RETURN(SimdObject j, ParseLineObject(line));
  std::string type;
  SG_RETURN_IF_ERROR(ReadText(j, "type", true, &type));
  JournalEntry entry;
  if (type == "task") {
    SG_ASSIGN_OR_RETURN(JournalRecord r, DecodeTask(j));
    entry.record = std::move(r);
  } else if (type == "config_change") {
    ConfigHashChange c;
    SG_RETURN_IF_ERROR(ReadText(j, "from", true, &c.from));
    SG_RETURN_IF_ERROR(ReadText(j, "to", true, &c.to));
    SG_RETURN_IF_ERROR(ReadText(j, "at", false, &c.at));
    SG_RETURN_IF_ERROR(ReadText(j, "previous_config", false, &c.previous_config));
    entry.config_change = std::move(c);
  } else {
    return ParseError(fmt::format("unknown record type '{}' (written by a newer seragen?)", type));
  }
  return entry;
}

}  // namespace seragen::journal
