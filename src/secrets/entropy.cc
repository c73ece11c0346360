#include "secrets/entropy.h"

#include <array>
#include <cmath>

namespace seragen::secrets {

double ShannonBitsPerByte(std::string_view text) {
  if (text.empty()) return 0;
  std::array<std::size_t, 256> counts{};
  for (char c : text) ++counts[static_cast<unsigned char>(c)];
  const double n = static_cast<double>(text.size());
  double bits = 0;
  for (std::size_t count : counts) {
    if (count == 0) continue;
    double p = static_cast<double>(count) / n;
    bits -= p * std::log2(p);
  }
  return bits;
}

bool HasLetterAndDigit(std::string_view text) {
  bool letter = false;
  bool digit = false;
  for (char c : text) {
    letter = letter || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    digit = digit || (c >= '0' && c <= '9');
  }
  return letter && digit;
}

}  // namespace seragen::secrets
