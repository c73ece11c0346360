#include "seragen/sandbox/incremental_copy_meter.h"

#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "testing/temp_dir.h"

namespace seragen::sandbox {
namespace {

constexpr std::uint64_t kNoLimit = 1ull << 40;

void Write(const std::string& path, std::size_t n, bool append = false) {
  std::ofstream out(path, std::ios::binary | (append ? std::ios::app : std::ios::trunc));
  std::string block(4096, 'x');
  for (std::size_t done = 0; done < n; done += block.size())
    out.write(block.data(), static_cast<std::streamsize>(std::min(block.size(), n - done)));
}

// The incremental meter agrees with a whole walk.
void Agrees(IncrementalCopyMeter& meter, const std::vector<std::string>& roots) {
  auto fast = meter.Measure(kNoLimit, 1u << 30);
  auto walk = DirectoryCopyMeter(roots).Measure(kNoLimit, 1u << 30);
  REQUIRE(fast.ok());
  REQUIRE(walk.ok());
  CHECK(fast->entries == walk->entries);
  CHECK(fast->bytes == walk->bytes);
  CHECK_FALSE(fast->over);
}

}  // namespace

TEST_CASE("incremental meter: after one walk it follows creates, growth, deletes and moves", "[sandbox][copy_usage]") {
  testing::TempDir dir, tmp;
  ::mkdir(dir.Sub("pkg").c_str(), 0755);
  Write(dir.Sub("pkg/a.py"), 10000);
  Write(tmp.Sub("t"), 100);
  const std::vector<std::string> roots{dir.path(), tmp.path()};
  IncrementalCopyMeter meter(roots);
  Agrees(meter, roots);
  CHECK(meter.full_walks() == 1);
  Write(dir.Sub("pkg/a.py"), 1 << 20, /*append=*/true);  // an existing file grows
  Agrees(meter, roots);
  std::filesystem::create_directories(dir.Sub("build/lib/x"));
  for (int i = 0; i < 300; ++i) Write(dir.Sub("build/lib/x/f" + std::to_string(i)), 5000);  // the directory grows too
  Write(tmp.Sub("cache.bin"), 3 << 20);
  Agrees(meter, roots);
  std::filesystem::rename(dir.Sub("build/lib"), dir.Sub("pkg/lib"));  // a subtree moves
  Agrees(meter, roots);
  std::filesystem::remove_all(dir.Sub("pkg/lib"));
  std::filesystem::remove(tmp.Sub("t"));
  Agrees(meter, roots);
  ::mkdir(dir.Sub("a").c_str(), 0755);
  ::mkdir(dir.Sub("b").c_str(), 0755);
  Write(dir.Sub("b/inside"), 70000);
  std::filesystem::rename(dir.Sub("b"), dir.Sub("a"));  // a directory replaced by another under its name
  Agrees(meter, roots);
  CHECK(meter.full_walks() == 1);  // no walk after the first
}

TEST_CASE("incremental meter: a directory replaced by a symlink is not followed", "[sandbox][copy_usage]") {
  testing::TempDir dir, outside;
  Write(outside.Sub("big"), 4 << 20);
  ::mkdir(dir.Sub("d").c_str(), 0755);
  Write(dir.Sub("d/f"), 4096);
  IncrementalCopyMeter meter({dir.path()});
  Agrees(meter, {dir.path()});
  std::filesystem::remove_all(dir.Sub("d"));
  REQUIRE(::symlink(outside.path().c_str(), dir.Sub("d").c_str()) == 0);
  Agrees(meter, {dir.path()});
  auto usage = meter.Measure(kNoLimit, 1u << 30);
  REQUIRE(usage.ok());
  CHECK(usage->bytes < (1u << 20));  // the outside file is not counted
}

TEST_CASE("incremental meter: over a limit, and a vanished root, walk again", "[sandbox][copy_usage]") {
  testing::TempDir dir;
  Write(dir.Sub("f"), 1 << 20);
  IncrementalCopyMeter meter({dir.path()});
  auto over = meter.Measure(1 << 19, 1000);
  REQUIRE(over.ok());
  CHECK(over->over);
  std::filesystem::remove(dir.Sub("f"));
  auto under = meter.Measure(1 << 19, 1000);  // the stopped walk is redone, not trusted
  REQUIRE(under.ok());
  CHECK_FALSE(under->over);
  CHECK(meter.full_walks() == 2);
  CHECK(meter.Measure(kNoLimit, 2)->over == false);
  Write(dir.Sub("g"), 10);
  Write(dir.Sub("h"), 10);
  CHECK(meter.Measure(kNoLimit, 2)->over);  // entries count too
  const std::string moved = dir.path() + ".moved";
  std::filesystem::rename(dir.path(), moved);
  CHECK_FALSE(meter.Measure(kNoLimit, 100).ok());  // the copy's root is gone: an infrastructure error
  std::filesystem::rename(moved, dir.path());
}

}  // namespace seragen::sandbox
