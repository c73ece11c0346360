#include "integration/pipeline/harness.h"

#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <thread>

#include "seragen/base/hash.h"
#include "testing/source_paths.h"

namespace seragen::e2e {

std::string Binary() { return seragen::testing::BinaryDir() + "/seragen"; }
std::string TeacherBinary() { return seragen::testing::BinaryDir() + "/seragen-teacher"; }

TeacherProcess::TeacherProcess(const std::string& work_dir, const std::string& extra_args,
                               const std::string& log_path) {
  std::string banner = work_dir + "/teacher.out";
  std::string cmd =
      TeacherBinary() + " --port 0 --request-log " + log_path + " " + extra_args + " > " + banner + " 2>&1 & echo $!";
  std::string out;
  testing::RunShell(cmd, &out);
  pid_ = std::atoi(out.c_str());
  std::regex re("http://127\\.0\\.0\\.1:[0-9]+/v1");
  for (int i = 0; i < 200 && url_.empty(); ++i) {
    std::ifstream in(banner);
    std::stringstream ss;
    ss << in.rdbuf();
    std::smatch m;
    std::string text = ss.str();
    if (std::regex_search(text, m, re)) url_ = m.str();
    else std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

TeacherProcess::TeacherProcess(const testing::TempDir& dir, const std::string& extra_args)
    : TeacherProcess(dir.path(), extra_args, dir.Sub("requests.jsonl")) {
  REQUIRE_FALSE(url_.empty());
}

TeacherProcess::~TeacherProcess() {
  if (pid_ > 0) {
    ::kill(pid_, SIGTERM);
    for (int i = 0; i < 100; ++i) {
      if (::kill(pid_, 0) != 0) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    ::kill(pid_, SIGKILL);
  }
}

std::string ReplayFlags(const testing::TempDir& dir, const std::string& script) {
  dir.Write("script.yaml", script);
  return "--seed 3 --script " + dir.Sub("script.yaml");
}

std::string WriteConfig(const testing::TempDir& dir, const std::string& repo_dir, const std::string& url,
                        const std::string& extra_yaml) {
  std::string yaml =
      "run: {dir: run, seed: 11, concurrency: 3, progress: never, grace_period_s: 2}\n"
      "repos: [{name: sample, source: '" +
      repo_dir +
      "'}]\n"
      "selection: {min_lines: 3, max_functions_per_repo: 5}\n"
      "llm:\n  model: 'seragen-scripted-teacher (not a model)'\n"
      "  endpoints: [{base_url: '" +
      url +
      "'}]\n"
      "  request_timeout_s: 5\n"
      "  retry: {initial_backoff_s: 0.05, max_backoff_s: 0.2, total_budget_s: 30}\n"
      "agent: {max_steps: 30, wall_clock_s: 120, command_timeout_s: 20}\n" +
      extra_yaml;
  dir.Write("config.yaml", yaml);
  return dir.Sub("config.yaml");
}

std::string WritePythonRepoConfig(const testing::TempDir& dir, const std::string& url, const std::string& extra_yaml) {
  MakePythonRepo(dir.Sub("repo"));
  return WriteConfig(dir, dir.Sub("repo"), url, extra_yaml);
}

void MakePythonRepo(const std::string& path) {
  testing::RunShell(seragen::testing::SourcePath("scripts/make-demo-repo ") + path);
}

std::string ConfigInit(const testing::TempDir& dir, const std::string& repo_dir, const std::string& url) {
  const std::string cfg = dir.Sub("seragen.yaml");
  std::string out;
  const int rc = testing::RunShell(Binary() + " config init --repo '" + repo_dir + "' --base-url " + url +
                                       " --model 'seragen-scripted-teacher (not a model)' -o " + cfg + " 2>&1",
                                   &out);
  INFO(out);
  REQUIRE(rc == 0);
  return cfg;
}

void MakeGitRepo(const std::string& path, const std::string& fill, const std::string& message) {
  std::filesystem::permissions(std::filesystem::path(path).parent_path(), std::filesystem::perms::others_exec,
                               std::filesystem::perm_options::add);
  REQUIRE(testing::RunShell("set -e; " + fill + "; cd '" + path +
                            "' && export GIT_AUTHOR_DATE=2026-01-01T00:00:00Z GIT_COMMITTER_DATE=2026-01-01T00:00:00Z"
                            " && git init -q -b main . && git -c user.name=t -c user.email=t@example.invalid add -A"
                            " && git -c user.name=t -c user.email=t@example.invalid commit -qm '" +
                            message + "'") == 0);
}

void MakeJavaScriptRepo(const std::string& path) {
  const std::string fill =
      "mkdir -p " + path + "/src && cd " + path +
      " && "
      "printf '%s\\n' \"const { clamp } = require('./math');\" '' "
      "'function parsePercent(text) {' '  const value = Number(text.trim());' '  return clamp(value, 0, 100);' '}' '' "
      "'function formatPercent(value) {' '  const rounded = Math.round(value * 10) / 10;' '  return rounded + \"%\";' "
      "'}' '' "
      "'module.exports = { parsePercent, formatPercent };' > src/percent.js && "
      "printf '%s\\n' 'function clamp(value, low, high) {' '  if (value < low) return low;' '  if (value > high) "
      "return high;' "
      "'  return value;' '}' '' 'function average(values) {' '  let total = 0;' '  for (const v of values) total += "
      "v;' "
      "'  return total / values.length;' '}' '' 'module.exports = { clamp, average };' > src/math.js";
  MakeGitRepo(path, fill, "Percent helpers");
}

std::vector<std::string> ReadLines(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty()) lines.push_back(line);
  }
  return lines;
}

std::string ConversationIdOf(const std::string& system, const std::string& user) {
  Sha256 h;
  h.UpdateField("system");
  h.UpdateField(system);
  h.UpdateField("user");
  h.UpdateField(user);
  return h.FinalHex().substr(0, 32);
}

std::string MountsInPool(const std::string& run_dir, const std::string& run_output) {
  std::string pool = run_dir + "/workcopies";
  const std::string said = "working copies go to ";  // the run's pool when run_dir is private
  if (const std::size_t at = run_output.find(said); at != std::string::npos) {
    const std::size_t from = at + said.size();
    pool = run_output.substr(from, run_output.find_first_of(" \n", from) - from);
  }
  std::ifstream in("/proc/self/mountinfo");
  std::string mounts;
  for (std::string line; std::getline(in, line);) {
    if (line.find(" " + pool + "/") != std::string::npos) mounts += line + "\n";
  }
  return mounts;
}

}  // namespace seragen::e2e
