#include "seragen/pipeline/repo_graph.h"

#include <catch2/catch.hpp>

#include <filesystem>

#include "repo/git_fixture.h"
#include "testing/temp_dir.h"

namespace seragen::pipeline {
namespace {

const char* kModule = "def helper(x):\n    return x + 1\n\n\ndef caller(y):\n    return helper(y) * 2\n";

}  // namespace

TEST_CASE("graph request: a plain directory is parsed as it is", "[graph]") {
  seragen::testing::TempDir dir;
  dir.Write("m.py", kModule);
  GraphRequest request;
  request.source = dir.path();
  auto graph = BuildRequestedGraph(request);
  REQUIRE(graph.ok());
  CHECK(graph->nodes.size() == 2);
  CHECK(graph->edges.size() == 1);
  CHECK(RenderGraph(*graph, GraphFormat::kStats).find("functions") != std::string::npos);
  CHECK(RenderGraph(*graph, GraphFormat::kDot).find("digraph") != std::string::npos);
  const std::string json = RenderGraph(*graph, GraphFormat::kJson);
  CHECK(json.find("m.py::caller") != std::string::npos);
  CHECK(json.back() == '\n');
}

TEST_CASE("graph request: a repository is read at the commit, and cached when asked", "[graph]") {
  seragen::testing::TempDir dir;
  const std::string first = repo::testing::MakeRepo(dir.Sub("r"), {{"m.py", kModule}});
  dir.Write("r/m.py", std::string(kModule) + "\n\ndef third():\n    return caller(1)\n");
  repo::testing::CommitAll(dir.Sub("r"), "third");
  GraphRequest request;
  request.source = dir.Sub("r");
  request.commit = first;
  request.cache_dir = dir.Sub("cache");
  auto graph = BuildRequestedGraph(request);
  REQUIRE(graph.ok());
  CHECK(graph->nodes.size() == 2);  // the later commit's third() is not read
  CHECK(std::filesystem::exists(dir.Sub("cache/graph")));
  request.commit = "HEAD";
  auto head = BuildRequestedGraph(request);
  REQUIRE(head.ok());
  CHECK(head->nodes.size() == 3);
}

TEST_CASE("graph request: a wrong source or commit is the request's fault", "[graph]") {
  seragen::testing::TempDir dir;
  auto bad_request = [](const GraphRequest& request) {
    auto graph = BuildRequestedGraph(request);
    return graph.ok() ? Status::Ok() : graph.status();
  };
  GraphRequest request;
  request.source = dir.Sub("missing");
  Status missing = bad_request(request);
  CHECK(missing.code() == StatusCode::kInvalidArgument);
  CHECK(missing.message().find("neither a repository nor a directory") != std::string::npos);
  repo::testing::MakeRepo(dir.Sub("r"), {{"m.py", kModule}});
  request.source = dir.Sub("r");
  request.commit = "no-such-branch";
  request.cache_dir = dir.Sub("cache");
  CHECK(bad_request(request).code() == StatusCode::kInvalidArgument);
}

}  // namespace seragen::pipeline
