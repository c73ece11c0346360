#include "seragen/pipeline/run_command.h"

#include <catch2/catch.hpp>

#include <cstdlib>

namespace seragen::pipeline {

TEST_CASE("shard resolution: flag, then config, then Slurm, then 0/1", "[shard]") {
  ::unsetenv("SLURM_ARRAY_TASK_ID");
  ::unsetenv("SLURM_ARRAY_TASK_COUNT");
  ::unsetenv("SLURM_ARRAY_TASK_MIN");
  auto s = ResolveShard("", "");
  REQUIRE(s.ok());
  CHECK((s->index == 0 && s->count == 1));
  s = ResolveShard("3/8", "1/2");
  CHECK((s->index == 3 && s->count == 8));
  s = ResolveShard("", "1/2");
  CHECK((s->index == 1 && s->count == 2));
  ::setenv("SLURM_ARRAY_TASK_ID", "7", 1);
  ::setenv("SLURM_ARRAY_TASK_COUNT", "4", 1);
  ::setenv("SLURM_ARRAY_TASK_MIN", "5", 1);  // --array=5-8
  s = ResolveShard("", "");
  REQUIRE(s.ok());
  CHECK((s->index == 2 && s->count == 4));
  CHECK(ResolveShard("1/2", "").value().index == 1);  // the flag still wins
  ::setenv("SLURM_ARRAY_TASK_ID", "x", 1);
  CHECK_FALSE(ResolveShard("", "").ok());
  ::unsetenv("SLURM_ARRAY_TASK_ID");
  ::unsetenv("SLURM_ARRAY_TASK_COUNT");
  ::unsetenv("SLURM_ARRAY_TASK_MIN");
  for (const char* bad : {"2/2", "-1/3", "a/b", "3", "1/0"}) {
    INFO(bad);
    auto r = ResolveShard(bad, "");
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().message().find("--shard") != std::string::npos);
  }
}

}  // namespace seragen::pipeline
