#include "seragen/pipeline/task_scheduler.h"

#include <catch2/catch.hpp>

#include "pipeline/pipeline_fakes.h"
#include "seragen/runview/run_state.h"
#include "testing/source_paths.h"

namespace seragen::pipeline {
namespace {

using testing::MemoryStore;
using testing::ScriptedEnvironments;
using testing::ScriptedModel;

struct SchedulerFixture {
  std::string dir = seragen::testing::SourcePath("prompts");
  PromptLibrary prompts = *PromptLibrary::Load(dir, config::PromptsConfig{});
  demos::DemoIssuePool demos = demos::DemoIssuePool::FromIssues({{"d1", "Example issue text."}});
  agent::AgentMessages messages = *agent::AgentMessages::Load(dir + "/format_errors");
  llm::FakeChatClient chat;
  ScriptedModel model;
  ScriptedEnvironments envs;
  MemoryStore store;
  FakeClock clock;
  QueueExecutor loop{clock};  // the grace timer runs on the fake clock
  QueueExecutor workers;
  PipelineContext ctx;
  TaskSchedulerOptions options;
  bool hold_workers = false;  // workers pause until the next timer fires (a slow stage)

  SchedulerFixture() {
    ctx = PipelineContext{&prompts, &demos, &messages, &chat, &envs, &store, &loop, &workers, &clock, {}, {}};
    ctx.settings.request_template.model = "m";
    // One rollout-1 attempt: an empty P1 (patch1 = "") ends a task at once.
    ctx.settings.judge_max_attempts = 1;
    model.Install(chat);
    options.concurrency = 3;
  }

  std::vector<callgraph::PlannedTask> Tasks(int n) {
    std::vector<callgraph::PlannedTask> tasks;
    for (int i = 0; i < n; ++i) {
      callgraph::PlannedTask t;
      t.task_id = "task" + std::to_string(i);
      t.qualname = "f" + std::to_string(i);
      t.file = "a.py";
      tasks.push_back(t);
    }
    return tasks;
  }

