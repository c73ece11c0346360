// fuzz_driver: runs the fuzz targets on seeded mutations of their seed corpora
// for a bounded time. ctest runs each target briefly; longer local runs:
//   build/tests/fuzz/fuzz_driver --target all --seconds 600 --seed 7
//   build/tests/fuzz/fuzz_driver --target patch_lines --replay crash.bin
// On a crash or contract violation the input is written to
// fuzz-crash-<target>.bin in the current directory (from the signal handler).
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "fuzz/fuzz_targets.h"
#include "fuzz/mutator.h"
#include "testing/source_paths.h"

namespace {

using seragen::fuzz::Target;

// The input in flight, for the crash handler (written before each run).
const char* g_input = nullptr;
std::size_t g_input_size = 0;
char g_crash_path[256] = "fuzz-crash.bin";

void OnCrash(int sig) {
  int fd = ::open(g_crash_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd >= 0 && g_input) {
    std::size_t done = 0;
    while (done < g_input_size) {
      ssize_t n = ::write(fd, g_input + done, g_input_size - done);
      if (n <= 0) break;
      done += static_cast<std::size_t>(n);
    }
    ::close(fd);
  }
  static const char msg[] = "fuzz_driver: crash; input saved (see fuzz-crash-<target>.bin)\n";
  (void)!::write(2, msg, sizeof msg - 1);
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

void InstallCrashHandler() {
  // Stack overflow needs its own stack to report on.
  static std::vector<char> alt(1 << 16);
  stack_t ss{};
  ss.ss_sp = alt.data();
  ss.ss_size = alt.size();
  ::sigaltstack(&ss, nullptr);
  struct sigaction sa {};
  sa.sa_handler = OnCrash;
  sa.sa_flags = SA_ONSTACK;
  for (int sig : {SIGSEGV, SIGABRT, SIGBUS, SIGFPE, SIGILL}) ::sigaction(sig, &sa, nullptr);
}

std::vector<std::string> LoadCorpus(const std::string& dir) {
  std::vector<std::string> corpus;
  std::error_code ec;
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    if (e.is_regular_file()) files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());  // deterministic order
  for (const auto& f : files) {
    std::ifstream in(f, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    corpus.push_back(ss.str());
  }
  return corpus;
}

void RunOne(const Target& t, const std::string& input) {
  g_input = input.data();
  g_input_size = input.size();
  t.fn(reinterpret_cast<const std::uint8_t*>(input.data()), input.size());
}

struct Args {
  std::string target = "all";
  double seconds = 5;
  long long iterations = 1'000'000'000;
  std::uint64_t seed = 1;
  std::string corpus_root = seragen::testing::SourcePath("tests/fuzz/corpus");
  std::string replay;
};

int Usage() {
  std::cerr << "usage: fuzz_driver [--target NAME|all] [--seconds S] [--iterations N] [--seed N]\n"
               "                   [--corpus-root DIR] [--replay FILE]\ntargets:";
  for (const Target& t : seragen::fuzz::AllTargets()) std::cerr << " " << t.name;
  std::cerr << "\n";
  return 2;
}

// Returns false on a malformed command line.
bool ParseArgs(int argc, char** argv, Args& a) {
  for (int i = 1; i < argc; ++i) {
    std::string k = argv[i];
    if (i + 1 >= argc) return false;
    std::string v = argv[++i];
    try {
      if (k == "--target") a.target = v;
      else if (k == "--seconds") a.seconds = std::stod(v);
      else if (k == "--iterations") a.iterations = std::stoll(v);
      else if (k == "--seed") a.seed = std::stoull(v);
      else if (k == "--corpus-root") a.corpus_root = v;
      else if (k == "--replay") a.replay = v;
      else return false;
    } catch (const std::exception&) {
      return false;
    }
  }
  return true;
}

// Mutation run of one target for the time/iteration budget; returns iterations done.
long long Fuzz(const Target& t, const Args& a) {
  std::snprintf(g_crash_path, sizeof g_crash_path, "fuzz-crash-%.*s.bin", static_cast<int>(t.name.size()),
                t.name.data());
  std::vector<std::string> corpus = LoadCorpus(a.corpus_root + "/" + std::string(t.name));
  for (const auto& seed_input : corpus) RunOne(t, seed_input);
  seragen::fuzz::Mutator m(a.seed, corpus);
  auto start = std::chrono::steady_clock::now();
  auto budget = std::chrono::duration<double>(a.seconds);
  long long n = 0;
  while (n < a.iterations && (n % 64 != 0 || std::chrono::steady_clock::now() - start < budget)) {
    RunOne(t, m.Next());
    ++n;
  }
  double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::cout << t.name << ": " << n << " inputs in " << took << " s (seed " << a.seed << ", " << corpus.size()
            << " corpus files), no failure\n";
  return n;
}

}  // namespace

int main(int argc, char** argv) {
  Args a;
  if (!ParseArgs(argc, argv, a)) return Usage();
  InstallCrashHandler();
  bool matched = false;
  for (const Target& t : seragen::fuzz::AllTargets()) {
    if (a.target != "all" && a.target != t.name) continue;
    matched = true;
    if (!a.replay.empty()) {
      std::ifstream in(a.replay, std::ios::binary);
      if (!in) {
        std::cerr << "fuzz_driver: cannot read " << a.replay << "\n";
        return 2;
      }
      std::stringstream ss;
      ss << in.rdbuf();
      RunOne(t, ss.str());
      std::cout << t.name << ": " << a.replay << " ran without failure\n";
      continue;
    }
    Fuzz(t, a);
  }
  if (!matched) {
    std::cerr << "fuzz_driver: unknown target '" << a.target << "'\n";
    return Usage();
  }
  return 0;
}
