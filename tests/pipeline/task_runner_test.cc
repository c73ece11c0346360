#include "seragen/pipeline/task_runner.h"

#include <catch2/catch.hpp>

#include <fstream>
#include <set>

#include "pipeline/pipeline_fakes.h"
#include "pipeline/runner_world.h"
#include "repo/git_fixture.h"
#include "seragen/agent/trajectory_json.h"
#include "seragen/base/utf8.h"
#include "seragen/journal/error_class.h"
#include "seragen/journal/resume_state.h"
#include "seragen/repo/diff.h"
#include "seragen/repo/repository.h"

namespace seragen::pipeline {
namespace {

using testing::MemoryStore;
using testing::ScriptedEnvironments;
using testing::ScriptedModel;

struct RunnerFixture : testing::RunnerWorld {
  ScriptedModel model;

  RunnerFixture() {
    demos.set_source("builtin");
    model.Install(chat);
  }

  journal::TaskProgress Progress(const std::string& id) {
    auto state = journal::ResumeState::Fold(store.records);
    return *state.Find(id);
  }
};

}  // namespace

TEST_CASE("a task flows through every stage and is verified", "[pipeline]") {
  RunnerFixture f;
  TaskOutcome o = f.Run(RunnerFixture::MakeTask("t1"));
  CHECK(o.kind == TaskOutcome::Kind::kVerified);
  CHECK(o.accepted);
  CHECK(f.store.Stages("t1") == std::vector<std::string>{"rollout1_done:submitted", "judge_done:yes",
                                                         "issue_done:written", "rollout2_done:submitted",
                                                         "verified:accepted"});
  CHECK(f.store.files.count("trajectories/t1.r1.json") == 1);
  CHECK(f.store.files.count("trajectories/t1.r2.json") == 1);
  CHECK(f.store.files["issues/t1.md"] == "Calling `reserve` with 0 items crashes.");
  // Which demonstration issue was used; rollout 1's patch hash; the scores.
  REQUIRE(f.store.records[2].issue() != nullptr);
  CHECK(f.store.records[2].issue()->demo_issue == "d1");
  CHECK(f.store.records[2].issue()->retries == 0);
  CHECK(f.store.records[2].issue()->demo_source == "builtin");
  REQUIRE(f.store.records[0].rollout() != nullptr);
  CHECK(f.store.records[0].rollout()->has_patch);
  CHECK(f.store.records[0].rollout()->patch_sha256.size() == 64);
  const journal::VerificationResult* v = f.store.records[4].verification();
  REQUIRE(v != nullptr);
  REQUIRE(v->scores.has_value());
  CHECK(v->scores->recall == 1.0);
  CHECK(v->threshold == f.ctx.settings.verify_threshold);
  CHECK(v->rollout2_submitted);
  // Rollout 2 was given the issue.
  auto r2 = agent::TrajectoryFromJson(f.store.files["trajectories/t1.r2.json"]);
  REQUIRE(r2.ok());
  CHECK(r2->history[1].content.find("Calling `reserve` with 0 items crashes.") != std::string::npos);
  // Rollout 1's prompt names the function, the file and the category text.
  auto r1 = agent::TrajectoryFromJson(f.store.files["trajectories/t1.r1.json"]);
  CHECK(r1->history[1].content.find("Stock.reserve") != std::string::npos);
  CHECK(r1->history[1].content.find(f.prompts.categories()[13].prompt) != std::string::npos);
  CHECK(f.model.rollout_calls == 4);
  CHECK(f.model.issue_calls == 1);
  CHECK(f.model.judge_calls == 1);
}

TEST_CASE("seeds derive from the run seed and task id", "[pipeline]") {
  RunnerFixture a, b;
  a.Run(RunnerFixture::MakeTask("t1"));
  b.Run(RunnerFixture::MakeTask("t1"));
  auto ra = a.chat.requests(), rb = b.chat.requests();
  REQUIRE(ra.size() == rb.size());
  for (std::size_t i = 0; i < ra.size(); ++i) CHECK(ra[i].seed == rb[i].seed);
  CHECK(ra[0].seed != ra.back().seed);  // rollout 1 and rollout 2 differ
  // Every seed sent is one all servers take unchanged (regression: 64-bit seeds were sent).
  for (const auto& r : ra) {
    REQUIRE(r.seed.has_value());
    CHECK(*r.seed <= 0x7fffffffULL);
  }
  RunnerFixture c;
  c.ctx.settings.run_seed = 43;
  c.Run(RunnerFixture::MakeTask("t1"));
  CHECK(c.chat.requests()[0].seed != ra[0].seed);
}

TEST_CASE("resume continues after the last durable stage", "[pipeline]") {
  RunnerFixture f;
  f.Run(RunnerFixture::MakeTask("t1"));
  // Keep only the first three records, as if the process died after the issue.
  f.store.records.resize(3);
  journal::TaskProgress p = f.Progress("t1");
  RunnerFixture g;
  g.store.files = f.store.files;
  g.store.records = f.store.records;
  TaskOutcome o = g.Run(RunnerFixture::MakeTask("t1"), &p);
  CHECK(o.kind == TaskOutcome::Kind::kVerified);
  CHECK(g.model.issue_calls == 0);    // not redone
  CHECK(g.model.rollout_calls == 2);  // only rollout 2
  CHECK(g.store.Stages("t1").back() == "verified:accepted");
}

TEST_CASE("an unreadable stage result is redone, not trusted", "[pipeline]") {
  RunnerFixture f;
  f.Run(RunnerFixture::MakeTask("t1"));
  f.store.records.resize(3);
  journal::TaskProgress p = f.Progress("t1");
  RunnerFixture g;
  g.store.records = f.store.records;
  g.store.files = f.store.files;
  g.store.files.erase("issues/t1.md");
  TaskOutcome o = g.Run(RunnerFixture::MakeTask("t1"), &p);
  CHECK(o.kind == TaskOutcome::Kind::kVerified);
  CHECK(g.model.issue_calls == 1);
  CHECK(g.model.rollout_calls == 2);
}

TEST_CASE("an empty P1 uses the task's remaining rollout-1 attempts, a duplicate P1 stops the task", "[pipeline]") {
  RunnerFixture f;
  CHECK(f.Run(RunnerFixture::MakeTask("t1")).kind == TaskOutcome::Kind::kVerified);
  TaskOutcome dup = f.Run(RunnerFixture::MakeTask("t2"));
  CHECK(dup.kind == TaskOutcome::Kind::kSkipped);
  CHECK(dup.detail == "duplicate_p1");
  f.envs.patch1 = "";
  f.envs.patch2 = "";  // every attempt's copy
  TaskOutcome empty = f.Run(RunnerFixture::MakeTask("t3"));
  CHECK(empty.kind == TaskOutcome::Kind::kSkipped);
  CHECK(empty.detail == "empty_p1");
  // As SERA: each attempt set aside (no judge call), then skipped after the last.
  CHECK(f.store.Stages("t3") == std::vector<std::string>{"rollout1_done:submitted", "judge_done:empty_p1",
                                                         "rollout1_done:submitted", "judge_done:empty_p1",
                                                         "rollout1_done:submitted", "skipped:empty_p1"});
  CHECK(f.store.files.count("trajectories/t3.r1.rejected2.json") == 1);
  // A rollout 1 that ends on a budget with nothing to hand in: the same.
  f.model.rollout1_never_submits = true;
  f.model.issue_calls = 0;  // never_submits holds until an issue is written
  f.ctx.settings.limits.max_model_calls = 2;
  CHECK(f.Run(RunnerFixture::MakeTask("t4")).kind == TaskOutcome::Kind::kSkipped);
  CHECK(f.store.Stages("t4") ==
        std::vector<std::string>{"rollout1_done:exit_model_calls", "judge_done:rollout1_exit_model_calls",
                                 "rollout1_done:exit_model_calls", "judge_done:rollout1_exit_model_calls",
                                 "rollout1_done:exit_model_calls", "skipped:rollout1_exit_model_calls"});
}

TEST_CASE("judge: a no sends the task back to rollout 1 with another category", "[pipeline][judge]") {
  RunnerFixture f;
  f.model.judge_replies = {"<answer>No</answer>", "<answer> Yes </answer>"};
  TaskOutcome o = f.Run(RunnerFixture::MakeTask("t1"));
  CHECK(o.kind == TaskOutcome::Kind::kVerified);
  CHECK(f.model.judge_calls == 2);
  CHECK(f.model.issue_calls == 1);
  CHECK(f.store.Stages("t1") == std::vector<std::string>{"rollout1_done:submitted", "judge_done:no",
                                                         "rollout1_done:submitted", "judge_done:yes",
                                                         "issue_done:written", "rollout2_done:submitted",
                                                         "verified:accepted"});
  // The rejected rollout is kept; the second attempt drew another category and seed.
  REQUIRE(f.store.files.count("trajectories/t1.r1.rejected1.json") == 1);
  auto first = agent::TrajectoryFromJson(f.store.files["trajectories/t1.r1.rejected1.json"]);
  auto second = agent::TrajectoryFromJson(f.store.files["trajectories/t1.r1.json"]);
  REQUIRE(first.ok());
  REQUIRE(second.ok());
  CHECK(first->history[1].content.find(f.prompts.categories()[13].prompt) != std::string::npos);
  CHECK(second->history[1].content.find(f.prompts.categories()[13].prompt) == std::string::npos);
  auto requests = f.chat.requests();
  CHECK(requests.front().seed != requests[2].seed);  // rollout-1 attempts 1 and 2
  // Each attempt's category and seed are in its rollout1_done; rollout 2 carries the accepted attempt's.
  std::vector<journal::RolloutResult> rollouts;
  for (const auto& r : f.store.records) {
    if (const auto* extra = r.rollout()) rollouts.push_back(*extra);
  }
  REQUIRE(rollouts.size() == 3);
  CHECK(rollouts[0].category_index == 13u);
  REQUIRE(rollouts[1].category_index.has_value());
  CHECK(*rollouts[1].category_index != 13u);
  CHECK(second->history[1].content.find(f.prompts.categories()[*rollouts[1].category_index].prompt) !=
        std::string::npos);
  CHECK(rollouts[2].category_index == rollouts[1].category_index);
  CHECK(rollouts[0].seed.has_value());
  CHECK(rollouts[1].seed.has_value());
  CHECK(rollouts[0].seed != rollouts[1].seed);
  CHECK(journal::AttemptCategory(journal::ResumeState::Fold(f.store.records).tasks().at("t1"), 13) ==
        static_cast<int>(*rollouts[1].category_index));
  // The judge saw the task, the steps and the patch.
  const std::string& judge_prompt = requests[2].messages.front().content;
  CHECK(judge_prompt.find("Stock.reserve") != std::string::npos);
  CHECK(judge_prompt.find("ls") != std::string::npos);
  CHECK(judge_prompt.find("raise ValueError") != std::string::npos);
}

TEST_CASE("the judge and the issue writer see rollout 1's reasoning", "[pipeline][judge][issue]") {
  RunnerFixture f;
  f.model.rollout_reasoning = "The guard on quantity looks off by one.";
  CHECK(f.Run(RunnerFixture::MakeTask("t1")).kind == TaskOutcome::Kind::kVerified);
  int text_requests = 0;
  for (const auto& req : f.chat.requests()) {
    if (!req.tools.empty()) continue;
    ++text_requests;
    CHECK(req.messages.front().content.find("The guard on quantity looks off by one.") != std::string::npos);
  }
  CHECK(text_requests == 2);  // the judge and the issue writer
}

TEST_CASE("a rollout 1 ended by the call budget is autosubmitted and goes on to stage 2", "[pipeline][autosubmit]") {
  RunnerFixture f;
  f.model.rollout1_never_submits = true;
  f.ctx.settings.limits.max_model_calls = 3;
  TaskOutcome o = f.Run(RunnerFixture::MakeTask("t1"));
  CHECK(o.kind == TaskOutcome::Kind::kVerified);
  CHECK(f.store.Stages("t1") == std::vector<std::string>{"rollout1_done:exit_model_calls", "judge_done:yes",
                                                         "issue_done:written", "rollout2_done:submitted",
                                                         "verified:accepted"});
  REQUIRE(f.store.records[0].rollout() != nullptr);
  CHECK(f.store.records[0].rollout()->autosubmitted);
  CHECK_FALSE(f.store.records[3].rollout()->autosubmitted);
  auto r1 = agent::TrajectoryFromJson(f.store.files["trajectories/t1.r1.json"]);
  REQUIRE(r1.ok());
  CHECK(r1->autosubmitted);
  CHECK(r1->exit_status == agent::ExitStatus::kModelCalls);
  CHECK(f.model.rollout_calls == 3 + 2);
}

TEST_CASE("judge: no to every attempt skips the task after judge_max_attempts", "[pipeline][judge]") {
  RunnerFixture f;
  f.model.judge_reply = "<answer>no</answer>";
  f.model.judge_replies = {"<answer>maybe</answer>"};  // unparseable counts as a no
  TaskOutcome o = f.Run(RunnerFixture::MakeTask("t1"));
  CHECK(o.kind == TaskOutcome::Kind::kSkipped);
  CHECK(f.model.judge_calls == 3);
  CHECK(f.model.rollout_calls == 6);  // three rollouts 1 of two calls each
  CHECK(f.model.issue_calls == 0);
  CHECK(f.store.Stages("t1").back() == "skipped:judge_no");
  CHECK(f.store.files.count("trajectories/t1.r1.rejected2.json") == 1);
  CHECK(f.store.files.count("trajectories/t1.r1.rejected3.json") == 0);
  // Each attempt drew a category not used before.
  std::set<std::string> prompts;
  for (const auto& r : f.chat.requests()) {
    if (!r.tools.empty() && r.messages.size() == 2) prompts.insert(r.messages[1].content);
  }
  CHECK(prompts.size() == 3);
  f.ctx.settings.judge_max_attempts = 1;
  f.model.judge_calls = 0;
  f.envs.patch1 = "diff --git a/b.py b/b.py\n--- a/b.py\n+++ b/b.py\n@@ -1 +1 @@\n-a\n+b\n";
  CHECK(f.Run(RunnerFixture::MakeTask("t2")).kind == TaskOutcome::Kind::kSkipped);
  CHECK(f.model.judge_calls == 1);
}

TEST_CASE("judge: resume between attempts never exceeds judge_max_attempts", "[pipeline][judge]") {
  RunnerFixture f;
  f.model.judge_reply = "<answer>no</answer>";
  f.Run(RunnerFixture::MakeTask("t1"));
  REQUIRE(f.store.records.size() == 7);  // (rollout1, judge no) x3, skipped
  // Killed after the first "no": two attempts are left, no more.
  for (std::size_t keep : {2, 4, 6}) {
    std::vector<journal::JournalRecord> kept(f.store.records.begin(), f.store.records.begin() + keep);
    journal::TaskProgress p = *journal::ResumeState::Fold(kept).Find("t1");
    CHECK(p.judge_rejections == static_cast<int>(keep / 2));
    CHECK_FALSE(p.Done(journal::Stage::kRollout1Done));
    RunnerFixture g;
    g.store.records = kept;
    g.store.files = f.store.files;
    g.model.judge_reply = "<answer>no</answer>";
    TaskOutcome o = g.Run(RunnerFixture::MakeTask("t1"), &p);
    CHECK(o.kind == TaskOutcome::Kind::kSkipped);
    CHECK(g.model.judge_calls == static_cast<int>(3 - keep / 2));
    CHECK(g.store.Stages("t1").back() == "skipped:judge_no");
  }
}

TEST_CASE("judge: off runs the stages without it", "[pipeline][judge]") {
  RunnerFixture f;
  f.ctx.settings.judge_enabled = false;
  CHECK(f.Run(RunnerFixture::MakeTask("t1")).kind == TaskOutcome::Kind::kVerified);
  CHECK(f.model.judge_calls == 0);
  CHECK(f.store.Stages("t1").size() == 4);
}

TEST_CASE("issue: unusable answers are asked again and counted", "[pipeline][issue]") {
  RunnerFixture f;
  f.model.issue_replies = {"Here it is: it crashes.", "<issue>  \n</issue>"};
  TaskOutcome o = f.Run(RunnerFixture::MakeTask("t1"));
  CHECK(o.kind == TaskOutcome::Kind::kVerified);
  CHECK(f.model.issue_calls == 3);
  const journal::JournalRecord& rec = f.store.records[2];
  REQUIRE(rec.issue() != nullptr);
  CHECK(rec.issue()->retries == 2);
  CHECK(rec.tokens.calls == 3);
  auto requests = f.chat.requests();
  std::vector<std::optional<std::uint64_t>> seeds;
  for (const auto& r : requests) {
    if (r.tools.empty() && r.messages.front().content.find("</issue>") != std::string::npos) seeds.push_back(r.seed);
  }
  REQUIRE(seeds.size() == 3);
  CHECK(seeds[0] != seeds[1]);
  CHECK(f.store.files["issues/t1.md"] == "Calling `reserve` with 0 items crashes.");
}

// Issue 28, finding 5: a 30 MB issue was stored whole and sent in every rollout-2 request.
TEST_CASE("an issue over issue_max_bytes is unusable and asked again", "[pipeline][issue][r2-finding5]") {
  RunnerFixture f;
  f.ctx.settings.issue_max_bytes = 1000;
  f.model.issue_replies = {"<issue>" + std::string(4 * 1024 * 1024, 'w') + "</issue>"};
  TaskOutcome o = f.Run(RunnerFixture::MakeTask("t1"));
  CHECK(o.kind == TaskOutcome::Kind::kVerified);
  CHECK(f.model.issue_calls == 2);
  CHECK(f.store.files["issues/t1.md"] == "Calling `reserve` with 0 items crashes.");
  for (const auto& r : f.chat.requests()) {
    std::size_t bytes = 0;
    for (const auto& m : r.messages) bytes += m.content.size();
    CHECK(bytes < 1024 * 1024);  // rollout 2 never carries the long issue
  }
}

TEST_CASE("an issue reply without the tag is a model failure once attempts run out", "[pipeline][issue]") {
  RunnerFixture f;
  f.ctx.settings.issue_max_attempts = 3;
  f.model.issue_reply = "Here is the issue: it crashes.";
  TaskOutcome o = f.Run(RunnerFixture::MakeTask("t1"));
  CHECK(o.kind == TaskOutcome::Kind::kModelFailure);
  CHECK(f.model.issue_calls == 3);
  CHECK(o.detail.find("3 answers") != std::string::npos);
  CHECK(f.store.records.back().tokens.calls == 3);
  REQUIRE(f.store.records.back().error.has_value());
  CHECK(journal::ErrorClassName(f.store.records.back().error->error_class) == "model.issue_unparseable");
  CHECK_FALSE(f.store.records.back().error->retryable);
}

TEST_CASE("infrastructure failures are tagged, retryable, and abort on config errors", "[pipeline]") {
  SECTION("endpoint keeps failing") {
    RunnerFixture f;
    f.model.fail_rollouts = llm::FailureClass::kTransientServer;
    TaskOutcome o = f.Run(RunnerFixture::MakeTask("t1"));
    CHECK(o.kind == TaskOutcome::Kind::kInfraFailure);
    REQUIRE(f.store.records.size() == 1);
    CHECK(f.store.records[0].stage == journal::Stage::kFailed);
    CHECK(journal::ErrorClassName(f.store.records[0].error->error_class) == "infra.exit_llm_error");
    CHECK(f.store.records[0].error->retryable);
    // A resumed run tries again, as attempt 2.
    journal::TaskProgress p = f.Progress("t1");
    CHECK_FALSE(p.finished);
    f.model.fail_rollouts.reset();
    TaskOutcome again = f.Run(RunnerFixture::MakeTask("t1"), &p);
    CHECK(again.kind == TaskOutcome::Kind::kVerified);
    CHECK(f.store.records.back().attempt == 2);
  }
  SECTION("a configuration error fails the task (retried on rerun) while the client has not stopped the run") {
    RunnerFixture f;
    f.model.fail_rollouts = llm::FailureClass::kConfig;
    CHECK(f.Run(RunnerFixture::MakeTask("t1")).kind == TaskOutcome::Kind::kConfigFailure);
    CHECK(journal::ErrorClassName(f.store.records.back().error->error_class) == "config.exit_config");
    CHECK(f.store.records.back().error->retryable);
  }
  SECTION("configuration error aborts the run once the client stops it") {
    RunnerFixture f;
    f.model.fail_rollouts = llm::FailureClass::kConfig;
    f.chat.SetRunStop(llm::MakeFailure(llm::FailureClass::kConfig, "same error 3 times"));
    CHECK(f.Run(RunnerFixture::MakeTask("t1")).kind == TaskOutcome::Kind::kAbortRun);
  }
  // The outcome's words are what people read (the `aborted:` line, the log, summary.json).
  SECTION("a quota stop aborts the run: its outcome's words have no class tag, the journal's keep it") {
    RunnerFixture f;
    f.model.fail_rollouts = llm::FailureClass::kQuota;
    const TaskOutcome o = f.Run(RunnerFixture::MakeTask("t1"));
    CHECK((o.kind == TaskOutcome::Kind::kAbortRun && o.detail == "scripted failure"));
    CHECK(f.store.records.back().error->message == "[llm:quota] scripted failure");
  }
  SECTION("no working copy") {
    RunnerFixture f;
    f.envs.fail = true;
    TaskOutcome o = f.Run(RunnerFixture::MakeTask("t1"));
    CHECK(o.kind == TaskOutcome::Kind::kInfraFailure);
    CHECK(journal::ErrorClassName(f.store.records.back().error->error_class) == "infra.environment");
  }
  SECTION("disk failure") {
    RunnerFixture f;
    f.store.fail_writes = true;
    TaskOutcome o = f.Run(RunnerFixture::MakeTask("t1"));
    CHECK(o.kind == TaskOutcome::Kind::kInfraFailure);
    CHECK(o.detail.find("disk full") != std::string::npos);
    CHECK(f.store.records.empty());  // never a record pointing at a missing file
  }
}

TEST_CASE("a failed call is journaled with the family ClassifyFailure gives it", "[pipeline][blame]") {
  struct Case {
    Status failure;
    TaskOutcome::Kind kind;
    const char* error_class;
    bool retryable;
  };
  // The old rule here blamed the model for context_overflow only: tool_format
  // and output_budget were journaled as retryable infrastructure failures.
  const Case cases[] = {
      {llm::MakeFailure(llm::FailureClass::kToolFormat, "markup"), TaskOutcome::Kind::kModelFailure,
       "model.issue.tool_format", false},
      {llm::MakeFailure(llm::FailureClass::kOutputBudget, "no room"), TaskOutcome::Kind::kModelFailure,
       "model.issue.output_budget", false},
      {llm::MakeFailure(llm::FailureClass::kContextOverflow, "long"), TaskOutcome::Kind::kModelFailure,
       "model.issue.context_overflow", false},
      {llm::MakeFailure(llm::FailureClass::kConfig, "401"), TaskOutcome::Kind::kConfigFailure, "config.issue.config",
       true},
      {llm::MakeFailure(llm::FailureClass::kRateLimited, "429"), TaskOutcome::Kind::kInfraFailure,
       "infra.issue.rate_limited", true},
      {InternalError("untagged"), TaskOutcome::Kind::kInfraFailure, "infra.issue.none", true},
      // The class is the Status's typed detail: kept under other words, and
      // never read from text that only looks like a class.
      {Status(StatusCode::kUnavailable, "429, reworded",
              llm::MakeFailure(llm::FailureClass::kRateLimited, "").detail()),
       TaskOutcome::Kind::kInfraFailure, "infra.issue.rate_limited", true},
      {OutOfRangeError("[llm:context_overflow] long"), TaskOutcome::Kind::kInfraFailure, "infra.issue.none", true},
      {llm::MakeFailure(llm::FailureClass::kQuota, "insufficient_quota"), TaskOutcome::Kind::kAbortRun,
       "infra.issue.quota", true},
  };
  for (const Case& c : cases) {
    CAPTURE(c.error_class);
    RunnerFixture f;
    f.model.fail_issue = c.failure;
    TaskOutcome o = f.Run(RunnerFixture::MakeTask("t1"));
    CHECK(o.kind == c.kind);
    REQUIRE(f.store.records.back().error.has_value());
    CHECK(journal::ErrorClassName(f.store.records.back().error->error_class) == c.error_class);
    CHECK(f.store.records.back().error->retryable == c.retryable);
    CHECK(f.store.records.back().error->message == c.failure.ToString());  // the journal's text is unchanged
    // What people read (the `aborted:` line, the log): the code and message, no class tag.
    CHECK(o.detail == std::string(StatusCodeName(c.failure.code())) + ": " + c.failure.message());
  }
}

TEST_CASE("rejected rollout 2 is verified but not accepted", "[pipeline]") {
  RunnerFixture f;
  f.envs.patch2 = "diff --git a/z.py b/z.py\n--- a/z.py\n+++ b/z.py\n@@ -1 +1 @@\n-a\n+b\n";
  TaskOutcome o = f.Run(RunnerFixture::MakeTask("t1"));
  CHECK(o.kind == TaskOutcome::Kind::kVerified);
  CHECK_FALSE(o.accepted);
  CHECK(f.store.Stages("t1").back() == "verified:rejected");
  const journal::VerificationResult* v = f.store.records.back().verification();
  REQUIRE(v != nullptr);
  REQUIRE(v->scores.has_value());
  CHECK(v->scores->recall == 0.0);
  CHECK(v->scores->matched == 0);
}

// The issue record names the demonstration issue by its id, whatever bytes
// the id holds (demos are configuration; the old hand-built JSON broke on a
// newline and wrote no record at all).
TEST_CASE("a demonstration id with control characters and invalid UTF-8 is recorded exactly", "[pipeline]") {
  RunnerFixture f;
  const std::string id = "d\"1\\\n\x01\xff";
  f.demos = demos::DemoIssuePool::FromIssues({{id, "Example issue text."}});
  TaskOutcome o = f.Run(RunnerFixture::MakeTask("t1"));
  CHECK(o.kind == TaskOutcome::Kind::kVerified);
  REQUIRE(f.store.records.size() >= 3);
  REQUIRE(f.store.records[2].issue() != nullptr);
  CHECK(f.store.records[2].issue()->demo_issue == id);
}

}  // namespace seragen::pipeline

