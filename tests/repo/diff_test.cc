// DiffAgainstBase compared byte for byte with the git CLI
// (`git add -A && git diff --cached --no-renames BASE` in a throwaway index),
// for every kind of change, with no attributes, `* text=auto` and `* eol=lf`.
#include "seragen/repo/diff.h"

#include <catch2/catch.hpp>

#include <fcntl.h>
#include <unistd.h>
#include <filesystem>

#include <fstream>
#include <map>
#include <optional>
#include <string>

#include "repo/git_fixture.h"
#include "seragen/repo/repository.h"
#include "seragen/repo/working_copy_pool.h"
#include "testing/peak_memory.h"
#include "testing/temp_dir.h"

namespace seragen::repo {
namespace {

using namespace testing;  // git_fixture.h

const char* const kAttributeModes[] = {"", "* text=auto\n", "* eol=lf\n"};

std::map<std::string, std::string> BaseFiles() {
  std::string numbered;
  for (int i = 1; i <= 12; ++i) numbered += "line " + std::to_string(i) + "\n";
  return {
      {"mod.txt", numbered},
      {"append.txt", "a\nb\nc\n"},
      {"del.txt", "gone\n"},
      {"del_empty.txt", ""},
      {"trunc.txt", "some\ncontent\n"},
      {"noeol.txt", "x\ny"},
      {"script.sh", "#!/bin/sh\necho hi\n"},
      {"crlf.txt", "one\r\ntwo\r\nthree\r\n"},
      {"bin.dat", std::string("A\0B\0C\n", 6)},
      {".gitignore", "build/\n*.pyc\n"},
      {"src/deep/keep.py", "def f():\n    return 1\n"},
      {"tracked_ignored.pyc", "tracked although ignored\n"},
  };
}

struct Fixture {
  TempDir tmp;
  std::string base;
  std::optional<Repository> repo;
  std::optional<WorkingCopyPool> pool;

  explicit Fixture(const std::string& attributes) {
    base = testing::MakeRepo(tmp.Sub("source"), BaseFiles(), attributes);
    repo.emplace(Must(Repository::Open(tmp.Sub("source"))));
    pool.emplace(Must(WorkingCopyPool::Create(*repo, base, WorkingCopyPoolOptions{tmp.Sub("pool"), 2})));
  }

