#include "seragen/verify/test_report.h"

#include <catch2/catch.hpp>

#include <map>
#include <string>

namespace seragen::verify {
namespace {

using O = TestOutcome;
using Outcomes = std::map<std::string, O>;

// What pytest 7 writes with --junitxml (trimmed).
const char* kPytestJUnit =
    R"(<?xml version="1.0" encoding="utf-8"?><testsuites><testsuite name="pytest" errors="0" failures="1" )"
    R"(skipped="1" tests="4"><testcase classname="tests.test_core" name="test_normalize" time="0.001" />)"
    R"(<testcase classname="tests.test_core" name="test_top_share" time="0.001"><failure message="assert )"
    R"([0.25] == [0.75]">def test_top_share():
&gt;       assert top_share([1, 3], 1) == [0.75]
E       assert [0.25] == [0.75]</failure></testcase>)"
    R"(<testcase classname="tests.test_core" name="test_skip" time="0.000"><skipped type="pytest.skip" )"
    R"(message="not today">tests/test_core.py:9: not today</skipped></testcase>)"
    R"(<testcase classname="tests.test_core" name="test_param[a&amp;b-&#x3b1;]" time="0.000">)"
    R"(<system-out><![CDATA[<testcase name="fake"><failure/>]]></system-out></testcase>)"
    R"(<!-- <testcase name="commented" /> --></testsuite></testsuites>)";

}  // namespace

TEST_CASE("junit: pytest's report gives one outcome per test case", "[verify][evidence]") {
  TestOutcomes t = ParseJUnitXml(kPytestJUnit);
  CHECK(t.tests.size() == 4);
  CHECK(t.tests.at("tests.test_core::test_normalize") == O::kPass);
  CHECK(t.tests.at("tests.test_core::test_top_share") == O::kFail);
  CHECK(t.tests.at("tests.test_core::test_skip") == O::kSkip);
  // Entities decoded; CDATA and comments are text, not test cases.
  CHECK(t.tests.at("tests.test_core::test_param[a&b-\xCE\xB1]") == O::kPass);
  CHECK_FALSE(t.tests.contains("fake"));
  CHECK_FALSE(t.truncated);
}

TEST_CASE("junit: an error fails a test, a report cut short keeps what it says", "[verify][evidence]") {
  TestOutcomes t = ParseJUnitXml(
      "<testcase classname=\"\" name=\"tests.test_x\"><error message=\"collection failure\">E</error></testcase>"
      "<testcase name='b' classname='c'><skipped/><failure/></testcase><testcase name=\"cut\"><sys");
  CHECK(t.tests == Outcomes{{"tests.test_x", O::kFail}, {"c::b", O::kFail}, {"cut", O::kPass}});
}

TEST_CASE("go test -json: tests, subtests and packages, other lines skipped", "[verify][evidence]") {
  TestOutcomes t = ParseGoTestJson(
      "{\"Action\":\"run\",\"Package\":\"ex.com/m\",\"Test\":\"TestA\"}\n"
      "{\"Action\":\"output\",\"Package\":\"ex.com/m\",\"Test\":\"TestA\",\"Output\":\"ok\\n\"}\n"
      "{\"Action\":\"pass\",\"Package\":\"ex.com/m\",\"Test\":\"TestA\"}\n"
      "{\"Action\":\"fail\",\"Package\":\"ex.com/m\",\"Test\":\"TestB/sub\"}\n"
      "{\"Action\":\"skip\",\"Package\":\"ex.com/m\",\"Test\":\"TestC\"}\n"
      "# ex.com/m/broken\nbroken/x.go:3:1: syntax error\n{\"Action\":\"fail\",\"Package\":\"ex.com/m/broken\"}\n"
      "{\"Action\":\"fail\",\"Package\":\"ex.com/m\"}\n{\"Action\":\"pass\",\"Package\":[[[[\n");
  CHECK(t.tests == Outcomes{{"ex.com/m::TestA", O::kPass},
                            {"ex.com/m::TestB/sub", O::kFail},
                            {"ex.com/m::TestC", O::kSkip},
                            {"ex.com/m/broken", O::kFail},
                            {"ex.com/m", O::kFail}});
}

