// Target for the test evidence: the reports of test runners (JUnit XML, go
// test -json, TAP) are written by code the agent changed.
#include <string>

#include "fuzz/fuzz_targets.h"
#include "seragen/base/utf8.h"
#include "seragen/verify/test_agreement.h"
#include "seragen/verify/test_report.h"

namespace seragen::fuzz {
namespace {

void CheckOutcomes(const verify::TestOutcomes& t) {
  SERAGEN_FUZZ_CHECK(t.tests.size() <= verify::kMaxTests);
  SERAGEN_FUZZ_CHECK(!t.truncated || t.tests.size() == verify::kMaxTests);
  for (const auto& [id, outcome] : t.tests) {
    // The id itself is clipped; a repeated one gets " #N" (N <= 1000).
    SERAGEN_FUZZ_CHECK(id.size() <= verify::kMaxTestIdBytes + 6);
    SERAGEN_FUZZ_CHECK(IsValidUtf8(id));
  }
}

}  // namespace

int FuzzTestReport(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  verify::TestOutcomes junit = verify::ParseJUnitXml(text);
  verify::TestOutcomes go = verify::ParseGoTestJson(text);
  verify::TestOutcomes tap = verify::ParseTap(text);
  for (const verify::TestOutcomes* t : {&junit, &go, &tap}) CheckOutcomes(*t);
  for (verify::TestFormat f : {verify::TestFormat::kExitStatus, verify::TestFormat::kJUnitXml,
                               verify::TestFormat::kGoJson, verify::TestFormat::kTap}) {
    verify::TestOutcomes t = verify::ParseTestOutput(f, text, static_cast<int>(size % 3));
    CheckOutcomes(t);
    SERAGEN_FUZZ_CHECK(!t.tests.empty());
  }
  verify::TestAgreement a = verify::CompareTestRuns(junit, tap, go, 50);
  SERAGEN_FUZZ_CHECK(a.reproduced <= a.p1_changed && a.changes.size() <= 50);
  SERAGEN_FUZZ_CHECK((a.verdict == verify::TestVerdict::kNoSignal) == (a.p1_changed == 0));
  SERAGEN_FUZZ_CHECK(verify::CompareTestRuns(tap, tap, tap).changes.empty());
  return 0;
}

}  // namespace seragen::fuzz