  WorkingCopyLease Acquire() { return Must(pool->Acquire()); }
};

// Applies `commands` (shell, run in the copy) under every attribute mode and
// compares our diff with git's. For text patches, also checks that the patch
// applies with CheckPatchApplies and with `git apply --check` on a fresh copy.
void ExpectSameAsGit(const std::string& commands, bool applicable = true) {
  for (const char* attributes : kAttributeModes) {
    DYNAMIC_SECTION("attributes '" << attributes << "'") {
      Fixture f(attributes);
      WorkingCopyLease lease = f.Acquire();
      MustRun("cd " + Quote(lease.path()) + " && " + commands);
      auto ours = DiffAgainstBase(lease.paths(), f.base);
      REQUIRE(ours.ok());
      std::string theirs = ReferenceDiff(lease.path(), f.base);
      REQUIRE_FALSE(theirs.empty());
      CHECK(*ours == theirs);
      if (!applicable) continue;
      Status check = f.repo->CheckPatchApplies(f.base, *ours);
      INFO(check.ToString());
      CHECK(check.ok());
      WorkingCopyLease fresh = f.Acquire();
      std::ofstream(f.tmp.Sub("ours.patch"), std::ios::binary) << *ours;
      MustRun(Git(fresh.path()) + " apply --check " + Quote(f.tmp.Sub("ours.patch")));
    }
  }
}

TEST_CASE("diff: modified lines match git") {
  ExpectSameAsGit("sed -i 's/line 5/LINE FIVE/; s/line 11/eleven/' mod.txt");
}

TEST_CASE("diff: appended lines match git") { ExpectSameAsGit("printf 'd\\ne\\n' >> append.txt"); }

TEST_CASE("diff: new nested files match git") {
  ExpectSameAsGit("mkdir -p pkg/sub && printf 'def g():\\n    pass\\n' > pkg/sub/mod.py && echo x > pkg/top.txt");
}

TEST_CASE("diff: deleted files match git") { ExpectSameAsGit("rm del.txt src/deep/keep.py"); }

TEST_CASE("diff: deleted empty file matches git") { ExpectSameAsGit("rm del_empty.txt"); }

TEST_CASE("diff: empty new file matches git") { ExpectSameAsGit("mkdir -p pkg && : > pkg/__init__.py"); }

TEST_CASE("diff: file truncated to empty matches git") { ExpectSameAsGit(": > trunc.txt"); }

TEST_CASE("diff: missing trailing newline matches git") {
  ExpectSameAsGit("printf 'x\\nz' > noeol.txt && printf 'tail' > new_noeol.txt && printf 'a\\nb' >> append.txt");
}

TEST_CASE("diff: binary files match git's marker") {
  ExpectSameAsGit("printf 'A\\000B\\000D' > bin.dat && printf '\\000\\001\\002' > new.bin",
                  /*applicable=*/false);
}

TEST_CASE("diff: mode change matches git") { ExpectSameAsGit("chmod +x script.sh"); }

TEST_CASE("diff: mode change with content change matches git") {
  ExpectSameAsGit("chmod +x script.sh && echo more >> script.sh");
}

TEST_CASE("diff: CRLF files match git") {
  ExpectSameAsGit("printf 'one\\r\\nTWO\\r\\nthree\\r\\n' > crlf.txt && printf 'a\\r\\nb\\r\\n' > new_crlf.txt");
}

TEST_CASE("diff: ignored files are left out, tracked ignored files are not") {
  ExpectSameAsGit(
      "mkdir -p build src/deep && echo x > build/out.o && echo y > src/deep/c.pyc && "
      "echo changed >> tracked_ignored.pyc");
}

TEST_CASE("diff: symlinks and type changes match git") {
  ExpectSameAsGit("ln -s mod.txt link && rm noeol.txt && ln -s append.txt noeol.txt");
}

TEST_CASE("diff: directory replaced by a file matches git") {
  ExpectSameAsGit("rm -r src/deep && echo flat > src/deep");
}

TEST_CASE("diff: file replaced by a directory matches git") {
  ExpectSameAsGit("rm append.txt && mkdir append.txt && echo inner > append.txt/inner.txt");
}

TEST_CASE("diff: an embedded repository is staged as a gitlink like git does") {
  ExpectSameAsGit("mkdir sub && cd sub && " + testing::GitCommand() + " init -q && echo x > f && " +
                      testing::GitCommand() + " add f && " + testing::GitCommand() + " commit -qm sub",
                  /*applicable=*/false);
}

TEST_CASE("diff: embedded repositories with packed refs or a detached HEAD match git") {
  std::string git = testing::GitCommand();
  ExpectSameAsGit("mkdir sub && cd sub && " + git + " init -q && echo x > f && " + git + " add f && " + git +
                      " commit -qm sub && " + git + " pack-refs --all && cd .. && mkdir det && cd det && " + git +
                      " init -q && echo y > g && " + git + " add g && " + git + " commit -qm det && " + git +
                      " checkout -q --detach",
                  /*applicable=*/false);
}

TEST_CASE("diff: unusual file names match git") {
  ExpectSameAsGit(
      "echo s > 'with space.txt' && mkdir -p d\xc3\xb6r && echo u > d\xc3\xb6r/\xc3\xbc.txt && "
      "echo t > 'tab\there.txt'");
}

TEST_CASE("diff: every kind of change at once matches git") {
  ExpectSameAsGit(
      "sed -i 's/line 5/LINE FIVE/' mod.txt && printf 'd\\n' >> append.txt && rm del.txt del_empty.txt && "
      "mkdir -p pkg/sub build && : > pkg/__init__.py && echo 'x = 1' > pkg/sub/m.py && : > trunc.txt && "
      "printf 'x\\nz' > noeol.txt && chmod +x script.sh && printf 'one\\r\\n2\\r\\n' > crlf.txt && "
      "echo o > build/out.o && printf '\\000' > new.bin",
      /*applicable=*/false);
}

TEST_CASE("diff: CRLF committed before text=auto was added (git's safe-crlf rule) matches git") {
  TempDir tmp;
  std::string source = tmp.Sub("source");
  testing::MakeRepo(source, {{"old_crlf.txt", "one\r\ntwo\r\n"}, {"lf.txt", "a\nb\n"}});
  MustRun("cd " + Quote(source) + " && printf '* text=auto\\n' > .gitattributes");
  std::string base = testing::CommitAll(source, "attributes added later");
  auto repo = Repository::Open(source);
  REQUIRE(repo.ok());
  auto pool = WorkingCopyPool::Create(*repo, base, WorkingCopyPoolOptions{tmp.Sub("pool"), 1});
  REQUIRE(pool.ok());
  auto lease = pool->Acquire();
  REQUIRE(lease.ok());
  MustRun("cd " + Quote(lease->path()) +
          " && printf 'one\\r\\nTWO\\r\\n' > old_crlf.txt && printf 'a\\r\\nb\\r\\nc\\r\\n' > lf.txt");
  auto ours = DiffAgainstBase(lease->paths(), base);
  REQUIRE(ours.ok());
  CHECK(*ours == ReferenceDiff(lease->path(), base));
  CHECK(ours->find("+TWO\r\n") != std::string::npos);  // CRs kept: the index blob had them
}

TEST_CASE("diff: unchanged copy gives an empty patch") {
  Fixture f("* text=auto\n");
  WorkingCopyLease lease = f.Acquire();
  auto diff = DiffAgainstBase(lease.paths(), f.base);
  REQUIRE(diff.ok());
  CHECK(diff->empty());
  // Content restored to the original after an edit is no change either.
  MustRun("cd " + Quote(lease.path()) + " && echo extra >> mod.txt && sed -i '$d' mod.txt");
  diff = DiffAgainstBase(lease.paths(), f.base);
  REQUIRE(diff.ok());
  CHECK(*diff == "");
}

TEST_CASE("diff: staged and committed changes inside the copy still diff against the base") {
  Fixture f("");
  WorkingCopyLease lease = f.Acquire();
  MustRun(Git(lease.path()) + " rm -q --cached del.txt && echo staged >> mod.txt && " + Git(lease.path()) +
          " add mod.txt && echo unstaged >> mod.txt && " + Git(lease.path()) + " commit -qam inside");
  auto ours = DiffAgainstBase(lease.paths(), f.base);
  REQUIRE(ours.ok());
  CHECK(*ours == ReferenceDiff(lease.path(), f.base));
  CHECK(ours->find("+staged\n+unstaged\n") != std::string::npos);
}

TEST_CASE("diff: the copy's index and objects are not modified") {
  Fixture f("* text=auto\n");
  WorkingCopyLease lease = f.Acquire();
  MustRun("cd " + Quote(lease.path()) + " && echo new > new.txt && : > empty.txt && echo m >> mod.txt");
  std::string index_path = lease.path() + "/.git/index";
  std::ifstream in(index_path, std::ios::binary);
  std::string before((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto ours = DiffAgainstBase(lease.paths(), f.base);
  REQUIRE(ours.ok());
  std::ifstream again(index_path, std::ios::binary);
  std::string after((std::istreambuf_iterator<char>(again)), std::istreambuf_iterator<char>());
  CHECK(before == after);
  std::string loose =
      MustRun("find " + Quote(lease.path() + "/.git/objects") + " -type f -path '*/objects/[0-9a-f][0-9a-f]/*'");
  CHECK(loose.empty());
}

TEST_CASE("diff: full ids and binary patches apply and reproduce the change") {
  Fixture f("* text=auto\n");
  WorkingCopyLease lease = f.Acquire();
  MustRun(
      "cd " + Quote(lease.path()) +
      " && printf 'A\\000B\\000D' > bin.dat && printf '\\000\\001\\002' > new.bin && echo z >> mod.txt && : > e.txt");
  auto full = DiffAgainstBase(lease.paths(), f.base, DiffOptions{40, false});
  REQUIRE(full.ok());
  CHECK(*full == ReferenceDiff(lease.path(), f.base, "--full-index"));
  auto binary = DiffAgainstBase(lease.paths(), f.base, DiffOptions{0, true});
  REQUIRE(binary.ok());
  CHECK(binary->find("GIT binary patch") != std::string::npos);
  CHECK(f.repo->CheckPatchApplies(f.base, *binary).ok());
  WorkingCopyLease fresh = f.Acquire();
  std::ofstream(f.tmp.Sub("bin.patch"), std::ios::binary) << *binary;
  MustRun(Git(fresh.path()) + " apply " + Quote(f.tmp.Sub("bin.patch")));
  auto replayed = DiffAgainstBase(fresh.paths(), f.base);
  auto original = DiffAgainstBase(lease.paths(), f.base);
  REQUIRE(replayed.ok());
  REQUIRE(original.ok());
  CHECK(*replayed == *original);
}

// Creates a sparse file of `size` bytes (instant, no disk use).
void MakeSparse(const std::string& path, off_t size) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  REQUIRE(fd >= 0);
  REQUIRE(::ftruncate(fd, size) == 0);
  ::close(fd);
}

DiffOptions Limit(std::size_t max_bytes) {
  DiffOptions o;
  o.max_bytes = max_bytes;
  return o;
}

TEST_CASE("diff budget: two 100 MB new files fail early without being read") {
  Fixture f("* text=auto\n");
  WorkingCopyLease lease = f.Acquire();
  MakeSparse(lease.path() + "/big1.txt", 100 << 20);
  MakeSparse(lease.path() + "/big2.txt", 100 << 20);
  bool measured = seragen::testing::ResetPeakRss();
  auto diff = DiffAgainstBase(lease.paths(), f.base, Limit(1 << 20));
  REQUIRE_FALSE(diff.ok());
  CHECK(diff.status().code() == StatusCode::kResourceExhausted);
  CHECK(diff.status().message() == "patch exceeds 1048576 bytes");
  // Reading either file would have cost 100 MB (the old code read both).
  if (measured) CHECK(seragen::testing::PeakRssGrowthKb() < 16 * 1024);
}

TEST_CASE("diff budget: a patch of exactly the budget fits, one byte more does not") {
  Fixture f("");
  WorkingCopyLease lease = f.Acquire();
  std::string text(3000, 'x');
  text += "\n";
  std::ofstream(lease.path() + "/new.txt", std::ios::binary) << text;
  auto whole = DiffAgainstBase(lease.paths(), f.base);
  REQUIRE(whole.ok());
  // Exactly the patch's size fits; one byte less does not.
  auto fits = DiffAgainstBase(lease.paths(), f.base, Limit(whole->size()));
  REQUIRE(fits.ok());
  CHECK(*fits == *whole);
  auto over = DiffAgainstBase(lease.paths(), f.base, Limit(whole->size() - 1));
  REQUIRE_FALSE(over.ok());
  CHECK(over.status().code() == StatusCode::kResourceExhausted);
}

TEST_CASE("diff budget: a small edit to a tracked file larger than the budget fits") {
  TempDir tmp;
  std::string big;
  for (int i = 0; i < 100000; ++i) big += "line " + std::to_string(i) + "\n";  // ~1.1 MB
  std::string base = testing::MakeRepo(tmp.Sub("source"), {{"big.txt", big}, {"small.txt", "a\n"}});
  auto repo = Repository::Open(tmp.Sub("source"));
  REQUIRE(repo.ok());
  auto pool = WorkingCopyPool::Create(*repo, base, WorkingCopyPoolOptions{tmp.Sub("pool"), 1});
  REQUIRE(pool.ok());
  auto lease = pool->Acquire();
  REQUIRE(lease.ok());
  MustRun("cd " + Quote(lease->path()) + " && sed -i 's/^line 50000$/LINE 50000/' big.txt");
  auto edited = DiffAgainstBase(lease->paths(), base, Limit(64 << 10));
  REQUIRE(edited.ok());
  CHECK(*edited == ReferenceDiff(lease->path(), base));

  // Deleting it makes a patch as large as the file: refused while printing.
  MustRun("cd " + Quote(lease->path()) + " && rm big.txt");
  auto deleted = DiffAgainstBase(lease->paths(), base, Limit(64 << 10));
  REQUIRE_FALSE(deleted.ok());
  CHECK(deleted.status().code() == StatusCode::kResourceExhausted);
  CHECK(DiffAgainstBase(lease->paths(), base).ok());  // no limit: still computed
}

TEST_CASE("diff budget: many small new files are charged for their headers") {
  Fixture f("");
  WorkingCopyLease lease = f.Acquire();
  MustRun("cd " + Quote(lease.path()) + " && mkdir many && for i in $(seq 1 200); do : > many/empty_file_$i; done");
  auto diff = DiffAgainstBase(lease.paths(), f.base, Limit(4096));
  REQUIRE_FALSE(diff.ok());
  CHECK(diff.status().code() == StatusCode::kResourceExhausted);
}

TEST_CASE("diff: errors name the problem") {
  TempDir tmp;
  auto missing = DiffAgainstBase(CopyPaths{tmp.Sub("nope"), tmp.Sub("nope.git")}, std::string(40, 'a'));
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.status().message().find("nope") != std::string::npos);

  Fixture f("");
  WorkingCopyLease lease = f.Acquire();
  auto bad_commit = DiffAgainstBase(lease.paths(), "not-a-commit");
  REQUIRE_FALSE(bad_commit.ok());
  CHECK(bad_commit.status().code() == StatusCode::kInvalidArgument);
  auto unknown = DiffAgainstBase(lease.paths(), std::string(40, 'b'));
  REQUIRE_FALSE(unknown.ok());
  CHECK(unknown.status().message().find(std::string(40, 'b')) != std::string::npos);
}

}  // namespace
}  // namespace seragen::repo
