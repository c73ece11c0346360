// The diff's own walk of the work tree (worktree_scan.h): rules files the
// agent plants (.gitignore, .gitattributes as FIFOs, as symlinks to large or
// root-only host files, oversized) give no rules and are never opened by
// libgit2, and names libgit2 refuses are left out instead of failing the
// diff (issue 28, findings 3 and 4). Where git has an answer, ours is git's.
#include <fcntl.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include <chrono>
#include <future>
#include <string>
#include <vector>

#include "repo/git_fixture.h"
#include "seragen/repo/diff.h"
#include "seragen/repo/repository.h"
#include "seragen/repo/working_copy_pool.h"
#include "testing/peak_memory.h"
#include "testing/temp_dir.h"

namespace seragen::repo {
namespace {

using testing::Must;
using testing::MustRun;
using testing::Quote;

// git's patch, without the warnings git prints for a symlinked rules file.
std::string GitsPatch(const std::string& copy, const std::string& base) {
  std::string text = testing::ReferenceDiff(copy, base), out;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    end = end == std::string::npos ? text.size() : end + 1;
    if (text.compare(pos, 26, "warning: unable to access ") != 0) out.append(text, pos, end - pos);
    pos = end;
  }
  return out;
}

// A one-copy pool of a three-file repository, and a host directory.
struct Fixture {
  seragen::testing::TempDir tmp;
  std::string host = tmp.Sub("host");  // stands for any host directory
  std::string base =
      testing::MakeRepo(tmp.Sub("source"), {{"a.txt", "alpha\n"}, {"sub/b.txt", "beta\n"}, {".gitignore", "*.o\n"}});
  Repository repo = Must(Repository::Open(tmp.Sub("source")));
  WorkingCopyPool pool = Must(WorkingCopyPool::Create(repo, base, WorkingCopyPoolOptions{tmp.Sub("pool"), 1}));

  Fixture() { MustRun("mkdir -p " + Quote(host)); }

  // Runs shell `commands` in a lease and returns its patch (checked equal to
  // git's with `same_as_git`); then releases it and checks that the next
  // lease is pristine and diffs an edit as git does.
  std::string DiffAfter(const std::string& commands, bool same_as_git) {
    std::string patch;
    {
      WorkingCopyLease lease = Must(pool.Acquire());
      MustRun("cd " + Quote(lease.path()) + " && " + commands);
      patch = Must(DiffAgainstBase(lease.paths(), base));
      if (same_as_git) CHECK(patch == GitsPatch(lease.path(), base));
      REQUIRE(lease.Release().ok());
    }
    ExpectNextLeaseClean();
    return patch;
  }

