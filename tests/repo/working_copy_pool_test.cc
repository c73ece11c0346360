// WorkingCopyPool: acquire hands out exact base copies, release restores them
// in place, abandoned copies are restored, concurrent use is safe, and code in
// a copy cannot make a restore write outside it.
#include "seragen/repo/working_copy_pool.h"

#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <thread>
#include <vector>

#include "repo/git_fixture.h"
#include "seragen/repo/diff.h"
#include "seragen/repo/repository.h"
#include "testing/temp_dir.h"

namespace seragen::repo {
namespace {

using namespace testing;  // git_fixture.h

struct PoolFixture {
  TempDir tmp;
  std::string base;
  std::optional<Repository> repo;

  explicit PoolFixture(const std::string& attributes = "") {
    base = testing::MakeRepo(tmp.Sub("source"),
                             {{"a.txt", "alpha\n"},
                              {"dir/b.txt", "beta\n"},
                              {"dir/sub/c.txt", "gamma\n"},
                              {"run.sh", "#!/bin/sh\n"},
                              {"link", ""},
                              {".gitignore", "build/\n*.o\n"}},
                             attributes);
    MustRun("cd " + Quote(tmp.Sub("source")) + " && rm link && ln -s a.txt link");
    base = testing::CommitAll(tmp.Sub("source"), "tracked symlink");
    repo.emplace(Must(Repository::Open(tmp.Sub("source"))));
  }

  WorkingCopyPool MakePool(std::size_t capacity, bool verify = true) {
    WorkingCopyPoolOptions options;
    options.pool_dir = tmp.Sub("pool");
    options.capacity = capacity;
    options.verify_after_restore = verify;
    return Must(WorkingCopyPool::Create(*repo, base, options));
  }
};

std::string Head(const std::string& dir) { return MustRun(Git(dir) + " rev-parse HEAD"); }

// A marker inside the copy's authoritative git directory (beside the work
// tree, out of the agent's reach) tells a copy restored in place from one
// rebuilt from scratch (a rebuild would hide a restore that does not work).
void MarkCopy(const std::string& copy) { MustRun("touch " + Quote(copy + ".git/seragen-test-marker")); }
bool RestoredInPlace(const std::string& copy) { return std::filesystem::exists(copy + ".git/seragen-test-marker"); }

void ExpectPristine(const std::string& copy, const std::string& base) {
  CHECK(PorcelainStatus(copy).empty());
  CHECK(Head(copy) == base + "\n");
}

void ExpectRestoredInPlace(const std::string& copy, const std::string& base) {
  ExpectPristine(copy, base);
  CHECK(RestoredInPlace(copy));
}

// Acquires a copy, marks it, runs the shell command `command_for(copy path)`
// in it and releases it (REQUIRED to succeed); returns the copy's path.
std::string ChangeAndRelease(WorkingCopyPool& pool, const std::function<std::string(const std::string&)>& command_for) {
  WorkingCopyLease lease = Must(pool.Acquire());
  const std::string path = lease.path();
  MarkCopy(path);
  MustRun(command_for(path));
  REQUIRE(lease.Release().ok());
  return path;
}

TEST_CASE("pool: acquire gives a clean copy at the base commit") {
  PoolFixture f;
  WorkingCopyPool pool = f.MakePool(2);
  auto lease = pool.Acquire();
  REQUIRE(lease.ok());
  CHECK(lease->base_commit() == f.base);
  CHECK(std::filesystem::exists(lease->path() + "/dir/sub/c.txt"));
  CHECK(std::filesystem::is_symlink(lease->path() + "/link"));
  ExpectPristine(lease->path(), f.base);
  // Objects are shared through alternates, not copied.
  CHECK(MustRun("cat " + Quote(lease->path() + "/.git/objects/info/alternates")) == pool.objects_dir() + "\n");
  CHECK(MustRun("find " + Quote(lease->path() + "/.git/objects") + " -type f -name '*.pack'").empty());
}

TEST_CASE("pool: release restores every kind of change in place") {
  PoolFixture f("* text=auto\n");
  WorkingCopyPool pool = f.MakePool(1);
  const std::string path = ChangeAndRelease(pool, [&](const std::string& copy) {
    return "cd " + Quote(copy) +
           " && echo changed >> a.txt && rm dir/b.txt && mkdir -p new/deep && echo n > new/deep/n.py && "
           ": > empty.txt && : > dir/sub/c.txt && chmod +x a.txt && mkdir -p build && echo o > build/x.o && "
           "echo o > top.o && printf 'x\\r\\n' > crlf.txt && rm link && echo notalink > link && " +
           Git(copy) + " checkout -q -b agent-branch && " + Git(copy) + " add -A && " + Git(copy) + " commit -qm agent";
  });
  ExpectRestoredInPlace(path, f.base);
  auto again = pool.Acquire();
  REQUIRE(again.ok());
  CHECK(again->path() == path);  // the same copy, reused
  auto diff = DiffAgainstBase(again->paths(), f.base);
  REQUIRE(diff.ok());
  CHECK(diff->empty());
}

TEST_CASE("pool: a copy dirtied by a killed process is restored on next acquire") {
  PoolFixture f;
  std::string pool_dir = f.tmp.Sub("pool");
  std::string copy_path;
  {
    WorkingCopyPool pool = f.MakePool(1);
    auto lease = pool.Acquire();
    REQUIRE(lease.ok());
    copy_path = lease->path();
  }  // released cleanly: now dirty it from a child that dies holding the lease
  pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    WorkingCopyPool pool = f.MakePool(1);
    auto lease = pool.Acquire();
    if (!lease.ok()) ::_exit(3);
    MarkCopy(lease->path());
    std::system(("cd " + Quote(lease->path()) +
                 " && echo dirty >> a.txt && echo u > untracked.txt && "
                 "mkdir -p build && echo o > build/x.o")
                    .c_str());
    ::_exit(0);  // no destructors: the lease is never released
  }
  int status = 0;
  ::waitpid(child, &status, 0);
  REQUIRE(WIFEXITED(status));
  REQUIRE(WEXITSTATUS(status) == 0);
  CHECK_FALSE(PorcelainStatus(copy_path).empty());  // really left dirty

