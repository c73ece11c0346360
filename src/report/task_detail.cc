#include "seragen/report/task_detail.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "seragen/agent/exit_status.h"
#include "seragen/agent/trajectory_json.h"
#include "seragen/base/file_util.h"
#include "seragen/callgraph/graph_cache.h"
#include "seragen/callgraph/graph_io.h"
#include "seragen/demos/demo_source.h"
#include "seragen/journal/record.h"
#include "seragen/journal/result_files.h"
#include "seragen/journal/run_paths.h"

namespace seragen::report {
namespace {

constexpr std::size_t kMaxIssueBytes = 256 * 1024;
constexpr std::size_t kMaxNeighbours = 50;
constexpr std::size_t kGraphKeyLength = 24;  // callgraph::GraphCacheKey
constexpr std::string_view kRejectedRolePrefix = "rollout1_rejected";

bool FileTooLarge(const std::string& path, std::size_t limit) {
  std::error_code ec;
  auto size = std::filesystem::file_size(path, ec);
  return !ec && size > limit;
}

std::optional<agent::Trajectory> LoadTrajectory(const std::string& shard_dir, std::string_view ref,
                                                std::string* error) {
  if (FileTooLarge(shard_dir + "/" + std::string(ref), kMaxTrajectoryFileBytes)) {
    *error = "trajectory file larger than the report reads";
    return std::nullopt;
  }
  auto text = journal::ReadResultFile(shard_dir, ref);
  if (!text.ok()) {
    *error = text.status().message();
    return std::nullopt;
  }
  auto traj = agent::TrajectoryFromJson(*text);
  if (!traj.ok()) {
    *error = traj.status().message();
    return std::nullopt;
  }
  return std::move(*traj);
}

void AddNeighbours(const callgraph::CallGraph& g, std::uint32_t node, TaskDetail* d) {
  for (const callgraph::CallEdge& e : g.edges) {
    bool out = e.caller == node, in = e.callee == node;
    if (!out && !in) continue;
    auto& list = out ? d->callees : d->callers;
    if (list.size() >= kMaxNeighbours) continue;
    list.push_back(
        {g.nodes[out ? e.callee : e.caller].id, std::string(callgraph::ResolutionName(e.resolution)), e.line});
  }
}

}  // namespace

const callgraph::CallGraph* GraphIndex::GraphFor(const std::string& repo, const std::string& function_id) {
  auto it = by_repo_.find(repo);
  if (it == by_repo_.end()) {
    it = by_repo_.emplace(repo, std::vector<std::unique_ptr<callgraph::CallGraph>>{}).first;
    std::string prefix = callgraph::GraphCacheFilePrefix(repo);
    std::error_code ec;
    std::vector<std::string> files;
    for (std::filesystem::directory_iterator d(graph_dir_, ec), end; !ec && d != end; d.increment(ec)) {
      std::string name = d->path().filename().string();
      // "<prefix><24 hex key>.json": not the files of a repository whose name merely starts alike.
      if (name.size() == prefix.size() + kGraphKeyLength + 5 && name.starts_with(prefix) && name.ends_with(".json"))
        files.push_back(d->path().string());
    }
    std::sort(files.begin(), files.end());
    for (const std::string& f : files) {
      auto text = ReadRegularFile(f, callgraph::kMaxGraphCacheBytes);
      if (!text.ok()) continue;
      auto g = callgraph::ReadGraphJson(*text);
      if (g.ok()) it->second.push_back(std::make_unique<callgraph::CallGraph>(std::move(*g)));
    }
  }
  for (const auto& g : it->second) {
    if (g->FindNode(function_id)) return g.get();
  }
  return nullptr;
}

const std::string* DemoIndex::Find(const std::string& source, const std::string& id) {
  auto it = by_source_.find(source);
  if (it == by_source_.end()) {
    it = by_source_.emplace(source, std::map<std::string, std::string>{}).first;
    demos::DemoSourceOptions run_options;
    run_options.file = view_.demos_file;
    run_options.repo_filter = view_.demos_repo;
    auto pool = demos::ReloadDemoPool(source, run_options, view_.prompts_dir);
    if (pool.ok()) {
      for (const demos::DemoIssue& d : pool->issues()) it->second.emplace(d.id, d.text);
    }
  }
  auto text = it->second.find(id);
  return text == it->second.end() ? nullptr : &text->second;
}

RolloutSummary Summarize(const agent::Trajectory& t) {
  RolloutSummary s;
  s.present = true;
  s.exit_status = agent::OutcomeName(t.exit_status, t.autosubmitted);
  s.steps = t.totals.steps;
  s.model_calls = t.totals.model_calls;
  s.format_errors = t.totals.format_errors;
  s.tokens = t.totals.prompt_tokens + t.totals.completion_tokens;
  s.wall_seconds = t.totals.wall_seconds;
  s.model = t.model;
  return s;
}

TaskDetail LoadTaskDetail(const RunView& view, const TaskRow& row, GraphIndex* graphs, DemoIndex* demos) {
  TaskDetail d;
  if (demos != nullptr && !row.demo_issue.empty()) {
    if (const std::string* text = demos->Find(row.demo_source, row.demo_issue)) d.demo_issue = *text;
  }
  auto shard = view.shard_dirs.find(row.shard);
  if (row.started && shard != view.shard_dirs.end()) {
    const std::string& dir = shard->second;
    if (auto r = row.refs.Find(journal::kRefRollout1)) d.r1 = LoadTrajectory(dir, *r, &d.r1_error);
    if (auto r = row.refs.Find(journal::kRefRollout2)) d.r2 = LoadTrajectory(dir, *r, &d.r2_error);
    for (const auto& [role, ref] : row.refs) {
      if (!role.starts_with(kRejectedRolePrefix)) continue;
      RejectedAttempt a;
      a.attempt = std::atoi(std::string(role.substr(kRejectedRolePrefix.size())).c_str());
      a.trajectory = LoadTrajectory(dir, ref, &a.load_error);
      d.rejected.push_back(std::move(a));
    }
    if (auto r = row.refs.Find(journal::kRefIssue); r && !FileTooLarge(dir + "/" + std::string(*r), kMaxIssueBytes)) {
      if (auto text = journal::ReadResultFile(dir, *r); text.ok()) d.issue = std::move(*text);
    }
  }
  if (graphs != nullptr && !row.function_id.empty()) {
    if (const callgraph::CallGraph* g = graphs->GraphFor(row.repo, row.function_id)) {
      d.graph_found = true;
      AddNeighbours(*g, *g->FindNode(row.function_id), &d);
    }
  }
  return d;
}

}  // namespace seragen::report
