#include "seragen/journal/test_evidence.h"

#include <array>
#include <optional>
#include <utility>

#include "journal/test_evidence_json.h"
#include "seragen/base/enum_names.h"

namespace seragen::journal {
namespace {

using verify::TestFormat;
using verify::TestOutcome;
using verify::TestVerdict;

// The names of the evidence's values, one table per enum (these two, and
// kFormatNames and kOutcomeNames of the codec below): what the journal
// writes and reads, and nowhere else.
constexpr std::array<std::pair<TestVerdict, std::string_view>, 4> kVerdictNames{{
    {TestVerdict::kAgree, "agree"},
    {TestVerdict::kDisagree, "disagree"},
    {TestVerdict::kNoSignal, "no_signal"},
    {TestVerdict::kUnavailable, "unavailable"},
}};
constexpr std::array<std::pair<TestRunStatus, std::string_view>, 5> kRunStatusNames{{
    {TestRunStatus::kRan, "ran"},
    {TestRunStatus::kTimedOut, "timed_out"},
    {TestRunStatus::kPatchFailed, "patch_failed"},
    {TestRunStatus::kNotStarted, "not_started"},
    {TestRunStatus::kTruncated, "truncated"},
}};

}  // namespace

std::string_view TestRunStatusName(TestRunStatus s) { return NameOf<TestRunStatus>(kRunStatusNames, s, "?"); }
std::string_view TestVerdictName(TestVerdict v) { return NameOf<TestVerdict>(kVerdictNames, v, "?"); }
std::span<const std::pair<TestVerdict, std::string_view>> TestVerdictNames() { return kVerdictNames; }

namespace internal {
namespace {

// The object "tests": its format's names, then the members of the JSON
// objects and the fields they hold, one list for both directions, then the
// names of a change's outcomes.
constexpr std::array<std::pair<TestFormat, std::string_view>, 4> kFormatNames{{
    {TestFormat::kExitStatus, "exit"},
    {TestFormat::kJUnitXml, "junit"},
    {TestFormat::kGoJson, "go-json"},
    {TestFormat::kTap, "tap"},
}};
constexpr std::pair<const char*, TestRunSummary TestEvidence::*> kRuns[] = {
    {"base", &TestEvidence::base}, {"p1", &TestEvidence::p1}, {"p2", &TestEvidence::p2}};
constexpr std::pair<const char*, std::uint64_t TestRunSummary::*> kRunCounts[] = {{"tests", &TestRunSummary::tests},
                                                                                  {"passed", &TestRunSummary::passed},
                                                                                  {"failed", &TestRunSummary::failed},
                                                                                  {"skipped", &TestRunSummary::skipped},
                                                                                  {"ms", &TestRunSummary::duration_ms}};
constexpr std::pair<const char*, std::size_t verify::TestAgreement::*> kAgreementCounts[] = {
    {"p1_changed", &verify::TestAgreement::p1_changed},
    {"reproduced", &verify::TestAgreement::reproduced},
    {"regressed", &verify::TestAgreement::regressed}};
constexpr std::pair<const char*, std::optional<TestOutcome> verify::TestChange::*> kChangeOutcomes[] = {
    {"base", &verify::TestChange::base}, {"p1", &verify::TestChange::p1}, {"p2", &verify::TestChange::p2}};
constexpr std::array<std::pair<std::optional<TestOutcome>, std::string_view>, 4> kOutcomeNames{{
    {std::nullopt, "absent"},
    {TestOutcome::kPass, "pass"},
    {TestOutcome::kFail, "fail"},
    {TestOutcome::kSkip, "skip"},
}};

template <typename E, std::size_t N>
std::string NameIn(const std::array<std::pair<E, std::string_view>, N>& names, const E& value) {
  return std::string(NameOf<E>(names, value, "?"));
}

Json RunToJson(const TestRunSummary& r) {
  Json j{{"status", NameIn(kRunStatusNames, r.status)}, {"exit_code", r.exit_code}};
  for (auto [key, field] : kRunCounts) j[key] = r.*field;
  return j;
}

// Reads the member `field` of `j`, a name in `names`; a name it does not
// know is a FieldError. `required` false: an absent (or empty) member
// leaves *out.
template <typename E, std::size_t N>
Status ReadEnum(SimdObject j, std::string_view field, const std::array<std::pair<E, std::string_view>, N>& names,
                bool required, E* out, std::string_view prefix) {
  std::string name;
  SG_RETURN_IF_ERROR(ReadText(j, field, required, &name, prefix));
  if (name.empty() && !required) return Status::Ok();
  std::optional<E> value = ValueNamed<E>(names, name);
  if (!value) return FieldError(std::string(prefix) + std::string(field), "must be a known name");
  *out = *value;
  return Status::Ok();
}

Status RunFromJson(SimdObject runs, const char* name, TestRunSummary* out) {
  const std::string prefix = "extra.tests.runs." + std::string(name) + ".";
  SimdObject j;
  SG_ASSIGN_OR_RETURN(bool present, FindObject(runs, name, "extra.tests.runs.", &j));
  if (!present) return FieldError("extra.tests.runs." + std::string(name), "is required");
  SG_RETURN_IF_ERROR(ReadEnum(j, "status", kRunStatusNames, true, &out->status, prefix));
  SG_RETURN_IF_ERROR(ReadInt(j, "exit_code", false, &out->exit_code, prefix));
  for (auto [key, field] : kRunCounts) SG_RETURN_IF_ERROR(ReadCount(j, key, false, &(out->*field), prefix));
  return Status::Ok();
}

Status ChangesFromJson(SimdObject j, verify::TestAgreement* out) {
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
    verify::TestChange change;
    constexpr std::string_view kPrefix = "extra.tests.changes[].";
    SG_RETURN_IF_ERROR(ReadText(c, "test", true, &change.test, kPrefix));
    for (auto [key, field] : kChangeOutcomes) {
      SG_RETURN_IF_ERROR(ReadEnum(c, key, kOutcomeNames, true, &(change.*field), kPrefix));
    }
    out->changes.push_back(std::move(change));
  }
  return Status::Ok();
}

}  // namespace

Json TestEvidenceToJson(const TestEvidence& e) {
  const verify::TestAgreement& a = e.agreement;
  Json j;
  j["format"] = NameIn(kFormatNames, e.format);
  j["verdict"] = NameIn(kVerdictNames, a.verdict);
  if (!e.detail.empty()) PutText(j, "detail", e.detail);
  Json runs;
  for (auto [name, run] : kRuns) runs[name] = RunToJson(e.*run);
  j["runs"] = std::move(runs);
  for (auto [key, field] : kAgreementCounts) j[key] = a.*field;
  Json changes = Json::array();
  for (const verify::TestChange& c : a.changes) {
    Json item;
    PutText(item, "test", c.test);
    for (auto [key, field] : kChangeOutcomes) item[key] = NameIn(kOutcomeNames, c.*field);
    changes.push_back(std::move(item));
  }
  j["changes"] = std::move(changes);
  if (a.changes_truncated) j["changes_truncated"] = true;
  return j;
}

Result<TestEvidence> TestEvidenceFromJson(SimdObject j) {
  TestEvidence e;
  verify::TestAgreement& a = e.agreement;
  constexpr std::string_view kPrefix = "extra.tests.";
  SG_RETURN_IF_ERROR(ReadEnum(j, "format", kFormatNames, false, &e.format, kPrefix));
  SG_RETURN_IF_ERROR(ReadEnum(j, "verdict", kVerdictNames, true, &a.verdict, kPrefix));
  SG_RETURN_IF_ERROR(ReadText(j, "detail", false, &e.detail, kPrefix));
  SimdObject runs;
  SG_ASSIGN_OR_RETURN(bool has_runs, FindObject(j, "runs", kPrefix, &runs));
  if (!has_runs) return FieldError("extra.tests.runs", "is required");
  for (auto [name, run] : kRuns) SG_RETURN_IF_ERROR(RunFromJson(runs, name, &(e.*run)));
  for (auto [key, field] : kAgreementCounts) SG_RETURN_IF_ERROR(ReadCount(j, key, false, &(a.*field), kPrefix));
  SG_RETURN_IF_ERROR(ChangesFromJson(j, &a));
  bool truncated = false;
  SG_RETURN_IF_ERROR(ReadBool(j, "changes_truncated", false, &truncated, kPrefix));
  a.changes_truncated = a.changes_truncated || truncated;
  return e;
}

}  // namespace internal

std::string_view TestOutcomeName(TestOutcome outcome) {
  return NameOf<std::optional<TestOutcome>>(internal::kOutcomeNames, outcome, "?");
}

std::string EncodeTestEvidence(const TestEvidence& evidence) {
  return internal::Dump(internal::TestEvidenceToJson(evidence));
}

Result<TestEvidence> DecodeTestEvidence(std::string_view json_object) {
  SG_ASSIGN_OR_RETURN(internal::SimdObject j, internal::ParseLineObject(json_object));
  return internal::TestEvidenceFromJson(j);
}

}  // namespace seragen::journal
