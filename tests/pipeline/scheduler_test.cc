#include "seragen/pipeline/scheduler.h"

#include <catch2/catch.hpp>

#include "pipeline/pipeline_fakes.h"

namespace seragen::pipeline {
namespace {

using testing::MemoryStore;
using testing::ScriptedEnvironments;
using testing::ScriptedModel;

struct SchedulerFixture {
  std::string dir = std::string(SERAGEN_SOURCE_DIR) + "/prompts";
  PromptLibrary prompts = *PromptLibrary::Load(dir, config::PromptsConfig{});
  DemoIssuePool demos = DemoIssuePool::FromIssues({{"d1", "Example issue text."}});
  agent::AgentMessages messages = *agent::AgentMessages::Load(dir + "/format_errors");
  llm::FakeChatClient chat;
  ScriptedModel model;
  ScriptedEnvironments envs;
  MemoryStore store;
  QueueExecutor loop, workers;
  FakeClock clock;
  PipelineContext ctx;
  SchedulerOptions options;
  std::vector<std::function<void()>> timers;

  SchedulerFixture() {
    ctx = PipelineContext{&prompts, &demos, &messages, &chat, &envs, &store, &loop, &workers, &clock, {}, {}};
    ctx.settings.request_template.model = "m";
    model.Install(chat);
    options.concurrency = 3;
    options.post_after = [this](std::chrono::milliseconds, std::function<void()> fn) { timers.push_back(fn); };
  }

  std::vector<Task> Tasks(int n) {
    std::vector<Task> tasks;
    for (int i = 0; i < n; ++i) {
      Task t;
      t.task_id = "task" + std::to_string(i);
      t.function_name = "f" + std::to_string(i);
      t.file = "a.py";
      tasks.push_back(t);
    }
    return tasks;
  }

  RunSummary Run(std::vector<Task> tasks, std::function<void(Scheduler&)> during = nullptr) {
    // Distinct P1 per task so none is a duplicate.
    Scheduler s(&ctx, std::move(tasks), journal::ResumeState::Fold(store.records), options);
    std::optional<RunSummary> out;
    loop.Post([&] { s.Start([&](RunSummary r) { out = r; }); });
    int steps = 0;
    while (!out) {
      bool ran = loop.RunOne() || workers.RunOne();
      if (!ran) {
        if (timers.empty()) break;
        auto t = timers.back();
        timers.pop_back();
        t();
      }
      if (during && ++steps == 5) during(s);
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
  CHECK(s.outcomes["skipped"] == 10);
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
  f.options.max_tasks = 4;
  RunSummary s = f.Run(f.Tasks(10));
  CHECK(s.dispatched == 4);
  CHECK(s.outcomes["skipped"] == 4);
  CHECK(s.stop_reason == "budget.max_tasks reached (4)");
}

TEST_CASE("configuration errors below the client's limit fail tasks, the run goes on", "[scheduler]") {
  SchedulerFixture f;
  f.model.fail_rollouts = llm::FailureClass::kConfig;
  RunSummary s = f.Run(f.Tasks(10));
  CHECK_FALSE(s.aborted);
  CHECK(s.dispatched == 10);
  CHECK(s.outcomes["infra_failure"] == 10);
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
  RunSummary s = f.Run(f.Tasks(10), [](Scheduler& sch) { sch.RequestStop("SIGTERM"); });
  CHECK(s.stop_reason == "SIGTERM");
  CHECK(s.dispatched == 3);
  CHECK(s.outcomes["cancelled"] + s.outcomes["verified"] + s.outcomes["skipped"] == 3);
  // Nothing was recorded for cancelled tasks beyond their durable stages.
  for (const auto& r : f.store.records) CHECK(r.stage != journal::Stage::kFailed);
}

}  // namespace seragen::pipeline
