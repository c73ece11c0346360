// The prompt files the teacher (and the pipeline) rely on: present, with the
// placeholders the renderers fill, and one distinct prompt per bug category.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <fstream>
#include <set>
#include <sstream>

#include "seragen/base/template.h"
#include "teacher/test_support.h"

using namespace seragen::teacher;
using namespace seragen::teacher::testing;

namespace {
std::set<std::string> Placeholders(const std::string& file) {
  auto names = seragen::TemplatePlaceholders(ReadPrompt(file));
  return {names.begin(), names.end()};
}
}  // namespace

TEST_CASE("Prompt templates use exactly the documented placeholders") {
  CHECK(Placeholders("system.md").empty());
  CHECK(Placeholders("rollout1.md") ==
        std::set<std::string>{"function_name", "file_path", "category_prompt", "repo_root", "test_command"});
  CHECK(Placeholders("rollout2.md") == std::set<std::string>{"issue_text", "repo_root", "test_command"});
  CHECK(Placeholders("issue_writer.md") == std::set<std::string>{"trajectory_summary", "patch", "demo_issue"});
  CHECK(Placeholders("judge.md") == std::set<std::string>{"patch", "problem_statement", "trajectory_summary"});
}

TEST_CASE("categories.yaml has one prompt for each of the 51 bug categories") {
  const auto& cats = Prompts().categories();
  REQUIRE(cats.size() == 51);
  std::set<std::string> prompts;
  std::set<std::string> topics;
  for (const auto& c : cats) {
    CHECK(c.prompt.size() > 30);
    prompts.insert(c.prompt);
    topics.insert(c.topic);
  }
  CHECK(!topics.count(""));
  CHECK(topics.size() == cats.size());
  CHECK(prompts.size() == cats.size());  // distinct, so the teacher can map text back to a category
}

TEST_CASE("Built-in demonstration issues: JSON lines with id and text") {
  std::ifstream in(PromptsDir() + "/demo_issues/builtin.jsonl");
  std::string line;
  int count = 0;
  std::set<std::string> ids;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    auto j = nlohmann::json::parse(line);
    REQUIRE(j.contains("id"));
    REQUIRE(j.contains("text"));
    CHECK(j["text"].get<std::string>().size() > 80);
    ids.insert(j["id"].get<std::string>());
    ++count;
  }
  CHECK(count >= 100);
  CHECK(ids.size() == static_cast<std::size_t>(count));
}

TEST_CASE("PromptSet classifies rendered prompts and reads their parameters back") {
  ChatRequest r1 = MustParse({{"messages",
                               {{{"role", "system"}, {"content", ReadPrompt("system.md")}},
                                {{"role", "user"}, {"content", Rollout1Prompt("clamp", "pkg/config.py", 13)}}}},
                              {"tools", ToolsJson()}});
  RequestInfo info = Prompts().Classify(r1);
  CHECK(info.kind == RequestKind::kRollout1);
  CHECK(info.values["function_name"] == "clamp");
  CHECK(info.values["file_path"] == "pkg/config.py");
  CHECK(info.category_index == 13);

  ChatRequest r2 = MustParse(
      {{"messages", {{{"role", "user"}, {"content", Rollout2Prompt("`clamp()` breaks")}}}}, {"tools", ToolsJson()}});
  CHECK(Prompts().Classify(r2).kind == RequestKind::kRollout2);

  auto judge = seragen::RenderTemplate(ReadPrompt("judge.md"),
                                       {{"patch", "+x"}, {"problem_statement", "p"}, {"trajectory_summary", "s"}});
  REQUIRE(judge.ok());
  ChatRequest j = MustParse({{"messages", {{{"role", "user"}, {"content", *judge}}}}});
  CHECK(Prompts().Classify(j).kind == RequestKind::kJudge);
  CHECK(Prompts().judge_tag() == "answer");
  CHECK(Prompts().issue_tag() == "issue");

  // Tools offered but an unfamiliar prompt: still an agent; no tools: plain chat.
  ChatRequest other = MustParse({{"messages", {{{"role", "user"}, {"content", "hello"}}}}, {"tools", ToolsJson()}});
  CHECK(Prompts().Classify(other).kind == RequestKind::kUnknownAgent);
  ChatRequest chat = MustParse({{"messages", {{{"role", "user"}, {"content", "hello"}}}}});
  CHECK(Prompts().Classify(chat).kind == RequestKind::kUnknownChat);
}

