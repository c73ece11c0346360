#include "seragen/verify/test_agreement.h"

#include <set>

namespace seragen::verify {
namespace {

std::optional<TestOutcome> OutcomeOf(const TestOutcomes& run, const std::string& test) {
  auto it = run.tests.find(test);
  if (it == run.tests.end()) return std::nullopt;
  return it->second;
}

}  // namespace

TestAgreement CompareTestRuns(const TestOutcomes& base, const TestOutcomes& p1, const TestOutcomes& p2,
                              std::size_t max_changes) {
  std::set<std::string> ids;
  for (const TestOutcomes* run : {&base, &p1, &p2}) {
    for (const auto& [id, outcome] : run->tests) ids.insert(id);
  }
  TestAgreement a;
  for (const std::string& id : ids) {
    const TestChange c{id, OutcomeOf(base, id), OutcomeOf(p1, id), OutcomeOf(p2, id)};
    if (c.base == c.p1 && c.p1 == c.p2) continue;
    if (c.base != c.p1) {
      ++a.p1_changed;
      if (c.p2 == c.p1) ++a.reproduced;
    }
    if (c.base == TestOutcome::kPass && c.p1 == TestOutcome::kPass && c.p2 != TestOutcome::kPass) ++a.regressed;
    if (a.changes.size() < max_changes) a.changes.push_back(c);
    else a.changes_truncated = true;
  }
  a.verdict = a.p1_changed == 0                                  ? TestVerdict::kNoSignal
              : a.reproduced == a.p1_changed && a.regressed == 0 ? TestVerdict::kAgree
                                                                 : TestVerdict::kDisagree;
  return a;
}

}  // namespace seragen::verify
