// The real rollout environment (working-copy pool, unconfined command runner,
// tools, diff) under a scripted hostile model: what the agent writes into its
// copy must not be amplified into memory, stored records or model requests.
#include "seragen/pipeline/run_workspace.h"

#include <sys/stat.h>

#include <catch2/catch.hpp>

#include "pipeline/pipeline_fakes.h"
#include "seragen/agent/trajectory_json.h"
#include "seragen/pipeline/task_runner.h"
#include "seragen/repo/repository.h"
#include "seragen/tools/tool_box.h"
#include "testing/peak_memory.h"
#include "testing/sandbox_uids.h"
#include "testing/source_paths.h"
#include "testing/temp_dir.h"

namespace seragen::pipeline {
namespace {

using seragen::testing::RunShell;
using seragen::testing::TempDir;
using testing::MemoryStore;

std::string Source() { return seragen::testing::SourceDir(); }

// A one-commit repository at `dir`; returns the commit id.
std::string MakeRepo(const std::string& dir) {
  std::string out;
  std::string git = "git -C " + dir + " -c user.name=t -c user.email=t@example.com ";
  REQUIRE(RunShell("mkdir -p " + dir + " && git init -q " + dir + " && printf 'x = 1\\n' > " + dir + "/a.py && " + git +
                   "add a.py && " + git + "commit -qm init") == 0);
  REQUIRE(RunShell("git -C " + dir + " rev-parse HEAD", &out) == 0);
  return out.substr(0, 40);
}

TEST_CASE("two 100 MB files written by the agent end rollout 1 as exit_patch_too_large, nothing large kept or sent",
          "[pipeline][bounds]") {
  TempDir tmp;
  ::chmod(tmp.path().c_str(), 0755);  // the runner checks the slot uid could enter it
  std::string commit = MakeRepo(tmp.Sub("source"));
  auto repo = repo::Repository::Open(tmp.Sub("source"));
  REQUIRE(repo.ok());
  std::map<std::string, std::shared_ptr<repo::Repository>> repos{
      {"inventory", std::make_shared<repo::Repository>(std::move(repo).value())}};
  auto resources =
      tools::LoadToolResources(Source() + "/configs/tools.yaml", Source() + "/prompts/tools/messages.yaml", "/repo");
  REQUIRE(resources.ok());
  WorkspaceOptions env;
  env.sandbox_mode = "none";
  const seragen::testing::LeasedUids leased(21440);  // as root the unconfined runner switches to it
  env.uid_base = leased.uid();
  env.slot_uids = leased.uids();
  env.pool.pool_dir = tmp.Sub("pool");
  env.pool.capacity = 1;
  env.sandbox.limits.resources.max_file_mb = 256;
  env.tools.bash_limits = env.sandbox.limits;
  env.max_patch_bytes = 1 << 20;
  RunWorkspaceFactory workspaces(repos, &*resources, env);

  PromptLibrary prompts = *PromptLibrary::Load(Source() + "/prompts", config::PromptsConfig{});
  demos::DemoIssuePool demos = demos::DemoIssuePool::FromIssues({{"d1", "Example issue text."}});
  agent::AgentMessages messages = *agent::AgentMessages::Load(Source() + "/prompts/format_errors");
  llm::FakeChatClient chat;
  int rollout_calls = 0, other_calls = 0;
  chat.SetHandler([&](const llm::ChatRequest& req) -> Result<llm::ChatResponse> {
    if (req.tools.empty()) {
      ++other_calls;
      return llm::MakeTextResponse("<issue>x</issue>");
    }
    // One sparse file (instant) and one 100 MB text file (~0.5 s to write).
    if (++rollout_calls == 1) {
      return llm::MakeToolCallResponse(
          "bash",
          R"({"command":"truncate -s 100M big1.txt && yes abcdefghijklmnopqrstuvwxyz | head -c 100M > big2.txt"})");
    }
    return llm::MakeToolCallResponse("submit", "{}");
  });
  MemoryStore store;
  QueueExecutor loop, workers;
  FakeClock clock;
  PipelineContext ctx;
  ctx.prompts = &prompts;
  ctx.demos = &demos;
  ctx.messages = &messages;
  ctx.chat = &chat;
  ctx.workspaces = &workspaces;
  ctx.store = &store;
  ctx.loop = &loop;
  ctx.workers = &workers;
  ctx.clock = &clock;
  ctx.settings.request_template.model = "m";
  ctx.settings.limits.max_trajectory_bytes = 1 << 20;
  ctx.settings.judge_max_attempts = 1;  // one rollout 1: its end is what is measured

  callgraph::PlannedTask task;
  task.task_id = "t1";
  task.repo = "inventory";
  task.commit = commit;
  task.function_id = "a.py::f";
  task.qualname = "f";
  task.file = "a.py";
  task.category = 1;

  bool measured = seragen::testing::ResetPeakRss();
  auto runner = TaskRunner::Create(task, nullptr, 0, &ctx);
  std::optional<TaskOutcome> out;
  loop.Post([&] { runner->Start([&](TaskOutcome o) { out = std::move(o); }); });
  for (int i = 0; i < 100000 && !out; ++i) {
    if (!loop.RunOne() && !workers.RunOne()) break;
  }
  workers.RunUntilIdle();
  REQUIRE(out.has_value());
  INFO(out->detail);

  CHECK(out->kind == TaskOutcome::Kind::kSkipped);
  CHECK(store.Stages("t1") ==
        std::vector<std::string>{"rollout1_done:exit_patch_too_large", "skipped:rollout1_exit_patch_too_large"});
  CHECK(rollout_calls == 2);
  CHECK(other_calls == 0);  // no issue-writer request
  // Nothing stored or sent is anywhere near the files' size.
  for (const auto& [path, bytes] : store.files) {
    INFO(path);
    CHECK(bytes.size() < 64 * 1024);
  }
  auto t = agent::TrajectoryFromJson(store.files.at("trajectories/t1.r1.json"));
  REQUIRE(t.ok());
  CHECK(t->exit_detail == "patch exceeds 1048576 bytes");
  CHECK(t->patch.empty());
  for (const llm::ChatRequest& r : chat.requests()) {
    std::size_t bytes = 0;
    for (const auto& m : r.messages) bytes += m.content.size();
    CHECK(bytes < 64 * 1024);
  }
  if (measured) CHECK(seragen::testing::PeakRssGrowthKb() < 32 * 1024);
}

}  // namespace
}  // namespace seragen::pipeline
