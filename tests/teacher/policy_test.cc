#include "teacher/policy.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>

#include "seragen/base/template.h"
#include "teacher/test_support.h"

using namespace seragen::teacher;
using namespace seragen::teacher::testing;
using nlohmann::json;

namespace {

std::vector<std::string> CallSequence(const RolloutRun& run) {
  std::vector<std::string> seq;
  for (const PolicyReply& r : run.replies) {
    for (const ToolCallOut& c : r.tool_calls) {
      json a = json::parse(c.arguments);
      std::string step = c.name;
      if (a.contains("command") && c.name == "editor") step += ":" + a["command"].get<std::string>();
      if (a.contains("view_range")) step += ":range";
      seq.push_back(step);
    }
  }
  return seq;
}

std::string Summary(const RolloutRun& run) {
  std::string s;
  for (const PolicyReply& r : run.replies) {
    s += r.reasoning + "\n";
    for (const ToolCallOut& c : r.tool_calls) s += "-> " + c.name + " " + c.arguments + "\n";
  }
  return s;
}

std::string DemoIssue(int index) {
  std::ifstream in(PromptsDir() + "/demo_issues/builtin.jsonl");
  std::string line;
  for (int i = 0; std::getline(in, line); ++i) {
    if (i == index) return json::parse(line)["text"].get<std::string>();
  }
  return "";
}

std::string WriteIssueFor(const RolloutRun& run, const PolicyContext& ctx, int demo, const std::string& summary = "",
                          const std::string& patch = "") {
  auto prompt = seragen::RenderTemplate(ReadPrompt("issue_writer.md"),
                                        {{"trajectory_summary", summary.empty() ? Summary(run) : summary},
                                         {"patch", patch.empty() ? run.patch : patch},
                                         {"demo_issue", DemoIssue(demo)}});
  REQUIRE(prompt.ok());
  PolicyReply reply = Decide(MustParse({{"messages", {{{"role", "user"}, {"content", *prompt}}}}}), ctx);
  REQUIRE(reply.kind == RequestKind::kIssueWriter);
  REQUIRE(reply.tool_calls.empty());
  const std::string& c = reply.content;
  REQUIRE(c.rfind("<issue>\n", 0) == 0);
  REQUIRE(c.size() > 16);
  REQUIRE(c.substr(c.size() - 9) == "\n</issue>");
  return c.substr(8, c.size() - 17);
}

std::vector<std::string> ChangedLines(const std::string& patch) {
  std::vector<std::string> out;
  std::istringstream in(patch);
  std::string line;
  while (std::getline(in, line)) {
    if ((line[0] == '+' || line[0] == '-') && line.rfind("+++", 0) != 0 && line.rfind("---", 0) != 0)
      out.push_back(line);
  }
  return out;
}

}  // namespace

TEST_CASE("Rollout 1 on the fixture repo: explore, edit with exact text, submit and confirm") {
  PolicyContext ctx = DefaultContext(7);
  RolloutRun run = DriveRollout(Rollout1Prompt("parse_config", "pkg/config.py", 49), ctx);
  REQUIRE(run.submitted);
  std::vector<std::string> seq = CallSequence(run);
  REQUIRE(seq.size() >= 6);
  CHECK(seq[0] == "editor:view");
  CHECK(seq[1] == "bash");
  CHECK(seq[2] == "editor:view:range");
  CHECK(seq[3] == "editor:create");  // the reproduction script
  CHECK(seq[4] == "bash");           // runs it
  CHECK(seq[5] == "editor:str_replace");
  CHECK(seq[seq.size() - 2] == "submit");
  CHECK(seq.back() == "submit");
  CHECK(run.replies.front().rollout_start);
  CHECK_FALSE(run.replies.back().rollout_start);
  // Category 49 is about None values: the edit guards a parameter against None or emptiness
  // (which of the two depends on the conversation, i.e. on the prompt's exact text).
  CHECK((run.patch.find("+    if text is None:") != std::string::npos ||
         run.patch.find("+    if not text:") != std::string::npos));
  for (const PolicyReply& r : run.replies) {
    CHECK_FALSE(r.reasoning.empty());
    CHECK(r.finish_reason == "tool_calls");
    CHECK(r.tool_calls.size() == 1);
  }
}

