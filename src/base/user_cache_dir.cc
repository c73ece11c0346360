#include "seragen/base/user_cache_dir.h"

#include <unistd.h>

#include <cstdlib>

namespace seragen {

std::string UserCacheDir(std::string_view leaf) {
  const std::string tail = "/seragen/" + std::string(leaf);
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x != nullptr && x[0] == '/') return std::string(x) + tail;
  if (::geteuid() == 0) return "/var/cache" + tail;
  if (const char* home = std::getenv("HOME"); home != nullptr && home[0] == '/') {
    return std::string(home) + "/.cache" + tail;
  }
  return "/tmp/seragen-" + std::string(leaf) + "-cache";
}

}  // namespace seragen
