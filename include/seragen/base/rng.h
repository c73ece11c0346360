// Rng: a seeded random generator whose every output is specified here, so
// the same seed gives the same numbers on any compiler, library or platform.
//
// Generator: xoshiro256** (Blackman & Vigna), seeded through splitmix64.
// Integer ranges use Lemire's unbiased multiply-and-reject method; doubles use
// the top 53 bits. std:: distributions are never used (their output is
// implementation-defined). Not thread-safe: one Rng per owner.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

namespace seragen {

class Rng {
 public:
  explicit Rng(std::uint64_t seed);

  // A generator for one purpose of one task, independent of every other
  // (run seed, task id, purpose) triple: seeds come from SHA-256 of the three.
  static Rng Derive(std::uint64_t run_seed, std::string_view task_id, std::string_view purpose);

  std::uint64_t NextU64();
  // Uniform in [0, bound); bound must be > 0 (returns 0 for bound == 0).
  std::uint64_t Uniform(std::uint64_t bound);
  // Uniform in [lo, hi] inclusive; requires lo <= hi.
  std::int64_t UniformInt(std::int64_t lo, std::int64_t hi);
  // Uniform in [0, 1) with 53 bits of precision.
  double UniformDouble();
  // True with probability p (p <= 0 never, p >= 1 always).
  bool Bernoulli(double p);
  // Exponential with the given mean. Uses std::log, which may differ in the
  // last ulp between C libraries: use only where bit-exactness is not needed
  // (latency simulation), never for data-affecting choices.
  double Exponential(double mean);

  // Fisher-Yates, from the last element down, using Uniform().
  template <typename T>
  void Shuffle(std::vector<T>& items) {
    for (std::size_t i = items.size(); i > 1; --i) {
      std::size_t j = static_cast<std::size_t>(Uniform(i));
      using std::swap;
      swap(items[i - 1], items[j]);
    }
  }

  // k distinct indices from [0, n) in selection order (k is clamped to n).
  std::vector<std::size_t> SampleIndices(std::size_t n, std::size_t k);

 private:
  std::array<std::uint64_t, 4> s_;
};

// splitmix64 step; exposed for golden tests and seed mixing.
std::uint64_t SplitMix64(std::uint64_t& state);

}  // namespace seragen
