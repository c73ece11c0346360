// The fake world one TaskRunner runs in, shared by the task runner's tests:
// real prompts, a fake chat client (the test installs its model), scripted
// workspaces, an in-memory store and manual executors. Single-threaded:
// Run() drives both executors until the task ends.
#pragma once

#include <catch2/catch.hpp>

#include <optional>
#include <string>

#include "pipeline/pipeline_fakes.h"
#include "seragen/agent/agent_messages.h"
#include "seragen/base/clock.h"
#include "seragen/base/executor.h"
#include "seragen/config/config.h"
#include "seragen/demos/demo_issues.h"
#include "seragen/pipeline/prompt_library.h"
#include "seragen/pipeline/task_runner.h"
#include "testing/fake_chat_client.h"
#include "testing/source_paths.h"

namespace seragen::pipeline::testing {

inline std::string PromptsDir() { return seragen::testing::SourcePath("prompts"); }

struct RunnerWorld {
  PromptLibrary prompts = *PromptLibrary::Load(PromptsDir(), config::PromptsConfig{});
  demos::DemoIssuePool demos = demos::DemoIssuePool::FromIssues({{"d1", "Example issue text."}});
  agent::AgentMessages messages = *agent::AgentMessages::Load(PromptsDir() + "/format_errors");
  llm::FakeChatClient chat;
  ScriptedEnvironments envs;
  MemoryStore store;
  QueueExecutor loop, workers;
  FakeClock clock;
  PipelineContext ctx;

  RunnerWorld() {
    ctx.prompts = &prompts;
    ctx.demos = &demos;
    ctx.messages = &messages;
    ctx.chat = &chat;
    ctx.workspaces = &envs;
    ctx.store = &store;
    ctx.loop = &loop;
    ctx.workers = &workers;
    ctx.clock = &clock;
    ctx.settings.request_template.model = "m";
    ctx.settings.run_seed = 42;
  }

  // A task on the demo repository's Stock.reserve.
  static callgraph::PlannedTask MakeTask(const std::string& id) {
    callgraph::PlannedTask t;
    t.task_id = id;
    t.repo = "inventory";
    t.commit = std::string(40, 'a');
    t.function_id = "inventory/stock.py::Stock.reserve";
    t.qualname = "Stock.reserve";
    t.file = "inventory/stock.py";
    t.category = 13;
    return t;
  }

  // Runs `task` (resumed from `progress` when given) until it ends.
  TaskOutcome Run(const callgraph::PlannedTask& task, const journal::TaskProgress* progress = nullptr) {
    auto runner = TaskRunner::Create(task, progress, 0, &ctx);
    std::optional<TaskOutcome> out;
    loop.Post([&] { runner->Start([&](TaskOutcome o) { out = o; }); });
    while (!out && (loop.RunOne() || workers.RunOne())) {
    }
    workers.RunUntilIdle();  // environment releases
    REQUIRE(out.has_value());
    return *out;
  }
};

}  // namespace seragen::pipeline::testing
