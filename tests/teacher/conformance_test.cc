// The teacher against the project's own client and tools:
//  - every response mode decodes with llm::DecodeChatResponse / SseAssembler;
//  - HttpChatClient over real loopback HTTP classifies each injected fault;
//  - a scripted rollout runs through the real ToolBox (editor, bash, submit)
//    on a fixture repository, and each edit's old_str occurs exactly once in
//    the file as it was when the edit was made.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <functional>
#include <future>
#include <memory>
#include <sstream>

#include "seragen/base/clock.h"
#include "seragen/base/file_util.h"
#include "seragen/base/rng.h"
#include "seragen/base/template.h"
#include "seragen/http/curl_client.h"
#include "seragen/llm/http_chat_client.h"
#include "seragen/llm/sse_assembler.h"
#include "seragen/llm/wire_codec.h"
#include "seragen/loop/event_loop.h"
#include "seragen/sandbox/unconfined_runner.h"
#include "seragen/tools/tool_box.h"
#include "teacher/responder.h"
#include "teacher/server.h"
#include "teacher/test_support.h"
#include "teacher/wire_format.h"
#include "testing/sandbox_uids.h"
#include "testing/source_paths.h"
#include "testing/temp_dir.h"

using namespace seragen;
using namespace seragen::teacher;
using namespace seragen::teacher::testing;
using nlohmann::json;

namespace {

std::string RolloutBody(bool stream) {
  json body = {{"model", "x"},
               {"messages",
                {{{"role", "system"}, {"content", ReadPrompt("system.md")}},
                 {{"role", "user"}, {"content", Rollout1Prompt("clamp", "pkg/config.py", 13)}}}},
               {"tools", ToolsJson()}};
  if (stream) {
    body["stream"] = true;
    body["stream_options"] = {{"include_usage", true}};
  }
  return body.dump();
}

TeacherOptions Opts() {
  TeacherOptions o;
  o.prompts_dir = PromptsDir();
  o.seed = 2;
  return o;
}

Result<llm::ChatResponse> DecodeStream(const std::vector<std::string>& events, std::uint64_t split_seed) {
  std::string all;
  for (const auto& e : events) all += e;
  llm::SseAssembler sse;
  Rng rng(split_seed);
  std::size_t pos = 0;
  while (pos < all.size()) {  // arbitrary TCP-like splits
    std::size_t n = std::min<std::size_t>(all.size() - pos, 1 + rng.Uniform(40));
    sse.Feed(std::string_view(all).substr(pos, n));
    pos += n;
  }
  return sse.Finish();
}

}  // namespace

TEST_CASE("Every reasoning mode decodes with the project's client, streamed or not") {
  struct Mode {
    ReasoningMode mode;
    llm::ReasoningSource source;
  };
  for (Mode m : {Mode{ReasoningMode::kReasoning, llm::ReasoningSource::kReasoningField},
                 Mode{ReasoningMode::kReasoningContent, llm::ReasoningSource::kReasoningContentField},
                 Mode{ReasoningMode::kThinkTag, llm::ReasoningSource::kThinkTag},
                 Mode{ReasoningMode::kNone, llm::ReasoningSource::kNone}}) {
    TeacherOptions o = Opts();
    o.knobs.reasoning = m.mode;
    Responder responder(o, Prompts());
    ResponsePlan plain = responder.PlanChat(RolloutBody(false));
    auto decoded = llm::DecodeChatResponse(plain.body);
    REQUIRE(decoded.ok());
    CHECK(decoded->reasoning_source == m.source);
    if (m.mode != ReasoningMode::kNone) CHECK_FALSE(decoded->reasoning.empty());
    REQUIRE(decoded->tool_calls.size() == 1);
    CHECK(decoded->tool_calls[0].name == "editor");
    CHECK(decoded->tool_calls[0].arguments_valid);
    CHECK(decoded->tool_issue == llm::ToolIssue::kNone);
    CHECK(decoded->finish_reason == "tool_calls");
    CHECK(decoded->usage.present);
    for (std::uint64_t split = 0; split < 5; ++split) {
      ResponsePlan streamed = responder.PlanChat(RolloutBody(true));
      auto s = DecodeStream(streamed.events, split);
      REQUIRE(s.ok());
      CHECK(s->tool_calls.size() == 1);
      CHECK(s->tool_calls[0].arguments_json == decoded->tool_calls[0].arguments_json);
      CHECK(s->reasoning == decoded->reasoning);
      CHECK(s->reasoning_source == decoded->reasoning_source);
      CHECK(s->usage.present);
    }
  }
}

