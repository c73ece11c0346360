// The seragen executable: parses the command line and runs one subcommand.
// This is the composition root: the only place that knows every module.
#include <CLI/CLI.hpp>

#include <iostream>

#include "cli/config_command.h"
#include "cli/data_commands.h"
#include "cli/eval_command.h"
#include "cli/exit_codes.h"
#include "cli/report_commands.h"
#include "cli/run_commands.h"
#include "cli/terminal_stream.h"
#include "cli/tool_commands.h"
#include "seragen/base/log.h"
#include "seragen/config/data_dir.h"

#ifndef SERAGEN_VERSION
#define SERAGEN_VERSION "0.0.0"
#endif

int main(int argc, char** argv) {
  using namespace seragen::cli;
  TerminalSafeErr safe_stderr;  // outside text in any error message reaches the terminal escaped
  CLI::App app{
      "seragen: turn a git repository into training data for coding agents (SERA method).\n"
      "Exit codes: 0 success, 1 runtime failure (run: no task succeeded), 2 usage or configuration error,\n"
      "3 run finished but some tasks failed for infrastructure reasons or were not started (rerun to retry),\n"
      "75 run interrupted by a signal (rerun to resume)."};
  const seragen::config::DataDirChoice& data = seragen::config::ProcessDataDir();
  app.set_version_flag("--version", std::string("seragen ") + SERAGEN_VERSION + "\ndata: " + data.path + " (" +
                                        data.origin + (data.found ? ")" : "; missing: no prompts/ there)"));
  app.require_subcommand(1);
  app.fallthrough();

  std::function<int()> action;
  AddRunCommands(app, &action);
  AddDataCommands(app, &action);
  AddEvalCommand(app, &action);
  AddReportCommands(app, &action);
  AddConfigCommand(app, &action);
  AddVerifyCommand(app, &action);
  AddLlmCommand(app, &action);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return kExitUsage;
  }
  if (!action) return kExitUsage;
  try {
    return action();
  } catch (const std::exception& e) {
    std::cerr << "seragen: internal error: " << e.what() << "\n";
    return kExitRuntimeFailure;
  }
}