  WorkingCopyPool pool = f.MakePool(1);
  auto lease = pool.Acquire();
  REQUIRE(lease.ok());
  CHECK(lease->path() == copy_path);
  ExpectPristine(lease->path(), f.base);
  CHECK(RestoredInPlace(copy_path));
}

TEST_CASE("pool: capacity is enforced and a waiting acquire gets the released copy") {
  PoolFixture f;
  WorkingCopyPool pool = f.MakePool(1);
  auto first = pool.Acquire();
  REQUIRE(first.ok());
  auto second = pool.Acquire();
  REQUIRE_FALSE(second.ok());
  CHECK(second.status().code() == StatusCode::kResourceExhausted);
  std::thread releaser([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    CHECK(first->Release().ok());
  });
  auto waited = pool.Acquire(std::chrono::seconds(30));
  releaser.join();
  REQUIRE(waited.ok());
  CHECK(waited->path() == first->path());
  CHECK(first->Release().ok());  // second release is a no-op
}

TEST_CASE("pool: two pools on one directory never share a copy") {
  PoolFixture f;
  WorkingCopyPool a = f.MakePool(2);
  WorkingCopyPool b = f.MakePool(2);
  auto la = a.Acquire();
  auto lb = b.Acquire();
  REQUIRE(la.ok());
  REQUIRE(lb.ok());
  CHECK(la->path() != lb->path());
  auto none = a.Acquire();
  CHECK_FALSE(none.ok());
}

TEST_CASE("pool: concurrent acquire and release from several threads") {
  PoolFixture f;
  WorkingCopyPool pool = f.MakePool(3);
  std::atomic<int> failures{0};
  std::atomic<int> in_use_overlaps{0};
  std::mutex mu;
  std::set<std::string> busy;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 5; ++i) {
        auto lease = pool.Acquire(std::chrono::seconds(60));
        if (!lease.ok()) {
          ++failures;
          continue;
        }
        {
          std::lock_guard<std::mutex> lock(mu);
          if (!busy.insert(lease->path()).second) ++in_use_overlaps;
        }
        std::string file = lease->path() + "/t" + std::to_string(t) + ".txt";
        if (std::filesystem::exists(lease->path() + "/t0.txt") || std::filesystem::exists(lease->path() + "/t1.txt") ||
            std::filesystem::exists(lease->path() + "/t2.txt") || std::filesystem::exists(lease->path() + "/t3.txt")) {
          ++failures;  // a leftover from an earlier lease
        }
        std::FILE* out = std::fopen(file.c_str(), "w");
        if (out) std::fclose(out);
        auto diff = DiffAgainstBase(lease->paths(), f.base);
        if (!diff.ok() || diff->find("t" + std::to_string(t) + ".txt") == std::string::npos) ++failures;
        {
          std::lock_guard<std::mutex> lock(mu);
          busy.erase(lease->path());
        }
        if (!lease->Release().ok()) ++failures;
      }
    });
  }
  for (auto& thread : threads) thread.join();
  CHECK(failures == 0);
  CHECK(in_use_overlaps == 0);
  for (int i = 0; i < 3; ++i) {
    std::string copy = pool.directory() + "/copy-" + std::to_string(i);
    if (std::filesystem::exists(copy)) CHECK(PorcelainStatus(copy).empty());
  }
}