TEST_CASE("Wire glitches are seen by the client as the tool issues they imitate") {
  struct Case {
    const char* knob;
    llm::ToolIssue issue;
  };
  for (Case c : {Case{"raw", llm::ToolIssue::kToolFormat}, Case{"json", llm::ToolIssue::kToolArgs}}) {
    for (RawMarkupStyle style : {RawMarkupStyle::kHermes, RawMarkupStyle::kQwenXml, RawMarkupStyle::kGlm}) {
      TeacherOptions o = Opts();
      if (std::string(c.knob) == "raw") o.knobs.raw_markup_rate = 1;
      else o.knobs.invalid_json_rate = 1;
      o.knobs.raw_markup_style = style;
      Responder responder(o, Prompts());
      auto decoded = llm::DecodeChatResponse(responder.PlanChat(RolloutBody(false)).body);
      REQUIRE(decoded.ok());
      CHECK(decoded->tool_issue == c.issue);
      auto streamed = DecodeStream(responder.PlanChat(RolloutBody(true)).events, 1);
      REQUIRE(streamed.ok());
      CHECK(streamed->tool_issue == c.issue);
    }
  }
  TeacherOptions o = Opts();
  o.knobs.multi_call_rate = 1;
  Responder responder(o, Prompts());
  auto two = llm::DecodeChatResponse(responder.PlanChat(RolloutBody(false)).body);
  REQUIRE(two.ok());
  CHECK(two->tool_calls.size() == 2);
}

TEST_CASE("Mid-stream errors and cut streams fail the client's SSE assembly") {
  TeacherOptions o = Opts();
  Responder responder(o, Prompts());
  ResponsePlan plan = responder.PlanChat(RolloutBody(true));
  std::vector<std::string> cut(plan.events.begin(), plan.events.begin() + plan.events.size() / 2);
  auto truncated = DecodeStream(cut, 3);
  REQUIRE_FALSE(truncated.ok());
  CHECK(llm::FailureClassOf(truncated.status()) == llm::FailureClass::kTransientServer);
  cut.push_back(RenderStreamError("boom"));
  auto errored = DecodeStream(cut, 4);
  REQUIRE_FALSE(errored.ok());
  CHECK(llm::FailureClassOf(errored.status()) == llm::FailureClass::kTransientServer);
}

