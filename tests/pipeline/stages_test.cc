#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "seragen/pipeline/demo_issues.h"
#include "seragen/pipeline/issue_stage.h"
#include "seragen/pipeline/prompt_library.h"
#include "testing/temp_dir.h"

namespace seragen::pipeline {

TEST_CASE("the shipped prompts load, render and hash", "[prompts]") {
  auto p = PromptLibrary::Load(std::string(SERAGEN_SOURCE_DIR) + "/prompts", config::PromptsConfig{});
  REQUIRE(p.ok());
  CHECK(p->categories().size() == 51);
  CHECK(p->issue_tag() == "issue");
  CHECK(p->judge_tag() == "answer");
  auto r1 = p->Rollout1("parse_config", "pkg/config.py", 2, {"/repo"});
  REQUIRE(r1.ok());
  CHECK(r1->find("parse_config") != std::string::npos);
  CHECK(r1->find("/repo") != std::string::npos);
  CHECK_FALSE(p->Rollout1("f", "x.py", 51, {"/repo"}).ok());
  // The tools file joins the hash.
  auto q = PromptLibrary::Load(std::string(SERAGEN_SOURCE_DIR) + "/prompts", config::PromptsConfig{}, "tools v2");
  CHECK(q->hash() != p->hash());
}

TEST_CASE("the rollout prompts state the test command when there is one and read naturally without", "[prompts]") {
  auto p = PromptLibrary::Load(std::string(SERAGEN_SOURCE_DIR) + "/prompts", config::PromptsConfig{});
  REQUIRE(p.ok());
  for (int rollout : {1, 2}) {
    auto render = [&](const std::string& command) {
      RepoFacts repo{"/repo", command};
      return rollout == 1 ? p->Rollout1("parse_config", "pkg/config.py", 2, repo)
                          : p->Rollout2("Calling `parse_config` fails.", repo);
    };
    auto with = render("python -m pytest -q");
    auto without = render("");
    REQUIRE(with.ok());
    REQUIRE(without.ok());
    INFO(*with << "\n----\n" << *without);
    CHECK(with->find("Run the repository's tests with `python -m pytest -q` (from `/repo`)") != std::string::npos);
    CHECK(with->find("If the repository has tests") == std::string::npos);
    CHECK(without->find("If the repository has tests for this code, run them") != std::string::npos);
    CHECK(without->find("Run the repository's tests with") == std::string::npos);
    for (const std::string* text : {&*with, &*without}) {
      CHECK(text->find("``") == std::string::npos);
      CHECK(text->find("{{") == std::string::npos);
      CHECK(text->find("\n\n\n") == std::string::npos);
      CHECK(text->find("still behave.\n5. ") != std::string::npos);  // step 5 follows step 4 directly
    }
  }
}

TEST_CASE("a rollout prompt with a misspelt or unclosed section fails at load", "[prompts]") {
  seragen::testing::TempDir dir;
  for (const char* f :
       {"system.md", "rollout2.md", "issue_writer.md", "judge.md", "categories.yaml", "trajectory_step.md"}) {
    seragen::testing::RunShell("cp " + std::string(SERAGEN_SOURCE_DIR) + "/prompts/" + f + " " + dir.path());
  }
  dir.Write("rollout1.md", "Fix {{function_name}}.\n{{#test_comand}}\nrun {{test_command}}\n{{/test_comand}}\n");
  auto typo = PromptLibrary::Load(dir.path(), config::PromptsConfig{});
  REQUIRE_FALSE(typo.ok());
  CHECK(typo.status().message().find("rollout1.md:2: no value for section '{{#test_comand}}'") != std::string::npos);
  dir.Write("rollout1.md", "Fix {{function_name}}.\n{{#test_command}}\nrun {{test_command}}\n");
  auto unclosed = PromptLibrary::Load(dir.path(), config::PromptsConfig{});
  REQUIRE_FALSE(unclosed.ok());
  CHECK(unclosed.status().message().find("section '{{test_command}}' is not closed") != std::string::npos);
}

TEST_CASE("a prompt with an unknown placeholder fails at load, naming the file", "[prompts]") {
  seragen::testing::TempDir dir;
  for (const char* f :
       {"system.md", "rollout2.md", "issue_writer.md", "judge.md", "categories.yaml", "trajectory_step.md"}) {
    auto text = std::string(SERAGEN_SOURCE_DIR) + "/prompts/" + f;
    seragen::testing::RunShell("cp " + text + " " + dir.path());
  }
  dir.Write("rollout1.md", "Fix {{function}} in {{file_path}}.");
  auto p = PromptLibrary::Load(dir.path(), config::PromptsConfig{});
  REQUIRE_FALSE(p.ok());
  CHECK(p.status().message().find("rollout1.md:1: no value for placeholder '{{function}}'") != std::string::npos);
}

TEST_CASE("the issue writer's trajectory summary is bounded whatever the steps hold", "[issue][bounds]") {
  auto p = PromptLibrary::Load(std::string(SERAGEN_SOURCE_DIR) + "/prompts", config::PromptsConfig{});
  REQUIRE(p.ok());
  agent::Trajectory t;
  t.history.push_back({llm::Role::kSystem, "S", {}, {}, {}, {}});
  t.history.push_back({llm::Role::kUser, "U", {}, {}, {}, {}});
  const std::string huge(1 << 20, 'z');
  for (int i = 0; i < 5; ++i) {
    llm::ToolCall call;
    call.id = "c" + std::to_string(i);
    call.name = "editor";
    call.arguments_json = R"({"command":"create","path":"/repo/x","file_text":")" + huge + R"("})";
    t.history.push_back({llm::Role::kAssistant, huge, {}, {call}, {}, {}});
    t.history.push_back({llm::Role::kTool, huge, {}, {}, call.id, "editor"});
  }
  SummaryLimits limits;
  auto summary = SummarizeTrajectory(t, *p, limits);
  REQUIRE(summary.ok());
  // Each step is its template plus three clipped parts; the whole stays near the total limit.
  CHECK(summary->size() < limits.max_total_chars + 2 * limits.max_text_chars + limits.max_observation_chars + 4096);
  CHECK(summary->find(std::string(limits.max_text_chars, 'z')) == std::string::npos);
}

TEST_CASE("tagged output extraction and the judge rule", "[issue]") {
  CHECK(ExtractTagged("bla <issue>\n  Title\n\nBody\n</issue> trailing", "issue").value() == "Title\n\nBody");
  CHECK(ExtractTagged("<issue>old</issue> then <issue>new</issue>", "issue").value() == "new");
  CHECK_FALSE(ExtractTagged("no tags here", "issue").ok());
  CHECK_FALSE(ExtractTagged("<issue>   </issue>", "issue").ok());
  CHECK_FALSE(ExtractTagged("<issue>cut off", "issue").ok());
  CHECK(ParseJudgeVerdict("<answer>yes</answer>", "answer") == JudgeVerdict::kYes);
  CHECK(ParseJudgeVerdict("<answer> yes \n</answer>", "answer") == JudgeVerdict::kYes);
  // Case-insensitive, trailing '.'/'!' ignored; anything else is not a yes.
  CHECK(ParseJudgeVerdict("<answer>Yes</answer>", "answer") == JudgeVerdict::kYes);
  CHECK(ParseJudgeVerdict("<answer> YES. </answer>", "answer") == JudgeVerdict::kYes);
  CHECK(ParseJudgeVerdict("<answer>yes!</answer>", "answer") == JudgeVerdict::kYes);
  CHECK(ParseJudgeVerdict("<answer>No</answer>", "answer") == JudgeVerdict::kNo);
  CHECK(ParseJudgeVerdict("<answer>NO.</answer>", "answer") == JudgeVerdict::kNo);
  CHECK(ParseJudgeVerdict("<answer>yes, it does</answer>", "answer") == JudgeVerdict::kUnparseable);
  CHECK(ParseJudgeVerdict("<answer>yesno</answer>", "answer") == JudgeVerdict::kUnparseable);
  CHECK(ParseJudgeVerdict("yes", "answer") == JudgeVerdict::kUnparseable);
  CHECK(LastClosingTag("put it in <issue></issue> tags") == "issue");
  CHECK(LastClosingTag("nothing") == "");
}

TEST_CASE("demonstration issues from jsonl, json, text and commits", "[demo]") {
  seragen::testing::TempDir dir;
  dir.Write("a.jsonl",
            "{\"id\":\"x\",\"text\":\"First issue\"}\n\n\"Second issue\"\n{\"title\":\"T\",\"body\":\"B\"}\n");
  auto a = DemoIssuePool::FromFile(dir.Sub("a.jsonl"));
  REQUIRE(a.ok());
  REQUIRE(a->size() == 3);
  CHECK(a->issues()[0].id == "x");
  CHECK(a->issues()[2].text == "T\n\nB");
  dir.Write("b.json", "[\"one\", {\"text\": \"two\"}]");
  CHECK(DemoIssuePool::FromFile(dir.Sub("b.json"))->size() == 2);
  dir.Write("c.txt", "issue one\nline 2\n---\nissue two\n---\n\n");
  auto c = DemoIssuePool::FromFile(dir.Sub("c.txt"));
  REQUIRE(c->size() == 2);
  CHECK(c->issues()[0].text == "issue one\nline 2");
  dir.Write("bad.jsonl", "{\"text\": \"ok\"}\n{\"nope\": 1}\n");
  auto bad = DemoIssuePool::FromFile(dir.Sub("bad.jsonl"));
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.status().message().find("bad.jsonl:2") != std::string::npos);
  dir.Write("empty.txt", "\n\n");
  CHECK_FALSE(DemoIssuePool::FromFile(dir.Sub("empty.txt")).ok());
  auto commits = DemoIssuePool::FromCommitMessages(
      {"Merge branch 'x' into main and also some more words to be long enough", "fix typo",
       "Reject negative quantities in Stock.reserve\n\nCallers passing -1 silently increased stock."});
  REQUIRE(commits.ok());
  CHECK(commits->size() == 1);
  CHECK_FALSE(DemoIssuePool::FromCommitMessages({"wip"}).ok());
  // auto needs enough descriptive messages to prefer commits.
  CHECK_FALSE(DemoIssuePool::FromCommitMessages(
                  {"Reject negative quantities in Stock.reserve\n\nCallers passing -1 silently increased stock."}, 2)
                  .ok());
}

