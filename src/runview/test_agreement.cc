#include "seragen/runview/test_agreement.h"

#include "runview/test_agreement_json.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "seragen/journal/outcomes.h"
#include "seragen/journal/test_evidence.h"

namespace seragen::runview {
namespace {

std::optional<double> Share(std::size_t part, std::size_t whole) {
  if (whole == 0) return std::nullopt;
  return static_cast<double>(part) / static_cast<double>(whole);
}

std::string Percent(std::optional<double> share) {
  return share ? fmt::format("{:.1f}%", 100.0 * *share) : std::string("n/a");
}

}  // namespace

void TestAgreementSummary::Add(const journal::LatestRecord& last) {
  const journal::VerificationResult* v = last.verification();
  if (last.stage != journal::Stage::kVerified || v == nullptr || !v->tests) return;
  ++with_evidence;
  const bool soft = journal::VerdictOf(last.stage, last.status) == journal::Verdict::kAccepted;
  const verify::TestVerdict verdict = v->tests->agreement.verdict;
  ++by_verdict[static_cast<std::size_t>(verdict)];
  if (!soft) return;
  if (verdict == verify::TestVerdict::kAgree) {
    ++soft_accepted_decided;
    ++soft_accepted_agree;
    ++agree_soft_accepted;
  } else if (verdict == verify::TestVerdict::kDisagree) {
    ++soft_accepted_decided;
  }
}

std::optional<double> TestAgreementSummary::SoftToHard() const {
  return Share(soft_accepted_agree, soft_accepted_decided);
}

std::optional<double> TestAgreementSummary::HardToSoft() const {
  return Share(agree_soft_accepted, Count(verify::TestVerdict::kAgree));
}

std::string DescribeTestAgreement(const TestAgreementSummary& s) {
  return fmt::format(
      "{} of {} soft-accepted task(s) agree on tests ({}); {} of {} test-agreeing task(s) soft-accepted ({}); {} no "
      "signal, {} unavailable (seragen's own test runs)",
      s.soft_accepted_agree, s.soft_accepted_decided, Percent(s.SoftToHard()), s.agree_soft_accepted,
      s.Count(verify::TestVerdict::kAgree), Percent(s.HardToSoft()), s.Count(verify::TestVerdict::kNoSignal),
      s.Count(verify::TestVerdict::kUnavailable));
}

std::string FormatTestAgreement(const TestAgreementSummary& s) {
  if (s.with_evidence == 0) return "";
  return "tests      " + DescribeTestAgreement(s) + "\n";
}

nlohmann::ordered_json TestAgreementJson(const TestAgreementSummary& s) {
  auto share = [](std::optional<double> x) { return x ? nlohmann::ordered_json(*x) : nlohmann::ordered_json(); };
  nlohmann::ordered_json j = {{"with_evidence", s.with_evidence}};
  for (const auto& [verdict, name] : journal::TestVerdictNames()) j[std::string(name)] = s.Count(verdict);
  j["soft_accepted_decided"] = s.soft_accepted_decided;
  j["soft_accepted_agree"] = s.soft_accepted_agree;
  j["soft_to_hard"] = share(s.SoftToHard());
  j["agree_soft_accepted"] = s.agree_soft_accepted;
  j["hard_to_soft"] = share(s.HardToSoft());
  return j;
}

}  // namespace seragen::runview