TEST_CASE("The same seed and conversation give the same rollout, seeds and categories vary it") {
  PolicyContext ctx = DefaultContext(11);
  RolloutRun a = DriveRollout(Rollout1Prompt("clamp", "pkg/config.py", 0), ctx);
  RolloutRun b = DriveRollout(Rollout1Prompt("clamp", "pkg/config.py", 0), ctx);
  CHECK(a.messages.dump() == b.messages.dump());
  std::set<std::string> patches;
  std::set<std::string> sequences;
  for (int seed = 0; seed < 8; ++seed) {
    for (int category : {0, 13, 3, 49}) {
      const char* fn = seed % 2 == 0 ? "clamp" : "require_key";
      RolloutRun r = DriveRollout(Rollout1Prompt(fn, "pkg/config.py", category), DefaultContext(seed));
      CHECK(r.submitted);
      CHECK_FALSE(r.patch.empty());
      patches.insert(r.patch);
      std::string s;
      for (const auto& step : CallSequence(r)) s += step + ",";
      sequences.insert(s);
    }
  }
  CHECK(patches.size() >= 3);    // guard, boundary, error message, ...
  CHECK(sequences.size() >= 2);  // with and without a check command
}

TEST_CASE("Every function of the fixture gets an edit whose old_str is unique") {
  for (const char* fn : {"parse_config", "clamp", "require_key", "get", "load", "volume"}) {
    std::string file = std::string(fn) == "load" || std::string(fn) == "volume" ? "pkg/app.py" : "pkg/config.py";
    for (int category = 0; category < 51; category += 5) {
      RolloutRun run = DriveRollout(Rollout1Prompt(fn, file, category), DefaultContext(category));
      INFO(fn << " category " << category);
      CHECK(run.submitted);
      CHECK_FALSE(run.patch.empty());
    }
  }
}

TEST_CASE("Issue writer describes symptoms, names the function and follows the demo style") {
  PolicyContext ctx = DefaultContext(3);
  RolloutRun run = DriveRollout(Rollout1Prompt("parse_config", "pkg/config.py", 49), ctx);
  std::string issue = WriteIssueFor(run, ctx, 1);  // the demo with ### headings
  CHECK(issue.find("parse_config") != std::string::npos);
  CHECK(issue.find("### ") != std::string::npos);
  for (const std::string& line : ChangedLines(run.patch)) {
    if (line[0] == '+') CHECK(issue.find(line.substr(1)) == std::string::npos);  // never quotes the fix
  }
  INFO(issue);
  // The input that triggers it (which edit the policy draws depends on the prompt's wording).
  CHECK((issue.find("None") != std::string::npos || issue.find("empty") != std::string::npos));
  std::string terse = WriteIssueFor(run, ctx, 3);  // the short demo
  CHECK(terse.find("### ") == std::string::npos);
  CHECK(terse.size() < issue.size());
}

TEST_CASE("Issue writer adds code only when the demonstration has code") {
  PolicyContext ctx = DefaultContext(3);
  RolloutRun run = DriveRollout(Rollout1Prompt("parse_config", "pkg/config.py", 49), ctx);
  REQUIRE(DemoIssue(1).find("```") != std::string::npos);
  REQUIRE(DemoIssue(0).find("```") == std::string::npos);
  std::string with_code = WriteIssueFor(run, ctx, 1);
  std::string without_code = WriteIssueFor(run, ctx, 0);
  INFO(with_code << "\n----\n" << without_code);
  CHECK(with_code.find("```") != std::string::npos);
  CHECK(without_code.find("```") == std::string::npos);
}

TEST_CASE("Issue writer names the task's function when the diff's context shows no definition") {
  PolicyContext ctx = DefaultContext(3);
  seragen::teacher::EditMemory edits;
  ctx.edits = &edits;
  RolloutRun run = DriveRollout(Rollout1Prompt("parse_config", "pkg/config.py", 49), ctx);
  REQUIRE(run.submitted);
  // The diff without its context lines (as for a change deep inside a long
  // function), and steps whose first named function is another one.
  std::string bare;
  for (const std::string& line : ChangedLines(run.patch)) bare += line + "\n";
  bare = "--- a/pkg/config.py\n+++ b/pkg/config.py\n@@ -10,1 +10,3 @@\n" + bare;
  const std::string steps = "Step 1: I ran `load_defaults()` to see the settings.\n";
  std::string issue = WriteIssueFor(run, ctx, 1, steps, bare);
  INFO(issue);
  CHECK(issue.find("parse_config") != std::string::npos);
  CHECK(issue.find("load_defaults") == std::string::npos);
  // Without the memory of rollout 1 the steps are all there is to go by.
  ctx.edits = nullptr;
  CHECK(WriteIssueFor(run, ctx, 1, steps, bare).find("load_defaults") != std::string::npos);
}

