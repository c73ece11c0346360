// The settings of a run as it saved them: RUN_DIR/config.yaml (the resolved
// config of the latest invocation) and the category names of its prompts.
// Read once per reading of a run (FoldRun).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "seragen/base/result.h"
#include "seragen/config/config.h"
#include "seragen/config/loader.h"

namespace seragen::runview {

// The largest saved configuration read.
inline constexpr std::uint64_t kMaxSavedConfigBytes = 16ull << 20;

// The run's saved configuration, RUN_DIR/config.yaml, read like every file of
// a run directory (ReadRegularFile); kNotFound when there is none, else the
// loader's error naming the file.
Result<config::LoadedConfig> LoadSavedConfig(const std::string& run_dir);

struct RunSettings {
  // The saved config; nullopt when it is missing or does not load (`why`
  // says which): readers then use the defaults and report everything else.
  std::optional<config::Config> saved;
  Status why;
  std::string config_yaml;  // its text ("" when missing)
  // prompts.dir of the saved config, or the override, or the installed one.
  std::string prompts_dir;
  std::vector<std::string> categories;  // topic names by category index (may be empty)

  // "topic", or "category N" for an index without a name.
  std::string CategoryName(int index) const;
};

// `prompts_dir`: an override of the saved prompts.dir (empty: none).
RunSettings LoadRunSettings(const std::string& run_dir, const std::string& prompts_dir = "");

}  // namespace seragen::runview
