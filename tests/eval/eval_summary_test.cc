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

// A rollout with test evidence of the given verdict (passes on agree).
EvalResult Tested(const std::string& task, int seed, verify::TestVerdict verdict) {
  EvalResult r = Rollout(task, seed, false, 0);
  r.tests = journal::TestEvidence{};
  r.tests->agreement.verdict = verdict;
  if (verdict == verify::TestVerdict::kAgree) r.tests_passed = true;
  if (verdict == verify::TestVerdict::kDisagree) r.tests_passed = false;
  return r;
}

TEST_CASE("eval summary: the test pass rate is over tasks with a test signal, with its interval, else n/a", "[eval]") {
  using V = verify::TestVerdict;
  // a: both seeds pass; b: one of two; c, d: fail; e: no signal; f: unavailable.
  std::vector<EvalResult> results = {
      Tested("a", 0, V::kAgree),    Tested("a", 1, V::kAgree),    Tested("b", 0, V::kAgree),
      Tested("b", 1, V::kDisagree), Tested("c", 0, V::kDisagree), Tested("d", 0, V::kDisagree),
      Tested("e", 0, V::kNoSignal), Tested("e", 1, V::kNoSignal), Tested("f", 0, V::kUnavailable)};
  EvalSummary s = Summarize({"m", "", "/r", "sera", 0.5}, results, "/e");
  REQUIRE(s.tests_pass_rate.has_value());
  CHECK(*s.tests_pass_rate == Approx(1.5 / 4));  // mean of 1, 0.5, 0, 0 over the four tasks with a signal
  CHECK(s.tests_tasks == 4);
  CHECK(s.tests_no_signal == 1);
  CHECK(s.tests_unavailable == 1);
  CHECK(s.n_tasks == 6);
  REQUIRE(s.tests_ci95.has_value());
  // The resolve rate's method: at least Wilson's width on n = 4 tasks.
  CHECK(s.tests_ci95->lo <= Wilson(1.5, 4).lo);
  CHECK(s.tests_ci95->hi >= Wilson(1.5, 4).hi);
  CHECK(s.tasks["b"].tests_rollouts == 2);
  CHECK(s.tasks["b"].tests_passed == 1);
  auto m = nlohmann::json::parse(SummaryJson({s}))["models"][0];
  CHECK(m["tests_pass_rate"].get<double>() == Approx(0.375));
  CHECK(m["ci95"]["tests_pass_rate"].size() == 2);
  CHECK(m["tests_n_tasks"] == 4);
  CHECK(m["tests_no_signal"] == 1);
  CHECK(m["tests_unavailable"] == 1);
  CHECK(m["tasks"]["a"]["tests_passed"] == 2);
  CHECK(FormatComparison({s}).find("tests pass 37.5% [") != std::string::npos);

  // No signal anywhere, or no evidence at all: absent, never 0.
  for (const auto& rs :
       {std::vector<EvalResult>{Tested("e", 0, V::kNoSignal)}, std::vector<EvalResult>{Rollout("x", 0, true, 1)}}) {
    EvalSummary none = Summarize({"m", "", "/r", "sera", 0.5}, rs, "/e");
    CHECK_FALSE(none.tests_pass_rate.has_value());
    auto j = nlohmann::json::parse(SummaryJson({none}))["models"][0];
    CHECK(j["tests_pass_rate"].is_null());
    CHECK_FALSE(j["ci95"].contains("tests_pass_rate"));
    CHECK(FormatComparison({none}).find("tests pass n/a") != std::string::npos);
  }
}

}  // namespace
}  // namespace seragen::eval
