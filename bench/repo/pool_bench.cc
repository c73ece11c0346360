// Working-copy pool benchmark: on a generated repository (5,000 files unless
// told), prints the time to create the pool (its pruned object store) and a copy, the median acquire+release time
// after a rollout-sized change (20 modified, 10 deleted, 10 added files, ignored build output), the time of
// DiffAgainstBase on that change, and what handing a copy to a slot's uid costs (as root).
//
//   bench_repo_pool [work_dir] [iterations] [files]
// work_dir defaults to /dev/shm/seragen-bench-repo (tmpfs); pass a disk path to
// compare. The directory is deleted and recreated. iterations 0 measures only
// the ownership figures; files is rounded down to a multiple of 50.
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "seragen/base/rng.h"
#include "seragen/repo/diff.h"
#include "seragen/repo/repository.h"
#include "seragen/repo/working_copy_pool.h"

namespace {

using Clock = std::chrono::steady_clock;
namespace fs = std::filesystem;
using seragen::repo::DiffAgainstBase;
using seragen::repo::Repository;
using seragen::repo::WorkingCopyPool;
using seragen::repo::WorkingCopyPoolOptions;

double Ms(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

// CPU time (user + system) of this process in ms: unlike wall time it does
// not grow when other work shares the machine's cores.
double CpuMs() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  auto ms = [](const timeval& tv) { return tv.tv_sec * 1000.0 + tv.tv_usec / 1000.0; };
  return ms(usage.ru_utime) + ms(usage.ru_stime);
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

void Die(const std::string& what) {
  std::fprintf(stderr, "bench_repo_pool: %s\n", what.c_str());
  std::exit(1);
}

void Write(const fs::path& path, const std::string& content) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary | std::ios::trunc) << content;
}

std::string FileText(int dir, int file, int version) {
  std::string text;
  text.reserve(3700);
  for (int line = 0; text.size() < 3600; ++line) {
    text += "def function_" + std::to_string(dir) + "_" + std::to_string(file) + "_" + std::to_string(line) +
            "(value):\n    return value * " + std::to_string(line + version) + "\n\n";
  }
  return text;
}

std::string FilePath(int dir, int file) {
  return "pkg" + std::to_string(dir) + "/module_" + std::to_string(file) + ".py";
}

int g_dirs = 100;  // 50 files each

void Generate(const std::string& source) {
  for (int d = 0; d < g_dirs; ++d) {
    for (int f = 0; f < 50; ++f) Write(fs::path(source) / FilePath(d, f), FileText(d, f, 0));
  }
  Write(fs::path(source) / ".gitignore", "__pycache__/\n*.pyc\nbuild/\n");
  Write(fs::path(source) / ".gitattributes", "* text=auto\n");
  std::string cmd = "cd '" + source +
                    "' && export HOME=/nonexistent GIT_CONFIG_NOSYSTEM=1 && git init -q && git add -A && "
                    "git -c user.name=bench -c user.email=bench@example.com commit -qm base";
  if (std::system(cmd.c_str()) != 0) Die("cannot create the source repository");
}

// 20 modified, 10 deleted, 10 added (in a new package), 60 ignored outputs.
void RolloutChange(const std::string& copy, int round) {
  for (int i = 0; i < 20; ++i) {
    int d = (round * 7 + i * 3) % g_dirs;
    Write(fs::path(copy) / FilePath(d, i % 50), FileText(d, i % 50, round + 1));
  }
  for (int i = 0; i < 10; ++i) fs::remove(fs::path(copy) / FilePath((round + i * 11) % g_dirs, 40 + i));
  for (int i = 0; i < 10; ++i) {
    Write(fs::path(copy) / ("newpkg/sub/added_" + std::to_string(i) + ".py"), FileText(999, i, round));
  }
  Write(fs::path(copy) / "newpkg/__init__.py", "");
  for (int i = 0; i < 50 && i < g_dirs; ++i) {
    Write(fs::path(copy) / ("pkg" + std::to_string(i) + "/__pycache__/module_0.cpython-311.pyc"),
          std::string(2000, '\x01'));
  }
  for (int i = 0; i < 10; ++i) Write(fs::path(copy) / ("build/lib/out" + std::to_string(i) + ".o"), "obj");
}

