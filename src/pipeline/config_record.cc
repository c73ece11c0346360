#include "pipeline/config_record.h"

#include <filesystem>

#include "seragen/base/file_util.h"
#include "seragen/base/log.h"
#include "seragen/journal/config_diff.h"
#include "seragen/journal/journal_reader.h"
#include "seragen/journal/run_journals.h"
#include "seragen/journal/run_paths.h"
#include "seragen/runview/run_settings.h"

namespace seragen::pipeline {
namespace {

// More accepted changes than this are not looked for (a bound on the scan).
constexpr int kMaxHistory = 100000;

int CountHistory(const std::string& run_dir) {
  int n = 0;
  std::error_code ec;
  while (n < kMaxHistory && std::filesystem::exists(run_dir + "/" + journal::ConfigHistoryName(n + 1, "json"), ec)) {
    ++n;
  }
  return n;
}

std::string StoredDescription(int history) {
  if (history == 0) return "the one this run was started with";
  return "the one this run has used since its accepted change " + std::to_string(history) +
         " (--allow-config-change; the earlier configurations are " + journal::ConfigHistoryName(1, "yaml") +
         (history > 1 ? " .. " + journal::ConfigHistoryName(history, "yaml") : "") + " in the run directory)";
}

Status CopyFile(const std::string& from, const std::string& to) {
  SG_ASSIGN_OR_RETURN(std::string text, ReadRegularFile(from, runview::kMaxSavedConfigBytes));
  return WriteFileAtomic(to, text);
}

// True when no task of the run directory went past "planned": every shard
// journal is missing or holds only planned records, and no shard holds a
// trajectory or turn log. Anything unreadable counts as started.
bool NothingStarted(const std::string& run_dir) {
  Result<std::vector<journal::ShardLocation>> shards = journal::ListShardDirs(run_dir);
  if (!shards.ok()) return false;
  for (const journal::ShardLocation& shard : *shards) {
    for (std::string_view sub : {journal::kTrajectoriesDir, journal::kTurnsDir}) {
      std::error_code ec;
      const std::string dir = shard.dir + "/" + std::string(sub);
      if (std::filesystem::exists(dir, ec) && !std::filesystem::is_empty(dir, ec)) return false;
      if (ec) return false;
    }
    bool started = false;
    auto loaded = journal::StreamJournal(journal::JournalPath(shard.dir), [&](journal::JournalRecord&& r) {
      if (r.stage != journal::Stage::kPlanned) started = true;
    });
    if (started || (!loaded.ok() && loaded.status().code() != StatusCode::kNotFound)) return false;
  }
  return true;
}

// Forgets a start that ran no task (its plan, journals and saved config), so
// the corrected command plans afresh instead of being refused as a change.
Status ForgetUnstartedRun(const std::string& run_dir) {
  SG_ASSIGN_OR_RETURN(std::vector<journal::ShardLocation> shards, journal::ListShardDirs(run_dir));
  std::error_code ec;
  for (const journal::ShardLocation& shard : shards) std::filesystem::remove(journal::JournalPath(shard.dir), ec);
  for (const std::string& path :
       {journal::TasksPath(run_dir), journal::ConfigJsonPath(run_dir), journal::ConfigYamlPath(run_dir)}) {
    if (!std::filesystem::remove(path, ec) && ec) return IoError("cannot remove " + path + ": " + ec.message());
  }
  return Status::Ok();
}

}  // namespace

Result<ConfigClaim> CheckRecordedConfig(const config::LoadedConfig& loaded, const std::string& run_dir,
                                        bool allow_change) {
  ConfigClaim claim;
  claim.run_dir = run_dir;
  claim.current_json = config::RecipeJson(loaded.config);
  claim.resolved_yaml = config::RenderResolvedYaml(loaded);
  // The run directory may be damaged: a FIFO or link in place of the saved
  // config is an error, only a missing one means "not claimed yet".
  Result<std::string> stored = ReadRegularFile(journal::ConfigJsonPath(run_dir), runview::kMaxSavedConfigBytes);
  if (!stored.ok() && stored.status().code() != StatusCode::kNotFound) return stored.status();
  if (!stored.ok()) return claim;
  claim.stored = true;
  claim.history = CountHistory(run_dir);
  journal::ConfigCheckOptions opts;
  opts.override_flag = "--allow-config-change";
  opts.stored_description = StoredDescription(claim.history);
  Status same = journal::CheckConfigCompatible(*stored, claim.current_json, opts);
  if (same.ok()) return claim;
  if (!allow_change && claim.history == 0 && NothingStarted(run_dir)) {
    SG_RETURN_IF_ERROR(ForgetUnstartedRun(run_dir));
    log::Logger("pipeline").Info("the run directory's earlier start ran no task; planning afresh with this config");
    claim.stored = false;
    return claim;
  }
  if (!allow_change) return same.WithContext("run directory " + run_dir);
  claim.changed = true;
  claim.change_list = same.message();
  return claim;
}

Result<std::string> RecordConfig(const ConfigClaim& claim) {
  const std::string yaml_path = journal::ConfigYamlPath(claim.run_dir);
  const std::string json_path = journal::ConfigJsonPath(claim.run_dir);
  std::string copy = claim.history > 0 ? journal::ConfigHistoryName(claim.history, "yaml") : "";
  if (claim.changed) {
    const int n = claim.history + 1;
    copy = journal::ConfigHistoryName(n, "yaml");
    SG_RETURN_IF_ERROR(CopyFile(yaml_path, claim.run_dir + "/" + copy));
    SG_RETURN_IF_ERROR(CopyFile(json_path, claim.run_dir + "/" + journal::ConfigHistoryName(n, "json")));
    log::Logger("pipeline")
        .Warn("continuing with a changed configuration (--allow-config-change); the previous one is kept as {}:\n{}",
              copy, claim.change_list);
  }
  SG_RETURN_IF_ERROR(WriteFileAtomic(yaml_path, claim.resolved_yaml));
  if (!claim.stored || claim.changed) SG_RETURN_IF_ERROR(WriteFileAtomic(json_path, claim.current_json));
  return copy;
}

}  // namespace seragen::pipeline
