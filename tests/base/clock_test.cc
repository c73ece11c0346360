#include "seragen/base/clock.h"

#include <catch2/catch.hpp>

namespace seragen {

TEST_CASE("fake clock moves only when advanced", "[clock]") {
  FakeClock clock;
  auto t0 = clock.Now();
  CHECK(clock.Now() == t0);
  clock.Advance(std::chrono::milliseconds(1500));
  CHECK(clock.Now() - t0 == std::chrono::milliseconds(1500));
  CHECK(FormatIso8601(clock.WallNow()) == "2026-01-01T00:00:01.500Z");
}

TEST_CASE("system clock is monotonic", "[clock]") {
  auto a = SystemClock().Now();
  auto b = SystemClock().Now();
  CHECK(b >= a);
}

TEST_CASE("ISO-8601 formatting", "[clock]") {
  Clock::WallTime t{std::chrono::milliseconds(0)};
  CHECK(FormatIso8601(t) == "1970-01-01T00:00:00.000Z");
}

}  // namespace seragen
