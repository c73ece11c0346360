#include "seragen/journal/error_class.h"

namespace seragen::journal {
namespace {

// By ErrorFamily's value.
constexpr std::string_view kFamilyNames[] = {"config", "infra", "model", "unknown"};
constexpr ErrorFamily kKnownFamilies[] = {ErrorFamily::kConfig, ErrorFamily::kInfra, ErrorFamily::kModel};

}  // namespace

std::string_view ErrorFamilyName(ErrorFamily family) { return kFamilyNames[static_cast<int>(family)]; }

std::string ErrorClassName(const ErrorClass& error_class) {
  if (error_class.family == ErrorFamily::kUnknown) return error_class.cause;
  std::string text(ErrorFamilyName(error_class.family));
  text += '.';
  text += error_class.cause;
  return text;
}

ErrorClass ParseErrorClass(std::string_view text) {
  const std::size_t dot = text.find('.');
  if (dot != std::string_view::npos) {
    for (ErrorFamily f : kKnownFamilies) {
      if (text.substr(0, dot) == ErrorFamilyName(f)) return {f, std::string(text.substr(dot + 1))};
    }
  }
  return {ErrorFamily::kUnknown, std::string(text)};
}

}  // namespace seragen::journal
