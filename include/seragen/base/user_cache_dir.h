// Where seragen keeps caches that outlive a run (prepared environments, call
// graphs): one directory per kind, `leaf`, under the user's cache directory.
#pragma once

#include <string>
#include <string_view>

namespace seragen {

// $XDG_CACHE_HOME/seragen/<leaf> when XDG_CACHE_HOME is absolute; else, as
// root, /var/cache/seragen/<leaf> (root's home is closed to the sandbox uids);
// else $HOME/.cache/seragen/<leaf>; else /tmp/seragen-<leaf>-cache.
std::string UserCacheDir(std::string_view leaf);

}  // namespace seragen
