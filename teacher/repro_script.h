// The scripted teacher's reproduction scripts, as SERA's teachers write them:
// a small Python program in the working copy that imports the module the start
// function lives in and calls the function with arguments chosen for the
// suspected edge case, printing where the module was loaded from and what the
// call returned or raised. Pure functions of what the teacher has read (the
// same input gives the same script). The teacher is a stand-in for a model.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "teacher/edit_transforms.h"

namespace seragen::teacher {

// The import path of a Python file in the repository: "pkg/mod.py" ->
// "pkg.mod", "src/pkg/mod.py" -> "pkg.mod" (src layout), "pkg/__init__.py" ->
// "pkg". std::nullopt when it is not a .py file or a part is not an identifier.
std::optional<std::string> PythonModuleName(std::string_view rel_path);

// The script's path relative to the repository root: "repro_<name>.py" for
// the last part of a qualified name ("Stock.reserve" -> "repro_reserve.py").
std::string ReproScriptName(std::string_view function);
// True for a path ReproScriptName can give (the root directory, "repro_*.py").
bool IsReproScriptPath(std::string_view rel_path);

struct ReproTarget {
  std::string module;      // "pkg.mod"
  std::string function;    // "reserve"
  std::string class_name;  // "Stock" for a method (called on Stock()), "" otherwise
  bool callable = true;    // false (e.g. a nested function): the script only imports the module
  // Keyword arguments of the call, in order: name and Python literal.
  std::vector<std::pair<std::string, std::string>> arguments;
};

// Reads the target from the known file text: the module from `rel_path`, the
// enclosing class, and one argument per required parameter (plus the
// parameter the planned edit is about), a sample value picked by its name or,
// for the planned edit's parameter, the edge case it guards against (None, an
// empty value). std::nullopt when the file is not Python or the function is not
// in the known text.
std::optional<ReproTarget> PythonReproTarget(const FileKnowledge& file, std::string_view function,
                                             std::string_view rel_path, const std::optional<SourceEdit>& planned);

// The script's text.
std::string PythonReproScript(const ReproTarget& target);

}  // namespace seragen::teacher
