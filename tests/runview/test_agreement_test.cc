// The run's soft/hard agreement from the verified records' test evidence.
#include "seragen/runview/test_agreement.h"

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "runview/test_agreement_json.h"

namespace seragen::runview {
namespace {

journal::LatestRecord Verified(const char* soft, std::optional<verify::TestVerdict> tests) {
  journal::JournalRecord r{"t", journal::Stage::kVerified, soft, 1};
  journal::VerificationResult v;
  if (tests) {
    v.tests = journal::TestEvidence{};
    v.tests->agreement.verdict = *tests;
  }
  r.extra = v;
  return journal::LatestRecord(r);
}

}  // namespace

TEST_CASE("test agreement: soft-accepted tasks that agree on tests, and the reverse", "[runview][evidence]") {
  using V = verify::TestVerdict;
  TestAgreementSummary s;
  for (auto [soft, tests] : std::vector<std::pair<const char*, std::optional<V>>>{{"accepted", V::kAgree},
                                                                                  {"accepted", V::kAgree},
                                                                                  {"accepted", V::kDisagree},
                                                                                  {"accepted", V::kNoSignal},
                                                                                  {"rejected", V::kAgree},
                                                                                  {"rejected", V::kUnavailable},
                                                                                  {"accepted", std::nullopt}}) {
    s.Add(Verified(soft, tests));
  }
  journal::LatestRecord running;  // not verified: not counted
  s.Add(running);
  CHECK(s.with_evidence == 6);
  CHECK(s.soft_accepted_decided == 3);
  CHECK(s.soft_accepted_agree == 2);
  CHECK(s.SoftToHard() == Approx(2.0 / 3.0));
  CHECK(s.Count(V::kAgree) == 3);
  CHECK(s.HardToSoft() == Approx(2.0 / 3.0));
  CHECK(FormatTestAgreement(s) ==
        "tests      2 of 3 soft-accepted task(s) agree on tests (66.7%); 2 of 3 test-agreeing task(s) soft-accepted "
        "(66.7%); 1 no signal, 1 unavailable (seragen's own test runs)\n");
  nlohmann::ordered_json j = TestAgreementJson(s);
  CHECK(j["soft_to_hard"].get<double>() == Approx(2.0 / 3.0));
  CHECK(j["no_signal"] == 1);

  TestAgreementSummary none;
  CHECK(FormatTestAgreement(none).empty());
  CHECK(TestAgreementJson(none)["hard_to_soft"].is_null());
}

}  // namespace seragen::runview