namespace seragen::pipeline {

// Issue 12, finding 3: a one-line edit in a Latin-1 file made a patch that is
// not UTF-8; saving rollout 1's trajectory threw (type_error.316) and aborted
// the process, on every resume. Now the trajectory is saved, keeps the exact
// patch bytes, and a resumed task verifies against them.
TEST_CASE("a patch of a Latin-1 file is saved losslessly and a resumed task verifies it", "[pipeline][utf8]") {
  seragen::testing::TempDir tmp;
  const std::string src = tmp.Sub("src");
  // "caf\xe9" is Latin-1 for "cafe" with an acute accent: not valid UTF-8.
  const std::string before =
      "# Fran\xe7"
      "ais: caf\xe9\ndef label():\n    return \"caf\xe9\"\n";
  const std::string base = repo::testing::MakeRepo(src, {{"legacy.py", before}});
  std::ofstream(src + "/legacy.py", std::ios::binary | std::ios::trunc)
      << "# Fran\xe7"
         "ais: caf\xe9\ndef label():\n    return \"caf\xe9s\"\n";
  auto diff = repo::DiffAgainstBase(repo::CopyPaths{src, src + "/.git"}, base);
  REQUIRE(diff.ok());
  const std::string patch = *diff;
  CHECK(patch == repo::testing::ReferenceDiff(src, base));  // the bytes git prints
  REQUIRE_FALSE(IsValidUtf8(patch));

  RunnerFixture f;
  f.envs.patch1 = f.envs.patch2 = patch;
  TaskOutcome o = f.Run(RunnerFixture::MakeTask("t1"));
  CHECK(o.kind == TaskOutcome::Kind::kVerified);
  CHECK(o.accepted);
  const std::string& r1_text = f.store.files["trajectories/t1.r1.json"];
  CHECK(IsValidUtf8(r1_text));
  auto r1 = agent::TrajectoryFromJson(r1_text);
  REQUIRE(r1.ok());
  CHECK(r1->patch == patch);  // exact bytes, not the repaired text

  // The stored bytes still apply to the base commit.
  repo::testing::MustRun(repo::testing::Git(src) + " checkout -q -- legacy.py");
  auto repository = repo::Repository::Open(src);
  REQUIRE(repository.ok());
  CHECK(repository->CheckPatchApplies(base, r1->patch).ok());

  // Resume after the issue: rollout 1 comes from the file, rollout 2 runs
  // again, and verification compares exact bytes (the changed lines hold the
  // Latin-1 byte, so a repaired P1 would not match P2 and not be accepted).
  f.store.records.resize(2);
  journal::TaskProgress p = f.Progress("t1");
  RunnerFixture g;
  g.envs.patch1 = g.envs.patch2 = patch;
  g.store.files = f.store.files;
  g.store.records = f.store.records;
  TaskOutcome resumed = g.Run(RunnerFixture::MakeTask("t1"), &p);
  CHECK(resumed.kind == TaskOutcome::Kind::kVerified);
  CHECK(resumed.accepted);
  CHECK(g.model.rollout_calls == 2);
  CHECK(g.store.Stages("t1").back() == "verified:accepted");
}

// Trajectory files written before patch_base64 existed load unchanged.
TEST_CASE("a trajectory file without patch_base64 still loads", "[pipeline][utf8]") {
  RunnerFixture f;
  f.Run(RunnerFixture::MakeTask("t1"));
  const std::string& text = f.store.files["trajectories/t1.r1.json"];
  CHECK(text.find("patch_base64") == std::string::npos);  // valid UTF-8 patch: text form only
  auto r1 = agent::TrajectoryFromJson(text);
  REQUIRE(r1.ok());
  CHECK(r1->patch == f.envs.patch1);
}

}  // namespace seragen::pipeline

namespace seragen::pipeline {

TEST_CASE("the environment's test command reaches both rollout prompts", "[pipeline][environment]") {
  RunnerFixture f;
  f.envs.test_command = "python -m pytest -q tests/unit";
  REQUIRE(f.Run(RunnerFixture::MakeTask("tc")).kind == TaskOutcome::Kind::kVerified);
  for (const char* file : {"trajectories/tc.r1.json", "trajectories/tc.r2.json"}) {
    auto t = agent::TrajectoryFromJson(f.store.files[file]);
    REQUIRE(t.ok());
    INFO(t->history[1].content);
    CHECK(t->history[1].content.find("with `python -m pytest -q tests/unit` (from `/repo`)") != std::string::npos);
  }
  RunnerFixture without;
  REQUIRE(without.Run(RunnerFixture::MakeTask("tc")).kind == TaskOutcome::Kind::kVerified);
  auto t = agent::TrajectoryFromJson(without.store.files["trajectories/tc.r1.json"]);
  REQUIRE(t.ok());
  CHECK(t->history[1].content.find("If the repository has tests for this code, run them.") != std::string::npos);
  CHECK(t->history[1].content.find("pytest") == std::string::npos);
}

}  // namespace seragen::pipeline
