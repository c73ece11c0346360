// The rollout loop with a scripted model, fake tools and a fake clock: no
// processes, no network, milliseconds per test.
#include "seragen/agent/rollout.h"

#include <catch2/catch.hpp>

#include "agent/agent_test_support.h"
#include "seragen/agent/trajectory_json.h"
#include "testing/fake_chat_client.h"
#include "testing/source_paths.h"

namespace seragen::agent {
namespace {

using llm::FailureClass;
using llm::MakeTextResponse;
using llm::MakeToolCallResponse;

class FakeTools final : public ToolExecutor {
 public:
  std::vector<llm::ToolSpec> Specs() const override { return TestToolSpecs(); }
  ToolOutcome Execute(const llm::ToolCall& call) override {
    calls.push_back(call.name + " " + call.arguments_json);
    if (clock && advance.count() > 0) clock->Advance(advance);
    ToolOutcome out;
    out.duration = run_time;
    if (call.name == "submit") {
      out.submitted = true;
      out.text = "submitted";
    } else if (call.name == "bash") {
      out.text = "ran";
      out.timed_out = time_out_commands;
    } else if (call.name == "editor") {
      out.text = "edited";
    } else if (call.name == "submit_huge") {
      out.kind = ToolOutcome::Kind::kPatchTooLarge;
      out.text = "patch exceeds 1048576 bytes";
    } else if (call.name == "fill_disk") {
      out.text = "ran [disk limit]";
      out.disk_limit = true;
    } else if (call.name == "broken") {
      out.kind = ToolOutcome::Kind::kHarnessError;
      out.text = "sandbox failed to start";
    } else {
      out.kind = ToolOutcome::Kind::kInvalidCall;
      out.text = "there is no tool named '" + call.name + "'";
    }
    return out;
  }
  std::vector<std::string> calls;
  FakeClock* clock = nullptr;
  std::chrono::seconds advance{0};
  std::chrono::microseconds run_time{0};  // reported duration, the clock untouched
  bool time_out_commands = false;
};

class FakePatch final : public PatchSource {
 public:
  Result<std::string> CurrentPatch() override { return patch; }
  std::string patch = "diff --git a/x.py b/x.py\n";
};

struct Harness {
  llm::FakeChatClient chat;
  FakeTools tools;
  FakePatch patch;
  QueueExecutor loop;
  QueueExecutor workers;
  FakeClock clock;
  AgentMessages messages = TestMessages();
  RolloutSpec spec;

  Harness() {
    spec.task_id = "t1";
    spec.system_prompt = "SYSTEM";
    spec.instance_prompt = "INSTANCE";
    spec.request_template.model = "m";
    spec.request_template.max_tokens = 512;
    tools.clock = &clock;
  }

