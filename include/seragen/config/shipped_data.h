// What seragen ships in its data directory (data_dir.h), each named here
// once: every default path into that directory comes from ShippedPath.
#pragma once

#include <string>
#include <string_view>

namespace seragen::config {

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
