// Host-side git never takes anything from the copy's own .git: configuration
// (core.worktree, excludes, attributes files), info/, hooks, or a .git that
// is a symlink or a file. Diff and restore act on the work tree only; host
// files outside the copy are never shown, deleted or written; the next lease
// is exact.
#include <catch2/catch.hpp>

#include <filesystem>
#include <functional>
#include <optional>
#include <string>

#include "repo/git_fixture.h"
#include "seragen/repo/diff.h"
#include "seragen/repo/repository.h"
#include "seragen/repo/working_copy_pool.h"
#include "testing/temp_dir.h"

namespace seragen::repo {
namespace {

using namespace testing;  // git_fixture.h

constexpr const char* kSecret = "TOP-SECRET-HOST-CONTENT";

struct Fixture {
  TempDir tmp;
  std::string base;
  std::string outside = tmp.Sub("host");  // stands for any host directory
  std::optional<Repository> repo;
  std::optional<WorkingCopyPool> pool;

  Fixture() {
    base = testing::MakeRepo(
        tmp.Sub("source"),
        {{"a.txt", "alpha\n"}, {"dir/b.txt", "beta\n"}, {"+early.txt", "early\n"}, {".gitignore", "*.o\n"}});
    tmp.Write("host/secret.txt", std::string(kSecret) + "\n");
    tmp.Write("host/a.txt", "host copy of a\n");
    tmp.Write("host/sub/deep.txt", std::string(kSecret) + " deep\n");
    MustRun("chmod 600 " + Quote(outside + "/secret.txt"));
    repo.emplace(Must(Repository::Open(tmp.Sub("source"))));
    pool.emplace(Must(WorkingCopyPool::Create(*repo, base, WorkingCopyPoolOptions{tmp.Sub("pool"), 1})));
  }

  std::string HostListing() const {
    return MustRun("cd " + Quote(outside) + " && find . | sort && find . -type f | sort | xargs md5sum");
  }

  WorkingCopyLease Acquire() { return Must(pool->Acquire()); }