TEST_CASE("pool: restoring never writes through symlinks made inside the copy") {
  PoolFixture f;
  std::string outside = f.tmp.Sub("outside");
  MustRun("mkdir -p " + Quote(outside + "/sub") + " && echo precious > " + Quote(outside + "/file.txt") +
          " && echo keep > " + Quote(outside + "/sub/c.txt"));
  std::string before = MustRun("cd " + Quote(outside) + " && find . -type f | sort | xargs md5sum");
  WorkingCopyPool pool = f.MakePool(1);
  const std::string path = ChangeAndRelease(pool, [&](const std::string& copy) {
    return "cd " + Quote(copy) + " && rm a.txt && ln -s " + Quote(outside + "/file.txt") + " a.txt && " +
           "rm -r dir && ln -s " + Quote(outside) + " dir && ln -s " + Quote(outside) + " untracked_link && " +
           "ln -s " + Quote(outside) + " build && rm link && ln -s " + Quote(outside + "/file.txt") + " link";
  });
  CHECK(MustRun("cd " + Quote(outside) + " && find . -type f | sort | xargs md5sum") == before);
  ExpectRestoredInPlace(path, f.base);
  CHECK(std::filesystem::is_directory(std::filesystem::symlink_status(path + "/dir")));
}

TEST_CASE("pool: symlinked metadata in the copy's .git is never written through, the copy is restored in place") {
  PoolFixture f;
  std::string outside = f.tmp.Sub("outside");
  MustRun("mkdir -p " + Quote(outside + "/info") + " && echo precious > " + Quote(outside + "/HEAD"));
  std::string before = MustRun("cd " + Quote(outside) + " && find . | sort && cat HEAD");
  WorkingCopyPool pool = f.MakePool(1);
  for (const char* hostile :
       {"rm -rf .git/logs && ln -s OUT .git/logs", "rm -rf .git/objects/info && ln -s OUT/info .git/objects/info",
        "rm .git/HEAD && ln -s OUT/HEAD .git/HEAD"}) {
    std::string command = hostile;
    command.replace(command.find("OUT"), 3, outside);
    if (command.find("OUT") != std::string::npos) command.replace(command.find("OUT"), 3, outside);
    auto lease = pool.Acquire();
    REQUIRE(lease.ok());
    std::string path = lease->path();
    MarkCopy(path);
    MustRun("cd " + Quote(path) + " && " + command + " && echo x >> a.txt");
    CHECK(lease->Release().ok());
    CHECK(MustRun("cd " + Quote(outside) + " && find . | sort && cat HEAD") == before);
    CHECK(RestoredInPlace(path));
    auto again = pool.Acquire();
    REQUIRE(again.ok());
    ExpectPristine(again->path(), f.base);
  }
}

