// `seragen run`, `seragen plan`, `seragen graph`: the pipeline subcommands.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>

namespace seragen::cli {

void AddRunCommands(CLI::App& app, std::function<int()>* action);

}  // namespace seragen::cli