TEST_CASE("Rollout 2 finds the function from the issue, its edit sometimes repeats rollout 1's") {
  int same = 0;
  int different = 0;
  for (int seed = 0; seed < 16; ++seed) {
    PolicyContext ctx = DefaultContext(seed);
    RolloutRun r1 = DriveRollout(Rollout1Prompt("require_key", "pkg/config.py", seed % 2 == 0 ? 49 : 3), ctx);
    REQUIRE(r1.submitted);
    std::string issue = WriteIssueFor(r1, ctx, seed % 8);
    RolloutRun r2 = DriveRollout(Rollout2Prompt(issue), ctx);
    INFO("seed " << seed << "\n" << issue);
    REQUIRE(r2.submitted);
    CHECK(r2.replies.front().kind == RequestKind::kRollout2);
    CHECK(r2.patch.find("require_key") != std::string::npos);  // worked on the right function
    if (ChangedLines(r1.patch) == ChangedLines(r2.patch)) ++same;
    else ++different;
  }
  CHECK(same >= 3);
  CHECK(different >= 2);
}

TEST_CASE("With give-up-after, rollout 2 submits what it has after that many turns, rollout 1 is unchanged") {
  PolicyContext ctx = DefaultContext(3);
  ctx.knobs.rollout2_give_up_after_turns = 3;
  RolloutRun r1 = DriveRollout(Rollout1Prompt("require_key", "pkg/config.py", 49), ctx);
  REQUIRE(r1.submitted);
  CHECK(!r1.patch.empty());
  ctx.knobs.rollout2_same_edit_rate = 1.0;  // the full agent would fix it
  RolloutRun r2 = DriveRollout(Rollout2Prompt(WriteIssueFor(r1, ctx, 0)), ctx);
  INFO(Summary(r2));
  std::vector<std::string> seq = CallSequence(r2);
  REQUIRE(seq.size() >= 4);
  CHECK(seq[3] == "submit");
  CHECK(r2.submitted);
  CHECK(r2.patch.empty());  // it looked around and changed nothing
}

TEST_CASE("Rollout 2 without a file in the issue searches for the definition") {
  RolloutRun r2 = DriveRollout(Rollout2Prompt("Calling `clamp()` with a value equal to the upper limit misbehaves."),
                               DefaultContext(5));
  std::vector<std::string> seq = CallSequence(r2);
  REQUIRE(seq.size() > 3);
  CHECK(seq[0] == "bash");  // grep for the definition
  CHECK(seq[1] == "editor:view");
  CHECK(r2.submitted);
  CHECK(r2.patch.find("pkg/config.py") != std::string::npos);
}

TEST_CASE("An unfamiliar agent prompt still produces an exploration and a submission") {
  RolloutRun run = DriveRollout("Please improve this repository.", DefaultContext(1));
  CHECK(run.replies.front().kind == RequestKind::kUnknownAgent);
  CHECK(run.submitted);
}

TEST_CASE("A failed str_replace makes the agent re-read the file and try once more") {
  PolicyContext ctx = DefaultContext(7);
  RolloutRun run = DriveRollout(Rollout1Prompt("clamp", "pkg/config.py", 49), ctx, 6);  // up to the edit
  REQUIRE(run.replies.size() == 6);
  REQUIRE(CallSequence(run).back() == "editor:str_replace");
  json messages = run.messages;
  messages.back()["content"] = "No replacement was performed: old_str did not appear verbatim in /repo/pkg/config.py.";
  PolicyReply next = Decide(MustParse({{"messages", messages}, {"tools", ToolsJson()}}), ctx);
  REQUIRE(next.tool_calls.size() == 1);
  json args = json::parse(next.tool_calls[0].arguments);
  CHECK(args["command"] == "view");
  CHECK_FALSE(args.contains("view_range"));
}

