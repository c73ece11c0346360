// `seragen status`, `seragen export`, `seragen merge`: reading a run directory.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>

namespace seragen::cli {

void AddDataCommands(CLI::App& app, std::function<int()>* action);

}  // namespace seragen::cli