TEST_CASE("tap: node's test points, nested subtests, directives, YAML blocks skipped", "[verify][evidence]") {
  TestOutcomes t = ParseTap(
      "> pkg@1.0.0 test\n> node --test\n\nTAP version 13\n# Subtest: adds\nok 1 - adds\n  ---\n  duration_ms: 1\n"
      "  ...\n# Subtest: fails\nnot ok 2 - fails\n  ---\n  error: |-\n    ok 9 - inside the error text\n  ...\n"
      "# Subtest: group\n    # Subtest: inner ok\n    ok 1 - inner ok\n    # Subtest: inner skip\n"
      "    ok 2 - inner skip # SKIP\n    not ok 3 - later # TODO not yet\n    1..3\nok 3 - group\n"
      "ok 4 - adds\nok 5 - a \\# b\n1..5\n# pass 3\n");
  const Outcomes expected{{"adds", O::kPass},
                          {"fails", O::kFail},
                          {"group > inner ok", O::kPass},
                          {"group > inner skip", O::kSkip},
                          {"group > later", O::kSkip},
                          {"group", O::kPass},
                          {"adds #2", O::kPass},  // another test of the same name
                          {"a \\# b", O::kPass}};
  CHECK(t.tests == expected);  // nothing from inside the YAML block ("inside the error text")
}

TEST_CASE("test output: the exit status when the format has none or the report names no test", "[verify][evidence]") {
  CHECK(ParseTestOutput(TestFormat::kExitStatus, "ok 1 - x\n", 0).tests ==
        Outcomes{{std::string(kExitStatusTest), O::kPass}});
  CHECK(ParseTestOutput(TestFormat::kJUnitXml, "ImportError: no module named x", 4).tests ==
        Outcomes{{std::string(kExitStatusTest), O::kFail}});
  CHECK(ParseTestOutput(TestFormat::kTap, "ok 1 - x\n", 1).tests == Outcomes{{"x", O::kPass}});
}

TEST_CASE("test reports are bounded: test count and id length", "[verify][evidence]") {
  std::string tap;
  for (std::size_t i = 0; i < kMaxTests + 10; ++i) tap += "ok " + std::to_string(i) + " - t" + std::to_string(i) + "\n";
  tap += "ok 1 - " + std::string(5000, 'x') + "\n";
  TestOutcomes t = ParseTap(tap);
  CHECK(t.tests.size() == kMaxTests);
  CHECK(t.truncated);
  TestOutcomes one = ParseTap("ok 1 - " + std::string(5000, 'y') + "\xff\n");
  REQUIRE(one.tests.size() == 1);
  CHECK(one.tests.begin()->first.size() <= kMaxTestIdBytes);
}

TEST_CASE("evidence commands: the runner is asked for its report, the exit status kept", "[verify][evidence]") {
  CHECK(FormatForCommand("python -m pytest -q -p no:cacheprovider") == TestFormat::kJUnitXml);
  CHECK(FormatForCommand("go test ./...") == TestFormat::kGoJson);
  CHECK(FormatForCommand("npm test") == TestFormat::kTap);
  CHECK(FormatForCommand("cargo test") == TestFormat::kExitStatus);  // not "go test"
  CHECK(FormatForCommand("python -m pytest-xdist-runner") == TestFormat::kExitStatus);
  CHECK(EvidenceCommand(TestFormat::kJUnitXml, "python -m pytest -q")
            .find("{ python -m pytest -q --junitxml=/tmp/seragen-evidence.xml; }") != std::string::npos);
  CHECK(EvidenceCommand(TestFormat::kGoJson, "cd x && go test ./...") == "cd x && go test -json ./...");
  CHECK(EvidenceCommand(TestFormat::kTap, "npm test").ends_with("--test-reporter=tap\"; npm test"));
  CHECK(EvidenceCommand(TestFormat::kExitStatus, "cargo test") == "cargo test");
}

}  // namespace seragen::verify
