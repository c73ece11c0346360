// Issue 28 (hardening round 2), findings 10 and 12: what `seragen show`
// prints from a hostile run, and the readers of a damaged run directory. Each
// case damages the run directory of a real one-task run (HostileFixture),
// then runs the readers under a watchdog (`timeout`): a reader that waits on a
// FIFO is killed (exit 137) and the case fails instead of hanging.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "integration/hostile/hostile_fixture.h"
#include "integration/pipeline/harness.h"
#include "testing/fifo_read.h"

namespace seragen::hostile {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr int kWatchdogKilled = 128 + 9;  // `timeout -s KILL` ended a reader that hung

struct Ran {
  int code = -1;
  std::string out;
};

// `seragen ARGS` under a 30 s watchdog; stdout and stderr, or stdout alone.
Ran Seragen(const std::string& args, bool stdout_only = false) {
  Ran r;
  r.code = testing::RunShell("timeout -s KILL 30 " + e2e::Binary() + " " + args + (stdout_only ? " 2>/dev/null" : ""),
                             &r.out);
  return r;
}

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void WriteAll(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << bytes;
  REQUIRE(out.good());
}

// The one task of the fixture's run.
std::string TaskId(const HostileFixture& f) {
  std::string plan = ReadAll(f.run_dir() + "/tasks.jsonl");
  std::string lines = plan.substr(0, plan.size() - 1);  // line 1 is the header, the task is the last line
  return json::parse(lines.substr(lines.rfind('\n') + 1)).at("task_id").get<std::string>();
}

// A finished one-task run whose rollout 1 only submits.
void RunPlainTask(HostileFixture& f) {
  RunOutcome o = f.Run(Submit() + Submit());
  f.CheckInvariants(o);
}

const char* const kTerminalControls[] = {"\xc2\x9b",     "\xc2\x9d", "\xc2\x9c", "\xe2\x80\xae",
                                         "\xe2\x81\xa6", "\x1b",     "\x07"};

void CheckNoTerminalControl(const std::string& shown) {
  for (const char* raw : kTerminalControls) {
    INFO("raw bytes " << json(std::string(raw)).dump() << " printed");
    CHECK(shown.find(raw) == std::string::npos);
  }
}

}  // namespace

// ---- Finding 10: `seragen show` prints what the run holds raw.

TEST_CASE("r2 finding 10: show and show --raw print C1 and bidi controls and one-line newlines visibly",
          "[hostile][round2][r2-finding10]") {
  HostileFixture f(27000);
  // The input repository's start function lives under a directory whose name holds a right-to-left override and
  // a C1 CSI; the model prints C1 OSC/ST, an isolate, ESC and BEL, and calls a tool whose name holds a newline.
  f.CommitToInputRepo("d=$(printf 'calc\\342\\200\\256\\302\\233x') && git mv calc \"$d\"");
  RunOutcome o = f.Run(Bash("printf 'out \\302\\2330;title\\302\\234 \\342\\201\\246 \\033[2J \\007 end\\n'") +
                       RawCall("\"nosuch\\n\\u009b2J\\u202e\"", "{}") + Submit() + Submit());
  f.CheckInvariants(o);
  const std::string task = TaskId(f);
  const std::string stored = ReadAll(f.run_dir() + "/shard-0/trajectories/" + task + ".r1.json");
  REQUIRE(stored.find("\xc2\x9b") != std::string::npos);  // the attack reached the run directory

  Ran show = Seragen("show " + f.run_dir() + " " + task, true);
  INFO(show.out);
  CHECK(show.code == 0);
  CheckNoTerminalControl(show.out);
  CHECK(show.out.find("\\u{202e}\\u{009b}x/") != std::string::npos);  // the function's file, one line
  CHECK(show.out.find("tool call nosuch\\x0a\\u{009b}2J\\u{202e}\n") != std::string::npos);

  Ran raw = Seragen("show --raw " + f.run_dir() + " " + task, true);
  CHECK(raw.code == 0);
  CheckNoTerminalControl(raw.out);
  json shown = json::parse(raw.out, nullptr, false);
  REQUIRE_FALSE(shown.is_discarded());
  CHECK(shown == json::parse(stored));  // the same JSON, only written with escapes
}

