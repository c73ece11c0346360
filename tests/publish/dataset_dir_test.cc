#include "publish/dataset_dir.h"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>

#include "seragen/base/file_util.h"
#include "testing/temp_dir.h"

namespace seragen::publish {

// Issue 36, finding 6: `export --dataset DIR` replaced an existing README.md
// and left stale data files behind.
TEST_CASE("dataset dir: a directory seragen did not make is refused, naming it", "[export]") {
  testing::TempDir dir;
  dir.Write("hub/README.md", "the user's own card\n");
  Result<std::set<std::string>> claim = ClaimDatasetDir(dir.Sub("hub"), {"README.md", "data/t1.hf.jsonl"});
  REQUIRE_FALSE(claim.ok());
  CHECK(claim.status().code() == StatusCode::kFailedPrecondition);
  CHECK(claim.status().message().find(dir.Sub("hub")) != std::string::npos);
  CHECK(*ReadFile(dir.Sub("hub/README.md")) == "the user's own card\n");
  // A link in place of DIR or DIR/data is refused too.
  REQUIRE(::symlink(dir.Sub("hub").c_str(), dir.Sub("link").c_str()) == 0);
  CHECK_FALSE(ClaimDatasetDir(dir.Sub("link"), {"README.md"}).ok());
  REQUIRE(MakeDirs(dir.Sub("own")).ok());
  REQUIRE(::symlink(dir.Sub("hub").c_str(), dir.Sub("own/data").c_str()) == 0);
  CHECK_FALSE(ClaimDatasetDir(dir.Sub("own"), {"data/t1.hf.jsonl"}).ok());
}

TEST_CASE("dataset dir: a rerun replaces its own files, removes stale ones and leaves the user's", "[export]") {
  testing::TempDir dir;
  const std::string hub = dir.Sub("new-hub");
  Result<std::set<std::string>> first = ClaimDatasetDir(hub, {"README.md", "data/t1.hf.jsonl"});
  REQUIRE(first.ok());
  CHECK(first->empty());
  dir.Write("new-hub/README.md", "card\n");
  dir.Write("new-hub/data/t1.hf.jsonl", "{}\n");
  REQUIRE(RecordDatasetDir(hub, *first, {"README.md", "data/t1.hf.jsonl"}).ok());
  dir.Write("new-hub/NOTES.md", "the user's\n");
  // Second export: another format; hf's file is stale.
  Result<std::set<std::string>> second = ClaimDatasetDir(hub, {"README.md", "data/t1.xml.jsonl"});
  REQUIRE(second.ok());
  CHECK(*second == std::set<std::string>{"README.md", "data/t1.hf.jsonl"});
  dir.Write("new-hub/data/t1.xml.jsonl", "{}\n");
  REQUIRE(RecordDatasetDir(hub, *second, {"README.md", "data/t1.xml.jsonl"}).ok());
  CHECK_FALSE(std::filesystem::exists(dir.Sub("new-hub/data/t1.hf.jsonl")));
  CHECK(std::filesystem::exists(dir.Sub("new-hub/data/t1.xml.jsonl")));
  CHECK(*ReadFile(dir.Sub("new-hub/NOTES.md")) == "the user's\n");
  // A file of a name seragen would write, not listed: refused.
  dir.Write("new-hub/dataset_info.json", "{}\n");
  CHECK_FALSE(ClaimDatasetDir(hub, {"README.md", "dataset_info.json"}).ok());
}

}  // namespace seragen::publish
