// Per-test outcomes of a test command that seragen runs itself (the test
// evidence, docs/VERIFY.md "Test evidence"): how the command is run so that
// its runner reports every test, and the parsers of what it reports.
//
// The report comes from code the agent changed (its tests, its conftest, its
// build): every parser here reads hostile input. They are total (any bytes
// give a result, never an exception), linear in the input, without recursion,
// and bounded (at most kMaxTests tests, ids at most kMaxTestIdBytes, repaired
// to valid UTF-8). Thread-safe; pure.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace seragen::verify {

// How a test command reports its tests (the journal records it and names it,
// journal/test_evidence.h).
enum class TestFormat {
  kExitStatus,  // one outcome: the command's exit status
  kJUnitXml,    // pytest --junitxml (JUnit XML, written to /tmp and printed)
  kGoJson,      // go test -json (one JSON event per line)
  kTap,         // TAP 13 as `node --test` writes it (subtests indented)
};

// The format a test command's runner can report in: junit for pytest, go-json
// for `go test`, tap for `node --test` and `npm test`; else the exit status.
TestFormat FormatForCommand(std::string_view test_command);

// The shell command seragen runs for `test_command` in `format` (run from
// the working copy): pytest gets --junitxml to a file in /tmp that is printed
// after the run; go test gets -json; node's test runner is told to write TAP
// (NODE_OPTIONS); output goes to stdout and stderr as usual. The exit status
// is the test command's.
std::string EvidenceCommand(TestFormat format, const std::string& test_command);

// One test's outcome in a run; a test the run did not report has none
// (std::nullopt where an outcome may be absent).
enum class TestOutcome { kPass, kFail, kSkip };

inline constexpr std::size_t kMaxTests = 100000;
inline constexpr std::size_t kMaxTestIdBytes = 512;
// The id of the one outcome of kExitStatus, also used when a structured
// report holds no test at all (a crash before the runner reported anything).
inline constexpr std::string_view kExitStatusTest = "(exit status)";

struct TestOutcomes {
  std::map<std::string, TestOutcome> tests;  // test id -> outcome
  bool truncated = false;                    // more than kMaxTests tests were reported
};

// JUnit XML: every <testcase> (id "classname::name"); a <failure> or <error>
// child fails it, <skipped> skips it, otherwise it passed. Text outside the
// elements, comments, CDATA and malformed markup are skipped.
TestOutcomes ParseJUnitXml(std::string_view xml);
// go test -json: the last pass/fail/skip action of each test ("pkg::Test",
// subtests "pkg::Test/sub") and of each package ("pkg"). Lines that are not
// JSON objects (build output on stderr) are skipped.
TestOutcomes ParseGoTestJson(std::string_view text);
// TAP: every test point ("ok N - name", "not ok N - name", "# SKIP"/"# TODO"
// directives skip), named by the chain of enclosing subtests
// ("group > inner"); YAML diagnostic blocks and other lines are skipped.
TestOutcomes ParseTap(std::string_view text);

// The outcomes of one run in `format`: parsed from `output`; for kExitStatus,
// or when the report holds no test, the single kExitStatusTest outcome.
TestOutcomes ParseTestOutput(TestFormat format, std::string_view output, int exit_code);

}  // namespace seragen::verify
