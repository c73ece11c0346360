#include "seragen/env/group_cache_dir.h"

#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

#include "testing/temp_dir.h"

namespace seragen::env {
namespace {

mode_t ModeOf(const std::string& path) {
  struct stat st {};
  REQUIRE(::lstat(path.c_str(), &st) == 0);
  return st.st_mode;
}

TEST_CASE("group cache dir: a cache directory that is a link or another user's is refused", "[env]") {
  testing::TempDir tmp;
  std::filesystem::create_directory(tmp.Sub("elsewhere"));
  std::filesystem::create_directory_symlink(tmp.Sub("elsewhere"), tmp.Sub("link"));
  CHECK_FALSE(GuardCacheDir(tmp.Sub("link"), ::getegid()).ok());
  if (::geteuid() == 0) {
    std::filesystem::create_directory(tmp.Sub("theirs"));
    REQUIRE(::chown(tmp.Sub("theirs").c_str(), 12345, 12345) == 0);
    Status theirs = GuardCacheDir(tmp.Sub("theirs"), ::getegid());
    CHECK_FALSE(theirs.ok());
    CHECK(theirs.message().find("uid 12345") != std::string::npos);
  }
  REQUIRE(GuardCacheDir(tmp.Sub("mine"), ::getegid()).ok());
  CHECK((ModeOf(tmp.Sub("mine")) & 077) == (::geteuid() == 0 ? 050 : 0));
}

TEST_CASE("group cache dir: runs of two uid bases keep their entries apart and never regroup each other's", "[env]") {
  testing::TempDir tmp;
  const std::string top = tmp.Sub("pycache");
  Result<std::string> first = GuardGroupCacheDir(top, 24999);
  REQUIRE(first.ok());
  Result<std::string> second = GuardGroupCacheDir(top, 19999);
  REQUIRE(second.ok());
  if (::geteuid() != 0) {
    CHECK(*first == top);  // no groups without root: this user's own directory
    return;
  }
  CHECK(*first != *second);
  struct stat st {};
  REQUIRE(::stat(first->c_str(), &st) == 0);
  CHECK(st.st_gid == 24999u);  // the second run did not take it
  CHECK((st.st_mode & 0777) == 0750);
  REQUIRE(::stat(second->c_str(), &st) == 0);
  CHECK(st.st_gid == 19999u);
  CHECK((ModeOf(top) & 0777) == 0711);  // reachable by every group's sandbox uids, listable by none
  std::filesystem::create_directory(tmp.Sub("elsewhere"));
  std::filesystem::create_directory_symlink(tmp.Sub("elsewhere"), tmp.Sub("link"));
  CHECK_FALSE(GuardGroupCacheDir(tmp.Sub("link"), 24999).ok());
}

}  // namespace
}  // namespace seragen::env
