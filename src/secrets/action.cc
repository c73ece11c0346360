#include "seragen/secrets/action.h"

#include <string>
#include <utility>

#include "seragen/base/enum_names.h"

namespace seragen::secrets {
namespace {

constexpr std::pair<SecretAction, std::string_view> kActions[] = {
    {SecretAction::kRedact, "redact"}, {SecretAction::kDrop, "drop"}, {SecretAction::kReport, "report"}};

}  // namespace

Result<SecretAction> ParseSecretAction(std::string_view name) {
  if (std::optional<SecretAction> action = ValueNamed<SecretAction>(kActions, name)) return *action;
  return InvalidArgumentError("export.secrets.action: expected redact, drop or report, got '" + std::string(name) +
                              "'");
}

}  // namespace seragen::secrets
