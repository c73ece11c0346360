// Where seragen's shipped data (prompts/, configs/) is found.
#pragma once

#include <string>
#include <string_view>

namespace seragen::config {

// The data directory chosen and why.
struct DataDirChoice {
  std::string path;    // holds prompts/ and configs/ (may be missing: see `found`)
  std::string origin;  // "installed", "SERAGEN_DATA_DIR" or "source tree"
  bool found = false;  // path/prompts is a directory
};

// The inputs of the choice, so it can be tested without moving the binary.
struct DataDirCandidates {
  std::string executable;   // absolute path of the running binary ("" if unknown)
  std::string env_value;    // SERAGEN_DATA_DIR ("" if unset)
  std::string source_tree;  // the checkout the binary was built from
};

// Order: EXE_DIR/../share/seragen when it holds prompts/ (an installed
// binary always uses the data installed with it, so a stale variable cannot
// mix versions); else SERAGEN_DATA_DIR when set (a binary copied alone);
// else the source tree compiled in (an uninstalled build/seragen). Never fails.
DataDirChoice ChooseDataDir(const DataDirCandidates& candidates);

// ChooseDataDir for this process (/proc/self/exe, the environment, the
// compiled-in source tree). Thread-safe; computed once.
const DataDirChoice& ProcessDataDir();

// ProcessDataDir().path.
std::string DataDir();

// What seragen ships in the data directory, each named here once: every
// default path into it comes from ShippedPath.
enum class Shipped {
  kPrompts,          // prompts/ (the default prompts.dir)
  kPingToolCheck,    // prompts/ping_tool_check.md (`llm ping`'s tool-call check)
  kTools,            // configs/tools.yaml (the default tools.file)
  kSecretRules,      // configs/secret_rules.yaml (the default export.secrets.rules_file)
  kTeacherSettings,  // configs/teacher.yaml (`seragen teacher`'s default settings)
  kInitTemplate,     // configs/init.yaml (`seragen config init`'s template)
};
inline constexpr Shipped kAllShipped[] = {Shipped::kPrompts,     Shipped::kPingToolCheck,   Shipped::kTools,
                                          Shipped::kSecretRules, Shipped::kTeacherSettings, Shipped::kInitTemplate};

// The path of `what` inside the data directory, e.g. "configs/tools.yaml".
std::string_view ShippedRelativePath(Shipped what);
// DataDir() + "/" + ShippedRelativePath(what).
std::string ShippedPath(Shipped what);
// `configured` when set, else ShippedPath(what): a setting whose empty value
// means the shipped file.
std::string ConfiguredOrShipped(const std::string& configured, Shipped what);

}  // namespace seragen::config
