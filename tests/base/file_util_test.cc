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

namespace seragen {
namespace {

// The lines ForEachLine gives for `content`, as "text|terminated" ("<too long>|..." for one too long).
std::vector<std::string> LinesOf(const std::string& content, Status* status = nullptr,
                                 std::size_t max_line_bytes = SIZE_MAX) {
  testing::TempDir dir;
  dir.Write("lines.txt", content);
  std::vector<std::string> out;
  Status s = ForEachLine(
      dir.Sub("lines.txt"), 64ull << 20,
      [&out](const FileLine& line) {
        CHECK((line.too_long ? line.text.empty() : true));
        out.push_back((line.too_long ? std::string("<too long>") : std::string(line.text)) +
                      (line.terminated ? "|\\n" : "|"));
        return Status::Ok();
      },
      max_line_bytes);
  if (status != nullptr) *status = s;
  return out;
}

}  // namespace

TEST_CASE("ForEachLine gives every line once, across chunk boundaries, with any bytes", "[file_util]") {
  CHECK(LinesOf("").empty());
  CHECK(LinesOf("\n") == std::vector<std::string>{"|\\n"});
  CHECK(LinesOf("a\n\nb") == std::vector<std::string>{"a|\\n", "|\\n", "b|"});
  const std::string nul("x\0y\xff", 4);
  CHECK(LinesOf(nul + "\n") == std::vector<std::string>{nul + "|\\n"});
  // Lines longer than a read chunk (1 MiB), and a newline on each side of a chunk's edge.
  const std::string long_line(3u << 20, 'L');
  const std::string edge((1u << 20) - 1, 'e');
  auto lines = LinesOf(long_line + "\n" + edge + "\nz\n" + long_line);
  REQUIRE(lines.size() == 4);
  CHECK(lines[0] == long_line + "|\\n");
  CHECK(lines[1] == edge + "|\\n");
  CHECK(lines[2] == "z|\\n");
  CHECK(lines[3] == long_line + "|");
}

TEST_CASE("ForEachLine gives a line longer than the caller's bound as too long, and the lines after it",
          "[file_util]") {
  const std::string big((1u << 20) + 5, 'B');  // also longer than a read chunk
  CHECK(LinesOf("abcd\nabcde\n" + big + "\nok\nabcdef", nullptr, 5) ==
        std::vector<std::string>{"abcd|\\n", "abcde|\\n", "<too long>|\\n", "ok|\\n", "<too long>|"});
  // Across a chunk's edge: the first part of the line is read with one chunk, the rest with the next.
  const std::string edge((1u << 20) - 2, 'e');
  CHECK(LinesOf(edge + "\n" + "xyzxyz\nq\n", nullptr, 5) ==
        std::vector<std::string>{"<too long>|\\n", "<too long>|\\n", "q|\\n"});
  CHECK(LinesOf(std::string((1u << 20) - 3, 'p') + "\nxyz\n", nullptr, 5) ==
        std::vector<std::string>{"<too long>|\\n", "xyz|\\n"});
}

TEST_CASE("ForEachLine stops at the callback's first error and refuses what ReadRegularFile refuses", "[file_util]") {
  testing::TempDir dir;
  dir.Write("three.txt", "1\n2\n3\n");
  int seen = 0;
  Status stop = ForEachLine(dir.Sub("three.txt"), 100, [&seen](const FileLine& line) {
    ++seen;
    return line.text == "2" ? InvalidArgumentError("two") : Status::Ok();
  });
  CHECK(stop.code() == StatusCode::kInvalidArgument);
  CHECK(seen == 2);
  auto ignore = [](const FileLine&) { return Status::Ok(); };
  CHECK(ForEachLine(dir.Sub("three.txt"), 5, ignore).code() == StatusCode::kResourceExhausted);
  CHECK(ForEachLine(dir.Sub("missing.txt"), 5, ignore).code() == StatusCode::kNotFound);
  std::filesystem::create_directories(dir.Sub("a-directory"));
  CHECK(ForEachLine(dir.Sub("a-directory"), 5, ignore).code() == StatusCode::kDataLoss);
}

}  // namespace seragen

namespace seragen {

TEST_CASE("WriteFileInPlace creates or truncates a file and refuses a symbolic link", "[file_util]") {
  testing::TempDir dir;
  REQUIRE(WriteFileInPlace(dir.Sub("page.html"), "a longer first text").ok());
  REQUIRE(WriteFileInPlace(dir.Sub("page.html"), "second").ok());
  CHECK(ReadFile(dir.Sub("page.html")).value() == "second");
  dir.Write("target.txt", "kept\n");
  std::filesystem::create_symlink(dir.Sub("target.txt"), dir.Sub("link.html"));
  Status through_link = WriteFileInPlace(dir.Sub("link.html"), "planted");
  CHECK(through_link.code() == StatusCode::kIoError);
  CHECK(through_link.message().find(dir.Sub("link.html")) != std::string::npos);
  CHECK(ReadFile(dir.Sub("target.txt")).value() == "kept\n");
  CHECK_FALSE(WriteFileInPlace(dir.Sub("no/such/dir/page.html"), "x").ok());
}

}  // namespace seragen