TEST_CASE("pool: nested repositories, unwritable directories and a deleted .git are repaired") {
  PoolFixture f;
  WorkingCopyPool pool = f.MakePool(1);
  const std::string path = ChangeAndRelease(pool, [&](const std::string& copy) {
    return "cd " + Quote(copy) +
           " && git init -q nested && mkdir -p locked/inner && echo x > locked/inner/f && chmod 000 locked/inner && "
           "chmod 500 locked";
  });
  ExpectRestoredInPlace(path, f.base);
  {
    auto lease = pool.Acquire();
    REQUIRE(lease.ok());
    MustRun("rm -rf " + Quote(lease->path() + "/.git") + " && echo x >> " + Quote(lease->path() + "/a.txt"));
    CHECK(lease->Release().ok());  // the agent's .git is recreated, the copy restored in place
  }
  ExpectRestoredInPlace(path, f.base);
  {
    auto lease = pool.Acquire();
    REQUIRE(lease.ok());
    MarkCopy(lease->path());
    MustRun("rm " + Quote(lease->path() + "/.git/objects/info/alternates"));
    CHECK(lease->Release().ok());
  }
  ExpectRestoredInPlace(path, f.base);
}

TEST_CASE("pool: staged, unstaged-from-index and committed changes are undone in place") {
  PoolFixture f;
  WorkingCopyPool pool = f.MakePool(1);
  const std::string path = ChangeAndRelease(pool, [&](const std::string& copy) {
    return Git(copy) + " rm -q --cached dir/b.txt && echo s >> a.txt && " + Git(copy) + " add a.txt && " + Git(copy) +
           " commit -qm inside && echo n > staged_new.txt && " + Git(copy) +
           " add staged_new.txt && rm staged_new.txt && " + Git(copy) + " tag agent-tag";
  });
  ExpectRestoredInPlace(path, f.base);
}

TEST_CASE("pool: AdoptOwnership hands a copy to another uid and keeps the stat cache valid") {
  if (::geteuid() != 0) {
    WARN("not root: cannot chown to another uid, skipped");
    return;
  }
  PoolFixture f;
  WorkingCopyPool pool = f.MakePool(1);
  auto lease = pool.Acquire();
  REQUIRE(lease.ok());
  MustRun("cd " + Quote(lease->path()) + " && echo changed >> a.txt && echo n > new.txt");
  REQUIRE(AdoptOwnership(lease->paths(), 54321, 54322).ok());
  CHECK(MustRun("find " + Quote(lease->path()) + " ! -uid 54321 -o ! -gid 54322").empty());
  // Unchanged tracked files now carry the new owner in the index; the edited one does not.
  std::string debug = MustRun(Git(lease->path()) + " ls-files --debug dir/b.txt a.txt");
  CHECK(debug.find("dir/b.txt\n  ctime") != std::string::npos);
  std::string b_entry = debug.substr(debug.find("dir/b.txt"));
  CHECK(b_entry.find("uid: 54321\tgid: 54322") != std::string::npos);
  auto dirty = DirtyPaths(lease->paths());
  REQUIRE(dirty.ok());
  CHECK(*dirty == std::vector<std::string>{"a.txt", "new.txt"});
  auto diff = DiffAgainstBase(lease->paths(), f.base);
  REQUIRE(diff.ok());
  CHECK(diff->find("+changed") != std::string::npos);
  CHECK(lease->Release().ok());
  ExpectPristine(pool.directory() + "/copy-0", f.base);
}