  // After a hostile lease: the host directory is untouched, the next lease is
  // pristine and its patch shows exactly the next agent's change.
  void ExpectNextLeaseExact(const std::string& host_before) {
    CHECK(HostListing() == host_before);
    WorkingCopyLease next = Acquire();
    CHECK(PorcelainStatus(next.path()).empty());
    CHECK(MustRun(Git(next.path()) + " rev-parse HEAD") == base + "\n");
    CHECK(MustRun("cat " + Quote(next.path() + "/a.txt")) == "alpha\n");
    MustRun("cd " + Quote(next.path()) + " && echo next >> dir/b.txt");
    auto diff = DiffAgainstBase(next.paths(), base);
    REQUIRE(diff.ok());
    CHECK(diff->find("+next\n") != std::string::npos);
    CHECK(diff->find("a.txt") == std::string::npos);
    CHECK(HostListing() == host_before);
  }
};

void ExpectOnlyTheAgentsChange(const Result<std::string>& diff) {
  REQUIRE(diff.ok());
  CHECK(diff->find(kSecret) == std::string::npos);
  CHECK(diff->find("secret.txt") == std::string::npos);
  CHECK(diff->find("+changed\n") != std::string::npos);
  CHECK(diff->find("diff --git a/new.py b/new.py") != std::string::npos);
}

// The shape of most of these tests: in a fresh lease, runs the shell command
// `command_for(copy path)` from the copy's directory, checks the diff against
// the base with `check_diff` (when given) and releases the lease (REQUIRED to
// succeed); then the host listing is still `host_before` and the next lease
// exact.
void ExpectContained(Fixture& f, const std::string& host_before,
                     const std::function<std::string(const std::string&)>& command_for,
                     const std::function<void(const Result<std::string>&)>& check_diff = nullptr) {
  {
    WorkingCopyLease lease = f.Acquire();
    MustRun("cd " + Quote(lease.path()) + " && " + command_for(lease.path()));
    if (check_diff) check_diff(DiffAgainstBase(lease.paths(), f.base));
    REQUIRE(lease.Release().ok());
  }
  f.ExpectNextLeaseExact(host_before);
}

TEST_CASE("isolation: core.worktree set with git config inside the copy is ignored by host-side git") {
  Fixture f;
  ExpectContained(
      f, f.HostListing(),
      [&](const std::string& copy) {
        return "echo changed >> a.txt && echo 'x = 1' > new.py && " + Git(copy) + " config core.worktree " +
               Quote(f.outside);
      },
      ExpectOnlyTheAgentsChange);
}

TEST_CASE("isolation: a .git/config edited as a file (worktree, excludes, attributes) is ignored") {
  Fixture f;
  f.tmp.Write("host/excludes", "*.py\n");
  f.tmp.Write("host/attributes", "* -diff\n");
  ExpectContained(
      f, f.HostListing(),
      [&](const std::string&) {
        return "echo changed >> a.txt && echo 'x = 1' > new.py && printf '[core]\\n\\tworktree = " + f.outside +
               "\\n\\tbare = false\\n\\texcludesFile = " + f.outside + "/excludes\\n\\tattributesFile = " + f.outside +
               "/attributes\\n' >> .git/config";
      },
      [](const Result<std::string>& diff) {
        ExpectOnlyTheAgentsChange(diff);
        CHECK(diff->find("Binary files") == std::string::npos);
      });
}

TEST_CASE("isolation: hooks, info/exclude and info/attributes planted in the copy's .git have no effect") {
  Fixture f;
  std::string before = f.HostListing();
  std::string marker = f.tmp.Sub("hook-ran");
  std::string copy;
  {
    WorkingCopyLease lease = f.Acquire();
    copy = lease.path();
    MustRun("cd " + Quote(lease.path()) +
            " && mkdir -p .git/info .git/hooks && printf '*.py\\n' > .git/info/exclude && " +
            "printf '* text eol=crlf -diff\\n' > .git/info/attributes && for h in post-checkout pre-commit " +
            "post-index-change reference-transaction; do printf '#!/bin/sh\\ntouch " + marker +
            "\\n' > .git/hooks/$h && chmod +x .git/hooks/$h; done && echo changed >> a.txt && echo 'x = 1' > new.py");
    auto diff = DiffAgainstBase(lease.paths(), f.base);
    ExpectOnlyTheAgentsChange(diff);
    CHECK(diff->find("Binary files") == std::string::npos);
    REQUIRE(lease.Release().ok());
  }
  // Restored with the base's rules: LF, byte for byte.
  CHECK(MustRun("od -c " + Quote(copy + "/a.txt")) == MustRun("printf 'alpha\\n' | od -c"));
  CHECK_FALSE(std::filesystem::exists(marker));
  f.ExpectNextLeaseExact(before);
}

TEST_CASE("isolation: an edited and staged .gitattributes in the work tree does not steer the restore") {
  Fixture f;
  std::string before = f.HostListing();
  std::string copy;
  {
    WorkingCopyLease lease = f.Acquire();
    copy = lease.path();
    MustRun("cd " + Quote(copy) +
            " && printf '* text eol=crlf\\n' > .gitattributes && mkdir -p dir && "
            "printf '* text eol=crlf\\n' > dir/.gitattributes && echo changed >> a.txt && echo changed >> dir/b.txt && "
            "echo changed >> +early.txt && " +
            Git(copy) + " add -A");
    REQUIRE(lease.Release().ok());
  }
  // "+early.txt" sorts before ".gitattributes": checked out in one pass, it
  // would be written while the agent's rules are still on disk.
  for (const char* name : {"/a.txt", "/dir/b.txt", "/+early.txt"}) {
    CHECK(MustRun("od -c " + Quote(copy + name)).find("\\r") == std::string::npos);
  }
  CHECK(MustRun("cat " + Quote(copy + "/+early.txt")) == "early\n");
  CHECK_FALSE(std::filesystem::exists(copy + "/.gitattributes"));
  f.ExpectNextLeaseExact(before);
}

TEST_CASE("isolation: a .git symlinked to a host repository or replaced by a gitdir file is never used") {
  Fixture f;
  // A host repository the agent points at: its files and refs must stay put.
  std::string host_repo = f.tmp.Sub("host/repo");
  testing::MakeRepo(host_repo, {{"secret.txt", std::string(kSecret) + "\n"}});
  std::string before = f.HostListing();
  const std::string hostile_commands[] = {"rm -rf .git && ln -s " + Quote(host_repo + "/.git") + " .git",
                                          "rm -rf .git && echo 'gitdir: " + host_repo + "/.git' > .git",
                                          "rm -rf .git && ln -s " + Quote(f.outside) + " .git"};
  for (int i = 0; i < 3; ++i) {
    const std::string& hostile = hostile_commands[i];
    // Section names must not contain the per-run temporary path.
    DYNAMIC_SECTION("variant " << i) {
      {
        WorkingCopyLease lease = f.Acquire();
        MustRun("cd " + Quote(lease.path()) + " && echo changed >> a.txt && echo 'x = 1' > new.py && " + hostile);
        ExpectOnlyTheAgentsChange(DiffAgainstBase(lease.paths(), f.base));
        REQUIRE(lease.Release().ok());
      }
      CHECK(f.HostListing() == before);
      f.ExpectNextLeaseExact(before);
    }
  }
}

TEST_CASE("isolation: an embedded repository is read as files, never followed to a host repository") {
  Fixture f;
  std::string host_repo = f.tmp.Sub("host/repo");
  std::string host_head = testing::MakeRepo(host_repo, {{"secret.txt", std::string(kSecret) + "\n"}});
  ExpectContained(
      f, f.HostListing(),
      [&](const std::string& copy) {
        return "echo changed >> a.txt && echo 'x = 1' > new.py && mkdir viafile && echo 'gitdir: " + host_repo +
               "/.git' > viafile/.git && echo v > viafile/f && " + Git(copy) + " init -q viacommon && echo " +
               Quote(host_repo + "/.git") +
               " > viacommon/.git/commondir && printf '[include]\\n\\tpath = " + f.outside +
               "/secret.txt\\n' >> viacommon/.git/config";
      },
      [&](const Result<std::string>& diff) {
        ExpectOnlyTheAgentsChange(diff);
        CHECK(diff->find(host_head) == std::string::npos);
        CHECK(diff->find("Subproject commit") == std::string::npos);
      });
}

TEST_CASE("isolation: FIFOs in place of tracked and new files neither block nor break diff and restore") {
  Fixture f;
  ExpectContained(
      f, f.HostListing(),
      [](const std::string&) {
        return "echo changed >> a.txt && echo 'x = 1' > new.py && rm dir/b.txt && mkfifo dir/b.txt new_fifo && "
               "mkdir -p deep && mkfifo deep/f";
      },
      ExpectOnlyTheAgentsChange);
}

TEST_CASE("isolation: a directory tree deeper than PATH_MAX is cleaned up by the release") {
  Fixture f;
  std::string before = f.HostListing();
  {
    WorkingCopyLease lease = f.Acquire();
    // Built with relative mkdir/chdir: the full path is far beyond PATH_MAX.
    MustRun("cd " + Quote(lease.path()) +
            " && echo changed >> a.txt && python3 -c \"import os\n"
            "for _ in range(2500): os.mkdir('dd'); os.chdir('dd')\n"
            "open('leaf', 'w').write('x')\nos.symlink('" +
            f.outside + "', 'out')\"");
    (void)DiffAgainstBase(lease.paths(), f.base);  // may fail on the path length; must not act outside
    CHECK(lease.Release().ok());
  }
  f.ExpectNextLeaseExact(before);
}

TEST_CASE("isolation: symlinks planted inside the copy's .git are never written through") {
  Fixture f;
  ExpectContained(f, f.HostListing(), [&](const std::string&) {
    return "rm -f .git/index && ln -s " + Quote(f.outside + "/a.txt") + " .git/index && rm -rf .git/objects && ln -s " +
           Quote(f.outside) + " .git/objects && echo changed >> a.txt";
  });
}

}  // namespace
}  // namespace seragen::repo
