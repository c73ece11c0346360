#include "seragen/report/run_view.h"

#include <fmt/format.h>

#include <algorithm>
#include <unordered_set>

#include "seragen/base/file_util.h"
#include "seragen/base/hash.h"
#include "seragen/base/strings.h"
#include "seragen/base/utf8.h"
#include "seragen/callgraph/plan.h"
#include "seragen/journal/outcomes.h"
#include "seragen/journal/resume_state.h"
#include "seragen/journal/run_journals.h"
#include "seragen/publish/export_secrets_status.h"
#include "seragen/runview/endpoint_occupancy.h"
#include "seragen/runview/run_state.h"

namespace seragen::report {
namespace {

using journal::Stage;

constexpr std::size_t kMaxConfigBytes = 64 * 1024;

enum FunnelStep { kPlanned, kR1Submitted, kJudged, kIssue, kR2Submitted, kAccepted };

void FillFromPlan(callgraph::PlannedTask&& t, const runview::RunSettings& settings, TaskRow* row) {
  row->task_id = std::move(t.task_id);
  row->repo = std::move(t.repo);
  row->commit = std::move(t.commit);
  row->function_id = std::move(t.function_id);
  row->file = std::move(t.file);
  row->qualname = std::move(t.qualname);
  row->language = std::move(t.language);
  row->start_line = t.start_line;
  row->end_line = t.end_line;
  row->category = row->planned_category = t.category;
  row->category_name = settings.CategoryName(t.category);
  row->in_plan = true;
}

// What the fold says about the task beyond its latest record.
void FillFromFold(const journal::TaskProgress& p, TaskRow* row) {
  row->tokens = p.tokens;
  row->wall_ms = p.wall_ms;
  if (const journal::VerificationResult* v = p.last.verification()) {
    row->scores = v->scores;
    row->threshold = v->threshold;
  }
  row->demo_issue = p.issue.demo_issue;
  row->demo_source = p.issue.demo_source;
  row->funnel[kR1Submitted] = p.reached.rollout1_submitted;
  row->funnel[kJudged] = p.reached.judged_yes;
  row->funnel[kIssue] = p.reached.issue_written;
  row->funnel[kR2Submitted] = p.reached.rollout2_submitted;
}

// Why a verified task has its verdict: "recall 0.00 < 0.50" (rejected),
// "recall 0.80 >= 0.50" (accepted), "P2 is empty" / "P1 has no changed lines"
// (not scorable); "" when the record has no scores.
std::string VerdictReason(const journal::LatestRecord& rec) {
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
  row->stage = p.last.stage;
  row->refs = p.refs;
  row->judge_rejections = p.judge_rejections;
  row->attempts = p.judge_rejections + 1;
  row->outcome = journal::OutcomeOf(p.last);  // failed: retryable ones too (a resumed run tries them again)
  if (p.last.stage == Stage::kVerified) {
    row->detail = VerdictReason(p.last);
  } else if (p.last.stage == Stage::kSkipped) {
    row->detail = journal::SkipReasonName(journal::ParseSkipReason(p.last.status));
  } else if (p.last.stage != Stage::kFailed) {
    row->detail = p.last.status;  // the stage's own status (a rollout's exit status, "written", a judge answer)
  }
  if (p.last.error) {
    row->detail = journal::ErrorClassName(p.last.error->error_class);
    row->error_message = ClipEcho(p.last.error->message, 2000);
  }
  row->funnel[kAccepted] = journal::IsAccepted(p.last);
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

namespace {

// Row positions by task id, hashed through the rows' own ids (an index of
// 100,000 tasks copies none of them).
class RowIndex {
 public:
  explicit RowIndex(const std::vector<TaskRow>& rows) : set_(0, Hash{&rows}, Equal{&rows}) {}
  void Reserve(std::size_t rows) { set_.reserve(rows); }
  // Records rows[row] (already in place).
  void Add(std::size_t row) { set_.insert(row); }
  const std::size_t* Find(std::string_view id) const {
    auto it = set_.find(id);
    return it == set_.end() ? nullptr : &*it;
  }

 private:
  struct Hash {
    using is_transparent = void;
    const std::vector<TaskRow>* rows;
    std::size_t operator()(std::string_view id) const { return std::hash<std::string_view>{}(id); }
    std::size_t operator()(std::size_t row) const { return (*this)((*rows)[row].task_id); }
  };
  struct Equal {
    using is_transparent = void;
    const std::vector<TaskRow>* rows;
    std::string_view Id(std::string_view id) const { return id; }
    std::string_view Id(std::size_t row) const { return (*rows)[row].task_id; }
    template <typename A, typename B>
    bool operator()(const A& a, const B& b) const {
      return Id(a) == Id(b);
    }
  };
  std::unordered_set<std::size_t, Hash, Equal> set_;
};

// One row per planned task, in plan order, not started yet; the plan is
// consumed.
void AddPlannedRows(runview::RunState& run, RunView* view, RowIndex* index) {
  const int shards = run.shard_count();
  view->rows.reserve(run.plan.size());
  index->Reserve(run.plan.size());
  for (std::size_t i = 0; i < run.plan.size(); ++i) {
    if (index->Find(run.plan[i].task_id) != nullptr) continue;
    TaskRow row;
    FillFromPlan(std::move(run.plan[i]), run.settings, &row);
    row.shard = static_cast<int>(journal::ShardOf(i, shards));
    row.outcome = journal::Outcome::kPlanned;
    row.funnel[kPlanned] = true;
    row.page = PageName(row.task_id);
    view->rows.push_back(std::move(row));
    index->Add(view->rows.size() - 1);
  }
  std::vector<callgraph::PlannedTask>().swap(run.plan);
}

// The row of a task the journals hold, added at the end when not in the plan.
TaskRow& RowOf(const std::string& id, RunView* view, RowIndex* index) {
  if (const std::size_t* row = index->Find(id)) return view->rows[*row];
  TaskRow row;  // not in the plan: shown with what the journal says
  row.task_id = id;
  row.category_name = "not in plan";
  row.funnel[kPlanned] = true;
  row.page = PageName(id);
  view->rows.push_back(std::move(row));
  index->Add(view->rows.size() - 1);
  return view->rows.back();
}

void SettingsOf(const runview::RunState& run, RunView* view) {
  view->categories = run.settings.categories;
  view->prompts_dir = run.settings.prompts_dir;
  if (run.settings.saved) {
    view->demos_file = run.settings.saved->issue.demos.file;
    view->demos_repo = run.settings.saved->issue.demos.repo;
  }
  view->config_yaml = ClipEcho(run.settings.config_yaml, kMaxConfigBytes);
  if (!run.shards.empty()) view->recipe_hash = run.shards.front().journal.effective_config_hash;
  for (const runview::ShardState& s : run.shards) {
    view->shard_dirs[s.index] = s.shard_dir;
    const runview::ShardTotals& t = s.totals;
    if (!t.first_at.empty() && (view->first_record_at.empty() || t.first_at < view->first_record_at))
      view->first_record_at = t.first_at;
    if (t.last_at > view->last_record_at) view->last_record_at = t.last_at;
  }
}

}  // namespace

RunView RunViewOf(runview::RunState&& run) {
  RunView view;
  view.run_dir = run.run_dir;
  view.status = runview::StatusOf(run);  // the numbers of `seragen status`
  SettingsOf(run, &view);
  RowIndex index(view.rows);
  AddPlannedRows(run, &view, &index);
  std::size_t freed = 0;  // shards before this one are converted and freed
  run.ForEachTask([&](const runview::ShardState& shard, const journal::TaskProgress& p) {
    // ForEachTask goes shard by shard in K order and, with owners indexed,
    // never looks back at an earlier shard.
    for (const auto at = static_cast<std::size_t>(&shard - run.shards.data()); freed < at; ++freed)
      run.shards[freed].tasks = journal::ResumeState();
    TaskRow& row = RowOf(p.task_id, &view, &index);
    row.shard = shard.index;
    FillFromFold(p, &row);
    FillProgress(p, &row);
    if (int category = journal::AttemptCategory(p, row.category); category != row.category) {
      row.category = category;
      row.category_name = run.settings.CategoryName(category);
    }
  });
  return view;
}

Result<RunView> LoadRunView(const std::string& run_dir) {
  SG_ASSIGN_OR_RETURN(runview::RunState run, runview::FoldRun(run_dir));
  RunView view = RunViewOf(std::move(run));
  view.status.export_secrets = publish::ReadExportSecrets(run_dir);  // as `status` shows them
  view.status.occupancy = runview::ReadRunOccupancy(run_dir, &view.status.occupancy_problems);
  return view;
}

std::string TaskRow::Directory() const { return in_plan ? DirectoryOf(repo, file) : std::string(); }

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
        std::string why(row.OutcomeName());
        const bool running = row.outcome == journal::Outcome::kRunning;
        // A verdict's reason (a recall) is per task, not a reason class.
        if (!row.detail.empty() && !running && row.stage != Stage::kVerified) why += "/" + row.detail;
        if (running) why += " (" + std::string(row.StageName()) + ")";
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
