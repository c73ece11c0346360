#include "seragen/config/shard.h"

#include <catch2/catch.hpp>

#include <map>

namespace seragen::config {
namespace {

// An environment holding exactly `vars`.
EnvLookup Env(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](const std::string& name) -> std::optional<std::string> {
    auto it = vars.find(name);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

}  // namespace

TEST_CASE("shard resolution: flag, then config, then Slurm, then 0/1", "[shard]") {
  const EnvLookup none = Env({});
  auto s = ResolveShard("", "", none);
  REQUIRE(s.ok());
  CHECK((s->index == 0 && s->count == 1));
  s = ResolveShard("3/8", "1/2", none);
  CHECK((s->index == 3 && s->count == 8));
  s = ResolveShard("", "1/2", none);
  CHECK((s->index == 1 && s->count == 2));
  const EnvLookup array = Env(
      {{"SLURM_ARRAY_TASK_ID", "7"}, {"SLURM_ARRAY_TASK_COUNT", "4"}, {"SLURM_ARRAY_TASK_MIN", "5"}});  // --array=5-8
  s = ResolveShard("", "", array);
  REQUIRE(s.ok());
  CHECK((s->index == 2 && s->count == 4));
  CHECK(ResolveShard("1/2", "", array).value().index == 1);  // the flag still wins
  CHECK_FALSE(ResolveShard("", "", Env({{"SLURM_ARRAY_TASK_ID", "x"}, {"SLURM_ARRAY_TASK_COUNT", "4"}})).ok());
  for (const char* bad : {"2/2", "-1/3", "a/b", "3", "1/0"}) {
    INFO(bad);
    auto r = ResolveShard(bad, "", none);
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().message().find("--shard") != std::string::npos);
  }
}

}  // namespace seragen::config
