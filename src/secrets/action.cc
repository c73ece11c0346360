#include "seragen/secrets/action.h"

#include <string>
#include <utility>

namespace seragen::secrets {
namespace {

constexpr std::pair<std::string_view, SecretAction> kActions[] = {
    {"redact", SecretAction::kRedact}, {"drop", SecretAction::kDrop}, {"report", SecretAction::kReport}};

}  // namespace

Result<SecretAction> ParseSecretAction(std::string_view name) {
  for (const auto& [text, action] : kActions) {
    if (text == name) return action;
  }
  return InvalidArgumentError("export.secrets.action: expected redact, drop or report, got '" + std::string(name) +
                              "'");
}

std::string_view SecretActionName(SecretAction action) {
  for (const auto& [text, value] : kActions) {
    if (value == action) return text;
  }
  return "redact";
}

}  // namespace seragen::secrets
