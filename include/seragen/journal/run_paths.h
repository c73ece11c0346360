// The one owner of the names inside a run directory: every path under RUN_DIR
// is built here, and names read back from disk are parsed here.
//
//   RUN_DIR/config.yaml           resolved configuration (YAML, for people and resume)
//   RUN_DIR/config.json           its data-affecting part (canonical JSON, compatibility check)
//   RUN_DIR/tasks.jsonl           the task plan
//   RUN_DIR/graph/                call-graph cache (file names: callgraph/graph_cache.h)
//   RUN_DIR/repo-cache/           clones of remote repositories
//   RUN_DIR/workcopies/           working copies (when no other location is configured)
//   RUN_DIR/data/                 exported training data: t1.<format>.jsonl, t2.<format>.jsonl,
//                                 summary.<format>.json
//   RUN_DIR/shard-K/              one shard (K = 0, 1, ...; decimal, no leading zeros)
//     journal.jsonl, lock         the journal and its writer lock (docs/JOURNAL.md)
//     seragen.log, summary.json   the shard's log and end-of-run summary
//     trajectories/<task>.r<N>.json   rollout N's trajectory (N = 1, 2)
//     issues/<task>.md                the synthetic issue
//     turns/<task>.r<N>.a<K>.jsonl    the turn log of rollout N, attempt K, while it is
//                                     unfinished (turn_log.h; deleted after its done record)
//
// Trajectory and issue names are "refs": paths relative to the shard
// directory, as the journal stores them.
//
// Pure string functions; thread-safe. Builders take names that are plain
// file names (a task id has no '/'); parsers accept exactly what the builders
// make and nothing else.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace seragen::journal {

inline constexpr std::string_view kTrajectoriesDir = "trajectories";  // in a shard directory
inline constexpr std::string_view kIssuesDir = "issues";              // in a shard directory
inline constexpr std::string_view kTurnsDir = "turns";                // in a shard directory

// --- RUN_DIR -----------------------------------------------------------------
std::string ConfigYamlPath(std::string_view run_dir);
std::string ConfigJsonPath(std::string_view run_dir);
// The configuration a run had before its n-th accepted change
// (--allow-config-change), n >= 1: "config.<n>.yaml" / "config.<n>.json".
std::string ConfigHistoryName(int n, std::string_view ext);
std::string TasksPath(std::string_view run_dir);
std::string GraphDir(std::string_view run_dir);
std::string RepoCacheDir(std::string_view run_dir);
std::string WorkcopiesDir(std::string_view run_dir);
std::string DataDir(std::string_view run_dir);
// RUN_DIR/env: environment setup logs, "<repo>-<commit prefix>.log" each.
std::string EnvLogDir(std::string_view run_dir);
std::string EnvSetupLogPath(std::string_view env_log_dir, std::string_view repo, std::string_view commit);

// "shard-K". Precondition: shard >= 0.
std::string ShardDirName(int shard);
std::string ShardDir(std::string_view run_dir, int shard);
// K for "shard-K" with K in canonical decimal (no sign, no leading zero
// unless K is 0) that fits an int; nullopt for any other name.
std::optional<int> ParseShardDirName(std::string_view name);

// --- RUN_DIR/shard-K ---------------------------------------------------------
std::string JournalPath(std::string_view shard_dir);
std::string LockPath(std::string_view shard_dir);
std::string ShardLogPath(std::string_view shard_dir);
std::string ShardSummaryPath(std::string_view shard_dir);
std::string OccupancyPath(std::string_view shard_dir);  // occupancy.h

// "trajectories/<task_id>.r<rollout>.json"
std::string TrajectoryRef(std::string_view task_id, int rollout);
// "trajectories/<task_id>.r1.rejected<attempt>.json": a rollout 1 the judge
// turned down (kept for inspection and cost accounting; never exported).
std::string RejectedRollout1Ref(std::string_view task_id, int attempt);
// "issues/<task_id>.md"
std::string IssueRef(std::string_view task_id);

struct TrajectoryName {
  std::string task_id;
  int rollout = 0;  // 1 or 2

  friend bool operator==(const TrajectoryName&, const TrajectoryName&) = default;
};
// The parts of a TrajectoryRef; nullopt unless `ref` is one (non-empty task
// id without '/', rollout 1 or 2).
std::optional<TrajectoryName> ParseTrajectoryRef(std::string_view ref);
// The task id of an IssueRef; nullopt unless `ref` is one.
std::optional<std::string> ParseIssueRef(std::string_view ref);

// "turns/<task_id>.r<rollout>.a<attempt>.jsonl" (shard-relative, like refs;
// never stored in a record). Precondition: rollout and attempt >= 1.
std::string TurnLogRef(std::string_view task_id, int rollout, int attempt);
struct TurnLogName {
  std::string task_id;
  int rollout = 0;  // 1 or 2
  int attempt = 0;  // >= 1

  friend bool operator==(const TurnLogName&, const TurnLogName&) = default;
};
// The parts of a TurnLogRef; nullopt unless `ref` is one.
std::optional<TurnLogName> ParseTurnLogRef(std::string_view ref);

// --- export outputs (RUN_DIR/data or the directory given with --out) -------
// "<which>.<format>.jsonl", e.g. "t1.hf.jsonl" (which: "t1" or "t2").
std::string ExportDataName(std::string_view which, std::string_view format);
// "summary.<format>.json"
std::string ExportSummaryName(std::string_view format);
// LLaMA-Factory's dataset list beside sharegpt files: "dataset_info.json".
inline constexpr std::string_view kDatasetInfoName = "dataset_info.json";

}  // namespace seragen::journal
