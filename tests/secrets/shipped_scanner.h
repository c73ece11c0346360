// The scanner over the shipped rules (configs/secret_rules.yaml), for tests.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "seragen/secrets/scanner.h"
#include "testing/source_paths.h"

namespace seragen::secrets::testing {

inline SecretScanner ShippedScanner(const std::vector<std::string>& allow = {}) {
  auto scanner = LoadSecretScanner(seragen::testing::SourcePath("configs/secret_rules.yaml"), allow);
  if (!scanner.ok()) throw std::runtime_error(scanner.status().ToString());
  return std::move(scanner).value();
}

}  // namespace seragen::secrets::testing
