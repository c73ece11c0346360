#include "llm/config_error_gate.h"

#include <cctype>

namespace seragen::llm {

std::string ConfigErrorSignature(std::string_view message) {
  std::string out;
  bool in_digits = false;
  for (char c : message) {
    if (out.size() >= 300) break;
    if (std::isdigit(static_cast<unsigned char>(c))) {
      if (!in_digits) out += '#';
      in_digits = true;
      continue;
    }
    in_digits = false;
    out += c;
  }
  return out;
}

bool ConfigErrorGate::OnConfigError(std::string_view message) {
  std::string signature = ConfigErrorSignature(message);
  if (signature == signature_) {
    ++count_;
  } else {
    signature_ = std::move(signature);
    count_ = 1;
  }
  return count_ >= limit_;
}

}  // namespace seragen::llm
