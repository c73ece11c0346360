// The last test run of a rollout: the last accepted shell command that ran a
// test suite — the repository's environment.test_command, or a recognised
// test runner (pytest, python -m pytest, python -m unittest, go test, cargo
// test, npm/yarn/pnpm test, jest, vitest, mocha, tox, nox, make test, ctest,
// mvn test, gradle test, rspec, phpunit, dotnet test) — and its exit status.
// Pure functions over a recorded trajectory; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "seragen/agent/trajectory.h"

namespace seragen::exporter {

struct TestRun {
  std::string command;
  int exit_code = 0;
  bool passed() const { return exit_code == 0; }
};

// True when `command` runs `test_command` (non-empty, as a substring) or a
// recognised test runner (a word sequence above, anywhere in the command).
bool IsTestCommand(std::string_view command, std::string_view test_command);

// True when `command` is the repository's configured `test_command` itself
// (surrounding whitespace and one leading `cd DIR && ` aside), the only test
// run of the model's that --require-tests-passed believes: a recognised
// runner inside any other command (`... || : pytest`, `echo pytest`) is the
// model's to forge. False when `test_command` is empty.
bool IsConfiguredTestCommand(std::string_view command, std::string_view test_command);

// The last test run among the accepted turns whose shell command has a
// recorded exit status; nullopt when none ran tests.
std::optional<TestRun> LastTestRun(const agent::Trajectory& t, std::string_view test_command);

}  // namespace seragen::exporter