TEST_CASE("Renamed tools are recognised by their parameters") {
  ToolRoles renamed{"sh", "files", "finish"};
  json request = {{"messages", {{{"role", "user"}, {"content", Rollout1Prompt("clamp", "pkg/config.py", 0)}}}},
                  {"tools", ToolsJson(renamed)}};
  PolicyReply reply = Decide(MustParse(request), DefaultContext(1));  // context still has default names
  REQUIRE(reply.tool_calls.size() == 1);
  CHECK(reply.tool_calls[0].name == "files");
}

TEST_CASE("Judge answers exactly yes or no in the requested tags, mostly yes, no for empty patches") {
  int yes = 0;
  for (int seed = 0; seed < 40; ++seed) {
    auto prompt =
        seragen::RenderTemplate(ReadPrompt("judge.md"), {{"patch", "--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a\n+b\n"},
                                                         {"problem_statement", "problem " + std::to_string(seed)},
                                                         {"trajectory_summary", "Step 1: looked at x.py"}});
    REQUIRE(prompt.ok());
    PolicyReply r = Decide(MustParse({{"messages", {{{"role", "user"}, {"content", *prompt}}}}}), DefaultContext(seed));
    CHECK(r.kind == RequestKind::kJudge);
    CHECK((r.content == "<answer>yes</answer>" || r.content == "<answer>no</answer>"));
    if (r.content == "<answer>yes</answer>") ++yes;
  }
  CHECK(yes >= 28);
  CHECK(yes < 40);
  auto empty = seragen::RenderTemplate(ReadPrompt("judge.md"),
                                       {{"patch", ""}, {"problem_statement", "p"}, {"trajectory_summary", ""}});
  PolicyReply r = Decide(MustParse({{"messages", {{{"role", "user"}, {"content", *empty}}}}}), DefaultContext(1));
  CHECK(r.content == "<answer>no</answer>");
}

TEST_CASE("A plain chat request gets a stand-in notice, not a tool call") {
  PolicyReply r = Decide(MustParse({{"messages", {{{"role", "user"}, {"content", "hi"}}}}}), DefaultContext(1));
  CHECK(r.kind == RequestKind::kUnknownChat);
  CHECK(r.tool_calls.empty());
  CHECK(r.content.find("stand-in") != std::string::npos);
}

TEST_CASE("A function beyond a clipped view is found through the name search and viewed from its line") {
  auto files = FixtureRepo();
  std::string big = "\"\"\"Many helpers.\"\"\"\n";
  for (int i = 0; i < 400; ++i) {
    big += "\n\ndef helper_" + std::to_string(i) + "(x):\n    return x + " + std::to_string(i) + "\n";
  }
  big +=
      "\n\ndef target_fn(values, limit):\n    if len(values) > limit:\n        return values[:limit]\n    return "
      "values\n";
  files["pkg/big.py"] = big;
  RolloutRun run =
      DriveRollout(Rollout1Prompt("pkg.big.target_fn", "pkg/big.py", 13), DefaultContext(2), 20, files, 4000);
  std::vector<std::string> seq = CallSequence(run);
  REQUIRE(seq.size() >= 5);
  CHECK(seq[2] == "editor:view:range");
  json range = json::parse(run.replies[2].tool_calls[0].arguments)["view_range"];
  CHECK(range[0] == 1604);  // the definition line, found by the grep step
  CHECK(run.submitted);
  CHECK(run.patch.find("pkg/big.py") != std::string::npos);
}

namespace {

// The shell commands of a rollout, in order.
std::vector<std::string> ShellCommands(const RolloutRun& run) {
  std::vector<std::string> out;
  for (const PolicyReply& r : run.replies) {
    for (const ToolCallOut& c : r.tool_calls) {
      if (c.name == "bash") out.push_back(json::parse(c.arguments)["command"].get<std::string>());
    }
  }
  return out;
}

std::string CreatedText(const RolloutRun& run, const std::string& path) {
  for (const PolicyReply& r : run.replies) {
    for (const ToolCallOut& c : r.tool_calls) {
      json a = json::parse(c.arguments);
      if (c.name == "editor" && a["command"] == "create" && a["path"] == path) return a["file_text"];
    }
  }
  return "";
}

}  // namespace