TEST_CASE("the built-in demonstration pool: 100+ user-style bug reports of many kinds, and it loads", "[demo]") {
  const std::string path = std::string(SERAGEN_SOURCE_DIR) + "/prompts/demo_issues/builtin.jsonl";
  auto pool = DemoIssuePool::FromFile(path);
  REQUIRE(pool.ok());
  CHECK(pool->size() >= 100);
  std::set<std::string> ids, projects, languages;
  std::size_t with_trace = 0, shortest = std::string::npos, longest = 0;
  for (const DemoIssue& issue : pool->issues()) {
    ids.insert(issue.id);
    shortest = std::min(shortest, issue.text.size());
    longest = std::max(longest, issue.text.size());
    // Python tracebacks, Go panics, JVM and JavaScript stack frames, sanitizer reports.
    for (const char* mark :
         {"Traceback (most recent call last)", "goroutine ", "\tat ", "    at ", "AddressSanitizer"}) {
      if (issue.text.find(mark) != std::string::npos) {
        ++with_trace;
        break;
      }
    }
  }
  CHECK(ids.size() == pool->size());
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    auto j = nlohmann::json::parse(line);
    projects.insert(j.at("project").get<std::string>());
    languages.insert(j.at("language").get<std::string>());
  }
  CHECK(projects.size() == pool->size());  // one report per invented project
  CHECK(languages.size() >= 8);
  CHECK(with_trace >= 12);
  CHECK(pool->size() - with_trace >= 60);  // most reports carry no trace
  CHECK(shortest < 200);
  CHECK(longest > 1500);
}

