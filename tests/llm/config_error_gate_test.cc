#include "llm/config_error_gate.h"

#include <catch2/catch.hpp>

namespace seragen::llm {

TEST_CASE("config gate: the same error on N consecutive calls trips it", "[llm][gate]") {
  ConfigErrorGate gate(3);
  CHECK_FALSE(gate.OnConfigError("HTTP 400: seed must be <= 9223372036854775807, got 13390331474070314677"));
  CHECK_FALSE(gate.OnConfigError("HTTP 400: seed must be <= 9223372036854775807, got 99"));  // same up to digits
  CHECK(gate.OnConfigError("HTTP 400: seed must be <= 9223372036854775807, got 12"));
  CHECK(gate.OnConfigError("HTTP 400: seed must be <= 9223372036854775807, got 7"));
}

TEST_CASE("config gate: a success or a different error starts over", "[llm][gate]") {
  ConfigErrorGate gate(3);
  CHECK_FALSE(gate.OnConfigError("A"));
  CHECK_FALSE(gate.OnConfigError("A"));
  gate.OnSuccess();
  CHECK_FALSE(gate.OnConfigError("A"));
  CHECK_FALSE(gate.OnConfigError("B"));
  CHECK_FALSE(gate.OnConfigError("A"));
  CHECK(gate.count() == 1);
  ConfigErrorGate one(1);
  CHECK(one.OnConfigError("x"));
  ConfigErrorGate zero(0);  // clamped to 1
  CHECK(zero.OnConfigError("x"));
}

TEST_CASE("config gate: new calls wait while the calls in flight could complete a streak", "[llm][gate]") {
  ConfigErrorGate gate(3);
  CHECK_FALSE(gate.HoldsNewCalls(5));  // no streak: no hold, however many are in flight
  gate.OnConfigError("A");
  CHECK_FALSE(gate.HoldsNewCalls(1));  // 1 error + 1 in flight cannot reach 3: one more may go
  CHECK(gate.HoldsNewCalls(2));
  gate.OnConfigError("A");
  CHECK_FALSE(gate.HoldsNewCalls(0));  // nothing in flight: the next call decides
  CHECK(gate.HoldsNewCalls(1));
  gate.OnSuccess();
  CHECK_FALSE(gate.HoldsNewCalls(2));
}

TEST_CASE("config gate signature: digit runs collapse, length bounded", "[llm][gate]") {
  CHECK(ConfigErrorSignature("got 123 and 4") == "got # and #");
  CHECK(ConfigErrorSignature(std::string(1000, 'x')).size() == 300);
}

}  // namespace seragen::llm