// ---- Finding 12: a damaged run directory.

TEST_CASE("r2 finding 12: a FIFO in place of a trajectory ends merge, export, report and show with its name",
          "[hostile][round2][r2-finding12]") {
  HostileFixture f(27010);
  RunPlainTask(f);
  const std::string task = TaskId(f);
  const std::string trajectory = f.run_dir() + "/shard-0/trajectories/" + task + ".r1.json";
  REQUIRE(fs::remove(trajectory));
  testing::MakeFifo(trajectory);

  for (const std::string command : {"merge --formats openai ", "export --format openai "}) {
    Ran r = Seragen(command + f.run_dir());
    INFO(command << ": " << r.out);
    CHECK(r.code == 1);
    CHECK(r.out.find(trajectory + " is not a regular file (a FIFO)") != std::string::npos);
  }
  Ran raw = Seragen("show --raw " + f.run_dir() + " " + task);
  INFO(raw.out);
  CHECK(raw.code == 1);
  CHECK(raw.out.find(trajectory + " is not a regular file (a FIFO)") != std::string::npos);
  // The viewers show the damage in place of the rollout and go on.
  Ran show = Seragen("show " + f.run_dir() + " " + task);
  INFO(show.out);
  CHECK(show.code == 0);
  CHECK(show.out.find("is not a regular file (a FIFO)") != std::string::npos);
  Ran report = Seragen("report " + f.run_dir() + " -o " + f.dir().Sub("report"));
  INFO(report.out);
  CHECK(report.code == 0);
  CHECK(ReadAll(f.dir().Sub("report/tasks/" + task + ".html")).find("not a regular file (a FIFO)") !=
        std::string::npos);
  CHECK(report.code != kWatchdogKilled);
}

TEST_CASE("r2 finding 12: a FIFO in place of a turn log does not hang the resume", "[hostile][round2][r2-finding12]") {
  HostileFixture f(27020);
  RunPlainTask(f);
  const std::string task = TaskId(f);
  // Back to before the task started (the journal's header line only), with a FIFO where its turn log goes.
  const std::string journal = f.run_dir() + "/shard-0/journal.jsonl";
  const std::string text = ReadAll(journal);
  WriteAll(journal, text.substr(0, text.find('\n') + 1));
  const std::string turn_log = f.run_dir() + "/shard-0/turns/" + task + ".r1.a1.jsonl";
  testing::MakeFifo(turn_log);

  RunOutcome resumed = f.Run(Submit() + Submit());
  f.CheckInvariants(resumed);  // exit 0 in time: the rollout started afresh
  std::error_code ec;
  CHECK_FALSE(fs::is_fifo(fs::symlink_status(turn_log, ec)));
}

TEST_CASE("r2 finding 12: a tasks.jsonl cut in its last line is an error naming it, never a smaller plan",
          "[hostile][round2][r2-finding12]") {
  HostileFixture f(27030);
  RunPlainTask(f);
  const std::string task = TaskId(f);
  const std::string plan = f.run_dir() + "/tasks.jsonl";
  const std::string text = ReadAll(plan);
  for (std::size_t cut : {text.size() - 1, text.size() / 2}) {
    INFO("tasks.jsonl cut at byte " << cut << " of " << text.size());
    WriteAll(plan, text.substr(0, cut));
    for (const std::string& command :
         {"export --format openai " + f.run_dir(), "merge " + f.run_dir(), "report " + f.run_dir(),
          "show " + f.run_dir() + " " + task, "status " + f.run_dir()}) {
      Ran r = Seragen(command);
      INFO(command << ": exit " << r.code << "\n" << r.out);
      CHECK(r.code == (command.starts_with("status") ? 2 : 1));
      CHECK(r.out.find(plan + " line 2") != std::string::npos);  // the task's line, after the header
    }
    RunOutcome resumed = f.Run(Submit() + Submit());
    INFO(resumed.stderr_text);
    CHECK(resumed.exit_code == 1);
    CHECK(resumed.stderr_text.find(plan + " line 2") != std::string::npos);
    CHECK(ReadAll(plan) == text.substr(0, cut));  // not replaced by a new plan
  }
}

}  // namespace seragen::hostile
