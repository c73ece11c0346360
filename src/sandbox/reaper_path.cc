#include "seragen/sandbox/reaper_path.h"

#include <sys/stat.h>
#include <unistd.h>

#include <vector>

namespace seragen::sandbox {

Result<std::string> FindReaper(const std::string& self_exe, const std::string& build_path) {
  auto usable = [](const std::string& p) {
    struct stat st;
    return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 0111) != 0;
  };
  std::vector<std::string> tried;
  const std::size_t slash = self_exe.rfind('/');
  if (slash != std::string::npos) {
    tried.push_back(self_exe.substr(0, slash) + "/../" + kReaperInstallDir + "/seragen-reaper");
  }
  if (!build_path.empty()) tried.push_back(build_path);
  for (const auto& p : tried) {
    if (usable(p)) return p;
  }
  std::string list;
  for (const auto& p : tried) list += (list.empty() ? "" : ", ") + p;
  return NotFoundError("seragen-reaper, which starts every sandboxed command, is missing (looked for " + list +
                       "); reinstall seragen");
}

Result<std::string> ReaperExecutable() {
  static const Result<std::string> found = [] {
    char self[4096];
    const ssize_t n = ::readlink("/proc/self/exe", self, sizeof self - 1);
    return FindReaper(n > 0 ? std::string(self, static_cast<std::size_t>(n)) : "", SERAGEN_REAPER_BUILD_PATH);
  }();
  return found;
}

}  // namespace seragen::sandbox