namespace {

// A real EventLoop + CurlClient + HttpChatClient aimed at a teacher.
struct LiveClient {
  explicit LiveClient(int port, int max_attempts) {
    llm::ChatClientOptions options;
    llm::EndpointOptions endpoint;
    endpoint.base_url = "http://127.0.0.1:" + std::to_string(port) + "/v1";
    options.endpoints.push_back(endpoint);
    options.retry.max_attempts = max_attempts;
    options.retry.base_delay = std::chrono::milliseconds(5);
    options.retry.max_delay = std::chrono::milliseconds(20);
    curl = std::make_unique<http::CurlClient>(loop);
    client = std::make_unique<llm::HttpChatClient>(*curl, loop, SystemClock(), options);
  }
  ~LiveClient() {
    client.reset();
    curl.reset();
  }
  Result<llm::ChatResponse> Call(bool stream, std::chrono::milliseconds attempt_timeout = std::chrono::seconds(10)) {
    llm::ChatRequest request;
    request.model = "seragen-scripted-teacher (not a model)";
    request.messages.push_back({llm::Role::kSystem, ReadPrompt("system.md")});
    request.messages.push_back({llm::Role::kUser, Rollout1Prompt("clamp", "pkg/config.py", 13)});
    for (const json& t : ToolsJson()) {
      request.tools.push_back({t["function"]["name"].get<std::string>(), "", t["function"]["parameters"].dump()});
    }
    llm::CallOptions options;
    options.stream = stream;
    options.attempt_timeout = attempt_timeout;
    options.deadline = std::chrono::seconds(20);
    auto promise = std::make_shared<std::promise<Result<llm::ChatResponse>>>();
    auto future = promise->get_future();
    client->Complete(std::move(request), options,
                     [promise](Result<llm::ChatResponse> r) { promise->set_value(std::move(r)); });
    REQUIRE(future.wait_for(std::chrono::seconds(30)) == std::future_status::ready);
    return future.get();
  }
  loop::EventLoop loop;
  std::unique_ptr<http::CurlClient> curl;
  std::unique_ptr<llm::HttpChatClient> client;
};

int StartTeacher(Server& server, const char* faults, int window = 131072) {
  TeacherOptions o = Opts();
  o.faults = *ParseFaultSpec(faults);
  o.context_window = window;
  auto port = server.Start(o);
  REQUIRE(port.ok());
  return *port;
}

}  // namespace

TEST_CASE("HttpChatClient gets answers through retried faults, streamed and not") {
  Server server;
  LiveClient live(StartTeacher(server, "503=0.3,500=0.2"), 20);
  int retried = 0;
  for (int i = 0; i < 6; ++i) {
    auto r = live.Call(i % 2 == 1);
    REQUIRE(r.ok());
    CHECK(r->tool_calls.size() == 1);
    if (r->timings.attempts > 1) ++retried;
  }
  CHECK(retried >= 1);
}

TEST_CASE("HttpChatClient classifies each injected fault") {
  struct Case {
    const char* faults;
    bool stream;
    std::vector<llm::FailureClass> expected;
  };
  const std::vector<Case> cases = {
      {"429=1,retry_after=1", false, {llm::FailureClass::kRateLimited}},
      {"502=1", false, {llm::FailureClass::kTransientServer}},
      {"reset=1", false, {llm::FailureClass::kTransientNetwork}},
      {"truncate=1", false, {llm::FailureClass::kTransientNetwork, llm::FailureClass::kTransientServer}},
      {"truncate=1", true, {llm::FailureClass::kTransientNetwork, llm::FailureClass::kTransientServer}},
      {"midstream=1", true, {llm::FailureClass::kTransientServer}},
      {"hang=1,hang_seconds=60", false, {llm::FailureClass::kTransientNetwork}},
  };
  for (const Case& c : cases) {
    INFO(c.faults << (c.stream ? " (stream)" : ""));
    Server server;
    LiveClient live(StartTeacher(server, c.faults), 1);
    auto r = live.Call(c.stream, std::chrono::milliseconds(300));
    REQUIRE_FALSE(r.ok());
    llm::FailureClass got = llm::FailureClassOf(r.status());
    INFO(r.status().ToString());
    CHECK(std::find(c.expected.begin(), c.expected.end(), got) != c.expected.end());
  }
  Server small;
  LiveClient live(StartTeacher(small, "none", 100), 3);
  auto overflow = live.Call(false);
  REQUIRE_FALSE(overflow.ok());
  CHECK(llm::FailureClassOf(overflow.status()) == llm::FailureClass::kContextOverflow);
}

namespace {

class GitPatchSource final : public PatchSource {
 public:
  explicit GitPatchSource(std::string dir) : dir_(std::move(dir)) {}
  Result<std::string> CurrentPatch() override {
    std::string out;
    if (seragen::testing::RunShell("cd '" + dir_ + "' && git add -A && git diff --cached", &out) != 0) {
      return IoError("git diff failed: " + out);
    }
    return out;
  }

 private:
  std::string dir_;
};

}  // namespace

