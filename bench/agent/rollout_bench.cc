// Orchestrator throughput: whole rollouts through the real agent loop and the
// real in-process file tool (view / str_replace / undo on a file in a temp
// copy), with a scripted model answering instantly and a fake command runner.
// Everything runs on one thread (inline executors), so steps/s is the cost of
// the orchestrator itself: request building, validation, tool execution,
// history and trajectory bookkeeping. Prints steps/s and CPU per step.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "bench_util.h"
#include "seragen/agent/rollout.h"
#include "seragen/agent/trajectory_json.h"
#include "seragen/base/executor.h"
#include "seragen/pipeline/toolbox_executor.h"
#include "seragen/tools/tool_box.h"
#include "testing/fake_chat_client.h"
#include "testing/fake_command_runner.h"
#include "testing/source_paths.h"

using namespace seragen;

namespace {

class NoPatch final : public PatchSource {
 public:
  Result<std::string> CurrentPatch() override { return std::string("diff --git a/m.py b/m.py\n"); }
};

}  // namespace

int main(int argc, char** argv) {
  int rollouts = argc > 1 ? std::atoi(argv[1]) : 40;
  int steps = argc > 2 ? std::atoi(argv[2]) : 50;
  std::string src = seragen::testing::SourceDir();
  auto resources = tools::LoadToolResources(src + "/configs/tools.yaml", src + "/prompts/tools/messages.yaml");
  auto messages = agent::AgentMessages::Load(src + "/prompts/format_errors");
  if (!resources.ok() || !messages.ok()) {
    std::fprintf(stderr, "cannot load tools/prompts\n");
    return 1;
  }
  std::string copy = std::filesystem::temp_directory_path() / "seragen-rollout-bench";
  std::filesystem::remove_all(copy);
  std::filesystem::create_directories(copy);
  {
    std::ofstream f(copy + "/m.py");
    for (int i = 0; i < 300; ++i) f << "def f" << i << "(x):\n    return x + " << i << "\n\n";
  }
  sandbox::FakeCommandRunner runner;
  runner.SetHandler([](const sandbox::CommandRequest&, const sandbox::RunLimits&) -> Result<sandbox::CommandResult> {
    sandbox::CommandResult r;
    r.exit_code = 0;
    r.output = "m.py:12:def f4(x):\n";
    return r;
  });
  NoPatch patch;
  tools::ToolOptions topts;
  topts.submit_review = false;

  std::int64_t total_steps = 0;
  auto start = std::chrono::steady_clock::now();
  double cpu0 = bench::ReadUsage().cpu_seconds;
  for (int r = 0; r < rollouts; ++r) {
    tools::ToolBox box(&*resources, &runner, copy, &patch, topts);
    pipeline::ToolBoxExecutor tools(&box, &*resources);
    llm::FakeChatClient chat;
    int n = 0;
    chat.SetHandler([&n, steps](const llm::ChatRequest&) -> Result<llm::ChatResponse> {
      int k = n++;
      if (k >= steps - 1) return llm::MakeToolCallResponse("submit", "{}");
      switch (k % 4) {
        case 0:
          return llm::MakeToolCallResponse("editor", R"({"command":"view","path":"/repo/m.py","view_range":[1,40]})");
        case 1:
          return llm::MakeToolCallResponse(
              "editor",
              R"({"command":"str_replace","path":"/repo/m.py","old_str":"    return x + 7\n","new_str":"    if x is None:\n        raise ValueError(\"x\")\n    return x + 7\n"})");
        case 2: return llm::MakeToolCallResponse("bash", R"({"command":"grep -n f4 /repo/m.py"})");
        default: return llm::MakeToolCallResponse("editor", R"({"command":"undo_edit","path":"/repo/m.py"})");
      }
    });
    QueueExecutor loop;
    FakeClock clock;
    agent::RolloutSpec spec;
    spec.task_id = "bench";
    spec.system_prompt = "system";
    spec.instance_prompt = "instance";
    spec.request_template.model = "m";
    spec.limits.max_steps = steps + 10;
    agent::RolloutDeps deps{&chat, &tools, &patch, &loop, &loop, &clock, &*messages};
    auto rollout = agent::Rollout::Create(spec, deps);
    std::optional<agent::Trajectory> out;
    rollout->Start([&](agent::Trajectory t) { out = std::move(t); });
    loop.RunUntilIdle();
    if (!out || out->exit_status != agent::ExitStatus::kSubmitted) {
      std::fprintf(stderr, "rollout %d did not submit\n", r);
      return 1;
    }
    total_steps += out->totals.steps;
    std::string json = agent::TrajectoryToJson(*out);  // the trajectory file's serialisation is part of a rollout
    if (json.empty()) return 1;
  }
  double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  double cpu = bench::ReadUsage().cpu_seconds - cpu0;
  std::printf("rollouts: %d x %d steps (view / str_replace / grep / undo, then submit)\n", rollouts, steps);
  std::printf("orchestrator steps per second (one core): %.0f  (target > 500)\n", total_steps / wall);
  std::printf("CPU per step: %.1f us;  wall %.3f s for %lld steps\n", 1e6 * cpu / total_steps, wall,
              static_cast<long long>(total_steps));
  std::filesystem::remove_all(copy);
  return 0;
}
