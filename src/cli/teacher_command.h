// `seragen teacher`: flags and wiring for the scripted teacher. Built as its
// own library (seragen_cli_teacher), the only cli code that links the
// teacher module: the other commands and their tests do not.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>

namespace seragen::cli {

// Settings come from the teacher's settings file (configs/teacher.yaml
// shipped with seragen unless --config names another), then the flags
// override them.
void AddTeacherCommand(CLI::App& app, std::function<int()>* action);

}  // namespace seragen::cli
