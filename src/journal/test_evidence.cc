#include "seragen/journal/test_evidence.h"

#include <array>
#include <utility>

#include "journal/test_evidence_json.h"
#include "seragen/base/enum_names.h"

namespace seragen::journal {
namespace {

constexpr std::array<std::pair<EvidenceVerdict, std::string_view>, 4> kVerdictNames{{
    {EvidenceVerdict::kAgree, "agree"},
    {EvidenceVerdict::kDisagree, "disagree"},
    {EvidenceVerdict::kNoSignal, "no_signal"},
    {EvidenceVerdict::kUnavailable, "unavailable"},
}};
constexpr std::array<std::pair<TestRunStatus, std::string_view>, 5> kRunStatusNames{{
    {TestRunStatus::kRan, "ran"},
    {TestRunStatus::kTimedOut, "timed_out"},
    {TestRunStatus::kPatchFailed, "patch_failed"},
    {TestRunStatus::kNotStarted, "not_started"},
    {TestRunStatus::kTruncated, "truncated"},
}};
constexpr std::array<std::pair<RecordedOutcome, std::string_view>, 4> kOutcomeNames{{
    {RecordedOutcome::kAbsent, "absent"},
    {RecordedOutcome::kPass, "pass"},
    {RecordedOutcome::kFail, "fail"},
    {RecordedOutcome::kSkip, "skip"},
}};

}  // namespace

std::string_view EvidenceVerdictName(EvidenceVerdict v) { return NameOf<EvidenceVerdict>(kVerdictNames, v, "?"); }
std::optional<EvidenceVerdict> EvidenceVerdictNamed(std::string_view n) {
  return ValueNamed<EvidenceVerdict>(kVerdictNames, n);
}
std::string_view TestRunStatusName(TestRunStatus s) { return NameOf<TestRunStatus>(kRunStatusNames, s, "?"); }
std::optional<TestRunStatus> TestRunStatusNamed(std::string_view n) {
  return ValueNamed<TestRunStatus>(kRunStatusNames, n);
}
std::string_view RecordedOutcomeName(RecordedOutcome o) { return NameOf<RecordedOutcome>(kOutcomeNames, o, "?"); }
std::optional<RecordedOutcome> RecordedOutcomeNamed(std::string_view n) {
  return ValueNamed<RecordedOutcome>(kOutcomeNames, n);
}

namespace internal {
namespace {

constexpr const char* kRunNames[] = {"base", "p1", "p2"};

Json RunToJson(const TestRunSummary& r) {
  return Json{{"status", std::string(TestRunStatusName(r.status))},
              {"exit_code", r.exit_code},
              {"tests", r.tests},
              {"passed", r.passed},
              {"failed", r.failed},
              {"skipped", r.skipped},
              {"ms", r.duration_ms}};
}

// Reads the enum member `field` of `j` through `named`; a name it does not
// know is a FieldError.
template <typename E, typename Named>
Status ReadEnum(SimdObject j, std::string_view field, Named named, E* out, std::string_view prefix) {
  std::string name;
  SG_RETURN_IF_ERROR(ReadText(j, field, true, &name, prefix));
  std::optional<E> value = named(name);
  if (!value) return FieldError(std::string(prefix) + std::string(field), "must be a known name");
  *out = *value;
  return Status::Ok();
}

Status RunFromJson(SimdObject runs, const char* name, TestRunSummary* out) {
  const std::string prefix = "extra.tests.runs." + std::string(name) + ".";
  SimdObject j;
  SG_ASSIGN_OR_RETURN(bool present, FindObject(runs, name, "extra.tests.runs.", &j));
  if (!present) return FieldError("extra.tests.runs." + std::string(name), "is required");
  SG_RETURN_IF_ERROR(ReadEnum(j, "status", TestRunStatusNamed, &out->status, prefix));
  SG_RETURN_IF_ERROR(ReadInt(j, "exit_code", false, &out->exit_code, prefix));
  for (auto [key, field] :
       {std::pair{"tests", &out->tests}, std::pair{"passed", &out->passed}, std::pair{"failed", &out->failed},
        std::pair{"skipped", &out->skipped}, std::pair{"ms", &out->duration_ms}}) {
    SG_RETURN_IF_ERROR(ReadCount(j, key, false, field, prefix));
  }
  return Status::Ok();
}

Status ChangesFromJson(SimdObject j, TestEvidence* out) {
  simdjson::dom::element changes;
  if (j["changes"].get(changes) != simdjson::SUCCESS) return Status::Ok();
  simdjson::dom::array list;
  if (changes.get_array().get(list) != simdjson::SUCCESS) return FieldError("extra.tests.changes", "must be an array");
  for (simdjson::dom::element item : list) {
    if (out->changes.size() >= kMaxRecordedChanges) {
      out->changes_truncated = true;
      break;
    }
    SimdObject c;
    if (item.get_object().get(c) != simdjson::SUCCESS) {
      return FieldError("extra.tests.changes[]", "must hold objects");
    }
    RecordedTestChange change;
    constexpr std::string_view kPrefix = "extra.tests.changes[].";
    SG_RETURN_IF_ERROR(ReadText(c, "test", true, &change.test, kPrefix));
    for (auto [key, field] :
         {std::pair{"base", &change.base}, std::pair{"p1", &change.p1}, std::pair{"p2", &change.p2}}) {
      SG_RETURN_IF_ERROR(ReadEnum(c, key, RecordedOutcomeNamed, field, kPrefix));
    }
    out->changes.push_back(std::move(change));
  }
  return Status::Ok();
}

}  // namespace

Json TestEvidenceToJson(const TestEvidence& e) {
  Json j;
  PutText(j, "format", e.format);
  j["verdict"] = std::string(EvidenceVerdictName(e.verdict));
  if (!e.detail.empty()) PutText(j, "detail", e.detail);
  Json runs;
  const TestRunSummary* summaries[] = {&e.base, &e.p1, &e.p2};
  for (int i = 0; i < 3; ++i) runs[kRunNames[i]] = RunToJson(*summaries[i]);
  j["runs"] = std::move(runs);
  j["p1_changed"] = e.p1_changed;
  j["reproduced"] = e.reproduced;
  j["regressed"] = e.regressed;
  Json changes = Json::array();
  for (const RecordedTestChange& c : e.changes) {
    Json item;
    PutText(item, "test", c.test);
    item["base"] = std::string(RecordedOutcomeName(c.base));
    item["p1"] = std::string(RecordedOutcomeName(c.p1));
    item["p2"] = std::string(RecordedOutcomeName(c.p2));
    changes.push_back(std::move(item));
  }
  j["changes"] = std::move(changes);
  if (e.changes_truncated) j["changes_truncated"] = true;
  return j;
}

Result<TestEvidence> TestEvidenceFromJson(SimdObject j) {
  TestEvidence e;
  constexpr std::string_view kPrefix = "extra.tests.";
  SG_RETURN_IF_ERROR(ReadText(j, "format", false, &e.format, kPrefix));
  SG_RETURN_IF_ERROR(ReadEnum(j, "verdict", EvidenceVerdictNamed, &e.verdict, kPrefix));
  SG_RETURN_IF_ERROR(ReadText(j, "detail", false, &e.detail, kPrefix));
  SimdObject runs;
  SG_ASSIGN_OR_RETURN(bool has_runs, FindObject(j, "runs", kPrefix, &runs));
  if (!has_runs) return FieldError("extra.tests.runs", "is required");
  TestRunSummary* summaries[] = {&e.base, &e.p1, &e.p2};
  for (int i = 0; i < 3; ++i) SG_RETURN_IF_ERROR(RunFromJson(runs, kRunNames[i], summaries[i]));
  for (auto [key, field] : {std::pair{"p1_changed", &e.p1_changed}, std::pair{"reproduced", &e.reproduced},
                            std::pair{"regressed", &e.regressed}}) {
    SG_RETURN_IF_ERROR(ReadCount(j, key, false, field, kPrefix));
  }
  SG_RETURN_IF_ERROR(ChangesFromJson(j, &e));
  bool truncated = false;
  SG_RETURN_IF_ERROR(ReadBool(j, "changes_truncated", false, &truncated, kPrefix));
  e.changes_truncated = e.changes_truncated || truncated;
  return e;
}

}  // namespace internal

std::string EncodeTestEvidence(const TestEvidence& evidence) {
  return internal::Dump(internal::TestEvidenceToJson(evidence));
}

Result<TestEvidence> DecodeTestEvidence(std::string_view json_object) {
  SG_ASSIGN_OR_RETURN(internal::SimdObject j, internal::ParseLineObject(json_object));
  return internal::TestEvidenceFromJson(j);
}

}  // namespace seragen::journal
