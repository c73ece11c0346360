// Whole-pipeline benchmark: `seragen run` in-process against the scripted
// teacher in a forked child process (so the figures are the orchestrator's).
//
//   bench_pipeline [tasks=48] [concurrency=8] [latency_ms=0] [packages] [copies_dir]
//
// Prints tasks per minute, agent steps per second, orchestrator CPU per agent
// step and peak RSS, and per model call seragen's own CPU (split by working-
// copy phase: pipeline/workspace_cpu.h) and its sandboxed commands' CPU
// (everything it spawned and reaped). With latency_ms=2000 and
// concurrency=1000 it is the "1,000 rollouts in flight" memory check (target:
// peak RSS under 2 GB). `packages`, a ':'-separated list of Python package
// directories (e.g. sympy and the mpmath it imports), makes the repository
// out of copies of them instead of the small generated one: a repository whose
// commands take seconds (each reproduction script imports the package). The
// plan is made first and not counted. The scripted teacher stands in for a
// model: it calls no GPU, so these figures are seragen's and the commands'.
// `copies_dir` puts the working copies there (e.g. on tmpfs) instead of under
// the bench directory in /tmp. The Python bytecode cache (compiled once per
// repository and commit, shared read-only by the rollouts) is made first, in a
// cache directory of the bench's own, by `seragen env check`, and not counted
// either; its one-time cost and size are printed.
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "bench_util.h"
#include "cli/run_command.h"
#include "seragen/agent/trajectory_json.h"
#include "seragen/base/file_util.h"
#include "seragen/base/log.h"
#include "seragen/config/loader.h"
#include "seragen/pipeline/workspace_cpu.h"
#include "seragen/runview/status_report.h"
#include "teacher/options.h"
#include "teacher/server.h"
#include "testing/source_paths.h"

using namespace seragen;

