#include "seragen/eval/eval_tasks.h"

#include <fmt/format.h>

#include <algorithm>

#include "seragen/agent/trajectory_json.h"
#include "seragen/base/file_util.h"
#include "seragen/base/hash.h"
#include "seragen/config/config.h"
#include "seragen/journal/record.h"
#include "seragen/journal/result_files.h"
#include "seragen/runview/run_state.h"
#include "seragen/verify/scores.h"

namespace seragen::eval {
namespace {

// A rollout's trajectory, nullopt when it is missing or does not read.
std::optional<agent::Trajectory> Trajectory(const std::string& shard_dir, const journal::TaskProgress& p,
                                            const char* role) {
  std::optional<std::string_view> ref = p.refs.Find(role);
  if (!ref) return std::nullopt;
  auto text = journal::ReadResultFile(shard_dir, *ref);
  if (!text.ok()) return std::nullopt;
  auto traj = agent::TrajectoryFromJson(*text);
  if (!traj.ok()) return std::nullopt;
  return std::move(*traj);
}

// "ran: 12 tests, 11 pass, 1 fail, 0 skip, exit 1", or how the run ended.
std::string RunText(const journal::TestRunSummary& r) {
  if (r.status != journal::TestRunStatus::kRan) return std::string(journal::TestRunStatusName(r.status));
  return fmt::format("ran: {} tests, {} pass, {} fail, {} skip, exit {}", r.tests, r.passed, r.failed, r.skipped,
                     r.exit_code);
}

// The verified record's test evidence, when the run gathered it.
std::optional<TestEvidence> EvidenceOf(const journal::TaskProgress& p, const std::string& command) {
  const journal::VerificationResult* v = p.last.verification();
  if (p.last.stage != journal::Stage::kVerified || v == nullptr || !v->tests) return std::nullopt;
  return TestEvidence{command, RunText(v->tests->base), RunText(v->tests->p1), RunText(v->tests->p2),
                      std::string(journal::TestVerdictName(v->tests->agreement.verdict))};
}

// The run-wide settings an eval task carries.
struct RunFacts {
  std::string verify_rule = config::VerifyConfig{}.rule;
  double threshold = config::VerifyConfig{}.threshold;
  bool judge = true;
  std::map<std::string, const config::RepoConfig*> repos;
  const config::Config* cfg = nullptr;
};

RunFacts FactsOf(const runview::RunState& run) {
  RunFacts f;
  if (!run.settings.saved) return f;
  f.cfg = &*run.settings.saved;
  f.verify_rule = f.cfg->verify.rule;
  f.threshold = f.cfg->verify.threshold;
  f.judge = f.cfg->judge.enabled;
  for (const config::RepoConfig& r : f.cfg->repos) f.repos[r.name] = &r;
  return f;
}

void AddRepoFacts(const RunFacts& facts, EvalTask* t) {
  auto repo = facts.repos.find(t->repo);
  if (repo == facts.repos.end()) return;
  t->repo_source = repo->second->source;
  const config::EnvironmentConfig& env =
      repo->second->environment == config::EnvironmentConfig{} ? facts.cfg->environment : repo->second->environment;
  t->environment_key = EnvironmentKey(env);
  t->test_command = env.test_command;
}

// The eval task of one held-out task, or the reason it has none.
std::variant<EvalTask, std::string> TaskOf(const runview::RunState& run, const RunFacts& facts,
                                           const callgraph::PlannedTask& planned) {
  const runview::ShardState* shard = run.OwnerOf(planned.task_id);
  if (shard == nullptr) return std::string("not_finished");
  const journal::TaskProgress* p = shard->tasks.Find(planned.task_id);
  if (p == nullptr) return std::string("not_finished");
  std::optional<std::string_view> issue_ref = p->refs.Find(journal::kRefIssue);
  if (!issue_ref || !p->Done(journal::Stage::kIssueDone)) return std::string("not_finished");
  if (facts.judge && !journal::Rollout1JudgedYes(*p)) return std::string("judge_rejected");
  std::optional<agent::Trajectory> r1 = Trajectory(shard->shard_dir, *p, journal::kRefRollout1);
  if (!r1) return std::string("unreadable");
  if (!r1->has_patch || r1->patch.empty()) return std::string("no_reference");
  auto issue = journal::ReadResultFile(shard->shard_dir, *issue_ref);
  if (!issue.ok() || issue->empty()) return std::string("unreadable");
  EvalTask t;
  t.instance_id = planned.repo + "__" + planned.task_id;
  t.repo = planned.repo;
  t.base_commit = planned.commit;
  t.problem_statement = std::move(*issue);
  t.patch = std::move(r1->patch);
  t.task_id = planned.task_id;
  t.function_id = planned.function_id;
  t.file = planned.file;
  t.qualname = planned.qualname;
  t.language = planned.language;
  t.category = journal::AttemptCategory(*p, planned.category);
  t.category_name = run.settings.CategoryName(t.category);
  t.verify_rule = facts.verify_rule;
  t.verify_threshold = facts.threshold;
  if (std::optional<agent::Trajectory> r2 = Trajectory(shard->shard_dir, *p, journal::kRefRollout2)) {
    t.teacher_patch2 = r2->patch;
    if (auto rule = verify::VerifyRuleFromName(t.verify_rule)) {
      verify::Scores s = verify::ScorePatches(t.patch, t.teacher_patch2, *rule);
      if (s.scorable) t.teacher_recall = s.recall;
    }
  }
  if (facts.cfg != nullptr) AddRepoFacts(facts, &t);
  t.test_evidence = EvidenceOf(*p, t.test_command);
  return t;
}

}  // namespace

Result<EvalTaskSet> EvalTasksOf(const std::string& run_dir) {
  SG_ASSIGN_OR_RETURN(runview::RunState run, runview::FoldRun(run_dir));
  const RunFacts facts = FactsOf(run);
  EvalTaskSet set;
  for (const callgraph::PlannedTask& planned : run.plan) {
    if (!planned.heldout) continue;
    ++set.heldout;
    auto task = TaskOf(run, facts, planned);
    if (auto* why = std::get_if<std::string>(&task)) set.left_out[*why]++;
    else set.tasks.push_back(std::move(std::get<EvalTask>(task)));
  }
  std::sort(set.tasks.begin(), set.tasks.end(),
            [](const EvalTask& a, const EvalTask& b) { return a.task_id < b.task_id; });
  return set;
}

Result<std::string> WriteEvalTasks(const EvalTaskSet& set, const std::string& dir) {
  std::string text;
  for (const EvalTask& t : set.tasks) text += EncodeEvalTask(t) + "\n";
  const std::string path = dir + "/eval.jsonl";
  SG_RETURN_IF_ERROR(MakeDirs(dir));
  SG_RETURN_IF_ERROR(WriteFileAtomic(path, text));
  return path;
}

std::string FormatEvalTaskSet(const EvalTaskSet& set, const std::string& path) {
  std::string out = fmt::format("eval tasks: {} of {} held-out tasks -> {}", set.tasks.size(), set.heldout, path);
  if (!set.left_out.empty()) {
    out += " (left out:";
    for (const auto& [why, n] : set.left_out) out += fmt::format(" {} {}", why, n);
    out += ")";
  }
  return out + "\n";
}

std::string EnvironmentKey(const config::EnvironmentConfig& e) {
  std::string setup;
  for (const std::string& line : e.setup) setup += line + "\n";
  return ContentId({e.image, e.rootfs, setup, e.test_command}, 16);
}

std::string EnvironmentsKey(const config::Config& cfg) {
  std::string keys = EnvironmentKey(cfg.environment);
  for (const config::RepoConfig& repo : cfg.repos) keys += " " + EnvironmentKey(repo.environment);
  return keys;
}

}  // namespace seragen::eval
