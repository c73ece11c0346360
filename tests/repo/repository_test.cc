// Repository: open and clone, revision resolution, file listing with filters,
// reading from the object database, and CheckPatchApplies.
#include "seragen/repo/repository.h"

#include <catch2/catch.hpp>

#include <filesystem>
#include <optional>
#include <thread>
#include <vector>

#include "repo/abbrev.h"
#include "repo/git_fixture.h"
#include "seragen/base/strings.h"
#include "testing/temp_dir.h"

namespace seragen::repo {
namespace {

using namespace testing;  // git_fixture.h

struct RepoFixture {
  TempDir tmp;
  std::string first;
  std::string second;
  std::string dir;

  RepoFixture() : dir(tmp.Sub("source")) {
    first = testing::MakeRepo(dir, {
                                       {"README.md", "hello\n"},
                                       {"src/app.py", "def main():\n    return 0\n"},
                                       {"src/util/helpers.py", "X = 1\n"},
                                       {"vendor/lib/dep.py", "vendored\n"},
                                       {"gen/parser_gen.py", "generated\n"},
                                       {"assets/logo.png", std::string("\x89PNG\0\0data", 10)},
                                       {"big.txt", std::string(5000, 'b')},
                                       {"empty.py", ""},
                                   });
    MustRun("cd " + Quote(dir) + " && chmod +x src/app.py && ln -s README.md readme-link && " + Git(dir) +
            " tag -a v1.0 -m release && " + Git(dir) + " tag light");
    MustRun("cd " + Quote(dir) + " && echo second >> README.md");
    second = testing::CommitAll(dir, "second");
    MustRun(Git(dir) + " branch feature " + first);
  }

