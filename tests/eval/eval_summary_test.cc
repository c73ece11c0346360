#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "seragen/eval/eval_summary.h"

namespace seragen::eval {
namespace {

EvalResult Rollout(const std::string& task, int seed, bool resolved, double recall) {
  EvalResult r;
  r.task_id = task;
  r.seed = seed;
  r.resolved = resolved;
  r.recall = recall;
  r.prompt_tokens = 90;
  r.completion_tokens = 10;
  r.wall_seconds = 2;
  return r;
}

TEST_CASE("eval summary: rates over tasks, seeds clustered, honest intervals", "[eval]") {
  std::vector<EvalResult> results;
  for (int t = 0; t < 10; ++t) {
    for (int seed = 0; seed < 3; ++seed) {
      const bool ok = t < 6;  // six of ten tasks always resolved
      results.push_back(Rollout("task" + std::to_string(t), seed, ok, ok ? 1.0 : 0.2));
    }
  }
  results.push_back(results.front());  // logged twice: counted once
  EvalSummary s = Summarize({"m", "", "/r", "sera", 0.5}, results, "/e");
  CHECK(s.label == "m");
  CHECK(s.n_tasks == 10);
  CHECK(s.n_rollouts == 30);
  CHECK(s.resolve_rate == Approx(0.6));
  CHECK(s.mean_recall == Approx(0.68));
  CHECK(s.tokens_per_task == Approx(300));
  CHECK(s.wall_seconds_per_task == Approx(6));
  // Ten tasks, not thirty rollouts: at least as wide as Wilson with n = 10.
  Interval wilson10 = Wilson(6, 10);
  CHECK(s.resolve_ci95.lo <= wilson10.lo);
  CHECK(s.resolve_ci95.hi >= wilson10.hi);
  CHECK(s.resolve_ci95.hi - s.resolve_ci95.lo > Wilson(18, 30).hi - Wilson(18, 30).lo);
  CHECK_FALSE(s.tests_pass_rate);

  auto j = nlohmann::json::parse(SummaryJson({s}));
  auto m = j["models"][0];
  for (const char* key : {"resolve_rate", "mean_recall", "n_tasks", "n_rollouts", "ci95"}) CHECK(m.contains(key));
  CHECK(m["ci95"]["resolve_rate"].size() == 2);
  CHECK(m["ci95"]["mean_recall"].size() == 2);
  CHECK(SummaryJson({s}) == SummaryJson({Summarize({"m", "", "/r", "sera", 0.5}, results, "/e")}));  // fixed seed
}

TEST_CASE("eval summary: all-or-nothing rates still get a width, and Wilson is right", "[eval]") {
  std::vector<EvalResult> none;
  for (int t = 0; t < 5; ++t) none.push_back(Rollout("t" + std::to_string(t), 0, false, 0));
  EvalSummary s = Summarize({"weak", "", "/r", "sera", 0.5}, none, "/e");
  CHECK(s.resolve_rate == 0);
  CHECK(s.resolve_ci95.lo == 0);
  CHECK(s.resolve_ci95.hi > 0.4);  // Wilson(0, 5) reaches 0.43
  Interval w = Wilson(6, 10);
  CHECK(w.lo == Approx(0.3127).epsilon(0.001));
  CHECK(w.hi == Approx(0.8318).epsilon(0.001));
}

TEST_CASE("eval summary: models side by side with a per-task table", "[eval]") {
  EvalSummary a =
      Summarize({"teacher", "", "/r", "sera", 0.5}, {Rollout("x", 0, true, 1), Rollout("y", 0, true, 1)}, "/a");
  EvalSummary b = Summarize({"student", "", "/r", "sera", 0.5}, {Rollout("x", 0, false, 0)}, "/b");
  std::string text = FormatComparison({a, b});
  CHECK(text.find("teacher") != std::string::npos);
  CHECK(text.find("student") != std::string::npos);
  CHECK(text.find("1/1 1.00") != std::string::npos);
  CHECK(text.find("0/1 0.00") != std::string::npos);
  CHECK(text.find(" -") != std::string::npos);  // student has no rollout of y
}

}  // namespace
}  // namespace seragen::eval