bool RunningAsRoot() {
  if (::geteuid() == 0) return true;
  WARN("not root: cannot chown to another uid, skipped");
  return false;
}

// Entries of the work tree (its .git left out) not owned by `uid`.
std::string NotOwnedBy(const std::string& copy, unsigned uid) {
  return MustRun("cd " + Quote(copy) + " && find . -path ./.git -prune -o ! -uid " + std::to_string(uid) + " -print");
}

TEST_CASE("pool: a copy back with its owner changes hands only where the restore wrote") {
  if (!RunningAsRoot()) return;
  PoolFixture f;
  WorkingCopyPool pool = f.MakePool(1);
  std::string path;
  {
    WorkingCopyLease lease = Must(pool.Acquire(std::chrono::milliseconds(0), 54321));
    REQUIRE(lease.GiveTo(54321, 54322).ok());
    path = lease.path();
    // The rollout edits and deletes tracked files; run.sh is changed behind the pool's back.
    MustRun("cd " + Quote(path) + " && echo x >> a.txt && rm -r dir && echo n > new.txt && chown 99999 run.sh");
    REQUIRE(lease.Release().ok());
  }
  CHECK(NotOwnedBy(path, 54321) == "./run.sh\n");  // the restored a.txt, dir/ and dir/sub/ are the owner's
  WorkingCopyLease again = Must(pool.Acquire(std::chrono::milliseconds(0), 54321));
  REQUIRE(again.GiveTo(54321, 54322).ok());
  CHECK(NotOwnedBy(again.path(), 54321) == "./run.sh\n");  // no walk: only .git and /tmp changed hands
  CHECK(
      MustRun("find " + Quote(again.path() + "/.git") + " " + Quote(again.paths().tmp_dir) + " ! -uid 54321").empty());
  CHECK(Must(DirtyPaths(again.paths())).empty());
  CHECK(MustRun(Git(again.path()) + " ls-files --debug a.txt").find("uid: 54321\tgid: 54322") != std::string::npos);
}

TEST_CASE("pool: a uid gets back the copy it had and a new uid gets a copy wholly its own") {
  if (!RunningAsRoot()) return;
  PoolFixture f;
  WorkingCopyPool pool = f.MakePool(2);
  std::map<unsigned, std::string> had;
  {
    WorkingCopyLease first = Must(pool.Acquire(std::chrono::milliseconds(0), 54321));
    WorkingCopyLease second = Must(pool.Acquire(std::chrono::milliseconds(0), 54331));
    REQUIRE(first.GiveTo(54321, 54321).ok());
    REQUIRE(second.GiveTo(54331, 54331).ok());
    had = {{54321, first.path()}, {54331, second.path()}};
  }
  for (unsigned uid : {54331u, 54321u}) {
    WorkingCopyLease lease = Must(pool.Acquire(std::chrono::milliseconds(0), uid));
    CHECK(lease.path() == had[uid]);
  }
  WorkingCopyLease other = Must(pool.Acquire(std::chrono::milliseconds(0), 54341));
  REQUIRE(other.GiveTo(54341, 54341).ok());
  CHECK(NotOwnedBy(other.path(), 54341).empty());
  CHECK(MustRun("find " + Quote(other.path()) + " " + Quote(other.paths().tmp_dir) + " ! -uid 54341").empty());
}

