#include <set>

#include <catch2/catch.hpp>

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
  source.Add("src/more.py", "class TestThing:\n    def check(self):\n" + Body(5) +
                                "def test_inline():\n" + Body(5) + "def vendor_fn():\n" + Body(5));
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
  CHECK(ids.count("src/lib.py::lonely") == 1);

  options.require_callees = true;
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
  CHECK(Ids(graph, SelectFunctions(graph, only, 1, "r")).size() == 3);
  only.languages = {"go"};
  CHECK(SelectFunctions(graph, only, 1, "r").empty());
}

TEST_CASE("the per-repository cap keeps a seeded sample", "[selection]") {
  CallGraph graph = Graph();
  SelectionOptions options;
  options.max_functions = 5;
  auto a = SelectFunctions(graph, options, 7, "r");
  auto b = SelectFunctions(graph, options, 7, "r");
  auto c = SelectFunctions(graph, options, 8, "r");
  CHECK(a.size() == 5);
  CHECK(a == b);
  CHECK(a != c);
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

std::vector<PlannedTask> Plan(const CallGraph& graph, std::uint64_t seed, CategoryMode mode, int per_function,
                              int replicas) {
  SelectionOptions selection;
  RepoSelection repo{"org/repo", "c0ffee", &graph, SelectFunctions(graph, selection, seed, "org/repo")};
  PlanOptions options;
  options.seed = seed;
  options.category_mode = mode;
  options.categories_per_function = per_function;
  options.replicas = replicas;
  options.recipe_hash = "recipe1";
  REQUIRE(ValidatePlanOptions(options).ok());
  return PlanTasks({repo}, options);
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

TEST_CASE("tasks.jsonl round-trips and rejects broken lines by number", "[plan]") {
  CallGraph graph = Graph();
  auto tasks = Plan(graph, 5, CategoryMode::kSample, 1, 1);
  std::string text = WriteTasksJsonl(tasks);
  auto back = ReadTasksJsonl(text);
  REQUIRE(back.ok());
  CHECK(WriteTasksJsonl(*back) == text);
  auto broken = ReadTasksJsonl(text + "{\"task_id\": 1}\n");
  REQUIRE_FALSE(broken.ok());
  CHECK_THAT(broken.status().message(), Catch::Contains("line " + std::to_string(tasks.size() + 1)));
}

TEST_CASE("category modes parse from their config names", "[plan]") {
  CHECK(CategoryModeFromName("all") == CategoryMode::kAll);
  CHECK(CategoryModeFromName("sample") == CategoryMode::kSample);
  CHECK_FALSE(CategoryModeFromName("All").has_value());
  CHECK(CategoryModeName(CategoryMode::kSample) == "sample");
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