namespace {

// One rollout of the scripted policy through the real ToolBox on a fresh git
// copy of the fixture repository.
struct RealRollout {
  bool submitted = false;
  int edits = 0;
  std::string patch;
  std::string summary;  // thoughts and actions, for the issue writer
  std::string root;     // where the copy was
};

int Count(const std::string& hay, const std::string& needle) {
  int n = 0;
  for (std::size_t p = hay.find(needle); p != std::string::npos; p = hay.find(needle, p + 1)) ++n;
  return n;
}

RealRollout RunWithRealTools(const std::function<std::string(const std::string& repo_root)>& instance_prompt,
                             const PolicyContext& ctx) {
  RealRollout out;
  seragen::testing::TempDir dir;
  out.root = dir.path();
  for (const auto& [path, text] : FixtureRepo()) dir.Write(path, text);
  REQUIRE(seragen::testing::RunShell("cd '" + dir.path() +
                                     "' && chmod -R a+rwX . && git init -q && git add -A && "
                                     "git -c user.email=t@t -c user.name=t commit -qm base") == 0);
  auto resources = tools::LoadToolResources(seragen::testing::SourcePath("configs/tools.yaml"),
                                            seragen::testing::SourcePath("prompts/tools/messages.yaml"), dir.path());
  INFO(resources.status().ToString());
  REQUIRE(resources.ok());
  // As root the runner switches to the slot uid, leased like a run's.
  const seragen::testing::LeasedUids leased(21302);
  sandbox::SandboxOptions sandbox_options;
  sandbox_options.uid = sandbox_options.gid = leased.uid();
  auto runner = sandbox::UnconfinedRunner::Create(sandbox_options, dir.path());
  REQUIRE(runner.ok());
  GitPatchSource patches(dir.path());
  tools::ToolBox box(&*resources, runner->get(), dir.path(), &patches, tools::ToolOptions{});
  json tool_schemas = json::parse(tools::OpenAiToolsJson(resources->specs));
  // The instance prompt names the working copy as the tools see it.
  json messages = {{{"role", "system"}, {"content", ReadPrompt("system.md")}},
                   {{"role", "user"}, {"content", instance_prompt(dir.path())}}};
  for (int turn = 0; turn < 20 && !out.submitted; ++turn) {
    PolicyReply reply = Decide(MustParse({{"messages", messages}, {"tools", tool_schemas}}), ctx);
    REQUIRE(reply.tool_calls.size() == 1);
    const ToolCallOut& call = reply.tool_calls[0];
    json args = json::parse(call.arguments);
    if (args.value("command", "") == "str_replace") {
      ++out.edits;
      std::string path = args["path"];
      auto before = ReadFile(path);
      REQUIRE(before.ok());
      const std::string old_str = args["old_str"];
      std::size_t first = before->find(old_str);
      REQUIRE(first != std::string::npos);
      CHECK(before->find(old_str, first + 1) == std::string::npos);  // exactly once
    }
    auto result = box.Call(call.name, call.arguments);
    INFO(result.status().ToString() << " call " << call.name << " " << call.arguments);
    REQUIRE(result.ok());
    REQUIRE_FALSE(result->validation_error);
    out.summary += "### Step " + std::to_string(turn + 1) + "\n" + reply.reasoning + "\nAction: " + call.name + " " +
                   call.arguments + "\nOutput:\n" + result->outcome.observation + "\n";
    messages.push_back(
        {{"role", "assistant"},
         {"content", nullptr},
         {"tool_calls", json::array({{{"id", call.id},
                                      {"type", "function"},
                                      {"function", {{"name", call.name}, {"arguments", call.arguments}}}}})}});
    messages.push_back({{"role", "tool"}, {"tool_call_id", call.id}, {"content", result->outcome.observation}});
    out.submitted = result->outcome.submitted;
    out.patch = result->outcome.patch;
  }
  return out;
}

std::vector<std::string> ChangedLines(const std::string& patch) {
  std::vector<std::string> lines;
  std::istringstream in(patch);
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && (line[0] == '+' || line[0] == '-') && line.rfind("+++", 0) != 0 && line.rfind("---", 0) != 0) {
      lines.push_back(line);
    }
  }
  return lines;
}

}  // namespace

