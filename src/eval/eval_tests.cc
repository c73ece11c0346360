#include "seragen/eval/eval_tests.h"

#include <nlohmann/json.hpp>

#include "json_line.h"
#include "seragen/base/file_util.h"
#include "seragen/base/json_depth.h"
#include "seragen/verify/test_agreement.h"

namespace seragen::eval {
namespace {

using detail::Json;

// A reference file holds at most two runs of verify::kMaxTests ids each.
constexpr std::uint64_t kMaxReferenceBytes = 256ull << 20;

constexpr verify::TestOutcome kOutcomes[] = {verify::TestOutcome::kPass, verify::TestOutcome::kFail,
                                             verify::TestOutcome::kSkip};

// `run` with only the tests `base` reports.
pipeline::TestRun OnBaseTests(const pipeline::TestRun& run, const verify::TestOutcomes& base) {
  pipeline::TestRun kept = run;
  std::erase_if(kept.outcomes.tests, [&](const auto& test) { return base.tests.count(test.first) == 0; });
  return kept;
}

Json OutcomesJson(const verify::TestOutcomes& o) {
  Json j = Json::object();
  for (verify::TestOutcome outcome : kOutcomes) j[std::string(journal::TestOutcomeName(outcome))] = Json::array();
  for (const auto& [id, outcome] : o.tests) j[std::string(journal::TestOutcomeName(outcome))].push_back(id);
  if (o.truncated) j["truncated"] = true;
  return j;
}

Result<verify::TestOutcomes> OutcomesFrom(const Json& j, const char* key) {
  const Json* o = detail::Present(j, key);
  if (!o || !o->is_object()) return ParseError(std::string("'") + key + "' must be an object");
  verify::TestOutcomes out;
  for (verify::TestOutcome outcome : kOutcomes) {
    const Json* ids = detail::Present(*o, std::string(journal::TestOutcomeName(outcome)).c_str());
    if (!ids) continue;
    if (!ids->is_array()) return ParseError(std::string("'") + key + "' lists must be arrays");
    for (const Json& id : *ids) {
      if (!id.is_string()) return ParseError(std::string("'") + key + "' test ids must be strings");
      if (out.tests.size() >= verify::kMaxTests) return ParseError(std::string("'") + key + "' has too many tests");
      out.tests[id.get<std::string>()] = outcome;
    }
  }
  const Json* truncated = detail::Present(*o, "truncated");
  out.truncated = truncated && truncated->is_boolean() && truncated->get<bool>();
  return out;
}

// A run as decoded: its summary, and a problem exactly when it did not run.
pipeline::TestRun RunFrom(verify::TestFormat format, const journal::TestRunSummary& summary,
                          verify::TestOutcomes outcomes, const std::string& detail) {
  pipeline::TestRun run{format, summary, std::move(outcomes), ""};
  if (summary.status != journal::TestRunStatus::kRan) {
    run.problem = std::string(journal::TestRunStatusName(summary.status)) + (detail.empty() ? "" : ": " + detail);
  }
  return run;
}

// A reference file's text as a JSON object, or why it is not one.
Result<Json> ParseReference(std::string_view text) {
  SG_RETURN_IF_ERROR(CheckJsonDepth(text, "reference tests"));
  Json j = Json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return ParseError("not a JSON object");
  return j;
}

// The "settings" member of a parsed reference file; "" when it has none or
// the text was not an object (the decode then names the damage).
std::string SettingsOf(const Result<Json>& j) {
  const Json* s = j.ok() ? detail::Present(*j, "settings") : nullptr;
  return s != nullptr && s->is_string() ? s->get<std::string>() : std::string();
}

Result<ReferenceTests> ReferenceFrom(const Json& j) {
  const Json* runs = detail::Present(j, "runs");
  if (!runs || !runs->is_object()) return ParseError("'runs' must be an object");
  SG_ASSIGN_OR_RETURN(journal::TestEvidence e, journal::DecodeTestEvidence(detail::DumpLine(*runs)));
  SG_ASSIGN_OR_RETURN(verify::TestOutcomes base, OutcomesFrom(j, "base_tests"));
  SG_ASSIGN_OR_RETURN(verify::TestOutcomes reference, OutcomesFrom(j, "reference_tests"));
  const verify::TestFormat format = e.format;
  return ReferenceTests{RunFrom(format, e.base, std::move(base), e.detail),
                        RunFrom(format, e.p1, std::move(reference), e.detail)};
}

}  // namespace

journal::TestEvidence ScoreTestRun(const ReferenceTests& ref, const pipeline::TestRun& rollout) {
  const pipeline::TestRun reference = OnBaseTests(ref.reference, ref.base.outcomes);
  journal::TestEvidence e = pipeline::EvidenceOfRuns(ref.base, reference, OnBaseTests(rollout, ref.base.outcomes));
  if (!ref.base.problem.empty() || !ref.reference.problem.empty() || rollout.problem.empty()) return e;
  // Only the rollout's own run gave no outcomes: a fail where the tests have
  // something to say.
  const verify::TestAgreement a =
      verify::CompareTestRuns(ref.base.outcomes, reference.outcomes, reference.outcomes, /*max_changes=*/0);
  e.agreement.p1_changed = a.p1_changed;
  e.agreement.verdict = a.p1_changed == 0 ? verify::TestVerdict::kNoSignal : verify::TestVerdict::kDisagree;
  return e;
}

std::optional<bool> TestsPassed(const journal::TestEvidence& evidence) {
  if (evidence.agreement.verdict == verify::TestVerdict::kAgree) return true;
  if (evidence.agreement.verdict == verify::TestVerdict::kDisagree) return false;
  return std::nullopt;
}

std::string EncodeReferenceTests(const std::string& task_id, const ReferenceTests& ref,
                                 const std::string& settings_key) {
  const journal::TestEvidence runs = pipeline::EvidenceOfRuns(ref.base, ref.reference, ref.reference);
  Json j = {{"task_id", task_id},
            {"settings", settings_key},
            {"runs", Json::parse(journal::EncodeTestEvidence(runs))},
            {"base_tests", OutcomesJson(ref.base.outcomes)},
            {"reference_tests", OutcomesJson(ref.reference.outcomes)}};
  return detail::DumpLine(j) + "\n";
}

Result<ReferenceTests> DecodeReferenceTests(std::string_view text) {
  SG_ASSIGN_OR_RETURN(Json j, ParseReference(text));
  return ReferenceFrom(j);
}

std::string ReferenceTestsPath(const std::string& eval_dir, const std::string& task_id) {
  return eval_dir + "/tests/" + task_id + ".json";
}

Result<std::optional<ReferenceTests>> ReadReferenceTests(const std::string& eval_dir, const std::string& task_id,
                                                         const std::string& settings_key) {
  const std::string path = ReferenceTestsPath(eval_dir, task_id);
  Result<std::string> text = ReadRegularFile(path, kMaxReferenceBytes);
  if (!text.ok() && text.status().code() == StatusCode::kNotFound) return std::optional<ReferenceTests>();
  SG_RETURN_IF_ERROR(text.status());
  const Result<Json> j = ParseReference(*text);  // parsed once: files hold up to 256 MB
  if (SettingsOf(j) != settings_key) return std::optional<ReferenceTests>();
  Result<ReferenceTests> ref = j.ok() ? ReferenceFrom(*j) : Result<ReferenceTests>(j.status());
  if (!ref.ok()) return DataLossError(path + ": " + ref.status().message());
  return std::optional<ReferenceTests>(std::move(*ref));
}

}  // namespace seragen::eval
