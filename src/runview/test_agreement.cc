#include "seragen/runview/test_agreement.h"

#include "runview/test_agreement_json.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "seragen/journal/outcomes.h"

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
  switch (v->tests->verdict) {
    case journal::EvidenceVerdict::kAgree:
      ++agree;
      if (soft) {
        ++soft_accepted_decided;
        ++soft_accepted_agree;
        ++agree_soft_accepted;
      }
      break;
    case journal::EvidenceVerdict::kDisagree:
      ++disagree;
      if (soft) ++soft_accepted_decided;
      break;
    case journal::EvidenceVerdict::kNoSignal: ++no_signal; break;
    case journal::EvidenceVerdict::kUnavailable: ++unavailable; break;
  }
}

std::optional<double> TestAgreementSummary::SoftToHard() const {
  return Share(soft_accepted_agree, soft_accepted_decided);
}

std::optional<double> TestAgreementSummary::HardToSoft() const { return Share(agree_soft_accepted, agree); }

std::string DescribeTestAgreement(const TestAgreementSummary& s) {
  return fmt::format(
      "{} of {} soft-accepted task(s) agree on tests ({}); {} of {} test-agreeing task(s) soft-accepted ({}); {} no "
      "signal, {} unavailable (seragen's own test runs)",
      s.soft_accepted_agree, s.soft_accepted_decided, Percent(s.SoftToHard()), s.agree_soft_accepted, s.agree,
      Percent(s.HardToSoft()), s.no_signal, s.unavailable);
}

std::string FormatTestAgreement(const TestAgreementSummary& s) {
  if (s.with_evidence == 0) return "";
  return "tests      " + DescribeTestAgreement(s) + "\n";
}

nlohmann::ordered_json TestAgreementJson(const TestAgreementSummary& s) {
  auto share = [](std::optional<double> x) { return x ? nlohmann::ordered_json(*x) : nlohmann::ordered_json(); };
  nlohmann::ordered_json j = {{"with_evidence", s.with_evidence},
                              {"agree", s.agree},
                              {"disagree", s.disagree},
                              {"no_signal", s.no_signal},
                              {"unavailable", s.unavailable},
                              {"soft_accepted_decided", s.soft_accepted_decided},
                              {"soft_accepted_agree", s.soft_accepted_agree},
                              {"soft_to_hard", share(s.SoftToHard())},
                              {"agree_soft_accepted", s.agree_soft_accepted},
                              {"hard_to_soft", share(s.HardToSoft())}};
  return j;
}

}  // namespace seragen::runview