TEST_CASE("On Python code the agent writes, runs, reruns and removes a reproduction script") {
  RolloutRun run = DriveRollout(Rollout1Prompt("parse_config", "pkg/config.py", 49), DefaultContext(7));
  REQUIRE(run.submitted);
  std::vector<std::string> shell = ShellCommands(run);
  INFO(Summary(run));
  const std::string script = CreatedText(run, "/repo/repro_parse_config.py");
  CHECK(script.find("import pkg.config\nfrom pkg.config import parse_config\n") != std::string::npos);
  // Category 49 (None values): the planned edit guards `text` against None or emptiness, and
  // the script passes exactly that edge case.
  const bool none_guard = run.patch.find("+    if text is None:") != std::string::npos;
  CHECK((none_guard || run.patch.find("+    if not text:") != std::string::npos));
  CHECK(script.find(none_guard ? "result = parse_config(text=None, defaults={})"
                               : "result = parse_config(text=\"\", defaults={})") != std::string::npos);
  CHECK(std::count(shell.begin(), shell.end(), "python3 /repo/repro_parse_config.py") == 2);
  CHECK(shell.back() == "rm /repo/repro_parse_config.py");
  CHECK(std::find_if(shell.begin(), shell.end(), [](const std::string& c) { return c.find("pytest") != c.npos; }) ==
        shell.end());  // the prompt names no test command
  // The second run comes after the edit; the observations are what the tools said.
  std::vector<std::string> seq = CallSequence(run);
  auto edit = std::find(seq.begin(), seq.end(), "editor:str_replace") - seq.begin();
  CHECK(edit == 5);
  CHECK(run.messages.dump().find("ran repro_parse_config.py") != std::string::npos);
  CHECK(run.patch.find("repro_") == std::string::npos);
}

TEST_CASE("The agent runs the test command the prompt names, after the edit, in both rollouts") {
  for (int seed = 0; seed < 6; ++seed) {
    RolloutRun r1 =
        DriveRollout(Rollout1Prompt("clamp", "pkg/config.py", 13, "python -m pytest -q"), DefaultContext(seed));
    RolloutRun r2 = DriveRollout(
        Rollout2Prompt("Calling `clamp()` in pkg/config.py with a value equal to the upper limit misbehaves.",
                       "python -m pytest -q"),
        DefaultContext(seed));
    for (const RolloutRun* run : {&r1, &r2}) {
      INFO("seed " << seed << "\n" << Summary(*run));
      REQUIRE(run->submitted);
      std::vector<std::string> shell = ShellCommands(*run);
      CHECK(std::count(shell.begin(), shell.end(), "cd /repo && python -m pytest -q") == 1);
      CHECK(run->messages.dump().find("tests ran: python -m pytest -q") != std::string::npos);
      auto tests = std::find(shell.begin(), shell.end(), "cd /repo && python -m pytest -q");
      auto rerun = std::find(shell.rbegin(), shell.rend(), "python3 /repo/repro_clamp.py");
      REQUIRE(rerun != shell.rend());
      CHECK(rerun.base() - 1 < tests);  // the script again first, then the tests
      CHECK(shell.back() == "rm /repo/repro_clamp.py");
      CHECK(run->patch.find("repro_") == std::string::npos);
      CHECK_FALSE(run->patch.empty());
    }
  }
}

TEST_CASE("Without a Python module path there is no reproduction script, but the stated tests still run") {
  auto files = FixtureRepo();
  files["web/app.js"] =
      "function total(items) {\n  let sum = 0;\n  for (const x of items) sum += x;\n  return sum;\n}\n";
  RolloutRun run = DriveRollout(Rollout1Prompt("total", "web/app.js", 49, "npm test"), DefaultContext(3), 20, files);
  INFO(Summary(run));
  REQUIRE(run.submitted);
  CHECK(Summary(run).find("repro_") == std::string::npos);
  std::vector<std::string> shell = ShellCommands(run);
  CHECK(std::count(shell.begin(), shell.end(), "cd /repo && npm test") == 1);
}
