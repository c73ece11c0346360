// ConfinedDir: deletes, writes and chowns inside a copy never follow a
// symlink and never act outside the copy, even when a path component was
// swapped for a symlink after it was listed.
#include "repo/confined_fs.h"

#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "repo/git_fixture.h"
#include "testing/temp_dir.h"

namespace seragen::repo::internal {
namespace {

namespace fs = std::filesystem;
using seragen::testing::TempDir;
using testing::MustRun;
using testing::Quote;

std::string Listing(const std::string& dir) {
  return MustRun("cd " + Quote(dir) + " && find . | sort && find . -type f | sort | xargs -r md5sum");
}

struct Layout {
  TempDir tmp;
  std::string copy = tmp.Sub("copy");
  std::string outside = tmp.Sub("outside");
  Layout() {
    tmp.Write("copy/a/b/file.txt", "mine\n");
    tmp.Write("copy/keep.txt", "keep\n");
    tmp.Write("outside/b/file.txt", "precious\n");
    tmp.Write("outside/top.txt", "precious\n");
  }
  // The agent's move: `a` becomes a symlink to the host directory.
  void SwapForSymlink(const std::string& name) {
    fs::remove_all(copy + "/" + name);
    fs::create_directory_symlink(outside, copy + "/" + name);
  }
};

TEST_CASE("confined: removal through a path component swapped for a symlink is refused") {
  Layout l;
  std::string before = Listing(l.outside);
  auto root = ConfinedDir::Open(l.copy);
  REQUIRE(root.ok());
  l.SwapForSymlink("a");
  Status removed = root->RemoveAll("a/b/file.txt");
  CHECK(removed.code() == StatusCode::kFailedPrecondition);
  CHECK(removed.message().find("'a'") != std::string::npos);
  CHECK(root->RemoveAll("a/b").code() == StatusCode::kFailedPrecondition);
  CHECK(Listing(l.outside) == before);
  // The symlink itself is removed as a leaf, never followed.
  REQUIRE(root->RemoveAll("a").ok());
  CHECK_FALSE(fs::exists(fs::symlink_status(l.copy + "/a")));
  CHECK(Listing(l.outside) == before);
  // Missing entries are fine; '..' is rejected.
  CHECK(root->RemoveAll("no/such/thing").ok());
  CHECK(root->RemoveAll("../outside/top.txt").code() == StatusCode::kInvalidArgument);
  CHECK(Listing(l.outside) == before);
}

TEST_CASE("confined: whole-tree removal deletes symlinks without following them") {
  Layout l;
  std::string before = Listing(l.outside);
  MustRun("cd " + Quote(l.copy) + " && ln -s " + Quote(l.outside) + " a/out && ln -s " + Quote(l.outside + "/top.txt") +
          " a/b/f2 && mkdir -p a/locked/in && chmod 000 a/locked/in && chmod 500 a/locked");
  REQUIRE(RemoveTreeConfined(l.copy).ok());
  CHECK_FALSE(fs::exists(l.copy));
  CHECK(Listing(l.outside) == before);
  CHECK(RemoveTreeConfined(l.copy).ok());  // already gone
}

TEST_CASE("confined: trees deeper than the walk limit are still removed") {
  Layout l;
  auto root = ConfinedDir::Open(l.copy);
  REQUIRE(root.ok());
  // Build it relative to the root (the full path may exceed PATH_MAX).
  MustRun("cd " + Quote(l.copy) + " && for i in $(seq " + std::to_string(kMaxConfinedDepth + 40) +
          "); do mkdir d && cd d; done && echo x > leaf");
  CHECK(root->UnlinkSpecialEntriesAndOpenDirs("").code() == StatusCode::kFailedPrecondition);
  REQUIRE(root->RemoveAll("d").ok());
  CHECK(MustRun("ls -A " + Quote(l.copy) + " | sort") == "a\nkeep.txt\n");
}

TEST_CASE("confined: symlinks and FIFOs are unlinked, not followed, and unreadable directories opened") {
  Layout l;
  std::string before = Listing(l.outside);
  MustRun("cd " + Quote(l.copy) + " && ln -s " + Quote(l.outside) + " a/out && ln -s " + Quote(l.outside) +
          " .git && mkdir -p shut && chmod 000 shut && mkfifo a/b/pipe");
  auto root = ConfinedDir::Open(l.copy);
  REQUIRE(root.ok());
  REQUIRE(root->UnlinkSpecialEntriesAndOpenDirs(".git").ok());
  CHECK_FALSE(fs::exists(fs::symlink_status(l.copy + "/a/out")));
  CHECK_FALSE(fs::exists(fs::symlink_status(l.copy + "/a/b/pipe")));
  CHECK(fs::exists(l.copy + "/a/b/file.txt"));
  CHECK(fs::is_symlink(l.copy + "/.git"));  // the skipped top-level entry
  CHECK((fs::status(l.copy + "/shut").permissions() & fs::perms::owner_all) == fs::perms::owner_all);
  CHECK(Listing(l.outside) == before);
}

TEST_CASE("confined: new files never land behind a planted symlink") {
  Layout l;
  std::string before = Listing(l.outside);
  auto root = ConfinedDir::Open(l.copy);
  REQUIRE(root.ok());
  MustRun("ln -s " + Quote(l.outside + "/top.txt") + " " + Quote(l.copy + "/planted"));
  CHECK(root->WriteNewFile("planted", "x", 0644).code() == StatusCode::kAlreadyExists);
  l.SwapForSymlink("a");
  CHECK(root->WriteNewFile("a/new.txt", "x", 0644).code() == StatusCode::kFailedPrecondition);
  CHECK(root->MakeDir("a/newdir", 0755).code() == StatusCode::kFailedPrecondition);
  CHECK(Listing(l.outside) == before);
  struct timespec when = {1234567, 0};
  REQUIRE(root->WriteNewFile("fresh.txt", "hello", 0640, &when).ok());
  struct stat st;
  REQUIRE(::stat(l.copy.c_str(), &st) == 0);
  REQUIRE(::stat((l.copy + "/fresh.txt").c_str(), &st) == 0);
  CHECK(st.st_mtim.tv_sec == 1234567);
  CHECK(l.tmp.Read("copy/fresh.txt") == "hello");
}

TEST_CASE("confined: ChownAll never changes the owner of a symlink's target") {
  if (::geteuid() != 0) {
    WARN("not root: cannot chown to another uid, skipped");
    return;
  }
  Layout l;
  MustRun("ln -s " + Quote(l.outside + "/top.txt") + " " + Quote(l.copy + "/a/link"));
  auto root = ConfinedDir::Open(l.copy);
  REQUIRE(root.ok());
  REQUIRE(root->ChownAll(54321, 54322).ok());
  struct stat st;
  REQUIRE(::stat((l.copy + "/a/b/file.txt").c_str(), &st) == 0);
  CHECK(st.st_uid == 54321);
  CHECK(st.st_gid == 54322);
  REQUIRE(::lstat((l.copy + "/a/link").c_str(), &st) == 0);
  CHECK(st.st_uid == 54321);
  REQUIRE(::stat((l.outside + "/top.txt").c_str(), &st) == 0);
  CHECK(st.st_uid == 0);
}

TEST_CASE("confined: ChownPath gives a path and the directories to it, never through a symlink") {
  if (::geteuid() != 0) {
    WARN("not root: cannot chown to another uid, skipped");
    return;
  }
  Layout l;
  MustRun("ln -s " + Quote(l.outside) + " " + Quote(l.copy + "/a/out"));
  auto root = ConfinedDir::Open(l.copy);
  REQUIRE(root.ok());
  REQUIRE(root->ChownPath("a/b/file.txt", 54321, 54322).ok());
  REQUIRE(root->ChownPath("a/out/top.txt", 54321, 54322).ok());
  REQUIRE(root->ChownPath("a/missing/x", 54321, 54322).ok());
  auto owner = [](const std::string& path) {
    struct stat st;
    REQUIRE(::lstat(path.c_str(), &st) == 0);
    return st.st_uid;
  };
  CHECK(owner(l.copy + "/a") == 54321);
  CHECK(owner(l.copy + "/a/b") == 54321);
  CHECK(owner(l.copy + "/a/b/file.txt") == 54321);
  CHECK(owner(l.copy + "/a/out") == 54321);  // the symlink itself
  CHECK(owner(l.outside + "/top.txt") == 0);
  CHECK(owner(l.outside) == 0);
  CHECK(owner(l.copy) == 0);  // the root is not part of the path
}

}  // namespace
}  // namespace seragen::repo::internal
