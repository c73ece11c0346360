// CheckCheckoutable: what no working copy can hold is found from the tree,
// before any copy is made.
#include "seragen/repo/checkout_check.h"

#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

#include "repo/git_fixture.h"
#include "seragen/repo/repository.h"
#include "testing/temp_dir.h"

namespace seragen::repo {
namespace {

using seragen::testing::TempDir;

// Adds `path` (any length) to the index as a copy of a.txt's blob and commits.
std::string CommitIndexEntry(const std::string& dir, const std::string& mode, const std::string& id,
                             const std::string& path) {
  testing::MustRun(testing::Git(dir) + " update-index --add --cacheinfo " + mode + "," + id + "," +
                   testing::Quote(path));
  testing::MustRun(testing::Git(dir) + " commit -q -m entry");
  return testing::MustRun(testing::Git(dir) + " rev-parse HEAD").substr(0, 40);
}

Status Check(const std::string& dir, const std::string& commit, const std::string& scratch) {
  auto repo = Repository::Open(dir);
  REQUIRE(repo.ok());
  return CheckCheckoutable(repo->git_dir(), commit, scratch);
}

bool IsEmptyDir(const std::string& dir) { return std::filesystem::is_empty(dir); }

TEST_CASE("checkout check: paths over the limits are refused, naming the path", "[repo][checkout_check]") {
  TempDir tmp;
  const std::string dir = tmp.Sub("r");
  const std::string base = testing::MakeRepo(dir, {{"a.txt", "a\n"}, {"src/ok.py", "x = 1\n"}});
  CHECK(Check(dir, base, tmp.path()).ok());
  const std::string blob = testing::MustRun(testing::Git(dir) + " rev-parse HEAD:a.txt").substr(0, 40);

  std::string longest;  // exactly at the limit: accepted
  while (longest.size() + 201 <= kMaxCheckoutPathBytes) longest += std::string(200, 'd') + "/";
  longest += std::string(kMaxCheckoutPathBytes - longest.size(), 'f');
  const std::string at_limit = CommitIndexEntry(dir, "100644", blob, longest);
  CHECK(Check(dir, at_limit, tmp.path()).ok());

  const std::string over = CommitIndexEntry(dir, "100644", blob, longest + "x/y.py");
  Status s = Check(dir, over, tmp.path());
  CHECK(s.code() == StatusCode::kFailedPrecondition);
  CHECK(s.message().find("'" + longest.substr(0, 150)) != std::string::npos);
  CHECK(s.message().find(std::to_string(kMaxCheckoutPathBytes)) != std::string::npos);
  CHECK(s.message().size() < 1000);  // the path is clipped in the message

  testing::MustRun(testing::Git(dir) + " rm -q -r --cached d* && " + testing::Git(dir) + " commit -q -m clean");
  const std::string long_name = CommitIndexEntry(dir, "100644", blob, "src/" + std::string(256, 'n') + ".py");
  s = Check(dir, long_name, tmp.path());
  CHECK(s.code() == StatusCode::kFailedPrecondition);
  CHECK(s.message().find("name of 259 bytes") != std::string::npos);
}

TEST_CASE("checkout check: a .gitmodules libgit2 refuses is found, a usable one passes", "[repo][checkout_check]") {
  TempDir tmp;
  const std::string dir = tmp.Sub("r");
  const std::string base = testing::MakeRepo(dir, {{"a.txt", "a\n"}});
  const std::string marker = tmp.Sub("ran");
  tmp.Write("r/.gitmodules", "[submodule \"lib\"]\n\tpath = lib\n\turl = ./lib\n\tupdate = rebase\n");
  testing::MustRun(testing::Git(dir) + " add .gitmodules");
  const std::string usable = CommitIndexEntry(dir, "160000", base, "lib");
  std::filesystem::create_directories(tmp.Sub("scratch"));
  CHECK(Check(dir, usable, tmp.Sub("scratch")).ok());

  tmp.Write("r/.gitmodules", "[submodule \"lib\"]\n\tpath = lib\n\turl = ./lib\n\tupdate = !touch " + marker + "\n");
  testing::MustRun(testing::Git(dir) + " add .gitmodules && " + testing::Git(dir) + " commit -q -m command");
  const std::string command = testing::MustRun(testing::Git(dir) + " rev-parse HEAD").substr(0, 40);
  Status s = Check(dir, command, tmp.Sub("scratch"));
  CHECK(s.code() == StatusCode::kFailedPrecondition);
  CHECK(s.message().find(".gitmodules") != std::string::npos);
  CHECK(s.message().find("update") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(marker));
  CHECK(IsEmptyDir(tmp.Sub("scratch")));  // the trial copy is gone

  // Without a gitlink libgit2 never reads .gitmodules: nothing to refuse.
  testing::MustRun(testing::Git(dir) + " rm -q --cached lib && " + testing::Git(dir) + " commit -q -m 'no gitlink'");
  CHECK(Check(dir, testing::MustRun(testing::Git(dir) + " rev-parse HEAD").substr(0, 40), tmp.Sub("scratch")).ok());
}

TEST_CASE("checkout check: a path libgit2 will not write is refused", "[repo][checkout_check]") {
  TempDir tmp;
  const std::string dir = tmp.Sub("r");
  const std::string base = testing::MakeRepo(dir, {{"a.txt", "a\n"}});
  const std::string blob = testing::MustRun(testing::Git(dir) + " rev-parse HEAD:a.txt").substr(0, 40);
  // git's own tools refuse such a path; mktree writes what it is given.
  tmp.Write("inner.txt", "100644 blob " + blob + "\tconfig\n");
  const std::string inner =
      testing::MustRun(testing::Git(dir) + " mktree < " + testing::Quote(tmp.Sub("inner.txt"))).substr(0, 40);
  tmp.Write("outer.txt", "100644 blob " + blob + "\ta.txt\n040000 tree " + inner + "\t.GIT\n");
  const std::string outer =
      testing::MustRun(testing::Git(dir) + " mktree < " + testing::Quote(tmp.Sub("outer.txt"))).substr(0, 40);
  const std::string commit =
      testing::MustRun(testing::Git(dir) + " commit-tree " + outer + " -p " + base + " -m dotgit").substr(0, 40);
  Status s = Check(dir, commit, tmp.path());
  CHECK(s.code() == StatusCode::kFailedPrecondition);
  CHECK(s.message().find(".GIT/config") != std::string::npos);
}

}  // namespace
}  // namespace seragen::repo
