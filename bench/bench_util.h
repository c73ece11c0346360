// Small helpers shared by the benchmarks (bench/ is on their include path).
#pragma once

#include <sys/resource.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <string>

namespace seragen::bench {

inline void RaiseFileLimit() {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < limit.rlim_max) {
    limit.rlim_cur = limit.rlim_max;
    setrlimit(RLIMIT_NOFILE, &limit);
  }
}

struct Usage {
  double cpu_seconds = 0;  // user + system, this process
  long peak_rss_kib = 0;
};

inline Usage ReadUsage() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  Usage out;
  out.cpu_seconds = static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
                    static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
  out.peak_rss_kib = u.ru_maxrss;
  return out;
}

// --name=value integer flag, or the fallback.
inline long IntFlag(int argc, char** argv, const char* name, long fallback) {
  std::string prefix = std::string("--") + name + "=";
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], prefix.c_str(), prefix.size()) == 0) return std::atol(argv[i] + prefix.size());
  }
  return fallback;
}

}  // namespace seragen::bench
