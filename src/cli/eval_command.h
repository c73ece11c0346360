// `seragen eval`: a model on a run's held-out tasks with the rollout-2
// harness (docs/EVAL.md), and the comparison of several evaluations.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>

namespace seragen::cli {

void AddEvalCommand(CLI::App& app, std::function<int()>* action);

}  // namespace seragen::cli