TEST_CASE("pool: an owner is not trusted once another process has used the copy") {
  if (!RunningAsRoot()) return;
  PoolFixture f;
  WorkingCopyPool mine = f.MakePool(1);
  WorkingCopyPool theirs = f.MakePool(1);  // the same directory, as another seragen process would use it
  {
    WorkingCopyLease lease = Must(mine.Acquire(std::chrono::milliseconds(0), 54321));
    REQUIRE(lease.GiveTo(54321, 54321).ok());
  }
  {
    WorkingCopyLease lease = Must(theirs.Acquire(std::chrono::milliseconds(0), 54331));
    REQUIRE(lease.GiveTo(54331, 54331).ok());
  }
  WorkingCopyLease lease = Must(mine.Acquire(std::chrono::milliseconds(0), 54321));
  REQUIRE(lease.GiveTo(54321, 54321).ok());
  CHECK(NotOwnedBy(lease.path(), 54321).empty());
}

// Inode of the agent's .git/HEAD in the copy at `path` (a new one: the .git was rebuilt).
ino_t AgentHeadInode(const std::string& path) {
  struct stat st;
  REQUIRE(::lstat((path + "/.git/HEAD").c_str(), &st) == 0);
  return st.st_ino;
}

TEST_CASE("pool: the agent's .git reset when this pool gave the copy back is not rebuilt at acquire") {
  PoolFixture f;
  WorkingCopyPool mine = f.MakePool(1);
  WorkingCopyPool theirs = f.MakePool(1);  // the same directory, as another seragen process would use it
  std::string path;
  {
    WorkingCopyLease lease = Must(mine.Acquire());
    path = lease.path();
    MustRun("cd " + Quote(path) + " && echo 0000 > .git/HEAD && echo x > .git/objects/stray");  // the agent's doing
  }
  const ino_t given_back = AgentHeadInode(path);
  {
    WorkingCopyLease lease = Must(mine.Acquire());
    CHECK(AgentHeadInode(path) == given_back);
    CHECK(MustRun(Git(path) + " rev-parse HEAD") == f.base + "\n");
    CHECK_FALSE(std::filesystem::exists(path + "/.git/objects/stray"));
  }
  const ino_t ours = AgentHeadInode(path);
  WorkingCopyLease lease = Must(theirs.Acquire());  // stamped by another pool: rebuilt
  CHECK(AgentHeadInode(path) != ours);
  CHECK(MustRun(Git(path) + " rev-parse HEAD") == f.base + "\n");
}

TEST_CASE("pool: verify_on_acquire catches edits made to an idle copy") {
  PoolFixture f;
  WorkingCopyPoolOptions options;
  options.pool_dir = f.tmp.Sub("pool");
  options.capacity = 1;
  options.verify_on_acquire = true;
  auto pool = WorkingCopyPool::Create(*f.repo, f.base, options);
  REQUIRE(pool.ok());
  std::string path;
  {
    auto lease = pool->Acquire();
    REQUIRE(lease.ok());
    path = lease->path();
  }
  MustRun("cd " + Quote(path) + " && echo outside >> a.txt && echo u > stray.txt");  // idle, stamped clean
  auto lease = pool->Acquire();
  REQUIRE(lease.ok());
  ExpectPristine(lease->path(), f.base);
}

