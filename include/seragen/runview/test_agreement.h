// The run's soft/hard agreement: how soft verification (patch-line recall)
// and the test evidence seragen gathered itself (journal/test_evidence.h)
// agree over the verified tasks (docs/VERIFY.md "Test evidence"), for
// `status`, the report and the dataset card.
//
//   soft -> hard  of the soft-accepted tasks whose evidence decided (agree
//                 or disagree), the share that agree on tests
//   hard -> soft  of the tasks that agree on tests, the share soft-accepted
//
// no_signal (P1 changed no test outcome) and unavailable tasks are counted
// but in neither share. Pure; thread-compatible.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string>

#include "seragen/journal/record.h"
#include "seragen/verify/test_agreement.h"

namespace seragen::runview {

struct TestAgreementSummary {
  std::size_t with_evidence = 0;  // verified tasks with a test evidence record
  // Tasks by their evidence's verdict (Count).
  std::array<std::size_t, static_cast<std::size_t>(verify::TestVerdict::kUnavailable) + 1> by_verdict{};
  std::size_t soft_accepted_decided = 0;  // soft-accepted, evidence agree or disagree
  std::size_t soft_accepted_agree = 0;    // of those, agree
  std::size_t agree_soft_accepted = 0;    // of the agreeing tasks, soft-accepted

  // Counts a task whose latest record is `last` (only verified records with evidence count).
  void Add(const journal::LatestRecord& last);
  std::size_t Count(verify::TestVerdict verdict) const { return by_verdict[static_cast<std::size_t>(verdict)]; }
  std::optional<double> SoftToHard() const;
  std::optional<double> HardToSoft() const;
};

// "3 of 4 soft-accepted task(s) agree on tests (75.0%); 3 of 3 test-agreeing
// task(s) soft-accepted (100.0%); 1 no signal, 0 unavailable (seragen's own test runs)"
std::string DescribeTestAgreement(const TestAgreementSummary& s);
// "tests      " + DescribeTestAgreement + "\n", or "" when no task has evidence.
std::string FormatTestAgreement(const TestAgreementSummary& s);
// The JSON object of `status --json` is built by TestAgreementJson in the
// module's private test_agreement_json.h.

}  // namespace seragen::runview
