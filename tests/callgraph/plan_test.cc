#include <set>

#include <catch2/catch.hpp>

#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "seragen/base/glob.h"
#include "seragen/base/rng.h"
#include "seragen/callgraph/plan.h"
#include "seragen/callgraph/selection.h"
#include "seragen/callgraph/source_set.h"
#include "testing/temp_dir.h"

namespace seragen::callgraph {
namespace {

std::string Body(int lines) {
  std::string body;
  for (int i = 0; i < lines; ++i) body += "    x = helper()\n";
  return body;
}

CallGraph Graph() {
  InMemoryFileSource source;
  std::string lib = "def helper():\n    return 1\n\n";
  for (int i = 0; i < 30; ++i) lib += "def work" + std::to_string(i) + "():\n" + Body(5);
  lib += "def lonely():\n" + std::string(6, ' ') + "\n    a = 1\n    b = 2\n    return a + b\n";
  lib += "def huge():\n" + Body(60);
  source.Add("src/lib.py", lib);
  source.Add("tests/test_lib.py", "def test_one():\n" + Body(5));
  source.Add("src/more.py", "class TestThing:\n    def check(self):\n" + Body(5) + "def test_inline():\n" + Body(5) +
                                "def vendor_fn():\n" + Body(5));
  auto graph = BuildGraph(source, {});
  REQUIRE(graph.ok());
  return std::move(graph).value();
}

std::set<std::string> Ids(const CallGraph& graph, const std::vector<std::uint32_t>& nodes) {
  std::set<std::string> ids;
  for (auto n : nodes) ids.insert(graph.nodes[n].id);
  return ids;
}

TEST_CASE("selection filters tests, sizes, globs and callees", "[selection]") {
  CallGraph graph = Graph();
  SelectionOptions options;
  options.min_lines = 4;
  options.max_lines = 40;
  auto ids = Ids(graph, SelectFunctions(graph, options, 1, "r"));
  CHECK(ids.count("src/lib.py::work0") == 1);
  CHECK(ids.count("src/lib.py::helper") == 0);            // too short
  CHECK(ids.count("src/lib.py::huge") == 0);              // too long
  CHECK(ids.count("tests/test_lib.py::test_one") == 0);   // test path
  CHECK(ids.count("src/more.py::TestThing.check") == 0);  // test class name
  CHECK(ids.count("src/more.py::test_inline") == 0);      // test function name
  CHECK(ids.count("src/lib.py::lonely") == 0);            // no caller, no callee (default require_edges any)

  options.require_edges = EdgeRequirement::kNone;
  ids = Ids(graph, SelectFunctions(graph, options, 1, "r"));
  CHECK(ids.count("src/lib.py::lonely") == 1);

  options.require_edges = EdgeRequirement::kCallees;
  ids = Ids(graph, SelectFunctions(graph, options, 1, "r"));
  CHECK(ids.count("src/lib.py::lonely") == 0);
  CHECK(ids.count("src/lib.py::work3") == 1);

  options.exclude = {"src/more.py"};
  options.exclude_tests = false;
  ids = Ids(graph, SelectFunctions(graph, options, 1, "r"));
  CHECK(ids.count("tests/test_lib.py::test_one") == 1);
  CHECK(ids.count("src/more.py::vendor_fn") == 0);

  SelectionOptions only;
  only.include = {"src/more.py"};
  only.exclude_tests = false;
  only.min_lines = 0;
  only.require_edges = EdgeRequirement::kNone;
  CHECK(Ids(graph, SelectFunctions(graph, only, 1, "r")).size() == 3);
  only.languages = {"go"};
  CHECK(SelectFunctions(graph, only, 1, "r").empty());
}

// A package with the usual neighbours of one: examples/, docs/ (with a Sphinx
// conf.py), benchmarks, setup.py, and functions nobody calls that call nobody.
CallGraph PackageTree() {
  InMemoryFileSource source;
  std::string lib = "def helper():\n    return 1\n\n";
  for (int i = 0; i < 4; ++i) lib += "def work" + std::to_string(i) + "():\n" + Body(4);
  lib += "def orphan():\n    a = 1\n    b = 2\n    return a + b\n";
  source.Add("src/pkg/core.py", lib);
  source.Add("src/pkg/util.py",
             "def only_called():\n    a = 1\n    b = 2\n    return a\n\n"
             "def caller():\n    only_called()\n    x = 1\n    return x\n");
  source.Add("examples/demo.py", "from pkg.core import helper\n\ndef run_demo():\n" + Body(4));
  source.Add("docs/conf.py", "from pkg.core import helper\n\ndef setup_docs():\n" + Body(4));
  source.Add("benchmarks/bench_core.py", "from pkg.core import helper\n\ndef time_work():\n" + Body(4));
  source.Add("setup.py", "from pkg.core import helper\n\ndef build():\n" + Body(4));
  auto graph = BuildGraph(source, {});
  REQUIRE(graph.ok());
  return std::move(graph).value();
}

TEST_CASE("selection defaults keep the package: no examples, docs, benchmarks, setup or edge-less code",
          "[selection]") {
  CallGraph graph = PackageTree();
  SelectionOptions options;
  options.min_lines = 3;
  SelectionCounts counts;
  auto ids = Ids(graph, SelectFunctions(graph, options, 1, "r", &counts));
  CHECK(ids == std::set<std::string>{"src/pkg/core.py::work0", "src/pkg/core.py::work1", "src/pkg/core.py::work2",
                                     "src/pkg/core.py::work3", "src/pkg/util.py::only_called",
                                     "src/pkg/util.py::caller"});
  CHECK(counts.rejected["auxiliary"] == 4);  // run_demo, setup_docs, time_work, build
  CHECK(counts.rejected["no_edges"] == 1);   // orphan
  CHECK(counts.rejected["too_short"] == 1);  // helper (2 lines)
  CHECK(counts.eligible == 6);
  CHECK(counts.over_cap == 0);
  CHECK(FormatSelectionCounts(counts, 6) == "6 eligible, 6 picked; rejected: auxiliary 4, no_edges 1, too_short 1");

  // only_called has a caller but no callee.
  options.require_edges = EdgeRequirement::kCallees;
  ids = Ids(graph, SelectFunctions(graph, options, 1, "r"));
  CHECK(ids.count("src/pkg/util.py::only_called") == 0);
  CHECK(ids.count("src/pkg/util.py::caller") == 1);

  // Users can take the auxiliary defaults back.
  options.require_edges = EdgeRequirement::kAny;
  options.exclude_auxiliary = false;
  ids = Ids(graph, SelectFunctions(graph, options, 1, "r"));
  CHECK(ids.count("examples/demo.py::run_demo") == 1);
  CHECK(ids.count("docs/conf.py::setup_docs") == 1);
  CHECK(ids.count("setup.py::build") == 1);
  options.exclude_auxiliary = true;
  options.auxiliary_patterns = {"docs/**"};
  ids = Ids(graph, SelectFunctions(graph, options, 1, "r"));
  CHECK(ids.count("docs/conf.py::setup_docs") == 0);
  CHECK(ids.count("examples/demo.py::run_demo") == 1);
}

TEST_CASE("selection defaults follow SERA: edges required, 5000 per repository", "[selection]") {
  SelectionOptions options;
  CHECK(options.require_edges == EdgeRequirement::kAny);
  CHECK(options.max_functions == 5000);
  CHECK(options.exclude_auxiliary);
  for (const char* path : {"examples/a.py", "pkg/examples/a.py", "docs/conf.py", "doc/x.py", "benchmarks/b.py",
                           "setup.py", "noxfile.py", "conftest.py"}) {
    INFO(path);
    CHECK(GlobMatchAny(options.auxiliary_patterns, path));
  }
  CHECK_FALSE(GlobMatchAny(options.auxiliary_patterns, "src/flask/app.py"));
  CHECK_FALSE(GlobMatchAny(options.auxiliary_patterns, "src/docstring.py"));
  CHECK(EdgeRequirementFromName("callees") == EdgeRequirement::kCallees);
  CHECK_FALSE(EdgeRequirementFromName("some").has_value());
}

TEST_CASE("the per-repository cap keeps a seeded sample", "[selection]") {
  CallGraph graph = Graph();
  SelectionOptions options;
  options.max_functions = 5;
  SelectionCounts counts;
  auto a = SelectFunctions(graph, options, 7, "r", &counts);
  auto b = SelectFunctions(graph, options, 7, "r");
  auto c = SelectFunctions(graph, options, 8, "r");
  CHECK(a.size() == 5);
  CHECK(counts.over_cap == counts.eligible - 5);
  CHECK(a == b);
  CHECK(a != c);
}

TEST_CASE("max_folder_depth counts path components after the first one, as SERA's wildcards do", "[selection]") {
  CHECK(FolderDepth("mod.py") == 0);
  CHECK(FolderDepth("pkg/mod.py") == 1);
  CHECK(FolderDepth("src/pkg/mod.py") == 2);
  CHECK(FolderDepth("pkg/a/b/mod.py") == 3);
  CHECK(FolderDepth("src/pkg/a/b/mod.py") == 4);
  InMemoryFileSource source;
  source.Add("pkg/a/b/c/deep.py", "from pkg.top import helper\ndef deep():\n" + Body(5));
  source.Add("pkg/a/b/edge.py", "from pkg.top import helper\ndef edge():\n" + Body(5));
  source.Add("pkg/top.py", "def helper():\n    return 1\n\ndef top():\n" + Body(5));
  auto graph = BuildGraph(source, {});
  REQUIRE(graph.ok());
  SelectionOptions options;
  CHECK(Ids(*graph, SelectFunctions(*graph, options, 1, "r")) ==
        std::set<std::string>{"pkg/a/b/c/deep.py::deep", "pkg/a/b/edge.py::edge", "pkg/top.py::top"});
  options.max_folder_depth = 3;
  SelectionCounts counts;
  CHECK(Ids(*graph, SelectFunctions(*graph, options, 1, "r", &counts)) ==
        std::set<std::string>{"pkg/a/b/edge.py::edge", "pkg/top.py::top"});
  CHECK(counts.rejected["too_deep"] == 1);
  options.max_folder_depth = 1;
  CHECK(Ids(*graph, SelectFunctions(*graph, options, 1, "r")) == std::set<std::string>{"pkg/top.py::top"});
  options.max_folder_depth = -1;
  CHECK_THAT(ValidateSelectionOptions(options).message(), Catch::Contains("selection.max_folder_depth"));
}

TEST_CASE("selection options are validated with the field name", "[selection]") {
  SelectionOptions options;
  options.min_lines = 50;
  options.max_lines = 10;
  CHECK_THAT(ValidateSelectionOptions(options).message(), Catch::Contains("selection.max_lines"));
  options.max_lines = 0;
  CHECK(ValidateSelectionOptions(options).ok());
  options.languages = {"cobol"};
  CHECK_THAT(ValidateSelectionOptions(options).message(), Catch::Contains("cobol"));
}

// Plans org/repo at c0ffee from `graph` with the default selection, seeded
// like the plan.
std::vector<PlannedTask> PlanRepo(const CallGraph& graph, PlanOptions options) {
  RepoSelection repo{"org/repo", "c0ffee", &graph,
                     SelectFunctions(graph, SelectionOptions{}, options.seed, "org/repo")};
  options.recipe_hash = "recipe1";
  REQUIRE(ValidatePlanOptions(options).ok());
  return PlanTasks({repo}, options);
}

std::vector<PlannedTask> Plan(const CallGraph& graph, std::uint64_t seed, CategoryMode mode, int per_function,
                              int replicas) {
  PlanOptions options;
  options.seed = seed;
  options.category_mode = mode;
  options.categories_per_function = per_function;
  options.replicas = replicas;
  return PlanRepo(graph, options);
}

TEST_CASE("same config and seed give a byte-identical tasks.jsonl", "[plan]") {
  CallGraph graph = Graph();
  testing::TempDir dir;
  std::string first = WriteTasksJsonl(Plan(graph, 42, CategoryMode::kSample, 2, 2));
  std::string second = WriteTasksJsonl(Plan(graph, 42, CategoryMode::kSample, 2, 2));
  CHECK(first == second);
  REQUIRE(WriteTasksFile(dir.Sub("tasks.jsonl"), Plan(graph, 42, CategoryMode::kSample, 2, 2)).ok());
  CHECK(dir.Read("tasks.jsonl") == first);
  // A rebuilt graph (other thread count) changes nothing either.
  CallGraph again = Graph();
  CHECK(WriteTasksJsonl(Plan(again, 42, CategoryMode::kSample, 2, 2)) == first);
}

TEST_CASE("a different seed gives a different order", "[plan]") {
  CallGraph graph = Graph();
  auto a = Plan(graph, 1, CategoryMode::kAll, 1, 1);
  auto b = Plan(graph, 2, CategoryMode::kAll, 1, 1);
  REQUIRE(a.size() == b.size());
  std::vector<std::string> ids_a, ids_b;
  for (auto& t : a) ids_a.push_back(t.task_id);
  for (auto& t : b) ids_b.push_back(t.task_id);
  CHECK(ids_a != ids_b);
  std::sort(ids_a.begin(), ids_a.end());
  std::sort(ids_b.begin(), ids_b.end());
  CHECK(ids_a == ids_b);  // kAll: same task set, ids do not depend on the seed
}

TEST_CASE("tasks: all categories, sampled categories, replicas and unique content ids", "[plan]") {
  CallGraph graph = Graph();
  SelectionOptions selection;
  std::size_t functions = SelectFunctions(graph, selection, 3, "org/repo").size();
  auto all = Plan(graph, 3, CategoryMode::kAll, 1, 2);
  CHECK(all.size() == functions * 51 * 2);
  auto sampled = Plan(graph, 3, CategoryMode::kSample, 3, 1);
  CHECK(sampled.size() == functions * 3);
  std::set<std::string> ids;
  std::map<std::string, std::set<int>> categories_by_function;
  for (const PlannedTask& task : sampled) {
    ids.insert(task.task_id);
    categories_by_function[task.function_id].insert(task.category);
    CHECK(task.category >= 0);
    CHECK(task.category < 51);
    CHECK(task.seed < (std::uint64_t{1} << 53));
    CHECK(task.task_id.size() == 20);
  }
  CHECK(ids.size() == sampled.size());
  for (const auto& [function, categories] : categories_by_function) CHECK(categories.size() == 3);
  // Seeded sampling: at least two functions got different category sets.
  std::set<std::set<int>> distinct;
  for (const auto& [function, categories] : categories_by_function) distinct.insert(categories);
  CHECK(distinct.size() > 1);
}

std::vector<PlannedTask> PlanWithCategories(const CallGraph& graph, int category_count, int replicas) {
  PlanOptions options;
  options.seed = 9;
  options.category_count = category_count;
  options.replicas = replicas;
  return PlanRepo(graph, options);
}

TEST_CASE("replicas redraw the category: no repeat for a function until categories run out", "[plan]") {
  CallGraph graph = Graph();
  std::size_t functions = SelectFunctions(graph, SelectionOptions{}, 9, "org/repo").size();
  REQUIRE(functions > 2);

  auto plenty = PlanWithCategories(graph, 51, 4);
  CHECK(plenty.size() == functions * 4);
  std::map<std::string, std::set<int>> by_function;
  for (const PlannedTask& t : plenty) {
    by_function[t.function_id].insert(t.category);
    CHECK(t.replica == 0);  // every (function, category) once
  }
  for (const auto& [function, categories] : by_function) {
    INFO(function);
    CHECK(categories.size() == 4);
  }

  // Three categories, five replicas: all three used, then two come back.
  auto scarce = PlanWithCategories(graph, 3, 5);
  std::map<std::string, std::map<int, std::set<int>>> replicas_of;  // function -> category -> replicas
  std::set<std::string> ids;
  for (const PlannedTask& t : scarce) {
    replicas_of[t.function_id][t.category].insert(t.replica);
    ids.insert(t.task_id);
  }
  CHECK(ids.size() == scarce.size());
  for (const auto& [function, by_category] : replicas_of) {
    INFO(function);
    REQUIRE(by_category.size() == 3);
    std::size_t total = 0;
    for (const auto& [category, reps] : by_category) {
      CHECK((reps.size() == 1 || reps.size() == 2));
      CHECK(*reps.begin() == 0);
      total += reps.size();
    }
    CHECK(total == 5);
  }
}

TEST_CASE("with one replica the categories are the plain seeded sample", "[plan]") {
  CallGraph graph = Graph();
  auto tasks = Plan(graph, 11, CategoryMode::kSample, 2, 1);
  std::map<std::string, std::set<int>> by_function;
  for (const PlannedTask& t : tasks) by_function[t.repo + "\n" + t.function_id].insert(t.category);
  for (const auto& [key, categories] : by_function) {
    Rng rng = Rng::Derive(11, key, "categories");
    auto expected = rng.SampleIndices(51, 2);
    CHECK(categories == std::set<int>(expected.begin(), expected.end()));
  }
}

TEST_CASE("picked functions are counted per directory", "[plan]") {
  std::vector<PlannedTask> tasks(4);
  tasks[0].repo = tasks[1].repo = tasks[2].repo = tasks[3].repo = "flask";
  tasks[0].file = tasks[1].file = "src/flask/app.py";
  tasks[0].function_id = tasks[1].function_id = "src/flask/app.py::Flask.run";  // two tasks, one function
  tasks[2].file = "src/flask/json/tag.py";
  tasks[2].function_id = "src/flask/json/tag.py::tag";
  tasks[3].file = "setup.py";
  tasks[3].function_id = "setup.py::main";
  auto dirs = PickedPerDirectory(tasks);
  CHECK(dirs ==
        std::map<std::string, std::size_t>{{"flask/src/flask", 1}, {"flask/src/flask/json", 1}, {"flask/.", 1}});
}

TEST_CASE("tasks.jsonl round-trips and rejects broken lines by number", "[plan]") {
  CallGraph graph = Graph();
  auto tasks = Plan(graph, 5, CategoryMode::kSample, 1, 1);
  std::string text = WriteTasksJsonl(tasks);
  auto back = ReadTasksJsonl(text);
  REQUIRE(back.ok());
  CHECK(WriteTasksJsonl(*back) == text);
  auto broken = ReadTasksJsonl(text + "{\"task_id\": 1}\n");
  REQUIRE_FALSE(broken.ok());
  CHECK_THAT(broken.status().message(), Catch::Contains("line " + std::to_string(tasks.size() + 2)));
}

TEST_CASE("a plan file is read as its text is, across read chunks, and a cut last line is refused", "[plan]") {
  // Enough tasks for several 1 MiB read chunks.
  std::vector<PlannedTask> tasks = Plan(Graph(), 5, CategoryMode::kSample, 1, 1);
  while (tasks.size() < 12000) tasks.push_back(tasks[tasks.size() % 5]);
  for (std::size_t i = 0; i < tasks.size(); ++i) tasks[i].task_id = "t" + std::to_string(i);
  const std::string text = WriteTasksJsonl(tasks);
  REQUIRE(text.size() > (2u << 20));
  testing::TempDir dir;
  dir.Write("tasks.jsonl", text);
  auto read = ReadTasksFile(dir.Sub("tasks.jsonl"));
  REQUIRE(read.ok());
  CHECK(WriteTasksJsonl(*read) == text);
  CHECK(read->capacity() <= read->size() + 1);  // sized by its lines (the header is one): no regrowth slack

  dir.Write("cut.jsonl", text.substr(0, text.size() - 10));
  auto cut = ReadTasksFile(dir.Sub("cut.jsonl"));
  REQUIRE_FALSE(cut.ok());
  CHECK(cut.status().code() == StatusCode::kDataLoss);
  CHECK_THAT(cut.status().message(),
             Catch::Contains(dir.Sub("cut.jsonl") + " line " + std::to_string(tasks.size() + 1)));
  dir.Write("bad.jsonl", text + "{\"task_id\": 1}\n");
  auto bad = ReadTasksFile(dir.Sub("bad.jsonl"));
  REQUIRE_FALSE(bad.ok());
  CHECK_THAT(bad.status().message(), Catch::Contains("line " + std::to_string(tasks.size() + 2)));
}

TEST_CASE("tasks.jsonl starts with a version header, and a plan written before it still reads", "[plan]") {
  auto tasks = Plan(Graph(), 5, CategoryMode::kSample, 1, 1);
  std::string text = WriteTasksJsonl(tasks);
  REQUIRE(text.starts_with("{\"format\":\"seragen-tasks\",\"version\":1}\n"));
  std::string headerless = text.substr(text.find('\n') + 1);
  auto old = ReadTasksJsonl(headerless);
  REQUIRE(old.ok());
  CHECK(WriteTasksJsonl(*old) == text);
  auto newer = ReadTasksJsonl("{\"format\":\"seragen-tasks\",\"version\":2}\n" + headerless);
  REQUIRE_FALSE(newer.ok());
  CHECK(newer.status().code() == StatusCode::kFailedPrecondition);
  auto other = ReadTasksJsonl("{\"format\":\"seragen-journal\",\"version\":1}\n" + headerless);
  REQUIRE_FALSE(other.ok());
  CHECK(other.status().code() == StatusCode::kParseError);
  // A header anywhere but line 1 is a broken task line.
  CHECK_FALSE(ReadTasksJsonl(headerless + "{\"format\":\"seragen-tasks\",\"version\":1}\n").ok());
}

TEST_CASE("a tasks.jsonl cut anywhere in its last line is an error naming the file and line, never a shorter plan",
          "[plan]") {
  testing::TempDir dir;
  auto tasks = Plan(Graph(), 5, CategoryMode::kSample, 1, 1);
  REQUIRE(tasks.size() >= 2);
  const std::string path = dir.Sub("tasks.jsonl");
  const std::string text = WriteTasksJsonl(tasks);
  REQUIRE(WriteTasksFile(path, tasks).ok());
  REQUIRE(ReadTasksFile(path).ok());
  const std::string last_line = std::to_string(tasks.size() + 1);  // after the header
  for (std::size_t cut : {text.size() - 1, text.size() - 2, text.size() - 30}) {
    INFO("cut at byte " << cut << " of " << text.size());
    dir.Write("tasks.jsonl", text.substr(0, cut));
    auto torn = ReadTasksFile(path);
    REQUIRE_FALSE(torn.ok());
    CHECK_THAT(torn.status().message(), Catch::Contains(path + " line " + last_line));
  }
  dir.Write("tasks.jsonl", text.substr(0, text.size() - 1));
  CHECK(ReadTasksFile(path).status().code() == StatusCode::kDataLoss);
}

TEST_CASE(
    "a tasks.jsonl line of the wrong kind names the field, and cuts and deep nesting are errors, never exceptions",
    "[plan]") {
  auto tasks = Plan(Graph(), 2, CategoryMode::kSample, 1, 1);
  REQUIRE_FALSE(tasks.empty());
  const std::string text = WriteTasksJsonl(tasks);
  const std::string header = text.substr(0, text.find('\n') + 1);
  const std::string line = text.substr(header.size(), text.find('\n', header.size()) - header.size());
  for (const auto& [from, to, field] : std::vector<std::tuple<std::string, std::string, std::string>>{
           {"\"start_line\":", "\"start_line\":\"7\",\"x\":", "start_line"},
           {"\"seed\":", "\"seed\":-1,\"x\":", "seed"},
           {"\"repo\":", "\"repo\":[],\"x\":", "repo"},
           {"\"category\":", "\"category\":1.5,\"x\":", "category"},
       }) {
    std::string bad = line;
    bad.replace(bad.find(from), from.size(), to);
    auto read = ReadTasksJsonl(header + bad + "\n");
    INFO(bad);
    REQUIRE_FALSE(read.ok());
    CHECK(read.status().code() == StatusCode::kParseError);
    CHECK_THAT(read.status().message(), Catch::Contains("'" + field + "'"));
    CHECK_THAT(read.status().message(), Catch::Contains("line 2"));
  }
  for (std::size_t n = 0; n < line.size(); ++n) {
    auto cut = ReadTasksJsonl(header + line.substr(0, n) + "\n");
    if (n == 0) continue;  // an empty line is skipped
    REQUIRE_FALSE(cut.ok());
    CHECK(cut.status().code() == StatusCode::kParseError);
  }
  auto deep = ReadTasksJsonl(header + std::string(300, '[') + std::string(300, ']') + "\n");
  REQUIRE_FALSE(deep.ok());
  CHECK_THAT(deep.status().message(), Catch::Contains("nests deeper"));
  CHECK_FALSE(ReadTasksJsonl(header + "{\"task_id\":\"\xff\"}\n").ok());
}

TEST_CASE("category modes parse from their config names", "[plan]") {
  CHECK(CategoryModeFromName("all") == CategoryMode::kAll);
  CHECK(CategoryModeFromName("sample") == CategoryMode::kSample);
  CHECK_FALSE(CategoryModeFromName("All").has_value());
}

TEST_CASE("plan options are validated with the field name", "[plan]") {
  PlanOptions options;
  options.replicas = 0;
  CHECK_THAT(ValidatePlanOptions(options).message(), Catch::Contains("plan.replicas"));
  options.replicas = 1;
  options.categories_per_function = 52;
  CHECK_THAT(ValidatePlanOptions(options).message(), Catch::Contains("plan.categories_per_function"));
}

}  // namespace
}  // namespace seragen::callgraph
