// One hostile-model scenario: a tiny repository (with a Latin-1 comment), a
// host "canary" directory holding a root-only secret, the scripted teacher
// replaying the attack (`seragen-teacher --script`, every request body
// logged), one `seragen run` of a single task measured with wait4, and the
// checks every scenario shares: the canary is unchanged, no secret reached
// any output or the model, no crash, bounded memory and disk, no sandbox
// process left behind.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "integration/hostile/host_snapshot.h"
#include "testing/temp_dir.h"

namespace seragen::hostile {

// Script turns (YAML list items) for the teacher's replay mode.
std::string Bash(const std::string& command);
std::string Editor(const nlohmann::json& arguments);
std::string RawCall(const std::string& tool, const std::string& raw_arguments);
std::string Submit();  // one submit call (review, then a second one submits)

struct RunOutcome {
  bool exited = false;  // false: killed by a signal (or the watchdog)
  int exit_code = -1;
  int signal = 0;
  long max_rss_kb = 0;  // peak RSS of the seragen process (wait4)
  double seconds = 0;
  std::string stdout_text, stderr_text;
  bool timed_out = false;  // the watchdog had to kill it
};

// Bounds every scenario is held to. Defaults are generous for a one-task
// run on a tiny repository and far below what the findings of issue 12 used.
struct Bounds {
  long max_rss_kb = 400 * 1024;
  std::uint64_t max_run_dir_bytes = 32ull << 20;
  std::uint64_t max_sent_bytes = 32ull << 20;  // all request bodies together
  int expected_exit_code = 0;                  // docs/RUN.md: the shard finished
  bool expect_rollout = true;                  // false: the run must stop before any task
};

class HostileFixture {
 public:
  // `uid_base`: the slot uids of this scenario (sandbox.uid_base), distinct
  // per test case so parallel ctest runs never share a process count.
  explicit HostileFixture(std::uint32_t uid_base);
  ~HostileFixture();
  HostileFixture(const HostileFixture&) = delete;
  HostileFixture& operator=(const HostileFixture&) = delete;

  const std::string& canary() const { return canary_; }  // host directory, visible (read-only) in the sandbox
  const std::string& secret() const { return secret_; }  // content of canary()/secret.txt, mode 0600 root
  const std::string& api_key() const { return api_key_; }
  std::string run_dir() const { return dir_.Sub("run"); }
  // The input repository the constructor made (one commit on main); a case
  // may make it hostile before Run(), or move it and name the new place with
  // UseInputRepository (the config's repos[0].source).
  std::string input_repository() const { return dir_.Sub("repo"); }
  void UseInputRepository(const std::string& source) { repo_source_ = source; }
  const testing::TempDir& dir() const { return dir_; }

  // Runs shell `commands` in the input repository (before Run) and commits
  // whatever they changed, for hostile input repositories.
  void CommitToInputRepo(const std::string& commands);

  // Plays `rollout1_turns` (concatenated Bash/Editor/... items) in rollout 1;
  // rollout 2 submits at once, the issue writer and judge give fixed answers.
  // `extra_yaml` adds top-level config sections not written here.
  RunOutcome Run(const std::string& rollout1_turns, const std::string& extra_yaml = "", double command_timeout_s = 5);

  // The shared checks (Catch2 CHECKs, with the offending files named).
  void CheckInvariants(const RunOutcome& outcome, const Bounds& bounds = {});

  // Stored trajectories of the run (parsed JSON), rollout 1 first.
  std::vector<nlohmann::json> Trajectories() const;
  // What the agent got back for each turn of rollout 1, in order: the
  // observation, or the format-error message of a rejected turn.
  std::vector<std::string> Rollout1Observations() const;
  std::string BodyLogPath() const { return dir_.Sub("bodies.jsonl"); }

  // Extra `seragen run --set KEY=VALUE` overrides of the config Run() writes
  // (e.g. "agent.max_tokens=5000"). Set before Run().
  std::vector<std::string> config_sets;
  // More strings that must reach no output, stored file, export or request
  // (like secret()), e.g. canaries a case planted elsewhere on the host.
  std::vector<std::string> extra_secrets;
  // Script items for the issue writer (Bash/Editor/... style YAML list items);
  // empty: one fixed, short issue. Set before Run().
  std::string issue_writer_turns;

 private:
  testing::TempDir dir_;
  std::string canary_root_, canary_, secret_, api_key_, repo_source_;
  std::uint32_t uid_base_;
  Snapshot before_;
  bool ran_ = false;
};

}  // namespace seragen::hostile
