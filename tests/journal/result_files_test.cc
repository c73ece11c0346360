#include "seragen/journal/result_files.h"

#include <catch2/catch.hpp>

#include "testing/temp_dir.h"

namespace seragen::journal {

TEST_CASE("result files are written durably inside the shard directory", "[journal][files]") {
  testing::TempDir dir;
  REQUIRE(WriteResultFile(dir.path(), "trajectories/ab/t1.json", "{\"x\":1}").ok());
  CHECK(dir.Read("trajectories/ab/t1.json") == "{\"x\":1}");
  auto back = ReadResultFile(dir.path(), "trajectories/ab/t1.json");
  REQUIRE(back.ok());
  CHECK(*back == "{\"x\":1}");
  for (const char* bad : {"", "/etc/passwd", "../x", "a/../../x", "a//b", "./a"}) {
    INFO(bad);
    CHECK(WriteResultFile(dir.path(), bad, "x").code() == StatusCode::kInvalidArgument);
    CHECK(ReadResultFile(dir.path(), bad).status().code() == StatusCode::kInvalidArgument);
  }
}

TEST_CASE("stale temp files from a crash are removed, real files kept", "[journal][files]") {
  testing::TempDir dir;
  dir.Write("trajectories/a.json", "keep");
  dir.Write("trajectories/a.json.tmp.12345", "partial");
  dir.Write("trajectories/sub/b.json.tmp.7", "partial");
  dir.Write("trajectories/sub/c.json.tmp.7.3", "partial");  // WriteFileAtomic: pid.counter
  dir.Write("trajectories/c.tmp.json", "keep");
  dir.Write("trajectories/d.json.tmp.", "keep");
  auto removed = RemoveStaleTempFiles(dir.path(), "trajectories");
  REQUIRE(removed.ok());
  CHECK(*removed == 3);
  CHECK(dir.Read("trajectories/a.json") == "keep");
  CHECK(dir.Read("trajectories/c.tmp.json") == "keep");
  CHECK(dir.Read("trajectories/d.json.tmp.") == "keep");
  CHECK(*RemoveStaleTempFiles(dir.path(), "missing") == 0);
}

}  // namespace seragen::journal

namespace seragen::journal {

TEST_CASE("durable directory creation creates every missing level", "[journal][files]") {
  testing::TempDir dir;
  REQUIRE(MakeDirsDurable(dir.Sub("a/b/c")).ok());
  REQUIRE(MakeDirsDurable(dir.Sub("a/b/c")).ok());  // existing: no-op
  REQUIRE(MakeDirsDurable(dir.Sub("a/./b/../b/d")).ok());
  int rc = testing::RunShell("test -d " + dir.Sub("a/b/c") + " && test -d " + dir.Sub("a/b/d"));
  CHECK(rc == 0);
  dir.Write("file", "x");
  CHECK_FALSE(MakeDirsDurable(dir.Sub("file/sub")).ok());
}

}  // namespace seragen::journal
