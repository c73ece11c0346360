#include "cli/env_gate.h"

#include <chrono>
#include <set>

#include "cli/options_from_config.h"
#include "cli/user_text.h"
#include "seragen/base/log.h"
#include "seragen/journal/run_paths.h"

namespace seragen::cli {
namespace {

// The last `n` lines of `text`.
std::string LastLines(const std::string& text, int n) {
  std::size_t pos = text.size();
  if (pos > 0 && text[pos - 1] == '\n') --pos;
  while (pos > 0 && n > 0) {
    pos = text.rfind('\n', pos - 1);
    if (pos == std::string::npos) return text;
    --n;
  }
  return text.substr(n == 0 ? pos + 1 : 0);
}

std::string Describe(const config::EnvironmentConfig& e, const std::string& repo) {
  return "the environment of repository '" + repo + "'" + (e.profile.empty() ? "" : " (profile " + e.profile + ")");
}

Status CheckOne(const config::EnvironmentConfig& e, const callgraph::PlannedTask& task, const std::string& config_path,
                pipeline::RunWorkspaceFactory& workspaces, const std::string& env_log_dir) {
  const std::string log_path = journal::EnvSetupLogPath(env_log_dir, task.repo, task.commit);
  const std::string command = e.check.empty() ? "true" : e.check;
  const auto start = std::chrono::steady_clock::now();
  Result<pipeline::RunWorkspaceFactory::CheckOutcome> outcome = workspaces.RunCheck(task, 0, command);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const std::string off = "; or set `environment: none` in " + config_path + " to run without an environment";
  if (!outcome.ok()) {
    return FailedPreconditionError(Describe(e, task.repo) +
                                   " could not be built: " + WithoutStatusCodeNames(outcome.status().message()) +
                                   "\nsetup log: " + log_path + "\nfix: change environment.setup in " + config_path +
                                   " (try it with `seragen env check -c " + config_path + "`), then rerun" + off +
                                   "; nothing was sent to the model");
  }
  if (outcome->result.exit_code != 0 || outcome->result.timed_out) {
    return FailedPreconditionError(
        Describe(e, task.repo) + " failed its check `" + command + "` (exit status " +
        std::to_string(outcome->result.exit_code) + ", " + std::to_string(static_cast<int>(seconds)) + " s):\n" +
        LastLines(outcome->result.output + outcome->result.output_tail, 12) + "\nsetup log: " + log_path +
        "\nfix: change environment.setup (or environment.check) in " + config_path +
        " and try it with `seragen env check -c " + config_path + "`, then rerun" + off +
        "; nothing was sent to the model");
  }
  log::Logger("env").Info("{} is ready: `{}` passed in {:.1f} s", Describe(e, task.repo), command, seconds);
  return Status::Ok();
}

}  // namespace

Status CheckEnvironmentsBeforeRun(const config::Config& cfg, const std::string& config_path,
                                  const std::vector<callgraph::PlannedTask>& tasks,
                                  pipeline::RunWorkspaceFactory& workspaces, const std::string& env_log_dir) {
  std::set<std::string> seen;
  for (const callgraph::PlannedTask& task : tasks) {
    if (!seen.insert(task.repo + "@" + task.commit).second) continue;
    const config::RepoConfig* repo = nullptr;
    for (const config::RepoConfig& r : cfg.repos) {
      if (r.name == task.repo) repo = &r;
    }
    if (repo == nullptr) continue;
    const config::EnvironmentConfig& e = EffectiveEnvironment(cfg, *repo);
    if (e.none() || (e.setup.empty() && e.check.empty() && e.image.empty())) continue;
    SG_RETURN_IF_ERROR(CheckOne(e, task, config_path, workspaces, env_log_dir));
  }
  return Status::Ok();
}

}  // namespace seragen::cli
