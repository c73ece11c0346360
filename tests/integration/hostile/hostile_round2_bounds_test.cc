// Hostile suite, issue 28 round 2: endless answers and bounds (findings 5, 6,
// 8, 9 and 13). Each case plays its attack through the scripted teacher's
// replay mode (its test-harness faults `endless` and `usage` where the server
// itself misbehaves) and holds the run to the suite's invariants.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <string>

#include "integration/hostile/hostile_fixture.h"

namespace seragen::hostile {
namespace {

using nlohmann::json;

std::string ExitStatusOfRollout(const HostileFixture& f, int rollout) {
  for (const json& t : f.Trajectories()) {
    if (t.value("rollout", 0) == rollout) return t.value("exit_status", "");
  }
  return "(no trajectory)";
}

// Largest regular file under `dir`, in bytes.
std::uintmax_t LargestFile(const std::string& dir) {
  std::uintmax_t largest = 0;
  std::error_code ec;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir, ec)) {
    if (e.is_regular_file(ec)) largest = std::max(largest, e.file_size(ec));
  }
  return largest;
}

std::string Endless() { return "  - {content: 'never ends', endless: true}\n"; }

std::string WithUsage(const std::string& command, const std::string& usage) {
  return "  - {tool: bash, arguments: '" + json{{"command", command}}.dump() + "', usage: '" + usage + "'}\n";
}

}  // namespace

TEST_CASE("a 3 MB tool argument is cut on arrival, never stored or re-sent whole", "[hostile][round2][r2-finding5]") {
  HostileFixture f(26000);
  const std::string huge = "echo " + std::string(3 * 1024 * 1024, 'a');
  RunOutcome o = f.Run(RawCall("bash", json{{"command", huge}}.dump()) + Bash("ls") + Bash("ls") + Bash("ls") +
                       Submit() + Submit());
  Bounds b;
  b.max_sent_bytes = 4u << 20;
  b.max_run_dir_bytes = 4u << 20;
  f.CheckInvariants(o, b);
  auto seen = f.Rollout1Observations();
  REQUIRE_FALSE(seen.empty());
  CHECK(seen[0].find("1048576 bytes") != std::string::npos);  // the model was told its reply was too large
  CHECK(LargestFile(f.run_dir()) < (1u << 20));
  CHECK(ExitStatusOfRollout(f, 1) == "submitted");
}

TEST_CASE("a 2 MB synthetic issue is asked again, never stored or sent to rollout 2",
          "[hostile][round2][r2-finding5]") {
  HostileFixture f(26010);
  f.issue_writer_turns = "  - content: '<issue>" + std::string(2 * 1024 * 1024, 'w') +
                         "</issue>'\n"
                         "  - content: '<issue>clamp() in calc/ops.py is wrong at the upper bound.</issue>'\n";
  RunOutcome o = f.Run(Bash("echo '# upper bound' >> /repo/calc/ops.py") + Submit() + Submit());
  Bounds b;
  b.max_sent_bytes = 3u << 20;  // the long issue in the two rollout-2 requests alone would pass this
  f.CheckInvariants(o, b);
  CHECK(LargestFile(f.run_dir()) < (1u << 20));
  CHECK(ExitStatusOfRollout(f, 2) == "submitted");
}

TEST_CASE("editor edits of a 4 MB single-line file answer within the view cap", "[hostile][round2][r2-finding6]") {
  HostileFixture f(26020);
  const std::string make =
      "{ printf start; head -c 4000000 /dev/zero | tr '\\0' x; } > /repo/big.txt; wc -c /repo/big.txt";
  RunOutcome o = f.Run(
      Bash(make) +
      Editor({{"command", "str_replace"}, {"path", "/repo/big.txt"}, {"old_str", "start"}, {"new_str", "begin"}}) +
      Editor({{"command", "insert"}, {"path", "/repo/big.txt"}, {"insert_line", 1}, {"new_str", "tail"}}) +
      Bash("rm /repo/big.txt") + Submit() + Submit());
  f.CheckInvariants(o);
  auto seen = f.Rollout1Observations();
  REQUIRE(seen.size() >= 3);
  CHECK(seen[0].find("4000005") != std::string::npos);  // the file was really made
  for (int i : {1, 2}) {
    INFO("editor observation " << i << " (" << seen[i].size() << " bytes): " << seen[i].substr(0, 200));
    CHECK(seen[i].size() < 64 * 1024);
    CHECK(seen[i].find("changed lines are long") != std::string::npos);
  }
}

TEST_CASE("a NUL byte in a bash command is named as such", "[hostile][round2][r2-finding13]") {
  HostileFixture f(26030);
  RunOutcome o = f.Run(Bash(std::string("echo a\0b", 8)) + Submit() + Submit());
  f.CheckInvariants(o);
  auto seen = f.Rollout1Observations();
  REQUIRE_FALSE(seen.empty());
  CHECK(seen[0].find("NUL byte") != std::string::npos);
  CHECK(seen[0].find("bytes accepted") == std::string::npos);
}

TEST_CASE("hostile usage numbers are server faults and cannot switch the token budget off",
          "[hostile][round2][r2-finding9]") {
  HostileFixture f(26040);
  f.config_sets = {"agent.max_tokens=5000"};
  std::string turns;
  const char* hostile[] = {R"({"prompt_tokens": -1000000000, "completion_tokens": 1})",
                           R"({"prompt_tokens": 1e30, "completion_tokens": 1})",
                           R"({"prompt_tokens": 12.5, "completion_tokens": 1})"};
  for (int i = 0; i < 12; ++i) {
    turns += WithUsage("echo hostile " + std::to_string(i), hostile[i % 3]);  // answered, then refused: retried
    turns += Bash("echo step " + std::to_string(i));                          // the retry gets this one
  }
  RunOutcome o = f.Run(turns + Submit() + Submit());
  f.CheckInvariants(o);
  CHECK(ExitStatusOfRollout(f, 1) == "exit_tokens");
  for (const json& t : f.Trajectories()) {
    const json& totals = t["totals"];
    CHECK(totals.value("prompt_tokens", -1) >= 0);
    CHECK(totals.value("prompt_tokens", -1) < 1000000);
  }
}

TEST_CASE("an endless answer body costs bounded memory and is retried as a server fault",
          "[hostile][round2][r2-finding8]") {
  for (const bool stream : {false, true}) {
    DYNAMIC_SECTION((stream ? "streamed" : "plain")) {
      HostileFixture f(stream ? 26060 : 26050);
      f.config_sets = {"llm.max_response_bytes=4194304", std::string("llm.stream=") + (stream ? "true" : "false")};
      RunOutcome o = f.Run(Endless() + Bash("ls") + Submit() + Submit());
      Bounds b;
      b.max_rss_kb = 200 * 1024;
      f.CheckInvariants(o, b);
      CHECK(ExitStatusOfRollout(f, 1) == "submitted");
      CHECK(o.seconds < 30);
    }
  }
}

}  // namespace seragen::hostile
