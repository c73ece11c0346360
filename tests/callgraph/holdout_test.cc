#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "seragen/callgraph/holdout.h"
#include "seragen/callgraph/plan.h"
#include "seragen/callgraph/source_set.h"

namespace seragen::callgraph {
namespace {

// `files` files of `per_file` functions each, two tasks (categories) per function.
std::vector<PlannedTask> Plan(int files, int per_file) {
  std::vector<PlannedTask> tasks;
  for (int f = 0; f < files; ++f) {
    for (int fn = 0; fn < per_file; ++fn) {
      for (int category = 0; category < 2; ++category) {
        PlannedTask t;
        t.repo = "r";
        t.file = "pkg/f" + std::to_string(f) + ".py";
        t.qualname = "fn" + std::to_string(fn);
        t.function_id = t.file + "::" + t.qualname;
        t.task_id = t.function_id + "#" + std::to_string(category);
        t.category = category;
        t.start_line = 1 + fn * 10;
        t.end_line = 8 + fn * 10;
        tasks.push_back(t);
      }
    }
  }
  return tasks;
}

// Files with held-out tasks and files with training tasks.
std::pair<std::set<std::string>, std::set<std::string>> Sides(const std::vector<PlannedTask>& tasks) {
  std::set<std::string> held, train;
  for (const PlannedTask& t : tasks) (t.heldout ? held : train).insert(t.file);
  return {held, train};
}

TEST_CASE("holdout: a fraction or a count of functions, whole files, seeded", "[holdout]") {
  std::vector<PlannedTask> tasks = Plan(10, 2);
  HoldoutSplit split = MarkHoldout(&tasks, {0.2, 7}, {});
  CHECK(split.functions == 20);
  CHECK(split.heldout_functions == 4);  // two whole files of two functions
  CHECK(split.heldout_files == 2);
  CHECK(split.heldout_tasks == 8);
  auto [held, train] = Sides(tasks);
  for (const std::string& f : held) CHECK(train.count(f) == 0);

  std::vector<PlannedTask> again = Plan(10, 2);
  MarkHoldout(&again, {0.2, 7}, {});
  CHECK(Sides(again).first == held);
  std::set<std::set<std::string>> draws;
  for (std::uint64_t seed = 0; seed < 8; ++seed) {
    std::vector<PlannedTask> other = Plan(10, 2);
    MarkHoldout(&other, {0.2, seed}, {});
    draws.insert(Sides(other).first);
  }
  CHECK(draws.size() > 1);

  std::vector<PlannedTask> counted = Plan(10, 2);
  CHECK(MarkHoldout(&counted, {5, 1}, {}).heldout_functions == 6);  // files come whole: 3 files reach 5
  std::vector<PlannedTask> off = Plan(10, 2);
  CHECK(MarkHoldout(&off, {0, 1}, {}).heldout_tasks == 0);
  std::vector<PlannedTask> tiny = Plan(10, 2);
  CHECK(MarkHoldout(&tiny, {0.01, 1}, {}).heldout_functions == 2);  // at least one function, its file whole
}

TEST_CASE("holdout: never every group, nothing from a single file", "[holdout]") {
  std::vector<PlannedTask> all = Plan(3, 1);
  CHECK(MarkHoldout(&all, {100, 1}, {}).heldout_files == 2);
  std::vector<PlannedTask> one = Plan(1, 4);
  CHECK(MarkHoldout(&one, {0.5, 1}, {}).heldout_tasks == 0);
}

TEST_CASE("holdout: files sharing a near-identical function are one group", "[holdout]") {
  // Plan(): fn0 on lines 1-8, fn1 on lines 11-18 of each file.
  auto file = [](const std::string& fn0_body) {
    std::string text = "def fn0(items):\n" + fn0_body;
    while (std::count(text.begin(), text.end(), '\n') < 10) text += "\n";
    return text + "def fn1():\n    pass\n";
  };
  InMemoryFileSource source;
  for (int f = 0; f < 10; ++f) {
    source.Add("pkg/f" + std::to_string(f) + ".py", file("    a = " + std::to_string(f) + "\n    b = a\n    c = b\n"));
  }
  source.Add("pkg/f2.py", file("    total = 0\n    for x in items:\n        total += x\n    return total\n"));
  // Another file's copy with other whitespace: still the same body.
  source.Add("pkg/f7.py", file("  total  = 0\n\n  for x in items:\n      total += x\n  return total\n"));
  std::vector<PlannedTask> plan = Plan(10, 2);
  BodyKeys bodies;
  AddBodyKeys(source, "r", plan, &bodies);
  CHECK(bodies.count("r\npkg/f2.py::fn0") == 1);
  CHECK(bodies.at("r\npkg/f2.py::fn0") == bodies.at("r\npkg/f7.py::fn0"));
  CHECK(bodies.count("r\npkg/f0.py::fn1") == 0);  // "pass": too short to group by
  int split_pairs = 0, held_pairs = 0;
  for (std::uint64_t seed = 0; seed < 40; ++seed) {
    std::vector<PlannedTask> tasks = plan;
    MarkHoldout(&tasks, {0.3, seed}, bodies);
    auto [held, train] = Sides(tasks);
    if (held.count("pkg/f2.py") != held.count("pkg/f7.py")) ++split_pairs;
    if (held.count("pkg/f2.py")) ++held_pairs;
  }
  CHECK(split_pairs == 0);
  CHECK(held_pairs > 0);
}

TEST_CASE("holdout: the flag round-trips in tasks.jsonl and a plan without a split keeps its bytes", "[holdout]") {
  std::vector<PlannedTask> plan = Plan(4, 1);
  const std::string before = WriteTasksJsonl(plan);
  CHECK(before.find("heldout") == std::string::npos);
  MarkHoldout(&plan, {0.5, 3}, {});
  auto read = ReadTasksJsonl(WriteTasksJsonl(plan));
  REQUIRE(read.ok());
  CHECK(SplitOf(*read).heldout_tasks == SplitOf(plan).heldout_tasks);
  CHECK(SplitOf(*read).heldout_tasks > 0);
  auto bad = ReadTasksJsonl(
      R"({"task_id":"a","repo":"r","commit":"c","function_id":"f","file":"f","qualname":"q","language":"python",)"
      R"("start_line":1,"end_line":2,"category":0,"replica":0,"seed":1,"heldout":"yes"})"
      "\n");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.status().message().find("heldout") != std::string::npos);
  CHECK(HeldOutFiles(plan).at("r").size() == SplitOf(plan).heldout_files);
  CHECK(FormatSplit(SplitOf(plan)).find("of 4 functions") != std::string::npos);
}

}  // namespace
}  // namespace seragen::callgraph
