// Stand-alone subcommands that wrap one module each:
//   seragen verify P1 P2      soft-verification scores of two patches
//   seragen llm ping|chat     check an OpenAI-compatible endpoint
#pragma once

#include <CLI/CLI.hpp>

#include <functional>

namespace seragen::cli {

void AddVerifyCommand(CLI::App& app, std::function<int()>* action);
void AddLlmCommand(CLI::App& app, std::function<int()>* action);

}  // namespace seragen::cli
