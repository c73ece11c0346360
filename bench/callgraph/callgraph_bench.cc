// Call-graph benchmark and inspection tool.
//
//   bench_callgraph                      generate a >=30 MB Python tree in memory, build its graph,
//                                        print lines/s, files/s, functions, edges, peak RSS
//   bench_callgraph --dir DIR [...]      build the graph of each directory and print its figures
//   bench_callgraph --dump DIR           print every node and edge of DIR's graph
//   bench_callgraph --mb N [DIR]         generate N MB instead of 32 (written to DIR if given)
//   bench_callgraph --cache DIR [MB]     the generated tree's graph built in a new run directory with DIR
//                                        as the shared graph cache, then again in another (as a second run
//                                        of the commit would): wall and CPU of each; DIR is emptied first
//   --threads N (first argument)         parse with N threads (default 2)
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "bench_util.h"
#include "callgraph/python_tree_generator.h"
#include "seragen/callgraph/graph.h"
#include "seragen/callgraph/graph_cache.h"
#include "seragen/callgraph/graph_io.h"
#include "seragen/callgraph/source_set.h"

using namespace seragen::callgraph;

namespace {

int Measure(const std::string& name, const FileSource& source, unsigned threads) {
  GraphOptions options;
  options.threads = threads;
  auto start = std::chrono::steady_clock::now();
  double cpu_start = seragen::bench::ReadUsage().cpu_seconds;
  BuildTimings timings;
  auto graph = BuildGraph(source, options, &timings);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  double cpu = seragen::bench::ReadUsage().cpu_seconds - cpu_start;
  if (!graph.ok()) {
    std::fprintf(stderr, "%s: %s\n", name.c_str(), graph.status().ToString().c_str());
    return 1;
  }
  const GraphStats& s = graph->stats;
  std::printf(
      "%s: %.3f s wall, %llu files (%.0f files/s), %llu lines (%.0f lines/s), %.1f MB, "
      "%llu functions, %llu call sites, %llu edges, %llu ambiguous, %llu unresolved, "
      "peak RSS %ld MB, threads %u\n",
      name.c_str(), seconds, static_cast<unsigned long long>(s.files_parsed), s.files_parsed / seconds,
      static_cast<unsigned long long>(s.lines_parsed), s.lines_parsed / seconds, s.bytes_parsed / 1e6,
      static_cast<unsigned long long>(s.functions), static_cast<unsigned long long>(s.call_sites),
      static_cast<unsigned long long>(s.edges), static_cast<unsigned long long>(s.ambiguous),
      static_cast<unsigned long long>(s.unresolved), seragen::bench::ReadUsage().peak_rss_kib / 1024, threads);
  std::printf(
      "%s: phases list %.3f s, extract %.3f s, resolve %.3f s; CPU %.2f s "
      "(= %.2f s wall on %u otherwise idle cores)\n",
      name.c_str(), timings.list_seconds, timings.extract_seconds, timings.resolve_seconds, cpu, cpu / threads,
      threads);
  std::printf("%s", FormatGraphStats(s).c_str());
  return 0;
}

// A first and a second run's graph of the same commit through the shared cache in `dir`.
int MeasureCache(const std::string& dir, std::size_t target_bytes, unsigned threads) {
  std::filesystem::remove_all(dir);
  InMemoryFileSource source;
  GeneratePythonTree(target_bytes, /*seed=*/7, &source);
  GraphOptions options;
  options.threads = threads;
  GraphCacheScope scope;
  scope.shared_dir = dir + "/shared";
  std::string first_json;
  for (const char* run : {"first run", "second run"}) {
    auto start = std::chrono::steady_clock::now();
    double cpu_start = seragen::bench::ReadUsage().cpu_seconds;
    bool cached = false;
    auto graph =
        BuildGraphCached(source, dir + "/" + run + "/graph", "generated", "0123456789abcdef", options, &cached, scope);
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    double cpu = seragen::bench::ReadUsage().cpu_seconds - cpu_start;
    if (!graph.ok()) {
      std::fprintf(stderr, "%s\n", graph.status().ToString().c_str());
      return 1;
    }
    std::string json = WriteGraphJson(*graph);
    if (first_json.empty()) first_json = json;
    std::printf("%s: %.3f s wall, %.2f s CPU, %s; %zu files, %zu functions, %zu edges, graph file %.1f MB%s\n", run,
                seconds, cpu, cached ? "from the shared cache" : "parsed", source.size(), graph->nodes.size(),
                graph->edges.size(), json.size() / 1e6, json == first_json ? "" : " (DIFFERS from the first)");
  }
  std::printf("peak RSS %ld MB\n", seragen::bench::ReadUsage().peak_rss_kib / 1024);
  std::filesystem::remove_all(dir);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  unsigned threads = 2;
  if (args.size() >= 2 && args[0] == "--threads") {
    threads = static_cast<unsigned>(std::stoul(args[1]));
    args.erase(args.begin(), args.begin() + 2);
  }
  if (args.size() == 2 && args[0] == "--dump") {
    DirectoryFileSource source(args[1]);
    auto graph = BuildGraph(source, {});
    if (!graph.ok()) {
      std::fprintf(stderr, "%s\n", graph.status().ToString().c_str());
      return 1;
    }
    for (const auto& node : graph->nodes) {
      std::printf("node %s lines %d-%d loc %d doc %d\n", node.id.c_str(), node.start_line, node.end_line, node.loc,
                  node.has_doc);
    }
    for (const auto& edge : graph->edges) {
      std::printf("%s -> %s [%s]\n", graph->nodes[edge.caller].id.c_str(), graph->nodes[edge.callee].id.c_str(),
                  std::string(ResolutionName(edge.resolution)).c_str());
    }
    std::printf("%s", FormatGraphStats(graph->stats).c_str());
    return 0;
  }
  if (args.size() >= 2 && args[0] == "--cache") {
    return MeasureCache(args[1], (args.size() >= 3 ? std::stoul(args[2]) : 32u) << 20, threads);
  }
  if (!args.empty() && args[0] == "--dir") {
    int rc = 0;
    for (std::size_t i = 1; i < args.size(); ++i) {
      DirectoryFileSource source(args[i]);
      rc |= Measure(args[i], source, threads);
    }
    return rc;
  }
  std::size_t target_bytes = 32u << 20;
  if (args.size() >= 2 && args[0] == "--mb") target_bytes = std::stoul(args[1]) << 20;
  if (args.size() == 3 && args[0] == "--mb") {
    // --mb N DIR: write the generated tree to DIR instead of measuring it.
    InMemoryFileSource generated;
    GeneratePythonTree(target_bytes, 7, &generated);
    std::vector<SourceEntry> entries = generated.List().value();
    for (const auto& entry : entries) {
      std::string path = args[2] + "/" + entry.path;
      std::filesystem::create_directories(std::filesystem::path(path).parent_path());
      std::ofstream(path) << generated.Read(entry.path).value();
    }
    return 0;
  }
  auto start = std::chrono::steady_clock::now();
  InMemoryFileSource source;
  GeneratePythonTree(target_bytes, /*seed=*/7, &source);
  double gen = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("generated %zu Python files in memory in %.2f s\n", source.size(), gen);
  return Measure("generated python tree", source, threads);
}
