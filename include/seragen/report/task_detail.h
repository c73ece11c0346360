// Everything one task page (and `seragen show`) needs beyond its row: the
// trajectories of both rollouts (and of rollout-1 attempts the judge turned
// down), the synthetic issue, and the start function's neighbours in the call
// graph. Read from the files the journal refers to; a missing or unreadable
// file is noted, never an error.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "seragen/agent/trajectory.h"
#include "seragen/callgraph/graph.h"
#include "seragen/report/run_view.h"

namespace seragen::report {

// Call graphs of a run (RUN_DIR/graph), loaded on first use per repository.
// Not thread-safe.
class GraphIndex {
 public:
  explicit GraphIndex(std::string graph_dir) : graph_dir_(std::move(graph_dir)) {}
  // The cached graph of `repo` that holds `function_id` (a run may have
  // several cache files per repository); nullptr when none does.
  const callgraph::CallGraph* GraphFor(const std::string& repo, const std::string& function_id);

 private:
  std::string graph_dir_;
  std::map<std::string, std::vector<std::unique_ptr<callgraph::CallGraph>>> by_repo_;
};

// Texts of demonstration issues by id, for the sources that can be read
// again after the run (demos::ReloadDemoPool: "builtin" and "file";
// "commits" would need the repository: not shown).
// Not thread-safe.
class DemoIndex {
 public:
  explicit DemoIndex(const RunView& view) : view_(view) {}
  // nullptr when the source cannot be read or has no such id.
  const std::string* Find(const std::string& source, const std::string& id);

 private:
  const RunView& view_;
  std::map<std::string, std::map<std::string, std::string>> by_source_;  // source -> id -> text
};

struct Neighbour {
  std::string function_id;
  std::string resolution;  // how the call was resolved (callgraph::ResolutionName)
  int line = 0;            // the call's line
};

struct RejectedAttempt {
  int attempt = 0;
  std::optional<agent::Trajectory> trajectory;
  std::string load_error;
};

struct TaskDetail {
  std::optional<agent::Trajectory> r1, r2;
  std::string r1_error, r2_error;  // why a referenced trajectory did not load
  std::vector<RejectedAttempt> rejected;
  std::optional<std::string> issue;       // the synthetic issue text
  std::optional<std::string> demo_issue;  // the demonstration shown to the issue writer
  bool graph_found = false;
  std::vector<Neighbour> callers, callees;
};

// Trajectory files larger than this are not read (a page would not show them).
inline constexpr std::size_t kMaxTrajectoryFileBytes = 64u << 20;

// Reads the files of `row` from its shard directory in `view`; `graphs` and
// `demos` may be nullptr (no neighbours, no demonstration text).
TaskDetail LoadTaskDetail(const RunView& view, const TaskRow& row, GraphIndex* graphs, DemoIndex* demos = nullptr);

// Steps, tokens, exit status, ... of a loaded trajectory.
RolloutSummary Summarize(const agent::Trajectory& trajectory);

}  // namespace seragen::report
