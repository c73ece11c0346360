#include "seragen/base/enum_names.h"

#include <catch2/catch.hpp>

namespace seragen {
namespace {

enum class Color { kRed, kGreen, kBlue };
constexpr std::pair<Color, std::string_view> kColorNames[] = {{Color::kRed, "red"}, {Color::kGreen, "green"}};

}  // namespace

TEST_CASE("one name table answers both directions", "[base]") {
  CHECK(NameOf<Color>(kColorNames, Color::kGreen, "?") == "green");
  CHECK(NameOf<Color>(kColorNames, Color::kBlue, "?") == "?");
  CHECK(ValueNamed<Color>(kColorNames, "red") == Color::kRed);
  CHECK_FALSE(ValueNamed<Color>(kColorNames, "Red").has_value());
  CHECK(*ParseNamed<Color>(kColorNames, "green", "color", "red or green") == Color::kGreen);
  Result<Color> bad = ParseNamed<Color>(kColorNames, "blue", "color", "red or green");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.status().code() == StatusCode::kInvalidArgument);
  CHECK(bad.status().message() == "unknown color 'blue' (expected red or green)");
}

}  // namespace seragen
