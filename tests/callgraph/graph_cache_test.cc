// The graph cache shared by runs: a second run of a commit parses nothing, a
// damaged entry is rebuilt (never trusted), and the directory stays bounded.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include <filesystem>

#include "seragen/base/file_util.h"
#include "seragen/callgraph/graph_cache.h"
#include "seragen/callgraph/graph_io.h"
#include "seragen/callgraph/source_set.h"
#include "testing/temp_dir.h"

namespace seragen::callgraph {
namespace {

void AddSample(InMemoryFileSource& source) {
  source.Add("m.py", "def f():\n    return g()\n\ndef g():\n    pass\n");
  source.Add("n.py", "from m import f\n\ndef h():\n    return f()\n");
}

struct SharedFixture {
  testing::TempDir tmp;
  GraphCacheScope scope{tmp.Sub("shared"), kDefaultSharedGraphCacheBytes, "skip:vendor/**\n"};
  GraphOptions options;
  InMemoryFileSource source;
  SharedFixture() { AddSample(source); }
  std::string SharedPath() const {
    return GraphCachePath(scope.shared_dir, "org/repo", "abc123", options, "skip:vendor/**\n");
  }
  // A build in a new run directory, as a new run of the same commit does it.
  Result<CallGraph> BuildInNewRun(const std::string& run, bool* from_cache) const {
    return BuildGraphCached(source, tmp.Sub(run + "/graph"), "org/repo", "abc123", options, from_cache, scope);
  }
};

TEST_CASE("graph cache: a new run of a commit takes the shared graph and parses nothing", "[graph_cache]") {
  SharedFixture f;
  bool cached = true;
  Result<CallGraph> first = f.BuildInNewRun("run1", &cached);
  REQUIRE(first.ok());
  CHECK_FALSE(cached);
  // The commit pins the content: a source that would parse differently proves nothing was parsed.
  f.source.Add("m.py", "def changed():\n    pass\n");
  Result<CallGraph> second = f.BuildInNewRun("run2", &cached);
  REQUIRE(second.ok());
  CHECK(cached);
  CHECK(WriteGraphJson(*second) == WriteGraphJson(*first));
  // The run's own directory holds it too (the report reads it there).
  CHECK(LoadCachedGraph(f.tmp.Sub("run2/graph"), "org/repo", "abc123", f.options, f.scope.source_key).has_value());
  // Other skip globs chose other files: another key.
  CHECK(GraphCacheKey("org/repo", "abc123", f.options, "skip:docs/**\n") !=
        GraphCacheKey("org/repo", "abc123", f.options, f.scope.source_key));
  CHECK(GraphCacheKey("org/repo", "abc123", f.options, "") == GraphCacheKey("org/repo", "abc123", f.options));
}

TEST_CASE("graph cache: a truncated, corrupt or too deep shared entry is rebuilt, never trusted", "[graph_cache]") {
  SharedFixture f;
  bool cached = false;
  const std::string good = WriteGraphJson(*f.BuildInNewRun("first", &cached));
  std::vector<std::string> damaged = {"", std::string(100000, '['), good + good,
                                      std::string(good).replace(good.find("\"edges\""), 7, "\"edgez\"")};
  for (std::size_t cut = 1; cut + 1 < good.size(); cut += good.size() / 40 + 1) damaged.push_back(good.substr(0, cut));
  int run = 0;
  for (const std::string& text : damaged) {
    INFO("entry of " << text.size() << " bytes");
    REQUIRE(WriteFileAtomic(f.SharedPath(), text).ok());
    Result<CallGraph> graph = f.BuildInNewRun("run" + std::to_string(++run), &cached);
    REQUIRE(graph.ok());
    CHECK_FALSE(cached);
    CHECK(WriteGraphJson(*graph) == good);
    CHECK(*ReadFile(f.SharedPath()) == good);  // rebuilt and stored again
  }
}

TEST_CASE("graph cache: the shared directory is pruned to its bound, least recently used first", "[graph_cache]") {
  testing::TempDir tmp;
  for (const char* name : {"old.json", "middle.json", "new.json"})
    tmp.Write(std::string("shared/") + name, std::string(1000, 'x'));
  tmp.Write("shared/notes.txt", std::string(5000, 'x'));
  auto age = [&](const char* name, time_t seconds) {
    struct timespec times[2] = {{seconds, 0}, {seconds, 0}};
    REQUIRE(::utimensat(AT_FDCWD, tmp.Sub(std::string("shared/") + name).c_str(), times, 0) == 0);
  };
  age("old.json", 1000);
  age("middle.json", 2000);
  age("new.json", 3000);
  REQUIRE(PruneGraphCache(tmp.Sub("shared"), 2500).ok());
  CHECK_FALSE(std::filesystem::exists(tmp.Sub("shared/old.json")));
  CHECK(std::filesystem::exists(tmp.Sub("shared/middle.json")));
  CHECK(std::filesystem::exists(tmp.Sub("shared/new.json")));
  CHECK(std::filesystem::exists(tmp.Sub("shared/notes.txt")));  // not a graph file
  REQUIRE(PruneGraphCache(tmp.Sub("shared"), 1000).ok());
  CHECK_FALSE(std::filesystem::exists(tmp.Sub("shared/middle.json")));
  CHECK(std::filesystem::exists(tmp.Sub("shared/new.json")));
}

TEST_CASE("graph cache: temporary files a killed writer left are removed once an hour old", "[graph_cache]") {
  SharedFixture f;
  REQUIRE(MakeDirs(f.scope.shared_dir).ok());
  const std::string old_tmp = f.SharedPath() + ".tmp.123.456", new_tmp = f.SharedPath() + ".tmp.123.789";
  REQUIRE(WriteFileAtomic(old_tmp, std::string(1000, 'x')).ok());
  REQUIRE(WriteFileAtomic(new_tmp, std::string(1000, 'x')).ok());
  struct timespec two_hours_ago[2] = {{::time(nullptr) - 7200, 0}, {::time(nullptr) - 7200, 0}};
  REQUIRE(::utimensat(AT_FDCWD, old_tmp.c_str(), two_hours_ago, 0) == 0);
  REQUIRE(PruneGraphCache(f.scope.shared_dir, kDefaultSharedGraphCacheBytes).ok());
  CHECK_FALSE(std::filesystem::exists(old_tmp));
  CHECK(std::filesystem::exists(new_tmp));  // perhaps a writer still at work
}

TEST_CASE("graph cache: a graph a parse timeout cut short is never shared, nor taken from the shared directory",
          "[graph_cache]") {
  SharedFixture f;
  std::string big;
  for (int i = 0; i < 20000; ++i) big += "def f" + std::to_string(i) + "(x):\n    return g(x) + h(x)\n";
  f.source.Add("big.py", big);
  f.options.parse_timeout = std::chrono::milliseconds(0);
  bool cached = true;
  Result<CallGraph> cut = f.BuildInNewRun("run1", &cached);
  REQUIRE(cut.ok());
  REQUIRE(cut->stats.files_skipped.count("parse_timeout") == 1);  // big.py; the small files parse in time
  CHECK_FALSE(std::filesystem::exists(f.SharedPath()));
  // One planted there (or stored by an older build) is not taken either.
  REQUIRE(MakeDirs(f.scope.shared_dir).ok());
  REQUIRE(WriteFileAtomic(f.SharedPath(), WriteGraphJson(*cut)).ok());
  Result<CallGraph> again = f.BuildInNewRun("run2", &cached);
  REQUIRE(again.ok());
  CHECK_FALSE(cached);
}

TEST_CASE(
    "graph cache: a shared directory that is a link, or another user's, is not used, and ours is closed to others",
    "[graph_cache]") {
  SharedFixture f;
  bool cached = true;
  SECTION("a link to a directory") {
    REQUIRE(MakeDirs(f.tmp.Sub("elsewhere")).ok());
    std::filesystem::create_symlink(f.tmp.Sub("elsewhere"), f.scope.shared_dir);
    REQUIRE(f.BuildInNewRun("run1", &cached).ok());
    CHECK(std::filesystem::is_empty(f.tmp.Sub("elsewhere")));
  }
  SECTION("another user's directory") {
    REQUIRE(MakeDirs(f.scope.shared_dir).ok());
    REQUIRE(::chown(f.scope.shared_dir.c_str(), ::geteuid() + 1, ::getegid()) == 0);
    REQUIRE(f.BuildInNewRun("run1", &cached).ok());
    CHECK(std::filesystem::is_empty(f.scope.shared_dir));
    REQUIRE(f.BuildInNewRun("run2", &cached).ok());
    CHECK_FALSE(cached);
  }
  SECTION("ours, open to others") {
    REQUIRE(MakeDirs(f.scope.shared_dir).ok());
    REQUIRE(::chmod(f.scope.shared_dir.c_str(), 0777) == 0);
    REQUIRE(f.BuildInNewRun("run1", &cached).ok());
    struct stat st {};
    REQUIRE(::stat(f.scope.shared_dir.c_str(), &st) == 0);
    CHECK((st.st_mode & 0777) == 0700);
    CHECK(std::filesystem::exists(f.SharedPath()));
  }
}

}  // namespace
}  // namespace seragen::callgraph
