#include "seragen/base/file_util.h"

#include <catch2/catch.hpp>

#include <filesystem>

#include "testing/fifo_read.h"
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

namespace seragen {
namespace {

Status ReadError(const std::string& path, std::uint64_t max_bytes = 1 << 20) {
  auto r = ReadRegularFile(path, max_bytes);
  return r.ok() ? Status::Ok() : r.status();
}

}  // namespace

TEST_CASE("ReadRegularFile reads a regular file up to its size cap", "[file_util]") {
  testing::TempDir dir;
  dir.Write("plain.txt", "hello\n");
  CHECK(ReadRegularFile(dir.Sub("plain.txt"), 6).value() == "hello\n");
  Status big = ReadError(dir.Sub("plain.txt"), 5);
  CHECK(big.code() == StatusCode::kResourceExhausted);
  CHECK(big.message().find(dir.Sub("plain.txt")) != std::string::npos);
  CHECK(ReadError(dir.Sub("missing.txt")).code() == StatusCode::kNotFound);
}

TEST_CASE("ReadRegularFile refuses a symbolic link, a directory, a device and a FIFO, naming them", "[file_util]") {
  testing::TempDir dir;
  dir.Write("target.txt", "secret\n");
  std::filesystem::create_symlink(dir.Sub("target.txt"), dir.Sub("link.txt"));
  std::filesystem::create_directories(dir.Sub("a-directory"));
  testing::MakeFifo(dir.Sub("fifo"));
  struct Case {
    std::string path, kind;
  };
  for (const Case& c : {Case{dir.Sub("link.txt"), "a symbolic link"}, Case{dir.Sub("a-directory"), "a directory"},
                        Case{"/dev/null", "a character device"}, Case{dir.Sub("fifo"), "a FIFO"}}) {
    INFO(c.path);
    Status s;
    CHECK(testing::ReturnsWithoutWriter(c.path, [&] { s = ReadError(c.path); }));
    CHECK(s.code() == StatusCode::kDataLoss);
    CHECK(s.message().find(c.path) != std::string::npos);
    CHECK(s.message().find(c.kind) != std::string::npos);
  }
}

}  // namespace seragen
