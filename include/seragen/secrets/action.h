// What export does with a row that holds a secret (config export.secrets.action).
#pragma once

#include <string_view>

#include "seragen/base/result.h"

namespace seragen::secrets {

enum class SecretAction {
  kRedact,  // replace each secret with <REDACTED:rule:hash8> and keep the row (default)
  kDrop,    // leave the row out, counted
  kReport,  // keep the row unchanged, counted and listed
};

// "redact" | "drop" | "report"; anything else is an error naming the value.
Result<SecretAction> ParseSecretAction(std::string_view name);

}  // namespace seragen::secrets
