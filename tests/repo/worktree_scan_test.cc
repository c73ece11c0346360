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
#include <optional>
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

using seragen::testing::TempDir;
using testing::Git;
using testing::MustRun;
using testing::PorcelainStatus;
using testing::Quote;

// git's patch, without the warnings git prints for a symlinked rules file.
std::string ReferenceDiff(const std::string& copy, const std::string& base) {
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

struct Fixture {
  TempDir tmp;
  std::string base;
  std::string host = tmp.Sub("host");  // stands for any host directory
  std::optional<Repository> repo;
  std::optional<WorkingCopyPool> pool;

  Fixture() {
    base =
        testing::MakeRepo(tmp.Sub("source"), {{"a.txt", "alpha\n"}, {"sub/b.txt", "beta\n"}, {".gitignore", "*.o\n"}});
    auto opened = Repository::Open(tmp.Sub("source"));
    REQUIRE(opened.ok());
    repo.emplace(std::move(opened).value());
    auto created = WorkingCopyPool::Create(*repo, base, WorkingCopyPoolOptions{tmp.Sub("pool"), 1});
    REQUIRE(created.ok());
    pool.emplace(std::move(created).value());
    MustRun("mkdir -p " + Quote(host));
  }

  WorkingCopyLease Acquire() {
    auto lease = pool->Acquire();
    REQUIRE(lease.ok());
    return std::move(lease).value();
  }

  // The next lease is pristine and diffs an edit correctly.
  void ExpectNextLeaseClean() {
    WorkingCopyLease next = Acquire();
    CHECK(PorcelainStatus(next.path()).empty());
    MustRun("cd " + Quote(next.path()) + " && echo next >> sub/b.txt");
    auto diff = DiffAgainstBase(next.paths(), base);
    REQUIRE(diff.ok());
    CHECK(*diff == ReferenceDiff(next.path(), base));
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
    WorkingCopyLease lease = f.Acquire();
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
  MustRun("truncate -s 3G " + Quote(f.host + "/huge"));
  {
    WorkingCopyLease lease = f.Acquire();
    MustRun("cd " + Quote(lease.path()) + " && rm .gitignore && ln -s " + Quote(f.host + "/huge") +
            " .gitignore && ln -s " + Quote(f.host + "/huge") + " sub/.gitattributes && echo changed >> sub/b.txt");
    bool reset = seragen::testing::ResetPeakRss();
    auto diff = DiffAgainstBase(lease.paths(), f.base);
    REQUIRE(diff.ok());
    if (reset) CHECK(seragen::testing::PeakRssGrowthKb() < 64 * 1024);
    CHECK(*diff == ReferenceDiff(lease.path(), f.base));
    REQUIRE(lease.Release().ok());
  }
  f.ExpectNextLeaseClean();
}

TEST_CASE("rules files: a .gitignore or .gitattributes symlinked to a root-only file gives no rules, as in git") {
  Fixture f;
  // Read as rules, these lines would hide secret_x.py and make sub/b.txt binary.
  f.tmp.Write("host/ignore-rules", "secret_*.py\n");
  f.tmp.Write("host/attribute-rules", "*.txt binary\n");
  MustRun("chmod 600 " + Quote(f.host + "/ignore-rules") + " " + Quote(f.host + "/attribute-rules"));
  {
    WorkingCopyLease lease = f.Acquire();
    MustRun("cd " + Quote(lease.path()) + " && mkdir -p deep && ln -s " + Quote(f.host + "/ignore-rules") +
            " deep/.gitignore && echo 'x = 1' > deep/secret_x.py && ln -s " + Quote(f.host + "/attribute-rules") +
            " sub/.gitattributes && echo changed >> sub/b.txt");
    auto diff = DiffAgainstBase(lease.paths(), f.base);
    REQUIRE(diff.ok());
    CHECK(diff->find("diff --git a/deep/secret_x.py b/deep/secret_x.py") != std::string::npos);
    CHECK(diff->find("+changed\n") != std::string::npos);
    CHECK(diff->find("Binary files") == std::string::npos);
    CHECK(*diff == ReferenceDiff(lease.path(), f.base));
    REQUIRE(lease.Release().ok());
  }
  f.ExpectNextLeaseClean();
}

TEST_CASE("rules files: a .gitignore larger than the cap gives no rules") {
  Fixture f;
  {
    WorkingCopyLease lease = f.Acquire();
    MustRun("cd " + Quote(lease.path()) + " && printf 'extra.o\\n' > .gitignore && " +
            "head -c 1100000 /dev/zero | tr '\\0' '#' >> .gitignore && echo obj > extra.o");
    auto diff = DiffAgainstBase(lease.paths(), f.base);
    REQUIRE(diff.ok());
    CHECK(diff->find("diff --git a/extra.o b/extra.o") != std::string::npos);
    REQUIRE(lease.Release().ok());
  }
  f.ExpectNextLeaseClean();
}

TEST_CASE("rules files: regular rules files planted by the agent apply as git applies them") {
  Fixture f;
  WorkingCopyLease lease = f.Acquire();
  MustRun("cd " + Quote(lease.path()) + " && mkdir -p sub/gen deep && printf 'gen/\\n*.py\\n' > sub/.gitignore" +
          " && echo x > sub/gen/out.txt && echo y > sub/new.py && echo z > sub/other.o && echo w > deep/new.py" +
          " && printf '*.txt -text\\n' > sub/.gitattributes && printf 'c\\r\\n' >> sub/b.txt");
  auto diff = DiffAgainstBase(lease.paths(), f.base);
  REQUIRE(diff.ok());
  CHECK(*diff == ReferenceDiff(lease.path(), f.base));
}

TEST_CASE("worktree names libgit2 refuses (GIT~1, .git., '.git ') are left out, the rest is diffed") {
  Fixture f;
  {
    WorkingCopyLease lease = f.Acquire();
    MustRun("cd " + Quote(lease.path()) + " && mkdir -p b/GIT~1 && echo y > b/GIT~1/y.py && echo z > .git. && " +
            "echo w > '.git ' && echo changed >> a.txt && echo 'x = 1' > new.py");
    auto diff = DiffAgainstBase(lease.paths(), f.base);
    INFO(diff.status().ToString());
    REQUIRE(diff.ok());
    CHECK(diff->find("+changed\n") != std::string::npos);
    CHECK(diff->find("diff --git a/new.py b/new.py") != std::string::npos);
    CHECK(diff->find("GIT~1") == std::string::npos);
    CHECK(diff->find("a/.git") == std::string::npos);
    REQUIRE(lease.Release().ok());
  }
  f.ExpectNextLeaseClean();
}

}  // namespace
}  // namespace seragen::repo
