// Report benchmark: generates a synthetic run (plan, journals, one small
// trajectory per rollout and an issue per task; tests/report/synthetic_run.h)
// and times on it, each as a child process of the seragen binary next to this
// build's bench/ directory (so its peak RSS from wait4 is its own): `status`,
// `status --json`, `report` from scratch, `report` again with every page
// unchanged (the incremental path of a report of a run in progress), and
// `export`. Prints one line per command; not part of ctest.
//
//   bench_report [tasks=100000] [shards=4] [dir=$TMPDIR or /tmp]
// With SERAGEN_BENCH_KEEP set, the run directory is kept (for profiling).
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "report/synthetic_run.h"

using namespace seragen;

namespace {

double Seconds(std::chrono::steady_clock::duration d) { return std::chrono::duration<double>(d).count(); }

std::uintmax_t TreeBytes(const std::string& dir) {
  std::uintmax_t total = 0;
  std::error_code ec;
  for (std::filesystem::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->is_regular_file(ec)) total += it->file_size(ec);
  }
  return total;
}

// build/seragen, from this program's path (build/bench/report/bench_report).
std::string SeragenBinary() {
  std::error_code ec;
  std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  return (self.parent_path() / "../../seragen").lexically_normal().string();
}

// Runs `seragen ARGS...` as a child with its output to /dev/null; prints
// `<label>: <seconds> s, peak RSS <MB> MB` (peak RSS from wait4: the child's own).
bool Timed(const char* label, const std::vector<std::string>& args) {
  std::string binary = SeragenBinary();
  std::vector<char*> argv{const_cast<char*>("seragen")};
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::fflush(stdout);
  auto start = std::chrono::steady_clock::now();
  pid_t pid = ::fork();
  if (pid == 0) {
    int null = ::open("/dev/null", O_WRONLY);
    if (null >= 0) ::dup2(null, STDOUT_FILENO);
    ::execv(binary.c_str(), argv.data());
    std::perror("exec seragen");
    ::_exit(127);
  }
  int status = 0;
  struct rusage usage {};
  ::wait4(pid, &status, 0, &usage);  // this child's own resource use
  double secs = Seconds(std::chrono::steady_clock::now() - start);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::printf("%s: failed (%s exited with %d)\n", label, binary.c_str(),
                WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    return false;
  }
  std::printf("%s: %.2f s, peak RSS %.1f MB\n", label, secs, static_cast<double>(usage.ru_maxrss) / 1024.0);
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t tasks = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 100000;
  int shards = argc > 2 ? std::atoi(argv[2]) : 4;
  const char* tmp = std::getenv("TMPDIR");
  std::string base = argc > 3 ? argv[3] : (tmp && *tmp ? tmp : "/tmp");
  std::string dir = base + "/seragen-bench-report-XXXXXX";
  if (::mkdtemp(dir.data()) == nullptr) {
    std::perror("mkdtemp");
    return 1;
  }
  report::testing::SyntheticRunOptions o;
  o.tasks = tasks;
  o.shards = shards;
  o.repos = 20;
  auto start = std::chrono::steady_clock::now();
  Status made = report::testing::MakeSyntheticRun(dir + "/run", o);
  if (!made.ok()) {
    std::fprintf(stderr, "%s\n", made.ToString().c_str());
    return 1;
  }
  std::printf("synthetic run: %zu tasks, %d shards, %.1f MB on disk, made in %.2f s\n", tasks, shards,
              static_cast<double>(TreeBytes(dir + "/run")) / 1e6, Seconds(std::chrono::steady_clock::now() - start));
  std::fflush(stdout);

  const std::string run_dir = dir + "/run", out_dir = dir + "/report";
  bool ok = Timed("status", {"status", run_dir}) && Timed("status --json", {"status", "--json", run_dir}) &&
            Timed("report (all pages)", {"report", run_dir, "-o", out_dir}) &&
            Timed("report again (nothing changed)", {"report", run_dir, "-o", out_dir}) &&
            Timed("export", {"export", run_dir, "--out", dir + "/data"});
  if (ok) {
    std::printf("report directory: %.1f MB; index.html %.1f KB\n", static_cast<double>(TreeBytes(out_dir)) / 1e6,
                static_cast<double>(std::filesystem::file_size(out_dir + "/index.html")) / 1e3);
  }
  if (std::getenv("SERAGEN_BENCH_KEEP") != nullptr) {
    std::printf("kept %s (SERAGEN_BENCH_KEEP)\n", dir.c_str());
  } else {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
  return ok ? 0 : 1;
}