void RunScenario(const Repository& repo, const std::string& base, const std::string& pool_dir, int iterations,
                 bool verify) {
  WorkingCopyPoolOptions options;
  options.pool_dir = pool_dir;
  options.capacity = 4;
  options.verify_after_restore = verify;
  auto pool_start = Clock::now();
  double pool_cpu = CpuMs();
  auto pool = WorkingCopyPool::Create(repo, base, options);
  const double pool_ms = Ms(Clock::now() - pool_start);
  pool_cpu = CpuMs() - pool_cpu;
  if (!pool.ok()) Die(pool.status().ToString());

  // Creating copies: acquire all four at once so each is built.
  std::vector<double> create_ms, create_cpu;
  {
    std::vector<seragen::repo::WorkingCopyLease> leases;
    for (int i = 0; i < 4; ++i) {
      auto start = Clock::now();
      double cpu = CpuMs();
      auto lease = pool->Acquire();
      create_ms.push_back(Ms(Clock::now() - start));
      create_cpu.push_back(CpuMs() - cpu);
      if (!lease.ok()) Die(lease.status().ToString());
      leases.push_back(std::move(lease).value());
    }
  }
  std::vector<double> release_ms, acquire_ms, total_ms, diff_ms, clean_cycle_ms;
  std::vector<double> total_cpu, diff_cpu, clean_cpu;
  std::size_t patch_bytes = 0;
  for (int round = 0; round < iterations; ++round) {
    auto lease = pool->Acquire();
    if (!lease.ok()) Die(lease.status().ToString());
    RolloutChange(lease->path(), round);
    auto diff_start = Clock::now();
    double cpu = CpuMs();
    auto diff = DiffAgainstBase(lease->paths(), base);
    diff_ms.push_back(Ms(Clock::now() - diff_start));
    diff_cpu.push_back(CpuMs() - cpu);
    if (!diff.ok()) Die(diff.status().ToString());
    patch_bytes = diff->size();
    auto start = Clock::now();
    cpu = CpuMs();
    seragen::Status released = lease->Release();
    auto mid = Clock::now();
    if (!released.ok()) Die(released.ToString());
    auto again = pool->Acquire();
    auto end = Clock::now();
    if (!again.ok()) Die(again.status().ToString());
    release_ms.push_back(Ms(mid - start));
    acquire_ms.push_back(Ms(end - mid));
    total_ms.push_back(Ms(end - start));
    total_cpu.push_back(CpuMs() - cpu);
    auto clean_start = Clock::now();
    cpu = CpuMs();
    (void)again->Release();
    auto clean_again = pool->Acquire();
    clean_cycle_ms.push_back(Ms(Clock::now() - clean_start));
    clean_cpu.push_back(CpuMs() - cpu);
  }
  std::printf("  verify_after_restore=%s                      wall (median)   cpu (median)\n", verify ? "on " : "off");
  std::printf("    create the pool (its object store)      %8.1f ms    %8.1f ms   (once per repository and commit)\n",
              pool_ms, pool_cpu);
  std::printf("    create a copy (%5d files)             %8.1f ms    %8.1f ms\n", g_dirs * 50, Median(create_ms),
              Median(create_cpu));
  std::printf("    acquire+release after a rollout         %8.1f ms    %8.1f ms   (target < 50 ms)\n", Median(total_ms),
              Median(total_cpu));
  std::printf("      of which release / acquire            %6.1f / %.1f ms\n", Median(release_ms), Median(acquire_ms));
  std::printf("    release+acquire, copy untouched         %8.1f ms    %8.1f ms\n", Median(clean_cycle_ms),
              Median(clean_cpu));
  std::printf("    DiffAgainstBase after the rollout       %8.1f ms    %8.1f ms   (%zu-byte patch)\n", Median(diff_ms),
              Median(diff_cpu), patch_bytes);
}

