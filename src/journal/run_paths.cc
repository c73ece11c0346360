#include "seragen/journal/run_paths.h"

#include <charconv>

namespace seragen::journal {
namespace {

constexpr std::string_view kShardPrefix = "shard-";
constexpr std::string_view kTrajectorySuffix = ".json";
constexpr std::string_view kRolloutMark = ".r";
constexpr std::string_view kIssueSuffix = ".md";
constexpr std::string_view kTurnLogSuffix = ".jsonl";
constexpr std::string_view kAttemptMark = ".a";

std::string Join(std::string_view dir, std::string_view name) {
  std::string out(dir);
  out += '/';
  out += name;
  return out;
}

// A task id as it appears inside a ref: non-empty, one path component.
bool PlainName(std::string_view name) {
  return !name.empty() && name != "." && name != ".." && name.find('/') == std::string_view::npos;
}

// Canonical non-negative decimal that fits an int.
std::optional<int> ParseIndex(std::string_view digits) {
  if (digits.empty() || (digits.size() > 1 && digits.front() == '0')) return std::nullopt;
  for (char c : digits) {
    if (c < '0' || c > '9') return std::nullopt;
  }
  int value = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (ec != std::errc() || end != digits.data() + digits.size()) return std::nullopt;
  return value;
}

// The part of `ref` between "<dir>/" and `suffix`; nullopt when it has another form.
std::optional<std::string_view> Between(std::string_view ref, std::string_view dir, std::string_view suffix) {
  if (ref.size() <= dir.size() + 1 + suffix.size()) return std::nullopt;
  if (!ref.starts_with(dir) || ref[dir.size()] != '/' || !ref.ends_with(suffix)) return std::nullopt;
  return ref.substr(dir.size() + 1, ref.size() - dir.size() - 1 - suffix.size());
}

}  // namespace

std::string ConfigYamlPath(std::string_view run_dir) { return Join(run_dir, "config.yaml"); }
std::string ConfigJsonPath(std::string_view run_dir) { return Join(run_dir, "config.json"); }
std::string ConfigHistoryName(int n, std::string_view ext) {
  return "config." + std::to_string(n) + "." + std::string(ext);
}
std::string TasksPath(std::string_view run_dir) { return Join(run_dir, "tasks.jsonl"); }
std::string GraphDir(std::string_view run_dir) { return Join(run_dir, "graph"); }
std::string RepoCacheDir(std::string_view run_dir) { return Join(run_dir, "repo-cache"); }
std::string WorkcopiesDir(std::string_view run_dir) { return Join(run_dir, "workcopies"); }
std::string DataDir(std::string_view run_dir) { return Join(run_dir, "data"); }
std::string EnvLogDir(std::string_view run_dir) { return Join(run_dir, "env"); }
std::string EnvSetupLogPath(std::string_view env_log_dir, std::string_view repo, std::string_view commit) {
  return Join(env_log_dir, std::string(repo) + "-" + std::string(commit.substr(0, 12)) + ".log");
}

std::string ShardDirName(int shard) { return std::string(kShardPrefix) + std::to_string(shard); }
std::string ShardDir(std::string_view run_dir, int shard) { return Join(run_dir, ShardDirName(shard)); }

std::optional<int> ParseShardDirName(std::string_view name) {
  if (!name.starts_with(kShardPrefix)) return std::nullopt;
  return ParseIndex(name.substr(kShardPrefix.size()));
}

std::string JournalPath(std::string_view shard_dir) { return Join(shard_dir, "journal.jsonl"); }
std::string LockPath(std::string_view shard_dir) { return Join(shard_dir, "lock"); }
std::string ShardLogPath(std::string_view shard_dir) { return Join(shard_dir, "seragen.log"); }
std::string ShardSummaryPath(std::string_view shard_dir) { return Join(shard_dir, "summary.json"); }
std::string OccupancyPath(std::string_view shard_dir) { return Join(shard_dir, "occupancy.json"); }

std::string TrajectoryRef(std::string_view task_id, int rollout) {
  return Join(kTrajectoriesDir, std::string(task_id) + std::string(kRolloutMark) + std::to_string(rollout) +
                                    std::string(kTrajectorySuffix));
}

std::string RejectedRollout1Ref(std::string_view task_id, int attempt) {
  return Join(kTrajectoriesDir, std::string(task_id) + std::string(kRolloutMark) + "1.rejected" +
                                    std::to_string(attempt) + std::string(kTrajectorySuffix));
}

std::string IssueRef(std::string_view task_id) {
  return Join(kIssuesDir, std::string(task_id) + std::string(kIssueSuffix));
}

std::optional<TrajectoryName> ParseTrajectoryRef(std::string_view ref) {
  std::optional<std::string_view> stem = Between(ref, kTrajectoriesDir, kTrajectorySuffix);
  if (!stem) return std::nullopt;
  std::size_t mark = stem->rfind(kRolloutMark);
  if (mark == std::string_view::npos) return std::nullopt;
  std::string_view task_id = stem->substr(0, mark);
  std::optional<int> rollout = ParseIndex(stem->substr(mark + kRolloutMark.size()));
  if (!PlainName(task_id) || !rollout || (*rollout != 1 && *rollout != 2)) return std::nullopt;
  return TrajectoryName{std::string(task_id), *rollout};
}

std::optional<std::string> ParseIssueRef(std::string_view ref) {
  std::optional<std::string_view> task_id = Between(ref, kIssuesDir, kIssueSuffix);
  if (!task_id || !PlainName(*task_id)) return std::nullopt;
  return std::string(*task_id);
}

std::string TurnLogRef(std::string_view task_id, int rollout, int attempt) {
  return Join(kTurnsDir, std::string(task_id) + std::string(kRolloutMark) + std::to_string(rollout) +
                             std::string(kAttemptMark) + std::to_string(attempt) + std::string(kTurnLogSuffix));
}

std::optional<TurnLogName> ParseTurnLogRef(std::string_view ref) {
  std::optional<std::string_view> stem = Between(ref, kTurnsDir, kTurnLogSuffix);
  if (!stem) return std::nullopt;
  std::size_t amark = stem->rfind(kAttemptMark);
  if (amark == std::string_view::npos) return std::nullopt;
  std::optional<int> attempt = ParseIndex(stem->substr(amark + kAttemptMark.size()));
  std::string_view head = stem->substr(0, amark);
  std::size_t rmark = head.rfind(kRolloutMark);
  if (rmark == std::string_view::npos) return std::nullopt;
  std::optional<int> rollout = ParseIndex(head.substr(rmark + kRolloutMark.size()));
  std::string_view task_id = head.substr(0, rmark);
  if (!PlainName(task_id) || !rollout || (*rollout != 1 && *rollout != 2) || !attempt || *attempt < 1) {
    return std::nullopt;
  }
  return TurnLogName{std::string(task_id), *rollout, *attempt};
}

std::string ExportDataName(std::string_view which, std::string_view format) {
  return std::string(which) + "." + std::string(format) + ".jsonl";
}

std::string ExportSummaryName(std::string_view format) { return "summary." + std::string(format) + ".json"; }

}  // namespace seragen::journal