  Repository Open() {
    auto repo = Repository::Open(dir);
    REQUIRE(repo.ok());
    return std::move(repo).value();
  }
};

std::vector<std::string> Paths(const std::vector<TrackedFile>& files) {
  std::vector<std::string> out;
  for (const auto& f : files) out.push_back(f.path);
  return out;
}

TEST_CASE("repository: open a work tree, its .git dir, and reject a non-repository") {
  RepoFixture f;
  auto repo = Repository::Open(f.dir);
  REQUIRE(repo.ok());
  CHECK(repo->git_dir() == f.dir + "/.git");
  CHECK(repo->objects_dir() == f.dir + "/.git/objects");
  CHECK(Repository::Open(f.dir + "/.git").ok());

  auto missing = Repository::Open(f.tmp.Sub("missing"));
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.status().code() == StatusCode::kNotFound);
  // A plain subdirectory of a repository is not a repository (no parent search).
  auto sub = Repository::Open(f.dir + "/src");
  REQUIRE_FALSE(sub.ok());
  CHECK(sub.status().message().find("src") != std::string::npos);
}

TEST_CASE("repository: resolve branches, tags, short ids and expressions") {
  RepoFixture f;
  Repository repo = f.Open();
  CHECK(*repo.ResolveCommit("main") == f.second);
  CHECK(*repo.ResolveCommit("HEAD") == f.second);
  CHECK(*repo.ResolveCommit("HEAD~1") == f.first);
  CHECK(*repo.ResolveCommit("feature") == f.first);
  CHECK(*repo.ResolveCommit("v1.0") == f.first);   // annotated tag, peeled
  CHECK(*repo.ResolveCommit("light") == f.first);  // lightweight tag
  CHECK(*repo.ResolveCommit(f.first.substr(0, 10)) == f.first);
  CHECK(*repo.ResolveCommit(f.first) == f.first);

  auto unknown = repo.ResolveCommit("no-such-branch");
  REQUIRE_FALSE(unknown.ok());
  CHECK(unknown.status().code() == StatusCode::kNotFound);
  CHECK(unknown.status().message().find("no-such-branch") != std::string::npos);
  // Says what is wrong, without libgit2's leftover from its last lookup.
  CHECK(unknown.status().message() ==
        "no such ref or commit 'no-such-branch' in " + f.dir + "/.git (not a branch, tag or commit id there)");
  CHECK_FALSE(repo.ResolveCommit("").ok());
  auto tree = repo.ResolveCommit("HEAD:src");
  REQUIRE_FALSE(tree.ok());
  CHECK(tree.status().message().find("does not name a commit") != std::string::npos);
}

TEST_CASE("repository: an empty repository says it has no commits") {
  TempDir tmp;
  MustRun("git init -q " + Quote(tmp.Sub("empty")));
  auto repo = Repository::Open(tmp.Sub("empty"));
  REQUIRE(repo.ok());
  for (const char* ref : {"HEAD", "main", "master"}) {
    auto head = repo->ResolveCommit(ref);
    REQUIRE_FALSE(head.ok());
    INFO(head.status().ToString());
    CHECK(head.status().code() == StatusCode::kFailedPrecondition);
    CHECK(head.status().message().find("has no commits") != std::string::npos);
    CHECK(head.status().message().find(tmp.Sub("empty")) != std::string::npos);
    CHECK(head.status().message().find("origin/") == std::string::npos);
  }
}

TEST_CASE("repository: list files with size, mode and blob id, filters apply") {
  RepoFixture f;
  Repository repo = f.Open();
  FileFilter all;
  all.max_file_bytes = 0;
  all.skip_binary = false;
  auto files = repo.ListFiles(f.second, all);
  REQUIRE(files.ok());
  CHECK(Paths(*files) == std::vector<std::string>{"README.md", "assets/logo.png", "big.txt", "empty.py",
                                                  "gen/parser_gen.py", "src/app.py", "src/util/helpers.py",
                                                  "vendor/lib/dep.py"});  // no symlink
  const TrackedFile& app = (*files)[5];
  CHECK(app.mode == 0100755);
  CHECK(app.size == 25);
  CHECK(app.blob_id == std::string(TrimRight(MustRun(Git(f.dir) + " rev-parse " + f.second + ":src/app.py"), "\n")));
  CHECK((*files)[0].mode == 0100644);

  FileFilter filtered;
  filtered.max_file_bytes = 4096;
  filtered.exclude_globs = {"vendor/**", "*_gen.py"};
  filtered.include_globs = {"*.py", "*.md", "*.png", "*.txt"};
  auto kept = repo.ListFiles(f.first, filtered);
  REQUIRE(kept.ok());
  CHECK(Paths(*kept) == std::vector<std::string>{"README.md", "empty.py", "src/app.py", "src/util/helpers.py"});

  FileFilter only_src;
  only_src.include_globs = {"src/**"};
  auto src = repo.ListFiles(f.first, only_src);
  REQUIRE(src.ok());
  CHECK(Paths(*src) == std::vector<std::string>{"src/app.py", "src/util/helpers.py"});

  auto bad = repo.ListFiles("HEAD", all);  // must be a resolved id
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.status().code() == StatusCode::kInvalidArgument);
}

TEST_CASE("repository: read files at a commit straight from the object database") {
  RepoFixture f;
  Repository repo = f.Open();
  MustRun("cd " + Quote(f.dir) + " && echo 'uncommitted' > README.md");  // the work tree is not read
  CHECK(*repo.ReadFile(f.first, "README.md") == "hello\n");
  CHECK(*repo.ReadFile(f.second, "README.md") == "hello\nsecond\n");
  CHECK(*repo.ReadFile(f.first, "empty.py") == "");
  CHECK(repo.ReadFile(f.first, "assets/logo.png")->size() == 10);
  auto missing = repo.ReadFile(f.first, "nope.py");
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.status().code() == StatusCode::kNotFound);
  CHECK(missing.status().message().find("nope.py") != std::string::npos);
  auto dir = repo.ReadFile(f.first, "src");
  REQUIRE_FALSE(dir.ok());
  CHECK(dir.status().code() == StatusCode::kInvalidArgument);

  auto files = repo.ListFiles(f.first, FileFilter{});
  REQUIRE(files.ok());
  CHECK(*repo.ReadBlob(files->front().blob_id) == "hello\n");
  CHECK_FALSE(repo.ReadBlob("zz").ok());
}