  // `patch_source` stands in for `patch` when given.
  Trajectory Run(std::function<void(Rollout&)> after_start = nullptr, PatchSource* patch_source = nullptr) {
    RolloutDeps deps{&chat, &tools, patch_source ? patch_source : &patch, &loop, &workers, &clock, &messages};
    auto rollout = Rollout::Create(spec, deps);
    std::optional<Trajectory> result;
    loop.Post([&] {
      rollout->Start([&](Trajectory t) { result = std::move(t); });
      if (after_start) after_start(*rollout);
    });
    // Drive both executors until the rollout reports.
    for (int i = 0; i < 100000 && !result; ++i) {
      if (!loop.RunOne() && !workers.RunOne()) break;
    }
    REQUIRE(result.has_value());
    return std::move(*result);
  }
};

llm::ChatResponse WithUsage(llm::ChatResponse r, std::int64_t prompt, std::int64_t completion) {
  r.usage.present = true;
  r.usage.prompt_tokens = prompt;
  r.usage.completion_tokens = completion;
  r.usage.total_tokens = prompt + completion;
  return r;
}

}  // namespace

TEST_CASE("a clean rollout: tool calls, observations, submit, patch", "[agent]") {
  Harness h;
  h.chat.PushResponse(MakeToolCallResponse("editor", R"({"command":"view","path":"/repo/x.py"})", "c1"));
  h.chat.PushResponse(MakeToolCallResponse("bash", R"({"command":"grep -rn f /repo"})", "c2"));
  h.chat.PushResponse(MakeToolCallResponse("submit", "{}", "c3"));
  Trajectory t = h.Run();
  CHECK(t.exit_status == ExitStatus::kSubmitted);
  CHECK(t.totals.steps == 3);
  CHECK(t.totals.model_calls == 3);
  CHECK(t.patch == h.patch.patch);
  CHECK(t.has_patch);
  // system, user, then (assistant, tool) x 3
  REQUIRE(t.history.size() == 8);
  CHECK(t.history[0].role == llm::Role::kSystem);
  CHECK(t.history[1].content == "INSTANCE");
  CHECK(t.history[2].role == llm::Role::kAssistant);
  CHECK(t.history[3].role == llm::Role::kTool);
  CHECK(t.history[3].tool_call_id == "c1");
  CHECK(t.history[3].content == "edited");
  CHECK(h.tools.calls.size() == 3);
}

TEST_CASE("the trajectory names the model the server reported, not the configured one", "[agent]") {
  Harness h;  // configured model "m"
  llm::ChatResponse first = MakeToolCallResponse("bash", R"({"command":"ls"})", "c1");
  first.model = "served-a";
  llm::ChatResponse last = MakeToolCallResponse("submit", "{}", "c2");
  last.model = "served-b";
  h.chat.PushResponse(first);
  h.chat.PushResponse(last);
  Trajectory t = h.Run();
  CHECK(h.chat.requests().front().model == "m");
  CHECK(t.model == "served-b");
  SECTION("an answer without a model id keeps the configured one") {
    Harness quiet;
    quiet.chat.PushResponse(MakeToolCallResponse("submit", "{}", "c1"));
    CHECK(quiet.Run().model == "m");
  }
}

TEST_CASE("history is append-only: every request extends the previous one", "[agent]") {
  Harness h;
  for (int i = 0; i < 4; ++i)
    h.chat.PushResponse(MakeToolCallResponse("bash", R"({"command":"ls"})", "c" + std::to_string(i)));
  h.chat.PushResponse(MakeToolCallResponse("submit", "{}"));
  h.Run();
  auto reqs = h.chat.requests();
  REQUIRE(reqs.size() == 5);
  for (std::size_t i = 1; i < reqs.size(); ++i) {
    REQUIRE(reqs[i].messages.size() == reqs[i - 1].messages.size() + 2);
    for (std::size_t k = 0; k < reqs[i - 1].messages.size(); ++k) {
      CHECK(reqs[i].messages[k].content == reqs[i - 1].messages[k].content);
    }
  }
  CHECK(reqs[0].tools.size() == 3);
}

TEST_CASE("each format-error kind gets its message, a retry, and stays out of the history", "[agent]") {
  struct Case {
    const char* kind;
    llm::ChatResponse bad;
    const char* message_prefix;
  };
  llm::ChatResponse markup = MakeTextResponse("<tool_call>{\"name\": \"bash\"</tool_call>");
  markup.tool_issue = llm::ToolIssue::kToolFormat;
  markup.tool_issue_detail = "tool_call markup in content";
  llm::ChatResponse multi = MakeToolCallResponse("bash", R"({"command":"ls"})", "a");
  multi.tool_calls.push_back(multi.tool_calls.front());
  multi.tool_calls.back().id = "b";
  llm::ChatResponse truncated = MakeToolCallResponse("editor", R"({"command":"create","file_text":"def f(x):\n  retu)");
  truncated.finish_reason = "length";
  std::vector<Case> cases = {
      {"no_tool_call", MakeTextResponse("I think the bug is in f."), "NO_TOOL bash, editor, submit"},
      {"multiple_tool_calls", multi, "MULTI 2"},
      {"tool_markup", markup, "MARKUP tool_call markup in content"},
      {"invalid_arguments", MakeToolCallResponse("bash", R"({"command": "ls")"), "BADJSON"},
      {"invalid_arguments", truncated, "TRUNCATED 512"},
      {"invalid_call", MakeToolCallResponse("teleport", R"({"to":"mars"})"),
       "INVALID there is no tool named 'teleport'"},
  };
  for (const Case& c : cases) {
    INFO(c.kind << " / " << c.message_prefix);
    Harness h;
    h.chat.PushResponse(c.bad);
    h.chat.PushResponse(MakeToolCallResponse("submit", "{}", "ok"));
    Trajectory t = h.Run();
    CHECK(t.exit_status == ExitStatus::kSubmitted);
    REQUIRE(t.turns.size() == 2);
    CHECK_FALSE(t.turns[0].accepted);
    CHECK(t.turns[0].format_error == c.kind);
    CHECK(t.turns[0].format_error_message.rfind(c.message_prefix, 0) == 0);
    CHECK(t.turns[1].accepted);
    CHECK(t.totals.format_errors == 1);
    // The retry request showed the rejected turn and the error, once.
    auto reqs = h.chat.requests();
    REQUIRE(reqs.size() == 2);
    REQUIRE(reqs[1].messages.size() == 4);
    CHECK(reqs[1].messages[2].role == llm::Role::kAssistant);
    CHECK(reqs[1].messages[2].tool_calls.empty());  // never resend invalid arguments
    CHECK(reqs[1].messages[3].content == t.turns[0].format_error_message);
    // ...but the history keeps only accepted turns.
    REQUIRE(t.history.size() == 4);
    CHECK(t.history[2].tool_calls.front().name == "submit");
  }
}

// Issue 12, finding 2: 100,000-level nested arguments crashed the worker
// (recursive dump). They are an invalid_arguments format error now, and the
// trajectory with them in it saves and loads.
TEST_CASE("deeply nested tool arguments are a format error observation, not a crash", "[agent]") {
  constexpr int kLevels = 100000;
  std::string deep = "{\"command\":" + std::string(kLevels, '[') + std::string(kLevels, ']') + "}";
  Harness h;
  h.chat.PushResponse(MakeToolCallResponse("bash", deep, "deep"));
  h.chat.PushResponse(MakeToolCallResponse("submit", "{}", "ok"));
  Trajectory t = h.Run();
  CHECK(t.exit_status == ExitStatus::kSubmitted);
  REQUIRE(t.turns.size() == 2);
  CHECK(t.turns[0].format_error == "invalid_arguments");
  CHECK(t.turns[0].format_error_message.find("nests deeper than 64 levels") != std::string::npos);
  CHECK(h.tools.calls == std::vector<std::string>{"submit {}"});
  auto back = TrajectoryFromJson(TrajectoryToJson(t));
  REQUIRE(back.ok());
  CHECK(back->turns[0].response.tool_calls.at(0).arguments_raw == deep);
}

TEST_CASE("N consecutive format errors end with exit_format, a good turn resets the count", "[agent]") {
  Harness h;
  h.spec.limits.max_format_errors = 3;
  h.chat.PushResponse(MakeTextResponse("a"));
  h.chat.PushResponse(MakeTextResponse("b"));
  h.chat.PushResponse(MakeToolCallResponse("bash", R"({"command":"ls"})"));
  h.chat.PushResponse(MakeTextResponse("c"));
  h.chat.PushResponse(MakeTextResponse("d"));
  h.chat.PushResponse(MakeTextResponse("e"));
  h.chat.PushResponse(MakeToolCallResponse("submit", "{}"));
  Trajectory t = h.Run();
  CHECK(t.exit_status == ExitStatus::kFormat);
  CHECK(t.totals.format_errors == 5);
  CHECK(t.totals.steps == 1);
  CHECK(t.patch == h.patch.patch);  // diff captured on every exit
  CHECK(h.chat.remaining() == 1);
}

TEST_CASE("limits: steps, tokens, cost, wall clock, command timeouts", "[agent]") {
  SECTION("steps") {
    Harness h;
    h.spec.limits.max_steps = 2;
    h.chat.SetHandler([](const llm::ChatRequest&) {
      return Result<llm::ChatResponse>(MakeToolCallResponse("bash", R"({"command":"ls"})"));
    });
    Trajectory t = h.Run();
    CHECK(t.exit_status == ExitStatus::kSteps);
    CHECK(t.totals.steps == 2);
    CHECK(t.has_patch);
  }
  SECTION("tokens") {
    Harness h;
    h.spec.limits.max_tokens = 2500;
    h.chat.SetHandler([](const llm::ChatRequest&) {
      return Result<llm::ChatResponse>(WithUsage(MakeToolCallResponse("bash", R"({"command":"ls"})"), 1000, 100));
    });
    Trajectory t = h.Run();
    CHECK(t.exit_status == ExitStatus::kTokens);
    CHECK(t.totals.prompt_tokens == 3000);
    CHECK(t.totals.completion_tokens == 300);
  }
  SECTION("cost") {
    Harness h;
    h.spec.prices.run.prompt_per_mtok = 1000;  // $0.001 per prompt token
    h.spec.limits.max_cost_usd = 1.5;
    h.chat.SetHandler([](const llm::ChatRequest&) {
      return Result<llm::ChatResponse>(WithUsage(MakeToolCallResponse("bash", R"({"command":"ls"})"), 1000, 0));
    });
    Trajectory t = h.Run();
    CHECK(t.exit_status == ExitStatus::kCost);
    CHECK(t.totals.cost_usd == Approx(2.0));
  }
  SECTION("cost, each answer at the price of the endpoint that gave it") {
    Harness h;
    h.spec.prices.run.prompt_per_mtok = 1000;  // llm.pricing: $0.001 per prompt token
    Pricing cheap;
    cheap.prompt_per_mtok = 100;  // this endpoint's own: $0.0001 per prompt token
    h.spec.prices.endpoints = {{"http://cheap.example/v1", cheap}};
    h.spec.limits.max_cost_usd = 1.5;
    int calls = 0;
    h.chat.SetHandler([&calls](const llm::ChatRequest&) {
      llm::ChatResponse r = WithUsage(MakeToolCallResponse("bash", R"({"command":"ls"})"), 1000, 0);
      r.endpoint = ++calls % 2 == 1 ? "http://cheap.example/v1" : "http://dear.example/v1";
      return Result<llm::ChatResponse>(r);
    });
    Trajectory t = h.Run();
    // $0.10 and $1.00 in turn: $1.50 is passed after the fourth answer ($2.20), not the second as at one price.
    CHECK(t.exit_status == ExitStatus::kCost);
    CHECK(calls == 4);
    CHECK(t.totals.cost_usd == Approx(2.2));
  }
  SECTION("wall clock") {
    Harness h;
    h.spec.limits.wall_clock = std::chrono::seconds(25);
    h.tools.advance = std::chrono::seconds(10);
    h.chat.SetHandler([](const llm::ChatRequest&) {
      return Result<llm::ChatResponse>(MakeToolCallResponse("bash", R"({"command":"sleep 10"})"));
    });
    Trajectory t = h.Run();
    CHECK(t.exit_status == ExitStatus::kWallClock);
    CHECK(t.totals.steps == 3);
    // The model call's deadline never exceeds the time left.
    auto reqs = h.chat.requests();
    CHECK(reqs.size() == 3);
  }
  SECTION("consecutive command timeouts") {
    Harness h;
    h.spec.limits.max_consecutive_timeouts = 2;
    h.tools.time_out_commands = true;
    h.chat.SetHandler([](const llm::ChatRequest&) {
      return Result<llm::ChatResponse>(MakeToolCallResponse("bash", R"({"command":"sleep 999"})"));
    });
    Trajectory t = h.Run();
    CHECK(t.exit_status == ExitStatus::kCommandTimeouts);
    CHECK(t.totals.steps == 2);
  }
}

TEST_CASE("the model-call budget counts format-error calls too", "[agent]") {
  Harness h;
  h.spec.limits.max_model_calls = 5;
  h.spec.limits.max_format_errors = 100;
  int n = 0;
  h.chat.SetHandler([&n](const llm::ChatRequest&) {
    // Every other answer is malformed: 5 calls are 3 accepted turns and 2 format errors.
    return Result<llm::ChatResponse>(n++ % 2 == 1 ? MakeTextResponse("thinking aloud")
                                                  : MakeToolCallResponse("bash", R"({"command":"ls"})"));
  });
  Trajectory t = h.Run();
  CHECK(t.exit_status == ExitStatus::kModelCalls);
  CHECK(t.totals.model_calls == 5);
  CHECK(t.totals.format_errors == 2);
  CHECK(t.totals.steps == 3);
  CHECK(h.chat.requests().size() == 5);
}

TEST_CASE("the command-time budget sums the run time of commands, not the wall clock", "[agent]") {
  Harness h;
  h.spec.limits.max_command_time = std::chrono::seconds(25);
  h.tools.run_time = std::chrono::seconds(10);  // the fake clock stands still
  h.chat.SetHandler([](const llm::ChatRequest&) {
    return Result<llm::ChatResponse>(MakeToolCallResponse("bash", R"({"command":"sleep 10"})"));
  });
  Trajectory t = h.Run();
  CHECK(t.exit_status == ExitStatus::kCommandTime);
  CHECK(t.totals.steps == 3);  // 10 + 10 < 25 <= 30
  CHECK(t.totals.command_seconds == Approx(30.0));
  CHECK(t.totals.wall_seconds == 0);
}

TEST_CASE("a rollout ended by a budget still submits its diff (autosubmitted)", "[agent]") {
  auto bash_forever = [](const llm::ChatRequest&) {
    return Result<llm::ChatResponse>(MakeToolCallResponse("bash", R"({"command":"ls"})"));
  };
  SECTION("a call budget with a diff: autosubmitted, the limit kept as exit status") {
    Harness h;
    h.spec.limits.max_model_calls = 2;
    h.chat.SetHandler(bash_forever);
    Trajectory t = h.Run();
    CHECK(t.exit_status == ExitStatus::kModelCalls);
    CHECK(t.autosubmitted);
    CHECK(OutcomeName(t.exit_status, t.autosubmitted) == "autosubmitted:exit_model_calls");
    auto back = TrajectoryFromJson(TrajectoryToJson(t));
    REQUIRE(back.ok());
    CHECK(back->autosubmitted);
  }
  SECTION("repeated format errors with a diff are autosubmitted too") {
    Harness h;
    h.spec.limits.max_format_errors = 1;
    h.chat.PushResponse(MakeTextResponse("no call"));
    Trajectory t = h.Run();
    CHECK(t.exit_status == ExitStatus::kFormat);
    CHECK(t.autosubmitted);
  }
  SECTION("no diff, nothing to submit") {
    Harness h;
    h.spec.limits.max_model_calls = 2;
    h.patch.patch = "";
    h.chat.SetHandler(bash_forever);
    Trajectory t = h.Run();
    CHECK(t.exit_status == ExitStatus::kModelCalls);
    CHECK_FALSE(t.autosubmitted);
  }
  SECTION("a disk-limit exit is not autosubmitted, nor is a plain submit") {
    Harness h;
    h.chat.PushResponse(MakeToolCallResponse("fill_disk", "{}"));
    CHECK_FALSE(h.Run().autosubmitted);
    Harness s;
    s.chat.PushResponse(MakeToolCallResponse("submit", "{}"));
    Trajectory t = s.Run();
    CHECK(t.exit_status == ExitStatus::kSubmitted);
    CHECK_FALSE(t.autosubmitted);
  }
}

TEST_CASE("model failures map to exit statuses, infrastructure is tagged", "[agent]") {
  struct Case {
    FailureClass fc;
    ExitStatus expected;
  } cases[] = {
      {FailureClass::kContextOverflow, ExitStatus::kContext},
      {FailureClass::kTransientServer, ExitStatus::kLlmError},
      {FailureClass::kRateLimited, ExitStatus::kLlmError},
      {FailureClass::kConfig, ExitStatus::kConfigError},
      {FailureClass::kQuota, ExitStatus::kQuota},
      {FailureClass::kCancelled, ExitStatus::kCancelled},
  };
  for (const Case& c : cases) {
    INFO(llm::FailureClassName(c.fc));
    Harness h;
    h.chat.PushResponse(MakeToolCallResponse("bash", R"({"command":"ls"})"));
    h.chat.PushFailure(c.fc, "scripted failure");
    Trajectory t = h.Run();
    CHECK(t.exit_status == c.expected);
    CHECK(t.turns.back().failure_class == std::string(llm::FailureClassName(c.fc)));
    CHECK(t.has_patch);
    CHECK(IsInfrastructureExit(t.exit_status) == (c.expected != ExitStatus::kContext));
  }
}

TEST_CASE("a harness failure or an oversized patch at submit ends the rollout with its exit status", "[agent]") {
  struct Case {
    const char* tool;
    ExitStatus exit;
    const char* name;
    const char* detail;
    bool infrastructure;
  };
  const Case cases[] = {
      {"broken", ExitStatus::kToolError, "exit_tool_error", "sandbox failed to start", true},
      {"submit_huge", ExitStatus::kPatchTooLarge, "exit_patch_too_large", "patch exceeds 1048576 bytes", false}};
  for (const Case& c : cases) {
    Harness h;
    h.chat.PushResponse(MakeToolCallResponse(c.tool, "{}"));
    Trajectory t = h.Run();
    CHECK(t.exit_status == c.exit);
    CHECK(ExitStatusName(t.exit_status) == c.name);
    CHECK(t.exit_detail == c.detail);
    CHECK(IsInfrastructureExit(t.exit_status) == c.infrastructure);
  }
}

TEST_CASE("a working copy over its disk limit ends with exit_disk_limit, a model outcome", "[agent]") {
  Harness h;
  h.chat.PushResponse(MakeToolCallResponse("fill_disk", "{}", "c1"));
  h.chat.PushResponse(MakeToolCallResponse("submit", "{}", "c2"));
  Trajectory t = h.Run();
  CHECK(t.exit_status == ExitStatus::kDiskLimit);
  CHECK_FALSE(IsInfrastructureExit(t.exit_status));
  CHECK(ExitStatusName(t.exit_status) == "exit_disk_limit");
  CHECK(ParseExitStatus("exit_disk_limit") == ExitStatus::kDiskLimit);
  // The agent's turn and the observation that says why are in the trajectory.
  REQUIRE(t.turns.size() == 1);
  CHECK(t.turns.back().observation == "ran [disk limit]");
  CHECK(h.tools.calls.size() == 1);
}

TEST_CASE("cancel stops at the next step with exit_cancelled", "[agent]") {
  Harness h;
  h.chat.SetHandler([](const llm::ChatRequest&) {
    return Result<llm::ChatResponse>(MakeToolCallResponse("bash", R"({"command":"ls"})"));
  });
  Trajectory t = h.Run([](Rollout& r) { r.Cancel(); });
  CHECK(t.exit_status == ExitStatus::kCancelled);
  CHECK(h.tools.calls.empty());
}

TEST_CASE("a patch that cannot be computed is recorded, not fatal", "[agent]") {
  class BadPatch final : public PatchSource {
    Result<std::string> CurrentPatch() override { return IoError("copy vanished"); }
  } bad;
  Harness h;
  h.chat.PushResponse(MakeToolCallResponse("submit", "{}"));
  Trajectory t = h.Run(nullptr, &bad);
  CHECK(t.exit_status == ExitStatus::kSubmitted);
  CHECK_FALSE(t.has_patch);
  CHECK(t.patch_error == "IO_ERROR: copy vanished");
}

TEST_CASE("an oversized final patch turns any model outcome into exit_patch_too_large", "[agent]") {
  class HugePatch final : public PatchSource {
    Result<std::string> CurrentPatch() override { return ResourceExhaustedError("patch exceeds 1048576 bytes"); }
  } huge;
  Harness h;
  h.spec.limits.max_steps = 1;
  h.chat.PushResponse(MakeToolCallResponse("bash", R"({"command":"ls"})"));
  Trajectory t = h.Run(nullptr, &huge);
  CHECK(t.exit_status == ExitStatus::kPatchTooLarge);
  CHECK(t.exit_detail.find("patch exceeds 1048576 bytes") == 0);
  CHECK(t.exit_detail.find("exit_steps") != std::string::npos);
  CHECK_FALSE(t.has_patch);
  CHECK(t.patch.empty());
}

TEST_CASE("the trajectory record is bounded: past the limit the rollout ends", "[agent]") {
  Harness h;
  h.spec.limits.max_trajectory_bytes = 64 * 1024;
  std::string big(20 * 1024, 'x');
  h.chat.SetHandler([&](const llm::ChatRequest&) {
    return Result<llm::ChatResponse>(MakeToolCallResponse("bash", R"({"command":"echo )" + big + R"("})"));
  });
  Trajectory t = h.Run();
  CHECK(t.exit_status == ExitStatus::kTrajectoryTooLarge);
  CHECK_FALSE(IsInfrastructureExit(t.exit_status));
  // Stopped within one turn of the limit: a turn here is ~60 KB recorded.
  CHECK(t.totals.steps <= 2);
  CHECK(TrajectoryToJson(t).size() < 4 * 64 * 1024);
}

// Issue 28, finding 5: a 50 MB tool argument was stored whole (twice), sent
// back and journaled; the trajectory limit was only checked before the next call.
TEST_CASE("an oversized answer is cut when it arrives and rejected as a format error", "[agent][r2-finding5]") {
  Harness h;
  h.spec.limits.max_answer_bytes = 64 * 1024;
  const std::string huge(3 * 1024 * 1024, 'x');
  llm::ChatResponse big = MakeToolCallResponse("bash", R"({"command":"echo )" + huge + R"("})", "big");
  big.raw_body = huge;
  big.content = huge;
  const std::size_t size = big.content.size() + big.tool_calls[0].arguments_raw.size() + 4 + 3;  // + name + id
  h.chat.PushResponse(big);
  h.chat.PushResponse(MakeToolCallResponse("submit", "{}", "ok"));
  Trajectory t = h.Run();
  CHECK(t.exit_status == ExitStatus::kSubmitted);
  REQUIRE(t.turns.size() == 2);
  CHECK(t.turns[0].format_error == "answer_too_large");
  CHECK(t.turns[0].format_error_message == "TOO_LARGE " + std::to_string(size) + " > 65536");
  CHECK(h.tools.calls == std::vector<std::string>{"submit {}"});  // the cut call never ran
  const llm::ChatResponse& stored = t.turns[0].response;
  CHECK(stored.tool_issue == llm::ToolIssue::kTooLarge);
  CHECK(stored.content.size() <= 2000);
  CHECK(stored.raw_body.size() <= 2000);
  CHECK(stored.tool_calls.at(0).arguments_raw.size() <= 2000);
  CHECK(TrajectoryToJson(t).size() < 64 * 1024);
  // The retry request carries the cut turn only.
  auto reqs = h.chat.requests();
  REQUIRE(reqs.size() == 2);
  std::size_t sent = 0;
  for (const auto& m : reqs[1].messages) sent += m.content.size();
  CHECK(sent < 8 * 1024);
  auto back = TrajectoryFromJson(TrajectoryToJson(t));
  REQUIRE(back.ok());
  CHECK(back->turns[0].response.tool_issue == llm::ToolIssue::kTooLarge);
}

TEST_CASE("answers within max_answer_bytes are untouched", "[agent]") {
  Harness h;
  h.spec.limits.max_answer_bytes = 64 * 1024;
  h.chat.PushResponse(MakeToolCallResponse("bash", R"({"command":")" + std::string(60 * 1024, 'y') + R"("})", "a"));
  h.chat.PushResponse(MakeToolCallResponse("submit", "{}", "ok"));
  Trajectory t = h.Run();
  CHECK(t.turns.at(0).accepted);
  CHECK(t.turns.at(0).response.tool_issue == llm::ToolIssue::kNone);
}

TEST_CASE("trajectories round-trip through JSON", "[agent]") {
  Harness h;
  llm::ChatResponse r =
      WithUsage(MakeToolCallResponse("editor", R"({"command":"view","path":"/repo/a.py"})", "c1"), 10, 5);
  r.reasoning = "look first";
  r.reasoning_source = llm::ReasoningSource::kReasoningContentField;
  r.usage.cached_prompt_tokens = 4;
  h.chat.PushResponse(MakeTextResponse("oops"));
  h.chat.PushResponse(r);
  h.chat.PushResponse(MakeToolCallResponse("submit", "{}"));
  Trajectory t = h.Run();
  std::string text = TrajectoryToJson(t);
  auto back = TrajectoryFromJson(text);
  REQUIRE(back.ok());
  CHECK(TrajectoryToJson(*back) == text);
  CHECK(back->turns.size() == 3);
  CHECK(back->turns[1].response.reasoning == "look first");
  CHECK(back->history[2].reasoning == "look first");
  CHECK(back->totals.cached_prompt_tokens == 4);
  CHECK_FALSE(TrajectoryFromJson("{\"format\":\"seragen-trajectory\",\"version\":99}").ok());
  CHECK_FALSE(TrajectoryFromJson("not json").ok());
}

TEST_CASE("exit status names are stable", "[agent]") {
  CHECK(ExitStatusName(ExitStatus::kFormat) == "exit_format");
  CHECK(ExitStatusName(ExitStatus::kContext) == "exit_context");
  CHECK(ParseExitStatus("exit_wall_clock") == ExitStatus::kWallClock);
  CHECK(ParseExitStatus("exit_patch_too_large") == ExitStatus::kPatchTooLarge);
  CHECK(ParseExitStatus("exit_trajectory_too_large") == ExitStatus::kTrajectoryTooLarge);
  CHECK_FALSE(ParseExitStatus("nope").has_value());
}

TEST_CASE("the shipped format-error messages load and render", "[agent]") {
  auto m = AgentMessages::Load(seragen::testing::SourcePath("prompts/format_errors"));
  REQUIRE(m.ok());
  CHECK(m->no_tool_call.find("{{tool_names}}") != std::string::npos);
  CHECK_FALSE(m->empty_reply.empty());
  CHECK_FALSE(AgentMessages::Load("/nonexistent").ok());
}

}  // namespace seragen::agent
