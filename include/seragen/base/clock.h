// Clock: the only way pipeline code reads time, so tests can fake it.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>

namespace seragen {

class Clock {
 public:
  using SteadyTime = std::chrono::steady_clock::time_point;
  using WallTime = std::chrono::system_clock::time_point;
  virtual ~Clock() = default;
  // Monotonic time, for deadlines and durations.
  virtual SteadyTime Now() const = 0;
  // Calendar time, for timestamps in logs and records.
  virtual WallTime WallNow() const = 0;
};

// The process-wide real clock. Thread-safe; lives forever.
Clock& SystemClock();

// A clock that moves only when told to. Thread-safe.
class FakeClock final : public Clock {
 public:
  // Starts at an arbitrary fixed steady time and at 2026-01-01T00:00:00Z wall time.
  FakeClock();
  SteadyTime Now() const override;
  WallTime WallNow() const override;
  void Advance(std::chrono::nanoseconds delta);
  void SetWall(WallTime wall);

 private:
  std::atomic<std::int64_t> steady_ns_;
  std::atomic<std::int64_t> wall_ns_;
};

// ISO-8601 UTC with milliseconds, e.g. "2026-11-21T12:00:00.123Z".
std::string FormatIso8601(Clock::WallTime t);

}  // namespace seragen