TEST_CASE("Pick is deterministic for a given RNG state", "[demo]") {
  auto pool = DemoIssuePool::FromIssues({{"a", "A"}, {"b", "B"}, {"c", "C"}});
  Rng r1 = Rng::Derive(1, "task", "demo_issue"), r2 = Rng::Derive(1, "task", "demo_issue");
  CHECK(pool.Pick(r1).id == pool.Pick(r2).id);
}

}  // namespace seragen::pipeline

namespace seragen::pipeline {

TEST_CASE("demonstration issues from a SWE-bench JSONL file, filtered by repo", "[demo]") {
  seragen::testing::TempDir dir;
  dir.Write("swe.jsonl",
            "{\"repo\":\"pallets/flask\",\"instance_id\":\"pallets__flask-1\",\"problem_statement\":\"A crashes\\n\"}\n"
            "{\"repo\":\"psf/requests\",\"instance_id\":\"psf__requests-2\",\"problem_statement\":\"B hangs\"}\n"
            "{\"repo\":\"pallets/flask\",\"problem_statement\":\"C leaks\"}\n");
  auto all = DemoIssuePool::FromFile(dir.Sub("swe.jsonl"));
  REQUIRE(all.ok());
  REQUIRE(all->size() == 3);
  CHECK(all->issues()[0].id == "pallets__flask-1");
  CHECK(all->issues()[0].text == "A crashes");
  auto flask = DemoIssuePool::FromFile(dir.Sub("swe.jsonl"), "pallets/flask");
  REQUIRE(flask.ok());
  REQUIRE(flask->size() == 2);
  CHECK(flask->issues()[1].text == "C leaks");
  auto none = DemoIssuePool::FromFile(dir.Sub("swe.jsonl"), "django/django");
  REQUIRE_FALSE(none.ok());
  CHECK(none.status().message().find("django/django") != std::string::npos);
  // A problem_statement that is not a string is an error naming the line.
  dir.Write("bad.jsonl",
            "{\"repo\":\"a/b\",\"problem_statement\":\"ok\"}\n{\"repo\":\"a/b\",\"problem_statement\":7}\n");
  auto bad = DemoIssuePool::FromFile(dir.Sub("bad.jsonl"), "a/b");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.status().message().find("bad.jsonl:2") != std::string::npos);
}

}  // namespace seragen::pipeline