TEST_CASE("repository: clone a file:// URL into a cache, then reuse it") {
  RepoFixture f;
  std::string cache = f.tmp.Sub("cache");
  std::string url = "file://" + f.dir;
  auto cloned = Repository::OpenOrClone(url, cache);
  REQUIRE(cloned.ok());
  CHECK(cloned->git_dir() == cache + "/" + CacheNameForUrl(url));
  CHECK(*cloned->ResolveCommit("main") == f.second);
  CHECK(*cloned->ResolveCommit("feature") == f.first);  // via origin/feature
  CHECK(*cloned->ResolveCommit("v1.0") == f.first);
  CHECK(*cloned->ReadFile(f.first, "src/app.py") == "def main():\n    return 0\n");

  // Second call opens the cache without cloning again.
  MustRun("touch " + Quote(cloned->git_dir() + "/marker"));
  auto again = Repository::OpenOrClone(url, cache);
  REQUIRE(again.ok());
  CHECK(std::filesystem::exists(again->git_dir() + "/marker"));
  // No temporary directories are left behind.
  std::size_t entries = 0;
  for (const auto& entry : std::filesystem::directory_iterator(cache)) {
    (void)entry;
    ++entries;
  }
  CHECK(entries == 1);

  // A local path is opened in place.
  auto local = Repository::OpenOrClone(f.dir, cache);
  REQUIRE(local.ok());
  CHECK(local->git_dir() == f.dir + "/.git");
}

TEST_CASE("repository: concurrent clones of one URL agree on one cache entry") {
  RepoFixture f;
  std::string cache = f.tmp.Sub("cache");
  std::string url = "file://" + f.dir;
  std::vector<std::thread> threads;
  std::vector<int> ok(3, 0);
  for (int i = 0; i < 3; ++i) {
    threads.emplace_back([&, i] {
      auto repo = Repository::OpenOrClone(url, cache);
      ok[i] = repo.ok() && repo->ResolveCommit("main").value_or("") == f.second;
    });
  }
  for (auto& t : threads) t.join();
  CHECK(ok == std::vector<int>{1, 1, 1});
  std::size_t entries = 0;
  for (const auto& entry : std::filesystem::directory_iterator(cache)) {
    (void)entry;
    ++entries;
  }
  CHECK(entries == 1);
}

TEST_CASE("repository: clone failures are clear and leave nothing behind") {
  TempDir tmp;
  auto bad = Repository::OpenOrClone("file://" + tmp.Sub("does-not-exist"), tmp.Sub("cache"));
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.status().message().find("cannot clone") != std::string::npos);
  CHECK(std::filesystem::is_empty(tmp.Sub("cache")));
  CHECK_FALSE(Repository::OpenOrClone("", tmp.Sub("cache")).ok());
  auto no_cache = Repository::OpenOrClone("https://example.invalid/x.git", "");
  REQUIRE_FALSE(no_cache.ok());
  CHECK(no_cache.status().code() == StatusCode::kInvalidArgument);
}

TEST_CASE("repository: URL detection and cache names") {
  CHECK(LooksLikeUrl("https://github.com/pylint-dev/pylint"));
  CHECK(LooksLikeUrl("file:///srv/repo"));
  CHECK(LooksLikeUrl("git@github.com:org/repo.git"));
  CHECK_FALSE(LooksLikeUrl("/srv/repo"));
  CHECK_FALSE(LooksLikeUrl("relative/dir"));
  CHECK_FALSE(LooksLikeUrl("./a:b@c"));
  std::string name = CacheNameForUrl("https://github.com/pylint-dev/pylint.git");
  CHECK(name.rfind("pylint-", 0) == 0);
  CHECK(name.size() == std::string("pylint-").size() + 12 + 4);
  CHECK(name != CacheNameForUrl("https://gitlab.com/pylint-dev/pylint.git"));
  CHECK(CacheNameForUrl("https://x/../..").find('/') == std::string::npos);
}

