// End-to-end: what a user sees around a run — the run directory's claim on
// its config, the config history, messages and the final line.
#include <unistd.h>

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "integration/pipeline/harness.h"
#include "seragen/base/file_util.h"

namespace seragen::e2e {
namespace {

bool Contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// `seragen run` against a port where nothing listens: it gets as far as the
// journal, then gives up on the endpoint after a second.
int RunUntilEndpoint(const std::string& cfg, const std::string& extra, std::string* out) {
  return testing::RunShell("timeout 60 " + Binary() + " run -c " + cfg + " --set llm.startup_wait_s=1 " + extra, out);
}

// The lines a terminal shows for `raw` (carriage return, erase to end of
// line and newline interpreted; other escapes kept as text).
std::vector<std::string> TerminalLines(const std::string& raw) {
  std::vector<std::string> lines;
  std::string line;
  std::size_t cursor = 0;
  for (std::size_t i = 0; i < raw.size(); ++i) {
    if (raw.compare(i, 3, "\033[K") == 0) {
      line.resize(std::min(line.size(), cursor));
      i += 2;
    } else if (raw[i] == '\r') {
      cursor = 0;
    } else if (raw[i] == '\n') {
      lines.push_back(line);
      line.clear();
      cursor = 0;
    } else {
      if (cursor < line.size()) line[cursor] = raw[i];
      else line += raw[i];
      ++cursor;
    }
  }
  lines.push_back(line);
  return lines;
}

// The progress frames drawn (the text after each erase-line).
std::vector<std::string> Frames(const std::string& raw) {
  std::vector<std::string> frames;
  for (std::size_t pos = raw.find("\r\033[K"); pos != std::string::npos;) {
    std::size_t next = raw.find("\r\033[K", pos + 4);
    std::string frame = raw.substr(pos + 4, next == std::string::npos ? std::string::npos : next - pos - 4);
    if (!frame.empty()) frames.push_back(frame.substr(0, frame.find('\n')));
    pos = next;
  }
  return frames;
}

// The demo repository in a fresh directory, and a config whose repository
// is `source` (a subdirectory) against a port where nothing listens.
struct OfflineRun {
  testing::TempDir dir;
  std::string cfg;
  explicit OfflineRun(const std::string& source = "repo") {
    MakePythonRepo(dir.Sub("repo"));
    cfg = WriteConfig(dir, dir.Sub(source), "http://127.0.0.1:9/v1");
  }
};

}  // namespace

TEST_CASE("on a terminal the progress line stays apart from log lines, counts tokens live, says it is stopping",
          "[e2e][pty]") {
  testing::TempDir dir;
  TeacherProcess teacher(dir.path(), "--seed 3 --latency fixed:100", dir.Sub("requests.jsonl"));
  MakePythonRepo(dir.Sub("repo"));
  const std::string cfg = WriteConfig(dir, dir.Sub("repo"), teacher.url());
  REQUIRE_FALSE(teacher.url().empty());
  // `script` gives the run a terminal; SIGINT (Ctrl-C) after 2.5 s.
  dir.Write("run.sh", Binary() + " run -c " + cfg + " --set run.progress=auto & pid=$!\nsleep 2.5\nkill -INT $pid\n" +
                          "wait $pid\necho \"exit=$?\"\n");
  std::string out;
  REQUIRE(testing::RunShell("timeout 60 script -qfec 'sh " + dir.Sub("run.sh") + "' /dev/null", &out) == 0);
  INFO(out);
  CHECK(Contains(out, "exit=75"));
  std::size_t log_lines = 0;
  for (const std::string& line : TerminalLines(out)) {
    const std::size_t level = std::min(line.find(" INFO "), line.find(" WARN "));
    if (level == std::string::npos) continue;
    ++log_lines;
    CHECK(line.find("tasks done") > level);  // no progress text before the log line's own start
  }
  CHECK(log_lines > 0);
  bool live_tokens = false, stopping = false;
  for (const std::string& frame : Frames(out)) {
    live_tokens = live_tokens || (frame.rfind("0/5 tasks done", 0) == 0 && !Contains(frame, " 0 tokens in"));
    stopping = stopping || frame.rfind("stopping, grace ", 0) == 0;
  }
  CHECK(live_tokens);  // tokens show before the first task finished
  CHECK(stopping);
  CHECK(Contains(out, "Ctrl-C again to quit"));
}

TEST_CASE("a run that fails before planning does not claim the run directory", "[e2e]") {
  OfflineRun r("no-such-repo");
  const testing::TempDir& dir = r.dir;
  std::string out;
  CHECK(testing::RunShell(Binary() + " run -c " + r.cfg, &out) == 2);
  CHECK(!std::filesystem::exists(dir.Sub("run/config.json")));
  // The corrected path is not refused as a config change.
  std::string cfg = WriteConfig(dir, dir.Sub("repo"), "http://127.0.0.1:9/v1");
  INFO(out);
  CHECK(testing::RunShell(Binary() + " plan -c " + cfg, &out) == 0);
  CHECK(std::filesystem::exists(dir.Sub("run/config.json")));
}

TEST_CASE("a start that ran no task does not refuse the corrected command as a config change", "[e2e]") {
  OfflineRun r;
  const testing::TempDir& dir = r.dir;
  std::string out;
  REQUIRE(RunUntilEndpoint(r.cfg, "", &out) == 1);  // plan, config and journal written; no task ran
  REQUIRE(std::filesystem::exists(dir.Sub("run/tasks.jsonl")));
  // The corrected command plans afresh with its config instead of exit 2.
  CHECK(RunUntilEndpoint(r.cfg, "--set agent.max_steps=7", &out) == 1);
  INFO(out);
  CHECK(!Contains(out, "--allow-config-change"));
  CHECK(Contains(*ReadFile(dir.Sub("run/config.yaml")), "max_steps: 7"));
  CHECK(!std::filesystem::exists(dir.Sub("run/config.1.yaml")));
}

TEST_CASE(
    "an accepted config change (--allow-config-change) keeps the replaced config and says so in the journal and later "
    "refusals",
    "[e2e]") {
  OfflineRun r;
  const testing::TempDir& dir = r.dir;
  const std::string& cfg = r.cfg;
  std::string out;
  REQUIRE(RunUntilEndpoint(cfg, "", &out) == 1);  // journal written with the first config
  REQUIRE(RunUntilEndpoint(cfg, "--set agent.max_steps=7 --allow-config-change", &out) == 1);
  INFO(out);
  auto first = ReadFile(dir.Sub("run/config.1.yaml"));
  REQUIRE(first.ok());
  CHECK(Contains(*first, "max_steps: 30"));
  CHECK(std::filesystem::exists(dir.Sub("run/config.1.json")));
  CHECK(Contains(*ReadFile(dir.Sub("run/config.yaml")), "max_steps: 7"));
  CHECK(Contains(*ReadFile(dir.Sub("run/shard-0/journal.jsonl")), "\"previous_config\":\"config.1.yaml\""));
  // The next refusal compares with the changed config and names the history.
  CHECK(testing::RunShell(Binary() + " plan -c " + cfg + " --set agent.max_steps=9", &out) == 2);
  CHECK(Contains(out, "agent.max_steps: 7 -> 9"));
  CHECK(Contains(out, "since its accepted change 1"));
  CHECK(Contains(out, "config.1.yaml"));
  CHECK(!Contains(out, "was started with"));
}

TEST_CASE("a repository the user may not read is reported as a permission problem", "[e2e]") {
  if (::geteuid() != 0) {
    WARN("not root: cannot run seragen as another user, skipped");
    return;
  }
  OfflineRun r;
  const testing::TempDir& dir = r.dir;
  const std::string& cfg = r.cfg;
  namespace fs = std::filesystem;
  fs::permissions(dir.path(), fs::perms::owner_all | fs::perms::others_read | fs::perms::others_exec);
  fs::permissions(dir.Sub("repo"), fs::perms::owner_all);
  fs::create_directories(dir.Sub("run"));
  fs::permissions(dir.Sub("run"), fs::perms::all);
  std::string out;
  int rc = testing::RunShell(
      "cd / && setpriv --reuid=65534 --regid=65534 --clear-groups " + Binary() + " plan -c " + cfg + " 2>&1", &out);
  INFO(out);
  CHECK(rc != 0);
  CHECK(Contains(out, "permission denied: '" + dir.Sub("repo") + "' cannot be read by this user"));
  CHECK(!Contains(out, "could not find repository"));
  CHECK(!Contains(out, "PERMISSION_DENIED"));
}

TEST_CASE("config init writes a commented config that validates and plans", "[e2e]") {
  testing::TempDir dir;
  MakePythonRepo(dir.Sub("my-repo"));
  const std::string cfg = dir.Sub("seragen.yaml");
  const std::string init = Binary() + " config init --repo '" + dir.Sub("my-repo") +
                           "' --base-url http://127.0.0.1:9/v1 --model 'org/model-7b' -o " + cfg;
  std::string out;
  REQUIRE(testing::RunShell(init, &out) == 0);
  INFO(out);
  std::string text = *ReadFile(cfg);
  CHECK(Contains(text, "\n# "));  // commented
  CHECK(Contains(text, "source: '" + dir.Sub("my-repo") + "'"));
  CHECK(testing::RunShell(Binary() + " config show -c " + cfg, &out) == 0);
  CHECK(Contains(out, "model: org/model-7b"));
  REQUIRE(testing::RunShell(Binary() + " plan -c " + cfg, &out) == 0);
  CHECK(Contains(out, "tasks"));
  CHECK(std::filesystem::exists(dir.Sub("runs/my-repo/tasks.jsonl")));
  // An existing file is kept unless --force.
  CHECK(testing::RunShell(init, &out) == 2);
  CHECK(Contains(out, "exists already"));
  CHECK(testing::RunShell(init + " --force", &out) == 0);
}

}  // namespace seragen::e2e
