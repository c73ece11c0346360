#include "seragen/config/shipped_data.h"

#include "seragen/config/data_dir.h"

namespace seragen::config {

std::string_view ShippedRelativePath(Shipped what) {
  switch (what) {
    case Shipped::kPrompts: return "prompts";
    case Shipped::kPingToolCheck: return "prompts/ping_tool_check.md";
    case Shipped::kTools: return "configs/tools.yaml";
    case Shipped::kSecretRules: return "configs/secret_rules.yaml";
    case Shipped::kTeacherSettings: return "configs/teacher.yaml";
    case Shipped::kInitTemplate: return "configs/init.yaml";
  }
  return "";
}

std::string ShippedPath(Shipped what) { return DataDir() + "/" + std::string(ShippedRelativePath(what)); }

std::string ConfiguredOrShipped(const std::string& configured, Shipped what) {
  return configured.empty() ? ShippedPath(what) : configured;
}

}  // namespace seragen::config
