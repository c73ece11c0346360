#include "seragen/base/file_util.h"

#include <catch2/catch.hpp>

#include <filesystem>

#include "testing/temp_dir.h"

namespace seragen {

TEST_CASE("atomic write replaces content and leaves no temp files", "[file_util]") {
  testing::TempDir dir;
  std::string path = dir.Sub("a/b/out.json");
  REQUIRE(WriteFileAtomic(path, "first").ok());
  REQUIRE(WriteFileAtomic(path, "second").ok());
  CHECK(ReadFile(path).value() == "second");
  int files = 0;
  for (auto& e : std::filesystem::directory_iterator(dir.Sub("a/b"))) {
    (void)e;
    ++files;
  }
  CHECK(files == 1);
}

TEST_CASE("reading a missing file names it", "[file_util]") {
  auto r = ReadFile("/nonexistent/seragen/file.txt");
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().code() == StatusCode::kNotFound);
  CHECK(r.status().message().find("/nonexistent/seragen/file.txt") != std::string::npos);
}

}  // namespace seragen
