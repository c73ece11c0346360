// Helpers for end-to-end tests: the real seragen binary, the scripted teacher
// (seragen-teacher, a stand-in for a model) as a process on a free loopback
// port, and small repositories made on the spot.
#pragma once

#include <string>
#include <vector>

#include "testing/temp_dir.h"

namespace seragen::e2e {

std::string Binary();         // build/seragen
std::string TeacherBinary();  // build/seragen-teacher

// `seragen-teacher` in the background; stopped on destruction.
class TeacherProcess {
 public:
  // extra_args e.g. "--latency fixed:20 --config FILE"; the request log goes to log_path.
  TeacherProcess(const std::string& work_dir, const std::string& extra_args, const std::string& log_path);
  // Works in `dir`, logs requests to dir/requests.jsonl, and REQUIREs that it
  // started.
  TeacherProcess(const testing::TempDir& dir, const std::string& extra_args);
  ~TeacherProcess();
  const std::string& url() const { return url_; }  // http://127.0.0.1:PORT/v1, empty if it failed

 private:
  int pid_ = -1;
  std::string url_;
};

// Writes a config for `repo_dir` against `url` into dir/config.yaml; returns its path.
// Writes `script` to dir/script.yaml and returns the teacher flags that
// replay it (seed 3).
std::string ReplayFlags(const testing::TempDir& dir, const std::string& script);

std::string WriteConfig(const testing::TempDir& dir, const std::string& repo_dir, const std::string& url,
                        const std::string& extra_yaml = "");

// `seragen config init` for `repo_dir` against the scripted teacher at
// `url`, written to dir/seragen.yaml; REQUIREs that it worked and returns
// that path.
std::string ConfigInit(const testing::TempDir& dir, const std::string& repo_dir, const std::string& url);

// Runs the shell command `fill` (it makes the files of `path`), then makes
// `path` a git repository (branch main) with one commit of everything in it,
// titled `message`, with fixed dates; opens `path`'s parent to the sandbox
// uids. REQUIREs that all of it worked.
void MakeGitRepo(const std::string& path, const std::string& fill, const std::string& message);

// Makes the demo Python repository at `path`.
void MakePythonRepo(const std::string& path);
// Makes the demo Python repository at dir/repo and WriteConfig()s for it.
std::string WritePythonRepoConfig(const testing::TempDir& dir, const std::string& url,
                                  const std::string& extra_yaml = "");
// Makes a small JavaScript repository at `path`.
void MakeJavaScriptRepo(const std::string& path);

// Lines of a text file (empty lines dropped).
std::vector<std::string> ReadLines(const std::string& path);

// The teacher's conversation id of a rollout (system + first user message).
std::string ConversationIdOf(const std::string& system, const std::string& user);

// The lines of /proc/self/mountinfo under the working-copy pool of the run in
// `run_dir` whose output (its log) is `run_output`: what a finished run left
// mounted there (a rollout's bytecode layer, env/bytecode_layer.h).
std::string MountsInPool(const std::string& run_dir, const std::string& run_output);

}  // namespace seragen::e2e