TEST_CASE("repository: CheckPatchApplies accepts good patches and explains bad ones") {
  RepoFixture f;
  Repository repo = f.Open();
  const std::string good =
      "diff --git a/README.md b/README.md\nindex ce01362..0cc6c3e 100644\n--- a/README.md\n+++ b/README.md\n"
      "@@ -1 +1,2 @@\n hello\n+world\n";
  CHECK(repo.CheckPatchApplies(f.first, good).ok());
  // The same patch does not apply where README.md already changed that way.
  Status conflict = repo.CheckPatchApplies(
      f.first, "diff --git a/README.md b/README.md\n--- a/README.md\n+++ b/README.md\n@@ -1 +1 @@\n-goodbye\n+hello\n");
  REQUIRE_FALSE(conflict.ok());
  CHECK(conflict.code() == StatusCode::kFailedPrecondition);
  CHECK(conflict.message().find("does not apply") != std::string::npos);

  const char* refused[] = {
      // A file that does not exist.
      "diff --git a/nope.txt b/nope.txt\n--- a/nope.txt\n+++ b/nope.txt\n@@ -1 +1 @@\n-a\n+b\n",
      // A new file where one exists.
      "diff --git a/README.md b/README.md\nnew file mode 100644\n--- /dev/null\n+++ "
      "b/README.md\n@@ -0,0 +1 @@\n+again\n",
      // A binary-change marker without the binary patch.
      "diff --git a/assets/logo.png b/assets/logo.png\nindex 1111111..2222222 100644\n"
      "Binary files a/assets/logo.png and b/assets/logo.png differ\n",
  };
  for (const char* patch : refused) CHECK_FALSE(repo.CheckPatchApplies(f.first, patch).ok());

  Status empty = repo.CheckPatchApplies(f.first, "");
  CHECK(empty.code() == StatusCode::kInvalidArgument);
  Status prose = repo.CheckPatchApplies(f.first, "this is not a patch\n");
  CHECK(prose.code() == StatusCode::kInvalidArgument);
  Status garbage_hunk = repo.CheckPatchApplies(f.first, "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\nzz\n");
  CHECK_FALSE(garbage_hunk.ok());
  CHECK_FALSE(repo.CheckPatchApplies("not-a-commit", good).ok());
}

// Found by the patch_check fuzz target: a "diff --git" line with a 3-byte
// name part ("e 2") made the name-quoting step read past the line
// (std::out_of_range escaped CheckPatchApplies and terminated the process).
TEST_CASE("repository: CheckPatchApplies survives short diff --git name parts") {
  RepoFixture f;
  Repository repo = f.Open();
  for (std::string names : {"e 2", "a b", "x", "", "ab c", "a/ b/"}) {
    INFO(names);
    Status s = repo.CheckPatchApplies(f.first, "diff --git " + names + "\n+line two\n line 3\n");
    CHECK_FALSE(s.ok());
  }
}

TEST_CASE("repository: git's default abbreviation length") {
  CHECK(DefaultAbbrevLength(0) == 7);
  CHECK(DefaultAbbrevLength(1000) == 7);
  CHECK(DefaultAbbrevLength(1 << 16) == 9);        // 17 bits -> 9 hex digits
  CHECK(DefaultAbbrevLength((1 << 16) - 1) == 8);  // 16 bits -> 8
  CHECK(DefaultAbbrevLength(186000) == 9);         // pylint-sized
  CHECK(DefaultAbbrevLength(4000000) == 11);

  RepoFixture f;
  MustRun(Git(f.dir) + " gc -q");
  std::uint64_t packed = ApproximatePackedObjectCount(f.dir + "/.git/objects");
  std::string counted = MustRun(Git(f.dir) + " count-objects -v | sed -n 's/^in-pack: //p'");
  CHECK(std::to_string(packed) + "\n" == counted);
}

}  // namespace
}  // namespace seragen::repo
