#include "seragen/journal/run_journals.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "seragen/journal/journal.h"
#include "seragen/journal/run_paths.h"

namespace seragen::journal {
Result<std::vector<ShardLocation>> ListShardDirs(const std::string& run_dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(run_dir, ec)) return NotFoundError("no such run directory: " + run_dir);
  std::vector<ShardLocation> shards;
  for (fs::directory_iterator it(run_dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::optional<int> k = ParseShardDirName(it->path().filename().string());
    if (k && it->is_directory(ec)) shards.push_back(ShardLocation{*k, it->path().string()});
  }
  if (ec) return IoError(fmt::format("cannot list run directory {}: {}", run_dir, ec.message()));
  std::sort(shards.begin(), shards.end(),
            [](const ShardLocation& a, const ShardLocation& b) { return a.index < b.index; });
  return shards;
}

Status CheckShardJournal(const std::string& run_dir, const ShardLocation& shard, const LoadedJournal& journal,
                         const ShardJournalRef* first) {
  if (journal.header.shard != shard.index) {
    return FailedPreconditionError(fmt::format("journal {} says it is shard {}, but its directory is {}",
                                               JournalPath(shard.dir), journal.header.shard,
                                               ShardDirName(shard.index)));
  }
  if (first != nullptr && first->journal->header.shards != journal.header.shards) {
    return FailedPreconditionError(fmt::format(
        "shard journals of {} disagree on the shard count: {} says {}, {} says {}", run_dir, JournalPath(first->dir),
        first->journal->header.shards, JournalPath(shard.dir), journal.header.shards));
  }
  return Status::Ok();
}

std::size_t ShardOf(std::size_t plan_index, int shards) {
  return plan_index % static_cast<std::size_t>(std::max(1, shards));
}

Result<std::vector<ShardJournal>> LoadRunJournals(const std::string& run_dir) {
  SG_ASSIGN_OR_RETURN(std::vector<ShardLocation> shards, ListShardDirs(run_dir));
  std::vector<ShardJournal> out;
  for (const ShardLocation& shard : shards) {
    auto loaded = LoadJournal(JournalPath(shard.dir));
    if (!loaded.ok() && loaded.status().code() == StatusCode::kNotFound) continue;
    if (!loaded.ok()) return loaded.status();
    if (!loaded->has_header) continue;  // only a torn header: nothing written yet
    ShardJournalRef first;
    if (!out.empty()) first = {out.front().shard_dir, &out.front().journal};
    SG_RETURN_IF_ERROR(CheckShardJournal(run_dir, shard, *loaded, out.empty() ? nullptr : &first));
    out.push_back(ShardJournal{shard.dir, std::move(*loaded)});
  }
  return out;
}

}  // namespace seragen::journal
