// `seragen report` (HTML report of a run) and `seragen show` (one task's
// trajectory in the terminal): reading a run directory, like `status`.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>

namespace seragen::cli {

void AddReportCommands(CLI::App& app, std::function<int()>* action);

}  // namespace seragen::cli