  void ExpectNextLeaseClean() {
    WorkingCopyLease next = Must(pool.Acquire());
    CHECK(testing::PorcelainStatus(next.path()).empty());
    MustRun("cd " + Quote(next.path()) + " && echo next >> sub/b.txt");
    CHECK(Must(DiffAgainstBase(next.paths(), base)) == GitsPatch(next.path(), base));
  }
};

// Runs the diff with a watchdog: if it has not returned after 10 s (blocked
// opening a FIFO), every FIFO in `fifos` is opened for writing until it
// returns, so a hang fails the test instead of stalling it.
Result<std::string> DiffWithWatchdog(const WorkingCopyLease& lease, const std::string& base,
                                     const std::vector<std::string>& fifos, bool* hung) {
  auto paths = lease.paths();
  auto future = std::async(std::launch::async, [paths, base] { return DiffAgainstBase(paths, base); });
  *hung = future.wait_for(std::chrono::seconds(10)) != std::future_status::ready;
  while (future.wait_for(std::chrono::milliseconds(50)) != std::future_status::ready) {
    for (const std::string& fifo : fifos) {
      int fd = ::open((lease.path() + "/" + fifo).c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
      if (fd >= 0) ::close(fd);
    }
  }
  return future.get();
}

TEST_CASE("rules files: FIFOs as .gitignore and .gitattributes, at the root and below, neither block nor give rules") {
  Fixture f;
  {
    WorkingCopyLease lease = Must(f.pool.Acquire());
    std::vector<std::string> fifos = {".gitignore", ".gitattributes", "sub/.gitignore", "sub/.gitattributes"};
    MustRun("cd " + Quote(lease.path()) +
            " && rm .gitignore && mkfifo .gitignore .gitattributes sub/.gitignore sub/.gitattributes" +
            " && echo changed >> a.txt && echo 'x = 1' > new.py && echo obj > sub/new.o");
    bool hung = false;
    auto diff = DiffWithWatchdog(lease, f.base, fifos, &hung);
    CHECK_FALSE(hung);
    REQUIRE(diff.ok());
    CHECK(diff->find("+changed\n") != std::string::npos);
    CHECK(diff->find("diff --git a/new.py b/new.py") != std::string::npos);
    // The root .gitignore is a FIFO: it gives no rules, so sub/new.o is new.
    CHECK(diff->find("diff --git a/sub/new.o b/sub/new.o") != std::string::npos);
    REQUIRE(lease.Release().ok());
  }
  f.ExpectNextLeaseClean();
}

TEST_CASE("rules files: a .gitignore and .gitattributes symlinked to a 3 GB host file are never read") {
  Fixture f;
  const std::string huge = Quote(f.host + "/huge");
  MustRun("truncate -s 3G " + huge);
  bool reset = seragen::testing::ResetPeakRss();
  f.DiffAfter("rm .gitignore && ln -s " + huge + " .gitignore && ln -s " + huge +
                  " sub/.gitattributes && echo changed >> sub/b.txt",
              /*same_as_git=*/true);
  if (reset) CHECK(seragen::testing::PeakRssGrowthKb() < 64 * 1024);
}

// Regular rules files the agent writes apply as git applies them.
const std::string kRegularRules =
    " && mkdir -p gen/out && printf 'out/\\n*.py\\n' > gen/.gitignore && echo x > gen/out/o.txt && echo y > gen/n.py" +
    std::string(
        " && echo z > gen/kept.txt && printf '*.txt -text\\n' > gen/.gitattributes && printf 'c\\r\\n' > gen/crlf.txt");

TEST_CASE("rules files: a .gitignore or .gitattributes symlinked to a root-only file gives no rules, as in git") {
  Fixture f;
  // Read as rules, these lines would hide deep/secret_x.py and make sub/b.txt binary.
  f.tmp.Write("host/ignore-rules", "secret_*.py\n");
  f.tmp.Write("host/attribute-rules", "*.txt binary\n");
  MustRun("chmod 600 " + Quote(f.host + "/ignore-rules") + " " + Quote(f.host + "/attribute-rules"));
  std::string patch = f.DiffAfter("mkdir -p deep && ln -s " + Quote(f.host + "/ignore-rules") +
                                      " deep/.gitignore && echo 'x = 1' > deep/secret_x.py && ln -s " +
                                      Quote(f.host + "/attribute-rules") +
                                      " sub/.gitattributes && echo changed >> sub/b.txt" + kRegularRules,
                                  /*same_as_git=*/true);
  CHECK(patch.find("diff --git a/deep/secret_x.py b/deep/secret_x.py") != std::string::npos);
  CHECK(patch.find("+changed\n") != std::string::npos);
  CHECK(patch.find("Binary files") == std::string::npos);
  CHECK(patch.find("gen/kept.txt") != std::string::npos);
  CHECK(patch.find("gen/n.py") == std::string::npos);
}

TEST_CASE("rules files: a .gitignore larger than the cap gives no rules") {
  Fixture f;
  std::string patch = f.DiffAfter(
      "printf 'extra.o\\n' > .gitignore && head -c 1100000 /dev/zero | tr '\\0' '#' >> .gitignore && echo o > extra.o",
      /*same_as_git=*/false);
  CHECK(patch.find("diff --git a/extra.o b/extra.o") != std::string::npos);
}

TEST_CASE("worktree names libgit2 refuses (GIT~1, .git., '.git ') are left out, the rest is diffed") {
  Fixture f;
  std::string patch = f.DiffAfter("mkdir -p b/GIT~1 && echo y > b/GIT~1/y.py && echo z > .git. && echo w > '.git '" +
                                      std::string(" && echo changed >> a.txt && echo 'x = 1' > new.py"),
                                  /*same_as_git=*/false);
  CHECK(patch.find("+changed\n") != std::string::npos);
  CHECK(patch.find("diff --git a/new.py b/new.py") != std::string::npos);
  CHECK(patch.find("GIT~1") == std::string::npos);
  CHECK(patch.find("a/.git") == std::string::npos);
}

}  // namespace
}  // namespace seragen::repo
