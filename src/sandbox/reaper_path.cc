#include "seragen/sandbox/reaper_path.h"

#include <sys/stat.h>
#include <unistd.h>

#include <vector>

namespace seragen::sandbox {

Result<std::string> ReaperExecutable() {
  static const Result<std::string> found = []() -> Result<std::string> {
    auto usable = [](const std::string& p) {
      struct stat st;
      return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 0111) != 0;
    };
    std::vector<std::string> tried;
    char self[4096];
    const ssize_t n = ::readlink("/proc/self/exe", self, sizeof self - 1);
    if (n > 0) {
      std::string dir(self, static_cast<std::size_t>(n));
      dir.erase(dir.rfind('/') == std::string::npos ? 0 : dir.rfind('/'));
      tried.push_back(dir + "/../" + kReaperInstallDir + "/seragen-reaper");
    }
    tried.push_back(SERAGEN_REAPER_BUILD_PATH);
    for (const auto& p : tried) {
      if (usable(p)) return p;
    }
    std::string list;
    for (const auto& p : tried) list += (list.empty() ? "" : ", ") + p;
    return NotFoundError("seragen-reaper, which starts every sandboxed command, is missing (looked for " + list +
                         "); reinstall seragen");
  }();
  return found;
}

}  // namespace seragen::sandbox
