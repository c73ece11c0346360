#include "seragen/runview/run_settings.h"

#include "seragen/base/file_util.h"
#include "seragen/config/data_dir.h"
#include "seragen/config/prompt_files.h"
#include "seragen/config/shipped_data.h"
#include "seragen/journal/run_paths.h"

namespace seragen::runview {

Result<config::LoadedConfig> LoadSavedConfig(const std::string& run_dir) {
  const std::string path = journal::ConfigYamlPath(run_dir);
  SG_ASSIGN_OR_RETURN(std::string text, ReadRegularFile(path, kMaxSavedConfigBytes));
  return config::LoadConfigText(text, path);
}

std::string RunSettings::CategoryName(int index) const {
  if (index >= 0 && static_cast<std::size_t>(index) < categories.size()) return categories[index];
  return "category " + std::to_string(index);
}

RunSettings LoadRunSettings(const std::string& run_dir, const std::string& prompts_dir) {
  RunSettings s;
  const std::string path = journal::ConfigYamlPath(run_dir);
  if (auto text = ReadRegularFile(path, kMaxSavedConfigBytes); !text.ok()) {
    s.why = text.status();
  } else if (auto loaded = config::LoadConfigText(*text, path); !loaded.ok()) {
    s.config_yaml = std::move(*text);
    s.why = loaded.status();
  } else {
    s.config_yaml = std::move(*text);
    s.saved = std::move(loaded->config);
  }
  s.prompts_dir = config::ShippedPath(config::Shipped::kPrompts);
  if (s.saved && !s.saved->prompts.dir.empty()) s.prompts_dir = s.saved->prompts.dir;
  if (!prompts_dir.empty()) s.prompts_dir = prompts_dir;
  if (auto c = config::LoadCategoryPrompts(s.prompts_dir + "/categories.yaml"); c.ok()) {
    for (const auto& cat : *c) s.categories.push_back(cat.topic);
  }
  return s;
}

}  // namespace seragen::runview