TEST_CASE("A scripted rollout through the real tools edits with text taken from the real view") {
  for (int category : {49, 13, 3, 0}) {
    RealRollout r = RunWithRealTools(
        [&](const std::string& root) {
          auto prompt = RenderTemplate(ReadPrompt("rollout1.md"),
                                       {{"function_name", "parse_config"},
                                        {"file_path", "pkg/config.py"},
                                        {"category_prompt", Prompts().categories()[category].prompt},
                                        {"repo_root", root},
                                        {"test_command", category == 13 ? "python3 -m pytest -q" : ""}});
          REQUIRE(prompt.ok());
          return *prompt;
        },
        DefaultContext(category));
    INFO("category " << category << "\n" << r.summary);
    CHECK(r.submitted);
    CHECK(r.edits == 1);
    CHECK(r.patch.find("+++ b/pkg/config.py") != std::string::npos);
    // The reproduction script ran (before and after the edit) with the real
    // interpreter, importing the module from the copy, and is gone from the patch.
    CHECK(Count(r.summary, "Action: bash {\"command\":\"python3 " + r.root + "/repro_parse_config.py\"}") == 2);
    CHECK(Count(r.summary, "pkg.config loaded from " + r.root + "/pkg/config.py") == 2);
    CHECK(r.summary.find("parse_config(") != std::string::npos);
    CHECK(r.patch.find("repro_") == std::string::npos);
    if (category == 13) {  // the prompt names a test command: the fixture's own test runs and passes
      CHECK(r.summary.find("python3 -m pytest -q") != std::string::npos);
      CHECK(r.summary.find("1 passed") != std::string::npos);
    } else {
      CHECK(r.summary.find("pytest") == std::string::npos);
    }
    if (category == 49) {  // None values: a None guard or an emptiness check on `text`
      CHECK((r.patch.find("+    if text is None:") != std::string::npos ||
             r.patch.find("+    if not text:") != std::string::npos));
    }
  }
}

TEST_CASE("Rollout 1, issue, rollout 2 through the real tools: rollout 2 works on the same code") {
  int same = 0;
  for (int seed = 0; seed < 4; ++seed) {
    PolicyContext ctx = DefaultContext(seed);
    // Rollout 1 and 2 run in different temporary copies, like the pipeline's
    // working-copy pool; patches are relative to the repository, so they compare.
    RealRollout r1 = RunWithRealTools(
        [&](const std::string& root) {
          return *RenderTemplate(ReadPrompt("rollout1.md"), {{"function_name", "Settings.get"},
                                                             {"file_path", "pkg/config.py"},
                                                             {"category_prompt", Prompts().categories()[49].prompt},
                                                             {"repo_root", root},
                                                             {"test_command", ""}});
        },
        ctx);
    REQUIRE(r1.submitted);
    REQUIRE_FALSE(r1.patch.empty());
    auto writer =
        RenderTemplate(ReadPrompt("issue_writer.md"),
                       {{"trajectory_summary", r1.summary}, {"patch", r1.patch}, {"demo_issue", "A short bug."}});
    REQUIRE(writer.ok());
    PolicyReply issue = Decide(MustParse({{"messages", {{{"role", "user"}, {"content", *writer}}}}}), ctx);
    REQUIRE(issue.kind == RequestKind::kIssueWriter);
    std::string text = issue.content.substr(8, issue.content.size() - 17);
    INFO(text);
    CHECK(text.find("get") != std::string::npos);
    RealRollout r2 = RunWithRealTools(
        [&](const std::string& root) {
          return *RenderTemplate(ReadPrompt("rollout2.md"),
                                 {{"issue_text", text}, {"repo_root", root}, {"test_command", ""}});
        },
        ctx);
    CHECK(r2.submitted);
    CHECK(r2.patch.find("+++ b/pkg/config.py") != std::string::npos);
    if (ChangedLines(r1.patch) == ChangedLines(r2.patch)) ++same;
  }
  CHECK(same >= 1);
}
