// The after-command disk meter on a large working copy: a whole walk
// (DirectoryCopyMeter, what every Measure cost before) against the
// incremental meter (one walk, then only what changed), after a command
// that changed nothing and after one that wrote a few files.
//
//   bench_copy_meter [--files=33000] [--dir=/tmp] [--rounds=20]
//
// Prints the median milliseconds per Measure of each.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "bench_util.h"
#include "seragen/sandbox/copy_usage.h"
#include "seragen/sandbox/incremental_copy_meter.h"

using namespace seragen;

namespace {

constexpr std::uint64_t kLimit = 1ull << 40;

// `files` small files in directories of 100, two levels deep (like a source tree).
void MakeTree(const std::string& root, long files) {
  for (long i = 0; i < files; ++i) {
    std::string d = root + "/pkg" + std::to_string(i / 1000) + "/mod" + std::to_string((i / 100) % 10);
    if (i % 100 == 0) std::filesystem::create_directories(d);
    std::ofstream(d + "/f" + std::to_string(i) + ".py") << "x = " << i << "\n";
  }
}

template <typename F>
double MedianMs(int rounds, F&& step) {
  std::vector<double> ms;
  for (int i = 0; i < rounds; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    step(i);
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const long files = bench::IntFlag(argc, argv, "files", 33000);
  const int rounds = static_cast<int>(bench::IntFlag(argc, argv, "rounds", 20));
  std::string base = "/tmp";
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]).rfind("--dir=", 0) == 0) base = argv[i] + 6;
  }
  const std::string root = base + "/seragen-copy-meter-bench-" + std::to_string(::getpid());
  MakeTree(root, files);
  auto touch = [&](int i) {  // what a command that edits a few files leaves
    for (int k = 0; k < 3; ++k) std::ofstream(root + "/pkg0/mod0/f" + std::to_string(k) + ".py") << "y = " << i << "\n";
    std::ofstream(root + "/new" + std::to_string(i) + ".txt") << i;
  };
  sandbox::DirectoryCopyMeter walk(root);
  const double walk_ms = MedianMs(rounds, [&](int) { (void)walk.Measure(kLimit, 1u << 30); });
  sandbox::IncrementalCopyMeter incremental({root});
  auto t0 = std::chrono::steady_clock::now();
  auto first = incremental.Measure(kLimit, 1u << 30);
  const double first_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  const double idle_ms = MedianMs(rounds, [&](int) { (void)incremental.Measure(kLimit, 1u << 30); });
  // Writes first (the command), then the timed Measure after it.
  std::vector<double> after_writes;
  for (int i = 0; i < rounds; ++i) {
    touch(i);
    after_writes.push_back(MedianMs(1, [&](int) { (void)incremental.Measure(kLimit, 1u << 30); }));
  }
  std::sort(after_writes.begin(), after_writes.end());
  const double touched_ms = after_writes[after_writes.size() / 2];
  auto check = walk.Measure(kLimit, 1u << 30);
  auto mine = incremental.Measure(kLimit, 1u << 30);
  std::printf("copy of %ld files (%llu entries, %.1f MiB allocated)\n", files,
              static_cast<unsigned long long>(first.ok() ? first->entries : 0),
              first.ok() ? static_cast<double>(first->bytes) / (1 << 20) : 0.0);
  std::printf("whole walk per Measure:          median %.2f ms\n", walk_ms);
  std::printf("incremental, first (one walk):   %.2f ms\n", first_ms);
  std::printf("incremental, nothing changed:    median %.3f ms\n", idle_ms);
  std::printf("incremental, after 4 files written: median %.3f ms (acceptance: <= 10 ms)\n", touched_ms);
  const bool agrees = check.ok() && mine.ok() && check->bytes == mine->bytes && check->entries == mine->entries;
  std::printf("agrees with a whole walk: %s (full walks: %llu)\n", agrees ? "YES" : "NO",
              static_cast<unsigned long long>(incremental.full_walks()));
  std::filesystem::remove_all(root);
  return 0;
}
