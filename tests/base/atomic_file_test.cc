#include "seragen/base/atomic_file.h"

#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>

#include "seragen/base/file_util.h"
#include "testing/temp_dir.h"

namespace seragen {

// Issue 36, finding 6: the temp file's name was "<path>.tmp.<pid>.<counter>",
// opened without O_EXCL or O_NOFOLLOW, so a link planted at that name in a
// shared directory had root overwrite the link's target.
TEST_CASE("atomic file: a link planted at any predictable temp name is never written through", "[atomic_file]") {
  testing::TempDir dir;
  const std::string victim = dir.Sub("victim"), target = dir.Sub("shared/out.json");
  dir.Write("victim", "root-owned\n");
  REQUIRE(MakeDirs(dir.Sub("shared")).ok());
  for (int n = 0; n < 64; ++n) {
    const std::string name = target + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(n);
    REQUIRE(::symlink(victim.c_str(), name.c_str()) == 0);
  }
  REQUIRE(WriteFileAtomic(target, "new content\n").ok());
  CHECK(*ReadFile(victim) == "root-owned\n");
  CHECK(*ReadFile(target) == "new content\n");
  std::size_t entries = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir.Sub("shared"))) entries += e.is_symlink() ? 0 : 1;
  CHECK(entries == 1);  // the target; no temp file left

  // A link at the target itself is replaced, not followed.
  REQUIRE(::symlink(victim.c_str(), dir.Sub("shared/link").c_str()) == 0);
  REQUIRE(WriteFileAtomic(dir.Sub("shared/link"), "replaced\n").ok());
  CHECK(*ReadFile(victim) == "root-owned\n");
}

TEST_CASE("atomic file: written piece by piece, renamed on commit, removed when dropped", "[atomic_file]") {
  testing::TempDir dir;
  {
    Result<AtomicFile> f = AtomicFile::Open(dir.Sub("a.txt"), /*durable=*/false);
    REQUIRE(f.ok());
    REQUIRE(f->Append("one ").ok());
    REQUIRE(f->Append("two").ok());
    CHECK_FALSE(std::filesystem::exists(dir.Sub("a.txt")));
    REQUIRE(f->Commit().ok());
  }
  CHECK(*ReadFile(dir.Sub("a.txt")) == "one two");
  std::string temp;
  {
    Result<AtomicFile> f = AtomicFile::Open(dir.Sub("b.txt"));
    REQUIRE(f.ok());
    temp = f->temp_path();
    CHECK(std::filesystem::exists(temp));
  }
  CHECK_FALSE(std::filesystem::exists(temp));
  CHECK_FALSE(std::filesystem::exists(dir.Sub("b.txt")));
}

}  // namespace seragen