TEST_CASE("pool: a copy's objects are only what the base commit reaches") {
  PoolFixture f;
  const std::string src = f.tmp.Sub("source");
  std::string first = MustRun(Git(src) + " rev-list --max-parents=0 HEAD");
  first.resize(40);
  // After the base: a later commit on main, a branch and a tag of their own.
  MustRun("cd " + Quote(src) + " && echo later-answer > later.txt");
  const std::string later = testing::CommitAll(src, "later fix");
  MustRun(Git(src) + " checkout -q -b other " + f.base + " && cd " + Quote(src) + " && echo branch > other.txt");
  const std::string other = testing::CommitAll(src, "other branch");
  MustRun(Git(src) + " tag v9 " + other + " && " + Git(src) + " checkout -q main");
  WorkingCopyPool pool = f.MakePool(1);
  auto lease = pool.Acquire();
  REQUIRE(lease.ok());
  const std::string copy = Quote(lease->path());
  auto has = [&](const std::string& oid) {
    return seragen::testing::RunShell(GitCommand() + " -C " + copy + " cat-file -e " + oid + " 2>/dev/null") == 0;
  };
  CHECK(has(f.base));
  CHECK(has(first));  // the base's own history stays
  CHECK_FALSE(has(later));
  CHECK_FALSE(has(other));
  const std::string all = MustRun(GitCommand() + " -C " + copy + " cat-file --batch-all-objects --batch-check");
  CHECK(all.find(later) == std::string::npos);
  CHECK(all.find(other) == std::string::npos);
  CHECK(MustRun(GitCommand() + " -C " + copy + " log --all --format=%s").find("other branch") == std::string::npos);
  CHECK(MustRun(GitCommand() + " -C " + copy + " for-each-ref") == "");
  // The store is built once: a second pool of the same commit reuses it.
  const auto built = std::filesystem::last_write_time(pool.objects_dir() + "/info/seragen-base");
  WorkingCopyPool again = f.MakePool(1);
  CHECK(std::filesystem::last_write_time(again.objects_dir() + "/info/seragen-base") == built);
}

TEST_CASE("pool: copies of a bare clone from the cache work end to end") {
  PoolFixture f;
  auto cloned = Repository::OpenOrClone("file://" + f.tmp.Sub("source"), f.tmp.Sub("cache"));
  REQUIRE(cloned.ok());
  auto pool = WorkingCopyPool::Create(*cloned, "main", WorkingCopyPoolOptions{f.tmp.Sub("pool"), 1});
  REQUIRE(pool.ok());
  CHECK(pool->base_commit() == f.base);
  CHECK(pool->objects_dir() == pool->directory() + "/objects");
  auto lease = pool->Acquire();
  REQUIRE(lease.ok());
  ExpectPristine(lease->path(), f.base);
  MustRun("cd " + Quote(lease->path()) + " && echo more >> dir/b.txt");
  auto diff = DiffAgainstBase(lease->paths(), f.base);
  REQUIRE(diff.ok());
  CHECK(*diff == testing::ReferenceDiff(lease->path(), f.base));
  CHECK(cloned->CheckPatchApplies(f.base, *diff).ok());
}

TEST_CASE("pool: bad options are rejected with clear errors") {
  PoolFixture f;
  auto zero = WorkingCopyPool::Create(*f.repo, f.base, WorkingCopyPoolOptions{f.tmp.Sub("pool"), 0});
  REQUIRE_FALSE(zero.ok());
  CHECK(zero.status().message().find("capacity") != std::string::npos);
  auto no_dir = WorkingCopyPool::Create(*f.repo, f.base, WorkingCopyPoolOptions{"", 1});
  REQUIRE_FALSE(no_dir.ok());
  auto bad_commit = WorkingCopyPool::Create(*f.repo, "no-such-branch", WorkingCopyPoolOptions{f.tmp.Sub("pool"), 1});
  REQUIRE_FALSE(bad_commit.ok());
  CHECK(bad_commit.status().message().find("no-such-branch") != std::string::npos);
}

TEST_CASE("pool: RestoreWorkingCopy and DirtyPaths work on a copy directly") {
  PoolFixture f;
  WorkingCopyPool pool = f.MakePool(1);
  auto lease = pool.Acquire();
  REQUIRE(lease.ok());
  MustRun("cd " + Quote(lease->path()) + " && echo x >> a.txt && mkdir -p build && echo o > build/y.o");
  auto dirty = DirtyPaths(lease->paths());
  REQUIRE(dirty.ok());
  CHECK(*dirty == std::vector<std::string>{"a.txt", "build/y.o"});
  REQUIRE(RestoreWorkingCopy(lease->paths(), f.base).ok());
  dirty = DirtyPaths(lease->paths());
  REQUIRE(dirty.ok());
  CHECK(dirty->empty());
}

}  // namespace
}  // namespace seragen::repo