  // Runs until done; timers fire (moving the fake clock) only when nothing else can run.
  // `during` runs once, after the 5th step; `each` after every step.
  RunSummary Run(std::vector<callgraph::PlannedTask> tasks, std::function<void(TaskScheduler&)> during = nullptr,
                 std::function<void(TaskScheduler&)> each = nullptr) {
    // Distinct P1 per task so none is a duplicate.
    // As RunShard: the journal folded once, its budget use from the fold.
    journal::LoadedJournal journal;
    journal.records = store.records;
    runview::ShardState folded = runview::FoldShard("", journal);
    options.journal_use = runview::UseOf(folded, options.prices);
    TaskScheduler s(&ctx, std::move(tasks), std::move(folded.tasks), options);
    std::optional<RunSummary> out;
    loop.Post([&] { s.Start([&](RunSummary r) { out = r; }); });
    int steps = 0;
    while (!out) {
      bool ran = loop.RunOne() || (!hold_workers && workers.RunOne());
      if (!ran) {
        if (!loop.FireNextTimer()) break;
        hold_workers = false;
      }
      if (during && ++steps == 5) during(s);
      if (each) each(s);
    }
    workers.RunUntilIdle();
    REQUIRE(out.has_value());
    return *out;
  }
};

}  // namespace

TEST_CASE("all tasks run to completion on bounded slots", "[scheduler]") {
  SchedulerFixture f;
  f.envs.patch1 = "";  // empty P1: tasks end early but every one is dispatched
  RunSummary s = f.Run(f.Tasks(10));
  CHECK(s.planned == 10);
  CHECK(s.dispatched == 10);
  CHECK(s.in_flight == 0);
  CHECK(s.outcomes[TaskOutcome::Kind::kSkipped] == 10);
  CHECK(s.stop_reason.empty());
  CHECK(s.model_calls == 20);
}

TEST_CASE("finished tasks are skipped on resume", "[scheduler]") {
  SchedulerFixture f;
  f.envs.patch1 = "";
  f.Run(f.Tasks(4));
  RunSummary again = f.Run(f.Tasks(6));
  CHECK(again.already_finished == 4);
  CHECK(again.dispatched == 2);
}

TEST_CASE("max_tasks budget stops dispatching but lets in-flight work finish", "[scheduler]") {
  SchedulerFixture f;
  f.envs.patch1 = "";
  f.options.budget.max_tasks = 4;
  RunSummary s = f.Run(f.Tasks(10));
  CHECK(s.dispatched == 4);
  CHECK(s.outcomes[TaskOutcome::Kind::kSkipped] == 4);
  CHECK(s.stop_reason == "budget.max_tasks reached (run-wide: 4 of 4 tasks started)");
}

TEST_CASE("budgets cover the run: a second invocation counts what the journal spent", "[scheduler][budget]") {
  SchedulerFixture f;
  f.envs.patch1 = "";
  SECTION("max_tasks") {
    f.options.budget.max_tasks = 4;
    CHECK(f.Run(f.Tasks(10)).dispatched == 4);
    RunSummary again = f.Run(f.Tasks(10));  // same journal (the store), same budget
    CHECK(again.dispatched == 0);
    CHECK(again.stop_reason == "budget.max_tasks reached (run-wide: 4 of 4 tasks started)");
  }
  SECTION("max_tokens") {
    f.model.rollout_prompt_tokens = 100;
    RunSummary first = f.Run(f.Tasks(2));
    const std::int64_t spent = first.prompt_tokens + first.completion_tokens;
    REQUIRE(spent > 0);
    f.options.budget.max_tokens = spent;
    RunSummary again = f.Run(f.Tasks(10));
    CHECK(again.dispatched == 0);
    CHECK(again.run_budget_used.tokens == spent);
  }
  SECTION("max_cost_usd") {
    f.model.rollout_prompt_tokens = 100;
    f.options.prices.run.prompt_per_mtok = 1e6;  // $1 a token: any call spends the budget
    f.options.budget.max_cost_usd = 1;
    f.options.concurrency = 1;  // the cost is known once the first task is done
    CHECK(f.Run(f.Tasks(10)).dispatched == 1);
    CHECK(f.Run(f.Tasks(10)).dispatched == 0);
  }
}

TEST_CASE("budget.max_cost_usd charges each call at the price of the endpoint that answered it",
          "[scheduler][budget]") {
  SchedulerFixture f;
  f.envs.patch1 =
      "";  // a task is rollout 1 only: two calls, the first to the dear endpoint, the second to the free one
  f.model.rollout_prompt_tokens = 100;
  f.model.rollout_endpoints = {"http://dear.example/v1", "http://free.example/v1"};
  f.options.prices.run.prompt_per_mtok = 1000;  // llm.pricing, the dear endpoint's: $0.10 a call
  f.options.prices.endpoints = {{"http://dear.example/v1", f.options.prices.run}, {"http://free.example/v1", {}}};
  f.options.budget.max_cost_usd = 0.25;
  f.options.concurrency = 1;
  RunSummary first = f.Run(f.Tasks(10));
  CHECK(first.dispatched == 3);  // $0.10 a task; at one price for both endpoints it would be $0.20, and 2 tasks
  CHECK(first.stop_reason == "budget.max_cost_usd reached (run-wide: $0.30 of $0.25)");
  // The journal names the endpoints, so the next invocation prices them alike.
  RunSummary again = f.Run(f.Tasks(10));
  CHECK(again.dispatched == 0);
  CHECK(again.run_budget_used.cost_usd == Approx(0.3));
  bool named = false;
  for (const journal::JournalRecord& r : f.store.records) {
    if (r.stage != journal::Stage::kRollout1Done) continue;
    named = true;
    CHECK(r.endpoint_tokens.at("http://dear.example/v1").prompt_tokens == 100);
    CHECK(r.endpoint_tokens.at("http://free.example/v1").prompt_tokens == 100);
  }
  CHECK(named);
}

TEST_CASE("budgets are shared with the other shards' journals", "[scheduler][budget]") {
  SchedulerFixture f;
  f.envs.patch1 = "";
  f.options.budget.max_tasks = 5;
  f.options.other_shards = [] { return BudgetUse{3, 0, 0}; };  // three tasks started elsewhere
  RunSummary s = f.Run(f.Tasks(10));
  CHECK(s.dispatched == 2);
  CHECK(s.stop_reason == "budget.max_tasks reached (run-wide: 5 of 5 tasks started)");
}

TEST_CASE("a task the journal has is resumed although max_tasks is used up", "[scheduler][budget]") {
  SchedulerFixture f;
  f.envs.patch1 = "";
  std::vector<callgraph::PlannedTask> tasks = f.Tasks(3);
  // task0 started in an earlier invocation (a retryable failure) and counts already.
  journal::JournalRecord started;
  started.task_id = "task0";
  started.stage = journal::Stage::kFailed;
  started.error = journal::ErrorInfo{journal::ParseErrorClass("infra.endpoint"), "down", true};
  f.store.records.push_back(started);
  f.options.budget.max_tasks = 1;
  RunSummary s = f.Run(tasks);
  CHECK(s.dispatched == 1);
  CHECK(s.outcomes[TaskOutcome::Kind::kSkipped] == 1);
  CHECK(s.stop_reason == "budget.max_tasks reached (run-wide: 1 of 1 tasks started)");
}

TEST_CASE("configuration errors below the client's limit fail tasks, the run goes on", "[scheduler]") {
  SchedulerFixture f;
  f.model.fail_rollouts = llm::FailureClass::kConfig;
  RunSummary s = f.Run(f.Tasks(10));
  CHECK_FALSE(s.aborted);
  CHECK(s.dispatched == 10);
  CHECK(s.outcomes[TaskOutcome::Kind::kConfigFailure] == 10);
}

TEST_CASE("a configuration error aborts the run once the client stops it", "[scheduler]") {
  SchedulerFixture f;
  f.model.fail_rollouts = llm::FailureClass::kConfig;
  f.chat.SetRunStop(llm::MakeFailure(llm::FailureClass::kConfig, "same error 3 times"));
  RunSummary s = f.Run(f.Tasks(10));
  CHECK(s.aborted);
  CHECK(s.dispatched == 3);  // the first wave only
  CHECK(s.stop_reason.rfind("aborted:", 0) == 0);
}

TEST_CASE("a stop request cancels in-flight tasks after the grace period", "[scheduler]") {
  SchedulerFixture f;
  f.options.grace = std::chrono::seconds(7);
  Clock::SteadyTime stopped_at{};
  RunSummary s = f.Run(f.Tasks(10), [&](TaskScheduler& sch) {
    stopped_at = f.clock.Now();
    sch.RequestStop("SIGTERM");
    f.hold_workers = true;  // in-flight stages outlast the grace period
  });
  CHECK(s.stop_reason == "SIGTERM");
  CHECK(s.dispatched == 3);
  CHECK(s.outcomes[TaskOutcome::Kind::kCancelled] >= 1);
  CHECK(s.outcomes[TaskOutcome::Kind::kCancelled] + s.outcomes[TaskOutcome::Kind::kVerified] +
            s.outcomes[TaskOutcome::Kind::kSkipped] ==
        3);
  // The cancel came from the loop's timer, exactly one grace period after the stop.
  CHECK(f.clock.Now() - stopped_at == std::chrono::seconds(7));
  // Nothing was recorded for cancelled tasks beyond their durable stages.
  for (const auto& r : f.store.records) CHECK(r.stage != journal::Stage::kFailed);
}

TEST_CASE("a grace timer that fires after the scheduler is gone does nothing", "[scheduler]") {
  SchedulerFixture f;
  f.envs.patch1 = "";  // tasks end on their own, before the grace period
  std::optional<RunSummary> out;
  {
    TaskScheduler s(&f.ctx, f.Tasks(3), journal::ResumeState{}, f.options);
    f.loop.Post([&] {
      s.Start([&](RunSummary r) { out = r; });
      s.RequestStop("SIGTERM");
    });
    while (!out && (f.loop.RunOne() || f.workers.RunOne())) {
    }
    REQUIRE(out.has_value());
    CHECK(out->dispatched == 3);
    CHECK(f.loop.timers() == 1);  // the grace timer outlives the run
  }
  CHECK(f.loop.FireNextTimer());
  CHECK(f.loop.RunUntilIdle() == 1);  // ran without touching the destroyed scheduler
}

TEST_CASE("a lowered limit lets running tasks finish and starts none beyond it", "[scheduler]") {
  SchedulerFixture f;
  f.options.concurrency = 4;
  f.envs.patch1 = "";
  std::size_t peak_before = 0, dispatched_at_cut = 0, started_over_limit = 0, last_dispatched = 0;
  bool lowered = false;
  RunSummary s = f.Run(
      f.Tasks(12),
      [&](TaskScheduler& t) {
        peak_before = std::max(peak_before, t.summary().in_flight);
        t.SetLimit(1);
        lowered = true;
        dispatched_at_cut = last_dispatched = t.summary().dispatched;
        CHECK(t.limit() == 1);
      },
      [&](TaskScheduler& t) {
        if (!lowered) {
          peak_before = std::max(peak_before, t.summary().in_flight);
          return;
        }
        // A task started after the cut only when it is the one in flight.
        if (t.summary().dispatched > last_dispatched && t.summary().in_flight > 1) ++started_over_limit;
        last_dispatched = t.summary().dispatched;
      });
  CHECK(s.dispatched == 12);
  CHECK(peak_before == 4);
  CHECK(dispatched_at_cut < 12);
  CHECK(started_over_limit == 0);
}

TEST_CASE("a limit is clamped to the slots and a raised one starts tasks at once", "[scheduler]") {
  SchedulerFixture f;
  f.options.concurrency = 3;
  f.envs.patch1 = "";
  TaskScheduler s(&f.ctx, f.Tasks(6), journal::ResumeState{}, f.options);
  s.SetLimit(0);
  CHECK(s.limit() == 1);
  f.loop.Post([&] { s.Start([](RunSummary) {}); });
  f.loop.RunUntilIdle();
  CHECK(s.summary().in_flight == 1);
  CHECK(s.LimitBinds());
  s.SetLimit(50);
  CHECK(s.limit() == 3);
  CHECK(s.summary().in_flight == 3);
  f.workers.RunUntilIdle();
  while (f.loop.RunOne() || f.workers.RunOne()) {
  }
  CHECK(!s.LimitBinds());
}

}  // namespace seragen::pipeline
