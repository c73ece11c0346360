#include "seragen/base/log.h"

#include <catch2/catch.hpp>

namespace seragen::log {

TEST_CASE("log lines carry level, component and task id", "[log]") {
  std::string captured;
  ScopedCapture capture(&captured);
  Logger logger("pipeline");
  logger.ForTask("3fa2c0d1").Info("rollout {} submitted", 1);
  CHECK(captured == "INFO  [pipeline] task=3fa2c0d1 rollout 1 submitted\n");
}

TEST_CASE("registered secrets never appear in lines", "[log]") {
  std::string captured;
  ScopedCapture capture(&captured);
  AddSecret("sk-test-verysecret-123");
  AddSecret("abc");  // too short: ignored
  Logger("llm").Warn("request failed with key sk-test-verysecret-123 (abc)");
  CHECK(captured.find("sk-test-verysecret-123") == std::string::npos);
  CHECK(captured.find("key *** (abc)") != std::string::npos);
}

TEST_CASE("level filtering and parsing", "[log]") {
  std::string captured;
  ScopedCapture capture(&captured);
  Level before = GetLevel();
  SetLevel(Level::kWarn);
  Logger("x").Info("hidden");
  Logger("x").Error("shown");
  SetLevel(before);
  CHECK(captured == "ERROR [x] shown\n");
  Level parsed;
  CHECK(ParseLevel("debug", &parsed));
  CHECK(parsed == Level::kDebug);
  CHECK_FALSE(ParseLevel("loud", &parsed));
}

}  // namespace seragen::log
