#include "seragen/runview/run_state.h"

#include <algorithm>
#include <atomic>
#include <future>
#include <optional>
#include <thread>
#include <type_traits>
#include <unordered_set>

#include "runview/shard_fold.h"
#include "seragen/journal/run_journals.h"
#include "seragen/journal/run_paths.h"

namespace seragen::runview {
namespace {

// Vectors of shard states move them when they grow; a throwing move would
// make them copy every task's progress instead.
static_assert(std::is_nothrow_move_constructible_v<ShardState>);
static_assert(std::is_nothrow_move_constructible_v<journal::ResumeState>);

// One shard directory streamed and folded; nullopt when it has no journal
// yet (or only a torn header).
Result<std::optional<ShardState>> StreamShard(const journal::ShardLocation& where) {
  ShardFolder folder(where.index, where.dir);
  auto loaded =
      journal::StreamJournal(journal::JournalPath(where.dir), [&folder](journal::JournalRecord&& r) { folder.Add(r); });
  if (!loaded.ok() && loaded.status().code() == StatusCode::kNotFound) return std::optional<ShardState>();
  if (!loaded.ok()) return loaded.status();
  if (!loaded->has_header) return std::optional<ShardState>();
  return std::optional<ShardState>(std::move(folder).Finish(std::move(*loaded)));
}

// Folds every shard, two at a time; results in the order of `dirs`.
std::vector<Result<std::optional<ShardState>>> StreamShards(const std::vector<journal::ShardLocation>& dirs) {
  std::vector<Result<std::optional<ShardState>>> out(dirs.size(), std::optional<ShardState>());
  std::atomic<std::size_t> next{0};
  auto work = [&] {
    for (std::size_t i = next++; i < dirs.size(); i = next++) out[i] = StreamShard(dirs[i]);
  };
  std::optional<std::thread> helper;
  if (dirs.size() > 1) helper.emplace(work);
  work();
  if (helper) helper->join();
  return out;
}

Result<std::vector<ShardState>> FoldShards(const std::string& run_dir, int skip_shard) {
  SG_ASSIGN_OR_RETURN(std::vector<journal::ShardLocation> dirs, journal::ListShardDirs(run_dir));
  std::erase_if(dirs, [skip_shard](const journal::ShardLocation& d) { return d.index == skip_shard; });
  std::vector<Result<std::optional<ShardState>>> folded = StreamShards(dirs);
  std::vector<ShardState> shards;
  shards.reserve(dirs.size());
  for (std::size_t i = 0; i < dirs.size(); ++i) {
    if (!folded[i].ok()) return folded[i].status();
    if (!folded[i]->has_value()) continue;
    ShardState& s = **folded[i];
    journal::ShardJournalRef first;
    if (!shards.empty()) first = {shards.front().shard_dir, &shards.front().journal};
    SG_RETURN_IF_ERROR(journal::CheckShardJournal(run_dir, dirs[i], s.journal, shards.empty() ? nullptr : &first));
    shards.push_back(std::move(s));
  }
  return shards;
}

}  // namespace

journal::TokenUsage ShardTotals::tokens() const {
  journal::TokenUsage sum;
  for (const auto& [stage, usage] : tokens_by_stage) sum += usage;
  return sum;
}

int RunState::shard_count() const { return shards.empty() ? 1 : std::max(1, shards.front().journal.header.shards); }

const ShardState* RunState::OwnerOf(const std::string& task_id) const {
  for (const ShardState& s : shards) {
    if (s.tasks.Find(task_id) != nullptr) return &s;
  }
  return nullptr;
}

void RunState::IndexOwners() {
  std::unordered_set<std::string_view> seen;
  for (ShardState& s : shards) {
    s.shadowed.clear();
    for (const auto& [id, p] : s.tasks.tasks()) {
      if (!seen.insert(id).second) s.shadowed.insert(id);
    }
  }
  owners_indexed_ = true;
}

void RunState::ForEachTask(const std::function<void(const ShardState&, const journal::TaskProgress&)>& visit) const {
  for (const ShardState& s : shards) {
    for (const auto& [id, p] : s.tasks.tasks()) {
      const bool owned = owners_indexed_ ? !s.shadowed.contains(id) : OwnerOf(id) == &s;
      if (owned) visit(s, p);
    }
  }
}

std::size_t RunState::duplicate_tasks() const {
  std::size_t n = 0;
  for (const ShardState& s : shards) {
    if (owners_indexed_) {
      n += s.shadowed.size();
      continue;
    }
    for (const auto& [id, p] : s.tasks.tasks()) n += OwnerOf(id) != &s;
  }
  return n;
}

Result<RunState> FoldRun(const std::string& run_dir, const FoldOptions& options) {
  RunState run;
  run.run_dir = run_dir;
  // The journals are folded while this thread reads the plan and the settings.
  std::future<Result<std::vector<ShardState>>> shards =
      std::async(std::launch::async, [&] { return FoldShards(run_dir, options.skip_shard); });
  Status plan;
  if (options.plan) {
    auto read = callgraph::ReadTasksFile(journal::TasksPath(run_dir));
    if (read.ok()) run.plan = std::move(*read);
    plan = read.status();
  }
  if (options.settings) run.settings = LoadRunSettings(run_dir, options.prompts_dir);
  Result<std::vector<ShardState>> folded = shards.get();
  SG_RETURN_IF_ERROR(plan);
  if (!folded.ok()) return folded.status();
  run.shards = std::move(*folded);
  run.IndexOwners();
  return run;
}

}  // namespace seragen::runview