namespace {

// A Python package with `files` modules of 8 small functions that call each other.
void MakeRepo(const std::string& dir, int files) {
  std::filesystem::create_directories(dir + "/pkg");
  std::ofstream(dir + "/pkg/__init__.py") << "";
  for (int f = 0; f < files; ++f) {
    std::ofstream out(dir + "/pkg/mod" + std::to_string(f) + ".py");
    out << "\"\"\"Module " << f << ".\"\"\"\n\n";
    for (int i = 0; i < 8; ++i) {
      out << "def step_" << f << "_" << i << "(value, limit):\n"
          << "    \"\"\"Advance value towards limit.\"\"\"\n"
          << "    total = value + " << i << "\n"
          << "    if total > limit:\n"
          << "        total = limit\n";
      if (i > 0) out << "    total = step_" << f << "_" << (i - 1) << "(total, limit)\n";
      out << "    return total\n\n\n";
    }
  }
  std::string cmd = "cd " + dir +
                    " && git init -q -b main . && git -c user.name=b -c user.email=b@example.invalid add -A && "
                    "GIT_AUTHOR_DATE=2026-01-01T00:00:00Z GIT_COMMITTER_DATE=2026-01-01T00:00:00Z "
                    "git -c user.name=b -c user.email=b@example.invalid commit -q -m bench";
  if (std::system(cmd.c_str()) != 0) std::exit(1);
}

// A repository holding copies of the Python package directories listed in
// `packages` (':'-separated), without their bytecode.
void MakeRepoFromPackages(const std::string& dir, const std::string& packages) {
  std::string cmd = "mkdir -p " + dir;
  for (std::size_t at = 0; at <= packages.size();) {
    std::size_t end = std::min(packages.find(':', at), packages.size());
    if (end > at) cmd += " && cp -r '" + packages.substr(at, end - at) + "' " + dir + "/";
    at = end + 1;
  }
  cmd += " && find " + dir + " -name __pycache__ -prune -exec rm -rf {} + && cd " + dir +
         " && git init -q -b main . && git -c user.name=b -c user.email=b@example.invalid add -A && "
         "GIT_AUTHOR_DATE=2026-01-01T00:00:00Z GIT_COMMITTER_DATE=2026-01-01T00:00:00Z "
         "git -c user.name=b -c user.email=b@example.invalid commit -q -m bench";
  if (std::system(cmd.c_str()) != 0) std::exit(1);
}

// CPU seconds (user + system) of the reaped descendants of this process.
double ChildrenCpuSeconds() {
  rusage u{};
  getrusage(RUSAGE_CHILDREN, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

// Makes the bytecode cache with `seragen env check` and prints what it cost.
bool MakeBytecodeCache(const config::LoadedConfig& loaded, const std::string& cache_dir) {
  const auto start = std::chrono::steady_clock::now();
  const double children0 = ChildrenCpuSeconds();
  if (cli::EnvCheckCommand(loaded, "") != 0) return false;
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::uint64_t files = 0, bytes = 0;
  std::error_code ec;
  for (std::filesystem::recursive_directory_iterator it(cache_dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->is_regular_file(ec) && it->path().extension() == ".pyc") {
      ++files;
      bytes += it->file_size(ec);
    }
  }
  std::printf("bytecode cache (made before the run, not counted): %.1f s wall, %.1f s CPU, %llu pycs, %.0f MB\n", wall,
              ChildrenCpuSeconds() - children0, static_cast<unsigned long long>(files), bytes / 1048576.0);
  return true;
}

// What is made before the measured run: the plan (its graph's parse is not a
// model call's; the small generated repository's is made by the run), then
// the bytecode cache, in a cache directory of the bench's own.
bool Prepare(const config::LoadedConfig& loaded, const std::string& base, bool plan) {
  if (plan && cli::PlanCommand(loaded) != 0) return false;
  ::setenv("XDG_CACHE_HOME", (base + "/cache").c_str(), 1);  // after the plan, whose graph may be cached
  return MakeBytecodeCache(loaded, base + "/cache/seragen/pycache");
}

// Where seragen's share of `cpu` seconds over `calls` model calls goes: each
// working-copy phase on its own thread's CPU clock; the rest is the model
// calls, journal, scheduling and what forks leave behind (copy-on-write faults).
void PrintPhaseCpu(const std::array<pipeline::PhaseCpu, pipeline::kWorkspacePhases>& phase_cpu, double cpu,
                   double calls) {
  double phases = 0;
  std::printf("seragen CPU per call by working-copy phase:");
  for (std::size_t i = 0; i < pipeline::kWorkspacePhases; ++i) {
    const pipeline::PhaseCpu p = phase_cpu[i];
    phases += p.seconds;
    std::printf(" %s %.1f ms (%lld),",
                std::string(pipeline::WorkspacePhaseName(static_cast<pipeline::WorkspacePhase>(i))).c_str(),
                1000.0 * p.seconds / calls, static_cast<long long>(p.count));
  }
  std::printf(" other %.1f ms\n", 1000.0 * (cpu - phases) / calls);
}

// Agent steps and rollouts of the trajectory files in `dir`.
void CountTrajectories(const std::string& dir, long* steps, long* rollouts) {
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    auto t = agent::TrajectoryFromJson(*ReadFile(e.path().string()));
    if (t.ok()) {
      *steps += t->totals.steps;
      ++*rollouts;
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  int tasks = argc > 1 ? std::atoi(argv[1]) : 48;
  int concurrency = argc > 2 ? std::atoi(argv[2]) : 8;
  int latency_ms = argc > 3 ? std::atoi(argv[3]) : 0;
  std::string base = "/tmp/seragen-pipeline-bench";
  std::filesystem::remove_all(base);
  std::filesystem::create_directories(base);
  std::filesystem::permissions(
      base, std::filesystem::perms::all & ~std::filesystem::perms::group_write & ~std::filesystem::perms::others_write);
  const std::string packages = argc > 4 ? argv[4] : "";
  if (packages.empty()) {
    MakeRepo(base + "/repo", (tasks + 7) / 8 + 1);
  } else {
    MakeRepoFromPackages(base + "/repo", packages);
  }

  // The teacher runs in a child process, started before this process has threads.
  int pipefd[2];
  if (::pipe(pipefd) != 0) return 1;
  pid_t child = ::fork();
  if (child == 0) {
    ::close(pipefd[0]);
    teacher::TeacherOptions o;
    o.prompts_dir = seragen::testing::SourcePath("prompts");
    o.seed = 1;
    o.threads = 1;
    if (latency_ms > 0) {
      o.latency.kind = teacher::LatencyModel::Kind::kFixed;
      o.latency.fixed_ms = latency_ms;
    }
    teacher::Server server;
    auto port = server.Start(o);
    int p = port.ok() ? *port : -1;
    if (::write(pipefd[1], &p, sizeof p) != sizeof p) std::_Exit(1);
    while (true) ::pause();
  }
  ::close(pipefd[1]);
  int port = -1;
  if (::read(pipefd[0], &port, sizeof port) != sizeof port || port <= 0) {
    std::fprintf(stderr, "teacher did not start\n");
    return 1;
  }

  std::string yaml = "run: {dir: " + base + "/run, seed: 1, concurrency: " + std::to_string(concurrency) +
                     ", progress: never, log_level: warn}\n"
                     "repos: [{name: bench, source: " +
                     base +
                     "/repo}]\n"
                     "selection: {min_lines: 3, max_functions_per_repo: " +
                     std::to_string(tasks) +
                     "}\n"
                     "llm:\n  model: 'seragen-scripted-teacher (not a model)'\n"
                     "  endpoints: [{base_url: 'http://127.0.0.1:" +
                     std::to_string(port) +
                     "/v1'}]\n"
                     "  max_concurrency: " +
                     std::to_string(std::max(64, concurrency + 16)) +
                     "\n"
                     "  max_concurrency_per_endpoint: " +
                     std::to_string(std::max(32, concurrency + 16)) +
                     "\n"
                     "agent: {max_steps: 40, wall_clock_s: 600, command_timeout_s: 60}\n"
                     "environment: {check: 'true'}\n"
                     "workcopies: {dir: " +
                     (argc > 5 ? std::string(argv[5]) : base + "/copies") + "}\n";
  auto loaded = config::LoadConfigText(yaml, base + "/bench.yaml");
  if (!loaded.ok()) {
    std::fprintf(stderr, "%s\n", loaded.status().ToString().c_str());
    return 1;
  }
  if (!Prepare(*loaded, base, !packages.empty())) return 1;
  auto start = std::chrono::steady_clock::now();
  double cpu0 = bench::ReadUsage().cpu_seconds;
  const double children0 = ChildrenCpuSeconds();
  runview::RunResult result = cli::RunCommand(*loaded, {});
  double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  double cpu = bench::ReadUsage().cpu_seconds - cpu0;
  const double sandbox_cpu = ChildrenCpuSeconds() - children0;  // before the teacher is reaped
  const auto phase_cpu = pipeline::WorkspaceCpuTotals();        // the plan above took no copy
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);

  long steps = 0, rollouts = 0;
  CountTrajectories(base + "/run/shard-0/trajectories", &steps, &rollouts);
  std::printf("tasks: %d planned, concurrency %d, teacher latency %d ms, result %s\n", tasks, concurrency, latency_ms,
              std::string(runview::RunResultName(result)).c_str());
  std::printf("wall %.2f s; rollouts %ld; agent steps %ld\n", wall, rollouts, steps);
  std::printf("tasks per minute:                 %.0f\n", 60.0 * tasks / wall);
  std::printf("agent steps per second:           %.0f\n", steps / wall);
  std::printf("orchestrator CPU per agent step:  %.2f ms (includes sandboxed-command spawning and git diffs)\n",
              1000.0 * cpu / std::max(1L, steps));
  std::printf("peak RSS (orchestrator):          %ld MB\n", bench::ReadUsage().peak_rss_kib / 1024);
  // The teacher's simulated prefix cache: what a vLLM-like server would serve from its KV cache.
  if (auto status = runview::ReadStatus(base + "/run"); status.ok()) {
    long long agent_prompt = 0, agent_cached = 0;
    for (const auto& [stage, c] : status->tokens.cache_by_stage) {
      std::printf("prompt cache %-9s %5.1f%% of %lld prompt tokens\n", stage.c_str(), 100.0 * c.HitRate(),
                  static_cast<long long>(c.prompt_tokens));
      if (stage == "rollout1" || stage == "rollout2") {
        agent_prompt += c.prompt_tokens;
        agent_cached += c.cached_tokens;
      }
    }
    const double agent_rate = agent_prompt > 0 ? 100.0 * static_cast<double>(agent_cached) / agent_prompt : 0;
    std::printf("prompt cache agent turns %5.1f%% (target >= 90%%: %s)\n", agent_rate,
                agent_rate >= 90.0 ? "met" : "NOT met");
    std::printf("wasted tokens (no accepted trajectory): %lld\n", static_cast<long long>(status->tokens.wasted_total));
    const double calls = static_cast<double>(std::max<std::int64_t>(1, status->model_calls));
    std::printf(
        "model calls %lld: seragen CPU per call %.1f ms (target <= 15), sandboxed commands' CPU per call %.1f ms "
        "(target <= 150)\n",
        static_cast<long long>(status->model_calls), 1000.0 * cpu / calls, 1000.0 * sandbox_cpu / calls);
    PrintPhaseCpu(phase_cpu, cpu, calls);
  }
  return result == runview::RunResult::kComplete ? 0 : 1;
}
