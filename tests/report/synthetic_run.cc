#include "report/synthetic_run.h"

#include <fmt/format.h>

#include <fstream>
#include <vector>

#include "seragen/agent/trajectory.h"
#include "seragen/agent/trajectory_json.h"
#include "seragen/base/file_util.h"
#include "seragen/callgraph/plan.h"
#include "seragen/journal/record.h"
#include "seragen/journal/run_paths.h"

namespace seragen::report::testing {
namespace {

using journal::JournalRecord;
using journal::Stage;

Status WritePlain(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  return out ? Status::Ok() : IoError("cannot write " + path);
}

agent::Trajectory MakeTrajectory(const std::string& id, int rollout, std::size_t i, const std::string& hostile,
                                 const std::string& model) {
  agent::Trajectory t;
  t.task_id = id;
  t.rollout = rollout;
  t.model = model;
  t.history.push_back({llm::Role::kSystem, "You are a coding agent.", "", {}, "", ""});
  t.history.push_back({llm::Role::kUser, "Change function f" + std::to_string(i) + ".", "", {}, "", ""});
  int steps = 2 + static_cast<int>(i % 7) + rollout;
  for (int s = 0; s < steps; ++s) {
    agent::TurnRecord turn;
    turn.step = s;
    turn.accepted = true;
    turn.response.reasoning = "Look at the file. " + hostile;
    llm::ToolCall call;
    call.name = s + 1 == steps ? "submit" : "bash";
    call.arguments_valid = true;
    call.arguments_json = s + 1 == steps ? "{}" : R"({"command":"cat mod.py"})";
    call.arguments_raw = call.arguments_json;
    turn.response.tool_calls.push_back(call);
    turn.observation = "def f():\n    return 1\n" + hostile;
    t.turns.push_back(std::move(turn));
  }
  if (i % 5 == 0) {
    agent::TurnRecord bad;
    bad.step = steps;
    bad.format_error = "no_tool_call";
    bad.format_error_message = "Call a tool.";
    t.turns.insert(t.turns.begin() + 1, bad);
  }
  t.exit_status = agent::ExitStatus::kSubmitted;
  t.has_patch = true;
  t.patch = fmt::format(
      "diff --git a/mod{0}.py b/mod{0}.py\n--- a/mod{0}.py\n+++ b/mod{0}.py\n@@ -1,3 +1,3 @@\n def f():\n"
      "-    return 1\n+    return {1}\n+    # {2}\n",
      i, rollout == 1 ? 2 : (i % 10 < 4 ? 2 : 3), hostile);
  t.totals.prompt_tokens = 1000 + static_cast<std::int64_t>(i % 13) * 100;
  t.totals.completion_tokens = 200;
  t.totals.model_calls = steps;
  t.totals.steps = steps;
  t.totals.format_errors = i % 5 == 0 ? 1 : 0;
  t.totals.wall_seconds = 3.5;
  return t;
}

std::vector<callgraph::PlannedTask> MakePlan(const SyntheticRunOptions& o) {
  std::vector<callgraph::PlannedTask> plan;
  for (std::size_t i = 0; i < o.tasks; ++i) {
    callgraph::PlannedTask t;
    t.task_id = fmt::format("{:020x}", 0x5eed0000ULL + i * 7919);
    t.repo = fmt::format("repo{}", i % static_cast<std::size_t>(std::max(1, o.repos)));
    t.commit = "0123456789abcdef0123456789abcdef01234567";
    t.file = fmt::format("pkg/sub{}/mod{}.py", i % 4, i);
    t.qualname = fmt::format("f{}", i);
    t.function_id = t.file + "::" + t.qualname;
    t.language = "python";
    t.start_line = 1;
    t.end_line = 3;
    t.category = static_cast<int>(i % 5);
    t.seed = i;
    plan.push_back(std::move(t));
  }
  return plan;
}

// The records of task i (in order) for its outcome.
std::vector<JournalRecord> RecordsOf(const std::string& id, std::size_t i, const std::vector<std::string>& endpoints) {
  std::string outcome = SyntheticOutcome(i);
  std::vector<JournalRecord> out;
  if (outcome == "planned") return out;
  auto rec = [&](Stage stage, std::string status) {
    JournalRecord r{id, stage, std::move(status), 1};
    r.at = fmt::format("2026-11-20T10:{:02}:{:02}.000Z", (i / 60) % 60, i % 60);
    r.tokens = {1200, 300, 0, 2, 100};
    if (endpoints.size() >= 2)
      r.endpoint_tokens = {{endpoints[0], {1000, 200, 0, 1, 100}}, {endpoints[1], {200, 100, 0, 1, 0}}};
    r.timings_ms = {{"stage", 1000}};
    return r;
  };
  out.push_back(rec(Stage::kPlanned, ""));
  JournalRecord r1 = rec(Stage::kRollout1Done, "submitted");
  r1.refs[journal::kRefRollout1] = journal::TrajectoryRef(id, 1);
  r1.extra = journal::RolloutResult{true, "ab"};
  out.push_back(r1);
  if (outcome == "running") return out;
  if (outcome == "failed") {
    JournalRecord f = rec(Stage::kFailed, "");
    f.error = journal::ErrorInfo{journal::ParseErrorClass("model.exit_format"), "too many format errors <b>", false};
    out.push_back(f);
    return out;
  }
  if (outcome == "skipped") {
    out.push_back(rec(Stage::kJudgeDone, "no"));
    out.push_back(rec(Stage::kSkipped, "judge_no"));
    return out;
  }
  out.push_back(rec(Stage::kJudgeDone, "yes"));
  JournalRecord issue = rec(Stage::kIssueDone, "");
  issue.refs[journal::kRefIssue] = journal::IssueRef(id);
  issue.extra = journal::IssueResult{"tidepool-short", 0, "builtin"};
  out.push_back(issue);
  JournalRecord r2 = rec(Stage::kRollout2Done, "submitted");
  r2.refs[journal::kRefRollout2] = journal::TrajectoryRef(id, 2);
  r2.extra = journal::RolloutResult{true, ""};
  out.push_back(r2);
  bool accepted = outcome == "accepted";
  JournalRecord v = rec(Stage::kVerified, outcome);
  v.extra = journal::VerificationResult{
      journal::VerificationScores{"sera", 2, 2, accepted ? 2u : 1u, false, accepted ? 1.0 : 0.5, accepted ? 1.0 : 0.5,
                                  accepted ? 1.0 : 0.5, true},
      0.75, true};
  out.push_back(v);
  return out;
}

}  // namespace

std::string SyntheticOutcome(std::size_t i) {
  static const char* kCycle[] = {"accepted", "rejected", "accepted", "skipped", "accepted",
                                 "failed",   "accepted", "rejected", "running", "planned"};
  return kCycle[i % 10];
}

Status MakeSyntheticRun(const std::string& run_dir, const SyntheticRunOptions& o) {
  std::vector<callgraph::PlannedTask> plan = MakePlan(o);
  SG_RETURN_IF_ERROR(MakeDirs(run_dir));
  SG_RETURN_IF_ERROR(WritePlain(journal::TasksPath(run_dir), callgraph::WriteTasksJsonl(plan)));
  for (int k = 0; k < o.shards; ++k) {
    std::string shard_dir = journal::ShardDir(run_dir, k);
    SG_RETURN_IF_ERROR(MakeDirs(shard_dir + "/" + std::string(journal::kTrajectoriesDir)));
    SG_RETURN_IF_ERROR(MakeDirs(shard_dir + "/" + std::string(journal::kIssuesDir)));
    journal::JournalHeader header;
    header.config_hash = "synthetic-recipe";
    header.shard = k;
    header.shards = o.shards;
    header.created = "2026-11-20T10:00:00.000Z";
    std::string text = journal::EncodeHeader(header) + "\n";
    for (std::size_t i = static_cast<std::size_t>(k); i < plan.size(); i += static_cast<std::size_t>(o.shards)) {
      const std::string& id = plan[i].task_id;
      for (const JournalRecord& r : RecordsOf(id, i, o.endpoints)) {
        SG_ASSIGN_OR_RETURN(std::string line, journal::EncodeRecord(r));
        text += line + "\n";
        if (!o.trajectories) continue;
        for (const auto& [role, ref] : r.refs) {
          std::string body = role == journal::kRefIssue
                                 ? "The function returns the wrong value. " + o.hostile_text + "\n"
                                 : agent::TrajectoryToJson(MakeTrajectory(id, role == journal::kRefRollout1 ? 1 : 2, i,
                                                                          o.hostile_text, o.model));
          SG_RETURN_IF_ERROR(WritePlain(shard_dir + "/" + ref, body));
        }
      }
    }
    SG_RETURN_IF_ERROR(WritePlain(journal::JournalPath(shard_dir), text));
  }
  return Status::Ok();
}

}  // namespace seragen::report::testing
