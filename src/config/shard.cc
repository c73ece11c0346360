#include "seragen/config/shard.h"

#include <cstdlib>
#include <optional>
#include <stdexcept>

namespace seragen::config {

Result<ShardSpec> ResolveShard(const std::string& flag, const std::string& configured, const EnvLookup& env) {
  auto parse = [](const std::string& text, const std::string& where) -> Result<ShardSpec> {
    auto slash = text.find('/');
    try {
      if (slash == std::string::npos) throw std::invalid_argument("no slash");
      ShardSpec s{std::stoi(text.substr(0, slash)), std::stoi(text.substr(slash + 1))};
      if (s.count < 1 || s.index < 0 || s.index >= s.count) throw std::out_of_range("range");
      return s;
    } catch (const std::exception&) {
      return InvalidArgumentError(where + ": expected K/N with 0 <= K < N, got '" + text + "'");
    }
  };
  if (!flag.empty()) return parse(flag, "--shard");
  if (!configured.empty()) return parse(configured, "run.shard");
  const std::string id = env("SLURM_ARRAY_TASK_ID").value_or("");
  const std::string count = env("SLURM_ARRAY_TASK_COUNT").value_or("");
  if (!id.empty() && !count.empty()) {
    const std::string min = env("SLURM_ARRAY_TASK_MIN").value_or("");
    try {
      int k = std::stoi(id) - (min.empty() ? 0 : std::stoi(min));
      return parse(std::to_string(k) + "/" + count, "SLURM_ARRAY_TASK_ID/SLURM_ARRAY_TASK_COUNT");
    } catch (const std::exception&) {
      return InvalidArgumentError("SLURM_ARRAY_TASK_ID='" + id + "' is not a number");
    }
  }
  return ShardSpec{};
}

Result<ShardSpec> ResolveShard(const std::string& flag, const std::string& configured) {
  return ResolveShard(flag, configured, [](const std::string& name) -> std::optional<std::string> {
    const char* value = std::getenv(name.c_str());
    if (value == nullptr) return std::nullopt;
    return std::string(value);
  });
}

}  // namespace seragen::config
