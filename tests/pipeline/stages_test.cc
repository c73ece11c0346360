#include <catch2/catch.hpp>

#include <string>

#include "pipeline/issue_stage.h"
#include "seragen/pipeline/prompt_library.h"
#include "testing/source_paths.h"
#include "testing/temp_dir.h"

namespace seragen::pipeline {

TEST_CASE("the shipped prompts load, render and hash", "[prompts]") {
  auto p = PromptLibrary::Load(seragen::testing::SourcePath("prompts"), config::PromptsConfig{});
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
  auto q = PromptLibrary::Load(seragen::testing::SourcePath("prompts"), config::PromptsConfig{}, "tools v2");
  CHECK(q->hash() != p->hash());
}

TEST_CASE("the rollout prompts state the test command when there is one and read naturally without", "[prompts]") {
  auto p = PromptLibrary::Load(seragen::testing::SourcePath("prompts"), config::PromptsConfig{});
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
    seragen::testing::RunShell("cp " + seragen::testing::SourcePath("prompts/") + f + " " + dir.path());
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
    auto text = seragen::testing::SourcePath("prompts/") + f;
    seragen::testing::RunShell("cp " + text + " " + dir.path());
  }
  dir.Write("rollout1.md", "Fix {{function}} in {{file_path}}.");
  auto p = PromptLibrary::Load(dir.path(), config::PromptsConfig{});
  REQUIRE_FALSE(p.ok());
  CHECK(p.status().message().find("rollout1.md:1: no value for placeholder '{{function}}'") != std::string::npos);
}

TEST_CASE("the issue writer's trajectory summary is bounded whatever the steps hold", "[issue][bounds]") {
  auto p = PromptLibrary::Load(seragen::testing::SourcePath("prompts"), config::PromptsConfig{});
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
  CHECK(ParseJudgeReply("<answer>yes</answer>", "answer") == journal::JudgeAnswer::kYes);
  CHECK(ParseJudgeReply("<answer> yes \n</answer>", "answer") == journal::JudgeAnswer::kYes);
  // As SERA reads it: case-insensitive, and only the bare word is a yes
  // ("Yes." and "yes!" are not: SERA compares the stripped text to "yes").
  CHECK(ParseJudgeReply("<answer>Yes</answer>", "answer") == journal::JudgeAnswer::kYes);
  CHECK(ParseJudgeReply("<answer> YES </answer>", "answer") == journal::JudgeAnswer::kYes);
  CHECK(ParseJudgeReply("<answer> YES. </answer>", "answer") == journal::JudgeAnswer::kUnparseable);
  CHECK(ParseJudgeReply("<answer>yes!</answer>", "answer") == journal::JudgeAnswer::kUnparseable);
  CHECK(ParseJudgeReply("<answer>No</answer>", "answer") == journal::JudgeAnswer::kNo);
  CHECK(ParseJudgeReply("<answer>NO.</answer>", "answer") == journal::JudgeAnswer::kUnparseable);
  CHECK(ParseJudgeReply("<answer>yes, it does</answer>", "answer") == journal::JudgeAnswer::kUnparseable);
  CHECK(ParseJudgeReply("<answer>yesno</answer>", "answer") == journal::JudgeAnswer::kUnparseable);
  CHECK(ParseJudgeReply("yes", "answer") == journal::JudgeAnswer::kUnparseable);
  CHECK(LastClosingTag("put it in <issue></issue> tags") == "issue");
  CHECK(LastClosingTag("nothing") == "");
}

}  // namespace seragen::pipeline
