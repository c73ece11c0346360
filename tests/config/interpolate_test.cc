#include "config/interpolate.h"

#include <catch2/catch.hpp>

#include <map>

#include "config/config_test_util.h"

namespace seragen::config::internal {
namespace {

using testing::FakeEnv;

}  // namespace

TEST_CASE("interpolation expands variables and defaults", "[config][interpolate]") {
  EnvLookup env = FakeEnv({{"SCRATCH", "/scratch/u1"}, {"EMPTY", ""}, {"N", "7"}});
  CHECK(*Interpolate("${SCRATCH}/seragen/run1", env) == "/scratch/u1/seragen/run1");
  CHECK(*Interpolate("a-${N}-${N}", env) == "a-7-7");
  CHECK(*Interpolate("${MISSING:-/tmp/x}/y", env) == "/tmp/x/y");
  CHECK(*Interpolate("${EMPTY:-fallback}", env) == "fallback");  // empty counts as unset
  CHECK(*Interpolate("${SCRATCH:-unused}", env) == "/scratch/u1");
  CHECK(*Interpolate("${MISSING:-}", env) == "");
  CHECK(*Interpolate("no references, $HOME and $ alone", env) == "no references, $HOME and $ alone");
}

TEST_CASE("interpolation names the variable that is unset without a default", "[config][interpolate]") {
  EnvLookup env = FakeEnv({{"EMPTY", ""}});
  auto unset = Interpolate("${SCRATCH}/run", env);
  REQUIRE_FALSE(unset.ok());
  CHECK(unset.status().message().find("environment variable SCRATCH is not set") != std::string::npos);
  CHECK_FALSE(Interpolate("${EMPTY}", env).ok());
}

TEST_CASE("malformed references are errors, not literal text", "[config][interpolate]") {
  EnvLookup env = FakeEnv({});
  auto open = Interpolate("${SCRATCH/run", env);
  REQUIRE_FALSE(open.ok());
  CHECK(open.status().message().find("without a closing") != std::string::npos);
  CHECK_FALSE(Interpolate("${}", env).ok());
  CHECK_FALSE(Interpolate("${1ABC}", env).ok());
  CHECK_FALSE(Interpolate("${A B:-x}", env).ok());
}

}  // namespace seragen::config::internal
