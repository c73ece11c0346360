// `seragen config show|docs`: print the resolved configuration or its reference.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>

namespace seragen::cli {

// Registers the subcommand; `*action` is set to its runner when selected.
// Runners return a process exit code (exit_codes.h).
void AddConfigCommand(CLI::App& app, std::function<int()>* action);

}  // namespace seragen::cli
