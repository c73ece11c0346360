#include "seragen/base/base64.h"

#include <catch2/catch.hpp>

#include <string>

namespace seragen {

TEST_CASE("base64 matches RFC 4648 vectors and round-trips any bytes", "[base]") {
  const std::pair<std::string, std::string> kVectors[] = {
      {"", ""}, {"f", "Zg=="}, {"fo", "Zm8="}, {"foo", "Zm9v"}, {"fooba", "Zm9vYmE="}, {"foobar", "Zm9vYmFy"}};
  for (const auto& [plain, encoded] : kVectors) {
    CHECK(Base64Encode(plain) == encoded);
    CHECK(Base64Decode(encoded) == std::optional<std::string>(plain));
  }
  std::string all;
  for (int i = 0; i < 256; ++i) all += static_cast<char>(i);
  for (std::size_t n = 0; n < all.size(); n += 37) {
    std::string bytes = all.substr(n) + all.substr(0, n % 5);
    CHECK(Base64Decode(Base64Encode(bytes)) == std::optional<std::string>(bytes));
  }
}

TEST_CASE("base64 decoding rejects non-canonical text", "[base]") {
  CHECK_FALSE(Base64Decode("Zg=").has_value());       // length
  CHECK_FALSE(Base64Decode("Z===").has_value());      // too much padding
  CHECK_FALSE(Base64Decode("Zh==").has_value());      // non-zero padding bits
  CHECK_FALSE(Base64Decode("Zm9v\n").has_value());    // whitespace
  CHECK_FALSE(Base64Decode("Zg==Zg==").has_value());  // padding in the middle
  CHECK_FALSE(Base64Decode("Zm-v").has_value());
}

}  // namespace seragen
