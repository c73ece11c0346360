#include <cmath>
#include <utility>

#include "journal/record_extra_json.h"
#include "journal/simd_fields.h"
#include "journal/test_evidence_json.h"
#include "seragen/journal/record_extra.h"

namespace seragen::journal::internal {
namespace {

Json ScoresToJson(const VerificationScores& s) {
  Json j;
  // rule and p2_blank exist only in records of rule-aware writers; older
  // records stay byte-identical when re-encoded.
  if (!s.rule.empty()) PutText(j, "rule", s.rule);
  j["p1_lines"] = s.p1_lines;
  j["p2_lines"] = s.p2_lines;
  j["matched"] = s.matched;
  if (!s.rule.empty() || s.p2_blank) j["p2_blank"] = s.p2_blank;
  j["recall"] = s.recall;
  j["precision"] = s.precision;
  j["f1"] = s.f1;
  j["scorable"] = s.scorable;
  return j;
}

struct ToJson {
  Json operator()(std::monostate) const { return Json::object(); }
  Json operator()(const RolloutResult& r) const {
    Json j;
    j["has_patch"] = r.has_patch;
    if (!r.patch_sha256.empty()) PutText(j, "patch_sha256", r.patch_sha256);
    if (r.replayed_calls > 0) j["replayed_calls"] = r.replayed_calls;
    if (r.restarts > 0) j["restarts"] = r.restarts;
    if (r.discarded_tokens > 0) j["discarded_tokens"] = r.discarded_tokens;
    if (r.category_index) j["category_index"] = *r.category_index;
    if (r.seed) j["seed"] = *r.seed;
    if (r.autosubmitted) j["autosubmitted"] = true;
    if (r.env_broken > 0) j["env_broken"] = r.env_broken;
    return j;
  }
  Json operator()(const IssueResult& r) const {
    Json j;
    PutText(j, "demo_issue", r.demo_issue);
    if (r.retries > 0) j["retries"] = r.retries;
    if (!r.demo_source.empty()) PutText(j, "demo_source", r.demo_source);
    return j;
  }
  Json operator()(const VerificationResult& r) const {
    Json j = Json::object();
    if (r.scores) j["scores"] = ScoresToJson(*r.scores);
    // JSON has no NaN or infinity: a threshold that is not finite is not written.
    if (r.threshold && std::isfinite(*r.threshold)) j["threshold"] = *r.threshold;
    j["rollout2_submitted"] = r.rollout2_submitted;
    if (r.tests) j["tests"] = TestEvidenceToJson(*r.tests);
    return j;
  }
};

Result<RecordExtra> RolloutFrom(SimdObject j) {
  RolloutResult r;
  SG_RETURN_IF_ERROR(ReadBool(j, "has_patch", false, &r.has_patch, "extra."));
  SG_RETURN_IF_ERROR(ReadText(j, "patch_sha256", false, &r.patch_sha256, "extra."));
  SG_RETURN_IF_ERROR(ReadCount(j, "replayed_calls", false, &r.replayed_calls, "extra."));
  SG_RETURN_IF_ERROR(ReadCount(j, "restarts", false, &r.restarts, "extra."));
  SG_RETURN_IF_ERROR(ReadCount(j, "discarded_tokens", false, &r.discarded_tokens, "extra."));
  for (auto [key, field] : {std::pair{"category_index", &r.category_index}, std::pair{"seed", &r.seed}}) {
    if (!Has(j, key)) continue;
    std::uint64_t value = 0;
    SG_RETURN_IF_ERROR(ReadCount(j, key, true, &value, "extra."));
    *field = value;
  }
  SG_RETURN_IF_ERROR(ReadBool(j, "autosubmitted", false, &r.autosubmitted, "extra."));
  SG_RETURN_IF_ERROR(ReadCount(j, "env_broken", false, &r.env_broken, "extra."));
  return RecordExtra(std::move(r));
}

Result<RecordExtra> IssueFrom(SimdObject j) {
  IssueResult r;
  SG_RETURN_IF_ERROR(ReadText(j, "demo_issue", false, &r.demo_issue, "extra."));
  SG_RETURN_IF_ERROR(ReadCount(j, "retries", false, &r.retries, "extra."));
  SG_RETURN_IF_ERROR(ReadText(j, "demo_source", false, &r.demo_source, "extra."));
  return RecordExtra(std::move(r));
}

Result<RecordExtra> VerificationFrom(SimdObject j) {
  VerificationResult r;
  SimdObject scores;
  SG_ASSIGN_OR_RETURN(bool has_scores, FindObject(j, "scores", "extra.", &scores));
  if (has_scores) {
    VerificationScores s;
    constexpr std::string_view kPrefix = "extra.scores.";
    SG_RETURN_IF_ERROR(ReadText(scores, "rule", false, &s.rule, kPrefix));
    SG_RETURN_IF_ERROR(ReadCount(scores, "p1_lines", true, &s.p1_lines, kPrefix));
    SG_RETURN_IF_ERROR(ReadCount(scores, "p2_lines", true, &s.p2_lines, kPrefix));
    SG_RETURN_IF_ERROR(ReadCount(scores, "matched", true, &s.matched, kPrefix));
    SG_RETURN_IF_ERROR(ReadBool(scores, "p2_blank", false, &s.p2_blank, kPrefix));
    SG_RETURN_IF_ERROR(ReadNumber(scores, "recall", false, &s.recall, kPrefix));
    SG_RETURN_IF_ERROR(ReadNumber(scores, "precision", false, &s.precision, kPrefix));
    SG_RETURN_IF_ERROR(ReadNumber(scores, "f1", false, &s.f1, kPrefix));
    SG_RETURN_IF_ERROR(ReadBool(scores, "scorable", false, &s.scorable, kPrefix));
    r.scores = s;
  }
  if (Has(j, "threshold")) {
    double threshold = 0;
    SG_RETURN_IF_ERROR(ReadNumber(j, "threshold", true, &threshold, "extra."));
    r.threshold = threshold;
  }
  SG_RETURN_IF_ERROR(ReadBool(j, "rollout2_submitted", false, &r.rollout2_submitted, "extra."));
  SimdObject tests;
  SG_ASSIGN_OR_RETURN(bool has_tests, FindObject(j, "tests", "extra.", &tests));
  if (has_tests) {
    SG_ASSIGN_OR_RETURN(r.tests, TestEvidenceFromJson(tests));
  }
  return RecordExtra(std::move(r));
}

}  // namespace

bool ExtraFitsStage(const RecordExtra& extra, Stage stage) {
  switch (stage) {
    case Stage::kRollout1Done:
    case Stage::kRollout2Done:
      return std::holds_alternative<RolloutResult>(extra) || std::holds_alternative<std::monostate>(extra);
    case Stage::kIssueDone:
      return std::holds_alternative<IssueResult>(extra) || std::holds_alternative<std::monostate>(extra);
    case Stage::kVerified:
      return std::holds_alternative<VerificationResult>(extra) || std::holds_alternative<std::monostate>(extra);
    default: return std::holds_alternative<std::monostate>(extra);
  }
}

Json ExtraToJson(const RecordExtra& extra) { return std::visit(ToJson{}, extra); }

Result<RecordExtra> ExtraFromJson(Stage stage, SimdObject extra) {
  switch (stage) {
    case Stage::kRollout1Done:
    case Stage::kRollout2Done: return RolloutFrom(extra);
    case Stage::kIssueDone: return IssueFrom(extra);
    case Stage::kVerified: return VerificationFrom(extra);
    default: return RecordExtra();
  }
}

}  // namespace seragen::journal::internal
