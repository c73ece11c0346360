#include "seragen/pipeline/env_health.h"

#include <catch2/catch.hpp>

namespace seragen::pipeline {
namespace {

agent::TurnRecord Shell(std::string observation, std::optional<int> exit_code, bool accepted = true) {
  agent::TurnRecord t;
  t.accepted = accepted;
  t.observation = std::move(observation);
  t.command_exit_code = exit_code;
  return t;
}

TEST_CASE("env health: a rollout counts its accepted commands that could not import its own code", "[pipeline]") {
  agent::Trajectory t;
  const std::string missing = "ModuleNotFoundError: No module named 'envdemo'";
  t.turns = {Shell(missing, 1), Shell(missing, 1), Shell("envdemo.core loaded from /repo/src", 0),
             Shell(missing, 1, /*accepted=*/false),  // a rejected call ran nothing the model saw
             Shell(missing, std::nullopt)};          // not a shell command (e.g. a file view)
  CHECK(CountEnvBroken(t, {"envdemo"}, "/repo") == 2);
  CHECK(CountEnvBroken(t, {}, "/repo") == 0);  // own modules unknown: nothing counted
}

TEST_CASE("env health: the run's share is judged only after the minimum number of rollouts", "[pipeline]") {
  EnvHealthTally h;
  for (int i = 0; i < 7; ++i) h.Add(true);
  CHECK_FALSE(h.Exceeded(0.5, 8));
  h.Add(false);
  CHECK(h.Exceeded(0.5, 8));  // 7 of 8
  CHECK_FALSE(h.Exceeded(1.0, 8));
  EnvHealthTally half;
  for (int i = 0; i < 8; ++i) half.Add(i % 2 == 0);
  CHECK_FALSE(half.Exceeded(0.5, 8));  // exactly the share is not past it
  CHECK(half.broken() == 4);
  CHECK(half.rollouts() == 8);
}

}  // namespace
}  // namespace seragen::pipeline
