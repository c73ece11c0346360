#include <catch2/catch.hpp>

#include "seragen/callgraph/graph_cache.h"
#include "seragen/callgraph/graph_io.h"
#include "seragen/callgraph/source_set.h"
#include "testing/temp_dir.h"

namespace seragen::callgraph {
namespace {

CallGraph Sample() {
  InMemoryFileSource source;
  source.Add("pkg/a.py", "def a():\n    \"\"\"Doc.\"\"\"\n    return b()\n\ndef b():\n    return 1\n");
  source.Add("pkg/q\"uote.py", "def c():\n    pass\n");
  auto graph = BuildGraph(source, {});
  REQUIRE(graph.ok());
  return std::move(graph).value();
}

TEST_CASE("graph JSON round-trips byte for byte", "[graph_io]") {
  CallGraph graph = Sample();
  std::string json = WriteGraphJson(graph);
  auto back = ReadGraphJson(json);
  REQUIRE(back.ok());
  CHECK(WriteGraphJson(*back) == json);
  CHECK(back->nodes[0].has_doc);
  REQUIRE(back->edges.size() == 1);
  CHECK(back->edges[0].resolution == Resolution::kScope);
  CHECK(back->edges[0].line == 3);
}

TEST_CASE("malformed graph JSON is a parse error naming the problem", "[graph_io]") {
  CHECK_FALSE(ReadGraphJson("not json").ok());
  CHECK_THAT(ReadGraphJson("{\"format\":\"other\"}").status().message(), Catch::Contains("format"));
  std::string json = WriteGraphJson(Sample());
  std::string broken = json;
  broken.replace(broken.find("\"callee\":\"pkg/a.py::b\""), 22, "\"callee\":\"pkg/a.py::zz\"");
  CHECK_THAT(ReadGraphJson(broken).status().message(), Catch::Contains("unknown node"));
}

TEST_CASE("a graph node with an impossible path or line range is a parse error, never used", "[graph_io]") {
  CallGraph sample = Sample();
  REQUIRE(ReadGraphJson(WriteGraphJson(sample)).ok());
  auto with = [&](auto change) {
    CallGraph g = sample;
    change(g.nodes[0]);
    return ReadGraphJson(WriteGraphJson(g));
  };
  CHECK_THAT(with([](FunctionNode& n) { n.start_line = 0; }).status().message(), Catch::Contains("impossible"));
  CHECK_FALSE(with([](FunctionNode& n) { n.start_line = 2147483647; }).ok());  // past its end line
  CHECK_FALSE(with([](FunctionNode& n) { n.end_line = n.start_line - 1; }).ok());
  CHECK_FALSE(with([](FunctionNode& n) { n.loc = -1; }).ok());
  CHECK_FALSE(with([](FunctionNode& n) { n.path = "/etc/passwd"; }).ok());
  CHECK_FALSE(with([](FunctionNode& n) { n.path = "pkg/../../x.py"; }).ok());
  CHECK_FALSE(with([](FunctionNode& n) { n.path = ""; }).ok());
  CHECK(with([](FunctionNode& n) { n.path = "pkg/..a/x.py"; }).ok());
}

TEST_CASE("DOT output escapes quotes and labels edges", "[graph_io]") {
  std::string dot = WriteGraphDot(Sample());
  CHECK_THAT(dot, Catch::StartsWith("digraph callgraph {"));
  CHECK_THAT(dot, Catch::Contains("q\\\"uote.py::c"));
  CHECK_THAT(dot, Catch::Contains("[label=\"scope\"]"));
}

TEST_CASE("stats summary names every counter", "[graph_io]") {
  std::string text = FormatGraphStats(Sample().stats);
  CHECK_THAT(text, Catch::Contains("functions: 3") && Catch::Contains("resolved: 1 scope=1") &&
                       Catch::Contains("unresolved: 0"));
}

TEST_CASE("graph cache stores by commit and rebuilds on a corrupt file", "[graph_io]") {
  testing::TempDir run;
  const std::string cache = run.path() + "/graph";
  InMemoryFileSource source;
  source.Add("m.py", "def f():\n    return g()\n\ndef g():\n    pass\n");
  GraphOptions options;
  bool cached = true;
  auto first = BuildGraphCached(source, cache, "org/repo", "abc123", options, &cached);
  REQUIRE(first.ok());
  CHECK_FALSE(cached);
  std::string path = GraphCachePath(cache, "org/repo", "abc123", options);
  CHECK(path.find(cache + "/org_repo-") == 0);
  // Readers that do not know the options find the file by its prefix.
  CHECK(path.find(cache + "/" + GraphCacheFilePrefix("org/repo")) == 0);
  // A cache hit even when the source changed: the commit pins the content.
  source.Add("m.py", "def changed():\n    pass\n");
  auto second = BuildGraphCached(source, cache, "org/repo", "abc123", options, &cached);
  REQUIRE(second.ok());
  CHECK(cached);
  CHECK(WriteGraphJson(*second) == WriteGraphJson(*first));
  // Another commit or other options are other keys.
  CHECK(GraphCacheKey("org/repo", "abc124", options) != GraphCacheKey("org/repo", "abc123", options));
  GraphOptions loose;
  loose.link_ambiguous = true;
  CHECK(GraphCacheKey("org/repo", "abc123", loose) != GraphCacheKey("org/repo", "abc123", options));
  // Corrupt cache file: rebuilt from the source.
  run.Write(path.substr(run.path().size() + 1), "{\"truncated");
  auto third = BuildGraphCached(source, cache, "org/repo", "abc123", options, &cached);
  REQUIRE(third.ok());
  CHECK_FALSE(cached);
  CHECK(third->FindNode("m.py::changed").has_value());
  // No commit: never cached.
  auto unpinned = BuildGraphCached(source, cache, "dir", "", options, &cached);
  REQUIRE(unpinned.ok());
  CHECK_FALSE(cached);
  CHECK_FALSE(LoadCachedGraph(cache, "dir", "", options).has_value());
}

}  // namespace
}  // namespace seragen::callgraph
