#include "seragen/secrets/action.h"

#include <string>

namespace seragen::secrets {

Result<SecretAction> ParseSecretAction(std::string_view name) {
  if (name == "redact") return SecretAction::kRedact;
  if (name == "drop") return SecretAction::kDrop;
  if (name == "report") return SecretAction::kReport;
  return InvalidArgumentError("export.secrets.action: expected redact, drop or report, got '" + std::string(name) +
                              "'");
}

std::string_view SecretActionName(SecretAction action) {
  switch (action) {
    case SecretAction::kRedact: return "redact";
    case SecretAction::kDrop: return "drop";
    case SecretAction::kReport: return "report";
  }
  return "redact";
}

}  // namespace seragen::secrets
