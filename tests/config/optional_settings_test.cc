#include "seragen/config/optional_settings.h"

#include <catch2/catch.hpp>

namespace seragen::config {

TEST_CASE("optional settings store the keys present and valid, and list every problem", "[config]") {
  std::optional<std::string> name, mode;
  std::optional<std::int64_t> count;
  std::optional<double> rate;
  OptionalSettings table;
  table.Text("name", &name);
  table.Integer("count", &count, 1, 10);
  OptionalSettings& inner = table.Section("inner");
  inner.Number("rate", &rate, 0, 1);
  inner.Text("mode", &mode, {"fast", "slow"});

  Status s = table.Load("name: x\ncount: 11\ninner:\n  rate: 0.5\n  mode: quick\n  extra: 1\n", "f.yaml");
  CHECK(s.code() == StatusCode::kInvalidArgument);
  CHECK(s.message().find("f.yaml:2:8: count: must be <= 10") != std::string::npos);
  CHECK(s.message().find("f.yaml:6:3: inner.extra: unknown key") != std::string::npos);
  CHECK(s.message().find("inner.mode: expected one of fast | slow") != std::string::npos);
  CHECK(name == std::optional<std::string>("x"));
  CHECK(rate == std::optional<double>(0.5));
  CHECK_FALSE(count.has_value());  // invalid: the tool's default stays
  CHECK_FALSE(mode.has_value());
}

TEST_CASE("optional settings: an empty file sets nothing, an unreadable one names what it is", "[config]") {
  std::optional<std::int64_t> count;
  OptionalSettings table;
  table.Integer("count", &count, 0, 5);
  REQUIRE(table.Load("", "f.yaml").ok());
  CHECK_FALSE(count.has_value());
  Status missing = table.LoadFile("/nonexistent/f.yaml", "widget settings");
  CHECK(missing.message().find("/nonexistent/f.yaml: (file): cannot read widget settings: ") != std::string::npos);
  CHECK(table.Load("count: 1\ncount: 2\n", "f.yaml").message().find("count: duplicate key") != std::string::npos);
}

}  // namespace seragen::config
