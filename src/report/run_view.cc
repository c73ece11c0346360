#include "seragen/report/run_view.h"

#include <fmt/format.h>

#include <algorithm>
#include <unordered_map>

#include "seragen/base/file_util.h"
#include "seragen/base/hash.h"
#include "seragen/base/strings.h"
#include "seragen/base/utf8.h"
#include "seragen/callgraph/plan.h"
#include "seragen/config/data_dir.h"
#include "seragen/config/loader.h"
#include "seragen/config/prompt_files.h"
#include "seragen/journal/resume_state.h"
#include "seragen/journal/run_journals.h"
#include "seragen/journal/run_paths.h"

namespace seragen::report {
namespace {

using journal::Stage;

constexpr std::size_t kMaxConfigBytes = 64 * 1024;

enum FunnelStep { kPlanned, kR1Submitted, kJudged, kIssue, kR2Submitted, kAccepted };

// The prompts directory, demonstration settings and category names (by
// index, as `seragen status` names them) of the run's saved config.
void ReadRunConfig(const std::string& run_dir, RunView* view) {
  view->prompts_dir = config::DataDir() + "/prompts";
  if (auto loaded = pipeline::LoadSavedConfig(run_dir); loaded.ok()) {
    if (!loaded->config.prompts.dir.empty()) view->prompts_dir = loaded->config.prompts.dir;
    view->demos_file = loaded->config.issue.demos.file;
    view->demos_repo = loaded->config.issue.demos.repo;
  }
  if (auto c = config::LoadCategoryPrompts(view->prompts_dir + "/categories.yaml"); c.ok()) {
    for (const auto& cat : *c) view->categories.push_back(cat.topic);
  }
}

std::string CategoryName(int index, const std::vector<std::string>& names) {
  if (index >= 0 && static_cast<std::size_t>(index) < names.size()) return names[static_cast<std::size_t>(index)];
  return "category " + std::to_string(index);
}

void FillFromPlan(const callgraph::PlannedTask& t, const std::vector<std::string>& categories, TaskRow* row) {
  row->task_id = t.task_id;
  row->repo = t.repo;
  row->commit = t.commit;
  row->function_id = t.function_id;
  row->file = t.file;
  row->qualname = t.qualname;
  row->language = t.language;
  row->start_line = t.start_line;
  row->end_line = t.end_line;
  row->category = row->planned_category = t.category;
  row->category_name = CategoryName(t.category, categories);
  row->directory = DirectoryOf(t.repo, t.file);
}

// Adds what one record says to its task's row (records in journal order).
void AddRecord(const journal::JournalRecord& rec, TaskRow* row) {
  row->tokens.prompt_tokens += rec.tokens.prompt_tokens;
  row->tokens.completion_tokens += rec.tokens.completion_tokens;
  row->tokens.reasoning_tokens += rec.tokens.reasoning_tokens;
  row->tokens.cached_prompt_tokens += rec.tokens.cached_prompt_tokens;
  row->tokens.calls += rec.tokens.calls;
  for (const auto& [name, ms] : rec.timings_ms) row->wall_ms += ms;
  switch (rec.stage) {
    case Stage::kRollout1Done:
      if (rec.status == "submitted") row->funnel[kR1Submitted] = true;
      break;
    case Stage::kJudgeDone:
      if (AsciiLower(rec.status) == "yes") row->funnel[kJudged] = true;
      break;
    case Stage::kIssueDone:
      row->funnel[kIssue] = true;
      row->funnel[kJudged] = true;  // without a judge, every issue follows an unjudged rollout 1
      if (const auto* issue = rec.issue()) {
        row->demo_issue = issue->demo_issue;
        row->demo_source = issue->demo_source;
      }
      break;
    case Stage::kRollout2Done:
      if (rec.status == "submitted") row->funnel[kR2Submitted] = true;
      break;
    case Stage::kVerified:
      if (const auto* v = rec.verification()) {
        row->scores = v->scores;
        row->threshold = v->threshold;
      }
      break;
    default: break;
  }
}

// Why a verified task has its verdict: "recall 0.00 < 0.50" (rejected),
// "recall 0.80 >= 0.50" (accepted), "P2 is empty" / "P1 has no changed lines"
// (not scorable); "" when the record has no scores.
std::string VerdictReason(const journal::JournalRecord& rec) {
  const journal::VerificationResult* v = rec.verification();
  if (v == nullptr || !v->scores) return "";
  const journal::VerificationScores& s = *v->scores;
  if (!s.scorable) return s.p2_blank ? "P2 is empty" : "P1 has no changed lines";
  if (!v->threshold) return fmt::format("recall {:.2f}", s.recall);
  return fmt::format("recall {:.2f} {} {:.2f}", s.recall, s.recall >= *v->threshold ? ">=" : "<", *v->threshold);
}

// Outcome, stage and detail from the folded progress of the task.
void FillProgress(const journal::TaskProgress& p, TaskRow* row) {
  row->started = true;
  row->stage = std::string(journal::StageName(p.last.stage));
  row->refs = p.refs;
  row->judge_rejections = p.judge_rejections;
  row->attempts = p.judge_rejections + 1;
  if (p.last.stage == Stage::kVerified) {
    row->outcome = p.last.status;
    row->detail = VerdictReason(p.last);
  } else if (p.last.stage == Stage::kSkipped) {
    row->outcome = "skipped";
    row->detail = p.last.status;
  } else if (p.last.stage == Stage::kFailed) {
    row->outcome = "failed";  // retryable ones too (a resumed run tries them again)
  } else {
    row->outcome = "running";
    row->detail = p.last.status;
  }
  if (p.last.error) {
    row->detail = p.last.error->error_class;
    row->error_message = ClipEcho(p.last.error->message, 2000);
  }
  row->funnel[kAccepted] = p.last.stage == Stage::kVerified && p.last.status == "accepted";
}

void SetSpan(const std::string& at, RunView* view) {
  if (at.empty()) return;
  if (view->first_record_at.empty() || at < view->first_record_at) view->first_record_at = at;
  if (at > view->last_record_at) view->last_record_at = at;
}

}  // namespace

std::string DirectoryOf(std::string_view repo, std::string_view file) {
  auto slash = file.rfind('/');
  std::string dir = slash == std::string_view::npos ? "." : std::string(file.substr(0, slash));
  return std::string(repo) + "/" + dir;
}

std::string PageName(std::string_view task_id) {
  bool plain = !task_id.empty() && task_id.size() <= 100;
  for (char c : task_id) {
    if (!IsAsciiIdentChar(c) && c != '-') plain = false;
  }
  if (plain) return std::string(task_id) + ".html";
  return "t-" + Sha256Hex(task_id).substr(0, 32) + ".html";
}

Result<RunView> LoadRunView(const std::string& run_dir) {
  RunView view;
  view.run_dir = run_dir;
  SG_ASSIGN_OR_RETURN(auto plan, callgraph::ReadTasksFile(journal::TasksPath(run_dir)));
  SG_ASSIGN_OR_RETURN(auto shards, journal::LoadRunJournals(run_dir));
  view.status = pipeline::StatusFromJournals(run_dir, plan, shards);  // the numbers of `seragen status`
  ReadRunConfig(run_dir, &view);
  if (auto yaml = ReadRegularFile(journal::ConfigYamlPath(run_dir), pipeline::kMaxSavedConfigBytes); yaml.ok())
    view.config_yaml = ClipEcho(*yaml, kMaxConfigBytes);
  int shard_count = shards.empty() ? 1 : std::max(1, shards.front().journal.header.shards);
  if (!shards.empty()) view.recipe_hash = shards.front().journal.effective_config_hash;

  std::unordered_map<std::string, std::size_t> index;
  view.rows.reserve(plan.size());
  for (std::size_t i = 0; i < plan.size(); ++i) {
    if (!index.emplace(plan[i].task_id, view.rows.size()).second) continue;
    TaskRow row;
    FillFromPlan(plan[i], view.categories, &row);
    row.shard = static_cast<int>(i % static_cast<std::size_t>(shard_count));
    row.outcome = "planned";
    row.funnel[kPlanned] = true;
    row.page = PageName(row.task_id);
    view.rows.push_back(std::move(row));
  }
  for (const auto& shard : shards) {
    int k = shard.journal.header.shard;
    view.shard_dirs[k] = shard.shard_dir;
    std::unordered_map<std::string, TaskRow> seen;  // this shard's tasks
    for (const auto& rec : shard.journal.records) {
      SetSpan(rec.at, &view);
      AddRecord(rec, &seen[rec.task_id]);
    }
    journal::ResumeState state = journal::ResumeState::Fold(shard.journal.records);
    for (const auto& [id, p] : state.tasks()) {
      TaskRow& from_journal = seen[id];
      auto it = index.find(id);
      if (it == index.end()) {  // not in the plan: shown with what the journal says
        it = index.emplace(id, view.rows.size()).first;
        TaskRow row;
        row.task_id = id;
        row.category_name = "not in plan";
        row.funnel[kPlanned] = true;
        row.page = PageName(id);
        view.rows.push_back(std::move(row));
      }
      TaskRow& row = view.rows[it->second];
      if (row.started) continue;  // a task in two shards: the first shard's record wins (as export)
      row.shard = k;
      row.tokens = from_journal.tokens;
      row.wall_ms = from_journal.wall_ms;
      row.scores = from_journal.scores;
      row.threshold = from_journal.threshold;
      row.demo_issue = from_journal.demo_issue;
      row.demo_source = from_journal.demo_source;
      for (int s = kR1Submitted; s < kAccepted; ++s) row.funnel[s] = from_journal.funnel[s];
      FillProgress(p, &row);
      if (int category = journal::AttemptCategory(p, row.category); category != row.category) {
        row.category = category;
        row.category_name = CategoryName(category, view.categories);
      }
    }
  }
  return view;
}

std::string TaskRow::CategoryNote() const {
  std::string note = " (" + std::to_string(category);
  if (planned_category != category) note += "; planned " + std::to_string(planned_category);
  return note + ")";
}

Funnel ComputeFunnel(const std::vector<TaskRow>& rows) {
  Funnel f;
  for (const TaskRow& row : rows) {
    for (std::size_t s = 0; s < kFunnelStepCount; ++s) {
      if (row.funnel[s]) {
        f.counts[s]++;
      } else if (s > 0 && row.funnel[s - 1]) {
        std::string why = row.outcome;
        // A verdict's reason (a recall) is per task, not a reason class.
        if (!row.detail.empty() && row.outcome != "running" && row.stage != "verified") why += "/" + row.detail;
        if (row.outcome == "running") why += " (" + row.stage + ")";
        f.drops[s][why]++;
      }
    }
  }
  return f;
}

const TaskRow* FindTask(const RunView& view, std::string_view task_id) {
  for (const TaskRow& row : view.rows) {
    if (row.task_id == task_id) return &row;
  }
  const TaskRow* found = nullptr;
  for (const TaskRow& row : view.rows) {
    if (!task_id.empty() && row.task_id.starts_with(task_id)) {
      if (found != nullptr) return nullptr;
      found = &row;
    }
  }
  return found;
}

}  // namespace seragen::report
