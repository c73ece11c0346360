#include "seragen/journal/run_journals.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <filesystem>

#include "seragen/journal/journal.h"

namespace seragen::journal {
namespace {

// "shard-12" -> 12; -1 when the name has another form.
int ShardNumber(const std::string& name) {
  constexpr std::string_view kPrefix = "shard-";
  if (name.size() <= kPrefix.size() || name.compare(0, kPrefix.size(), kPrefix) != 0) return -1;
  int k = -1;
  const char* begin = name.data() + kPrefix.size();
  const char* end = name.data() + name.size();
  auto [p, ec] = std::from_chars(begin, end, k);
  if (ec != std::errc() || p != end || k < 0) return -1;
  return k;
}

}  // namespace

Result<std::vector<ShardJournal>> LoadRunJournals(const std::string& run_dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(run_dir, ec)) return NotFoundError("no such run directory: " + run_dir);
  std::vector<std::pair<int, std::string>> shards;
  for (fs::directory_iterator it(run_dir, ec), end; !ec && it != end; it.increment(ec)) {
    int k = ShardNumber(it->path().filename().string());
    if (k >= 0 && it->is_directory(ec)) shards.emplace_back(k, it->path().string());
  }
  if (ec) return IoError(fmt::format("cannot list run directory {}: {}", run_dir, ec.message()));
  std::sort(shards.begin(), shards.end());

  std::vector<ShardJournal> out;
  for (const auto& [k, dir] : shards) {
    auto loaded = LoadJournal(JournalPath(dir));
    if (!loaded.ok() && loaded.status().code() == StatusCode::kNotFound) continue;
    if (!loaded.ok()) return loaded.status();
    if (!loaded->has_header) continue;  // only a torn header: nothing written yet
    if (loaded->header.shard != k) {
      return FailedPreconditionError(fmt::format(
          "journal {} says it is shard {}, but its directory is shard-{}", JournalPath(dir),
          loaded->header.shard, k));
    }
    if (!out.empty() && out.front().journal.header.shards != loaded->header.shards) {
      return FailedPreconditionError(fmt::format(
          "shard journals of {} disagree on the shard count: {} says {}, {} says {}", run_dir,
          JournalPath(out.front().shard_dir), out.front().journal.header.shards,
          JournalPath(dir), loaded->header.shards));
    }
    out.push_back(ShardJournal{dir, std::move(*loaded)});
  }
  return out;
}

}  // namespace seragen::journal