// What the sandbox's per-slot uid costs (cpu, and wall for the slot change):
// AdoptOwnership to a new uid walks the whole copy; before the pool kept
// owners, every acquire paid that walk even for the uid the copy already had.
// GiveTo of a copy back with its owner after a rollout touches only what root
// wrote since. A plain chown -R leaves the stat cache stale.
void RunOwnership(const Repository& repo, const std::string& base, const std::string& pool_dir) {
  if (geteuid() != 0) {
    std::printf("  ownership: skipped (needs root to chown)\n");
    return;
  }
  WorkingCopyPoolOptions options;
  options.pool_dir = pool_dir;
  options.capacity = 1;
  auto pool = WorkingCopyPool::Create(repo, base, options);
  if (!pool.ok()) Die(pool.status().ToString());
  std::vector<double> adopt_ms, adopt_again_ms, give_back_ms, give_back_wall, stale_status_ms;
  for (int round = 0; round < 5; ++round) {
    const unsigned uid = 1000 + round;
    auto lease = pool->Acquire(std::chrono::milliseconds(0), uid);
    if (!lease.ok()) Die(lease.status().ToString());
    double cpu = CpuMs();
    if (!lease->GiveTo(uid, uid).ok()) Die("GiveTo a new uid failed");  // the pool's owner differs: a walk
    adopt_ms.push_back(CpuMs() - cpu);
    RolloutChange(lease->path(), round);
    (void)lease->Release();
    auto again = pool->Acquire(std::chrono::milliseconds(0), uid);
    if (!again.ok()) Die(again.status().ToString());
    cpu = CpuMs();
    auto wall = Clock::now();
    if (!again->GiveTo(uid, uid).ok()) Die("GiveTo the same uid failed");
    give_back_wall.push_back(Ms(Clock::now() - wall));
    give_back_ms.push_back(CpuMs() - cpu);
    cpu = CpuMs();
    (void)seragen::repo::AdoptOwnership(again->paths(), uid, uid);  // what every acquire did before
    adopt_again_ms.push_back(CpuMs() - cpu);
    std::string chown = "chown -R " + std::to_string(2000 + round) + " '" + again->path() + "'";
    if (std::system(chown.c_str()) != 0) Die("chown failed");
    cpu = CpuMs();
    (void)seragen::repo::DirtyPaths(again->paths());
    stale_status_ms.push_back(CpuMs() - cpu);
  }
  std::printf("  sandbox ownership (%d files, cpu, median of 5)\n", g_dirs * 50);
  std::printf("    GiveTo a new uid (AdoptOwnership, a walk) %8.1f ms\n", Median(adopt_ms));
  std::printf("    copy back with its slot after a rollout:\n");
  std::printf("      before: AdoptOwnership walks again     %8.1f ms\n", Median(adopt_again_ms));
  std::printf("      now: GiveTo its owner                  %8.1f ms   (wall %.1f ms; target <= 10 ms)\n",
              Median(give_back_ms), Median(give_back_wall));
  std::printf("    status after a plain chown -R           %8.1f ms   (every file re-hashed)\n",
              Median(stale_status_ms));
}

}  // namespace

int main(int argc, char** argv) {
  std::string work = argc > 1 ? argv[1] : "/dev/shm/seragen-bench-repo";
  int iterations = argc > 2 ? std::atoi(argv[2]) : 15;
  if (argc > 3) g_dirs = std::max(1, std::atoi(argv[3]) / 50);
  std::error_code ec;
  fs::remove_all(work, ec);
  fs::create_directories(work);
  std::string source = work + "/source";
  auto gen_start = Clock::now();
  Generate(source);
  double load[1] = {0};
  if (getloadavg(load, 1) != 1) load[0] = -1;
  std::printf("bench_repo_pool: load average %.1f on %u cores (wall times grow with load; cpu times do not)\n", load[0],
              std::thread::hardware_concurrency());
  std::printf("bench_repo_pool: %d files x ~3.6 KB in %s (generated in %.0f ms), %d iterations\n", g_dirs * 50,
              work.c_str(), Ms(Clock::now() - gen_start), iterations);
  auto repo = Repository::Open(source);
  if (!repo.ok()) Die(repo.status().ToString());
  auto base = repo->ResolveCommit("HEAD");
  if (!base.ok()) Die(base.status().ToString());
  if (iterations > 0) {
    RunScenario(*repo, *base, work + "/pool-verify", iterations, true);
    RunScenario(*repo, *base, work + "/pool-noverify", iterations, false);
  }
  RunOwnership(*repo, *base, work + "/pool-owner");
  fs::remove_all(work, ec);
  return 0;
}