TEST_CASE("PromptSet falls back to the longest anchor when a prompt is split across messages") {
  auto issue = seragen::RenderTemplate(ReadPrompt("issue_writer.md"),
                                       {{"trajectory_summary", "s"}, {"patch", "p"}, {"demo_issue", "d"}});
  REQUIRE(issue.ok());
  std::string text = *issue;
  std::size_t half = text.find("<change>");
  ChatRequest r = MustParse({{"messages",
                              {{{"role", "system"}, {"content", text.substr(0, half)}},
                               {{"role", "user"}, {"content", text.substr(half)}}}}});
  CHECK(Prompts().Classify(r).kind == RequestKind::kIssueWriter);
}

TEST_CASE("ParseCategories reports malformed files") {
  CHECK_FALSE(ParseCategories("categories: 3", "c.yaml").ok());
  CHECK(ParseCategories("categories:\n  - topic: a\n", "c.yaml").status().message().find("categories[0]") !=
        std::string::npos);
  CHECK_FALSE(ParseCategories("[unclosed", "c.yaml").ok());
}

TEST_CASE("A rollout-1 template that names the category topic is matched by topic") {
  std::vector<Category> cats = {{"alpha", "same text"}, {"beta", "same text"}};
  PromptSet set = PromptSet::FromTexts(
      "Fix `{{function_name}}` in {{file_path}} ({{category_topic}}): {{category_prompt}}",
      "<issue>{{issue_text}}</issue>", "{{patch}} <issue></issue>", "{{patch}} <answer></answer>", cats);
  ChatRequest r = MustParse(
      {{"messages", {{{"role", "user"}, {"content", "Fix `f` in a.py (beta): same text"}}}}, {"tools", ToolsJson()}});
  RequestInfo info = set.Classify(r);
  CHECK(info.kind == RequestKind::kRollout1);
  CHECK(info.category_index == 1);
}

TEST_CASE("Rollout prompts name the test command only when there is one, and read naturally either way") {
  for (const bool second : {false, true}) {
    const std::string with = second ? Rollout2Prompt("`clamp()` breaks", "python -m pytest -q")
                                    : Rollout1Prompt("clamp", "pkg/config.py", 13, "python -m pytest -q");
    const std::string without =
        second ? Rollout2Prompt("`clamp()` breaks") : Rollout1Prompt("clamp", "pkg/config.py", 13);
    INFO(with << "\n----\n" << without);
    CHECK(with.find("5. Run the repository's tests with `python -m pytest -q` (from `/repo`)") != std::string::npos);
    CHECK(with.find("If the repository has tests") == std::string::npos);
    CHECK(without.find("5. If the repository has tests for this code, run them") != std::string::npos);
    for (const std::string* text : {&with, &without}) {
      CHECK(text->find("{{") == std::string::npos);  // no section tags or placeholders left
      CHECK(text->find("``") == std::string::npos);  // no empty command in backticks
      CHECK(text->find("\n\n\n") == std::string::npos);
      CHECK(text->find("boundary values) to make sure they still behave.\n5. ") != std::string::npos);
      CHECK(text->find(".\nThen submit your change.") != std::string::npos);
    }
  }
}

TEST_CASE("PromptSet reads the test command back from either form of the rollout prompts") {
  auto classify = [](const std::string& prompt) {
    return Prompts().Classify(
        MustParse({{"messages", {{{"role", "user"}, {"content", prompt}}}}, {"tools", ToolsJson()}}));
  };
  RequestInfo with = classify(Rollout1Prompt("clamp", "pkg/config.py", 13, "python3 -m pytest -q tests"));
  CHECK(with.kind == RequestKind::kRollout1);
  CHECK(with.values["test_command"] == "python3 -m pytest -q tests");
  CHECK(with.values["function_name"] == "clamp");
  CHECK(with.category_index == 13);
  RequestInfo without = classify(Rollout1Prompt("clamp", "pkg/config.py", 13));
  CHECK(without.kind == RequestKind::kRollout1);
  CHECK(without.values.count("test_command") == 0);
  CHECK(without.category_index == 13);
  RequestInfo second = classify(Rollout2Prompt("`clamp()` breaks", "npm test"));
  CHECK(second.kind == RequestKind::kRollout2);
  CHECK(second.values["test_command"] == "npm test");
  CHECK(second.values["issue_text"] == "`clamp()` breaks");
}
