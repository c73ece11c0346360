// How much disk a working copy uses, measured on the host after agent
// commands (sandbox.max_copy_mb). The tree is agent-written: the walk never
// follows symlinks, never leaves the copy's file system, and its cost is
// bounded (it stops as soon as the answer is known).
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "seragen/base/result.h"

namespace seragen::sandbox {

struct CopyUsage {
  std::uint64_t bytes = 0;    // allocated bytes (st_blocks * 512) counted so far
  std::uint64_t entries = 0;  // files, directories and links counted so far
  // The copy is over the limit: more than limit_bytes, more than max_entries
  // entries, or nested deeper than kMaxCopyDepth. Counting stopped there.
  bool over = false;
};

inline constexpr int kMaxCopyDepth = 256;

class CopyMeter {
 public:
  virtual ~CopyMeter() = default;
  // Non-OK only when the copy's root itself cannot be read (infrastructure);
  // entries that vanish or cannot be read while walking are skipped.
  virtual Result<CopyUsage> Measure(std::uint64_t limit_bytes, std::uint64_t max_entries) = 0;
};

// The real meter: walks `root` (absolute) with openat/fstatat; with several
// roots (a copy and its rollout's /tmp), their usage adds up against one
// limit. Stateless; thread-safe.
class DirectoryCopyMeter final : public CopyMeter {
 public:
  explicit DirectoryCopyMeter(std::string root) : roots_{std::move(root)} {}
  explicit DirectoryCopyMeter(std::vector<std::string> roots) : roots_(std::move(roots)) {}
  Result<CopyUsage> Measure(std::uint64_t limit_bytes, std::uint64_t max_entries) override;

 private:
  std::vector<std::string> roots_;
};

// Scripted usage for tests: reports `bytes` (over when above the limit).
// Thread-safe.
class FakeCopyMeter final : public CopyMeter {
 public:
  void SetBytes(std::uint64_t bytes) {
    std::lock_guard<std::mutex> lock(mu_);
    bytes_ = bytes;
  }
  int calls() const {
    std::lock_guard<std::mutex> lock(mu_);
    return calls_;
  }
  Result<CopyUsage> Measure(std::uint64_t limit_bytes, std::uint64_t) override {
    std::lock_guard<std::mutex> lock(mu_);
    ++calls_;
    return CopyUsage{bytes_, 1, bytes_ > limit_bytes};
  }

 private:
  mutable std::mutex mu_;
  std::uint64_t bytes_ = 0;
  int calls_ = 0;
};

}  // namespace seragen::sandbox
