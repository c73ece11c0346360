#include "seragen/config/data_dir.h"

#include "seragen/config/shipped_data.h"

#include <cstdlib>
#include <filesystem>
#include <system_error>

namespace seragen::config {
namespace {

bool HasPrompts(const std::filesystem::path& dir) {
  std::error_code ec;
  return std::filesystem::is_directory(dir / ShippedRelativePath(Shipped::kPrompts), ec);
}

}  // namespace

DataDirChoice ChooseDataDir(const DataDirCandidates& c) {
  if (!c.executable.empty()) {
    std::filesystem::path installed =
        std::filesystem::path(c.executable).parent_path().parent_path() / "share" / "seragen";
    if (HasPrompts(installed)) return {installed.lexically_normal().string(), "installed", true};
  }
  if (!c.env_value.empty()) return {c.env_value, "SERAGEN_DATA_DIR", HasPrompts(c.env_value)};
  return {c.source_tree, "source tree", HasPrompts(c.source_tree)};
}

const DataDirChoice& ProcessDataDir() {
  static const DataDirChoice choice = [] {
    DataDirCandidates c;
    std::error_code ec;
    std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (!ec) c.executable = exe.string();
    const char* env = std::getenv("SERAGEN_DATA_DIR");
    if (env != nullptr) c.env_value = env;
    c.source_tree = SERAGEN_DEFAULT_DATA_DIR;
    return ChooseDataDir(c);
  }();
  return choice;
}

std::string DataDir() { return ProcessDataDir().path; }

}  // namespace seragen::config
