// Per-repository execution environments: setup commands run once per
// (repository, commit, environment) into a prefix directory that is cached
// and then shown read-only to every rollout of that repository.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "seragen/base/result.h"
#include "seragen/sandbox/command_runner.h"

namespace seragen::env {

// What a repository's commands run in (after config merging).
struct EnvironmentSpec {
  std::string image;                       // container image path; ResolveImage turns it into rootfs + root_id
  std::string rootfs;                      // root shown read-only; "" = the host root
  std::string root_id;                     // identity of the root for the cache key (image digest or rootfs path)
  std::vector<std::string> setup;          // shell commands, run in order in the working copy
  bool setup_network = false;              // setup commands keep the host network
  std::map<std::string, std::string> env;  // variables for setup and rollouts (over the defaults)
  // The image's own Env ("NAME=value", e.g. its PATH), set by ResolveImage;
  // applied over the sandbox defaults and under `env`.
  std::vector<std::string> image_env;
  std::string prefix = "/env";  // where the prepared prefix appears inside
  std::string cache_dir;        // host directory holding prepared prefixes
  // Bounds of an unpacked image (ImageRootOptions), from sandbox.image_max_mb/_files.
  std::uint64_t image_max_bytes = 16384ull << 20;
  std::uint64_t image_max_files = 1000000;
  bool has_setup() const { return !setup.empty(); }
};

// Hex key naming the prepared prefix of `spec` at `commit`: a hash of the
// root identity, commit, commands, network flag, env and prefix. Any change to
// one of them gives another key.
std::string EnvironmentCacheKey(const EnvironmentSpec& spec, const std::string& commit);

// Runs one setup command with the working copy writable at the mount point and
// `prefix_host_dir` writable at the spec's prefix. Implementations: the
// pipeline's sandboxed runner, and fakes in tests. A non-OK Status means the
// command could not be started at all.
class SetupRunner {
 public:
  virtual ~SetupRunner() = default;
  virtual Result<sandbox::CommandResult> Run(const std::string& command, const std::string& prefix_host_dir) = 0;
};

struct PreparedEnvironment {
  std::string prefix_dir;  // host directory to bind read-only at the prefix
  bool reused = false;     // true when taken from the cache (no command ran)
};

// Returns the cached prefix for (spec, commit), or builds it: a fresh
// directory under cache_dir, every setup command in order (output appended to
// `log_path`), then an atomic rename to its key. A file lock on the key keeps
// concurrent processes from building it twice. A failing command: an error
// naming the command, its exit status and `log_path`; nothing is published.
Result<PreparedEnvironment> PrepareEnvironment(const EnvironmentSpec& spec, const std::string& commit,
                                               SetupRunner& runner, const std::string& log_path);

// When spec.image is set: unpacks (or reuses) it with PrepareImageRoot under
// cache_dir/images and sets rootfs, root_id ("image:" + manifest digest) and
// image_env. Otherwise root_id = rootfs.
Status ResolveImage(EnvironmentSpec& spec);

// The variables commands see: `defaults`, then the image's Env (except HOME:
// commands never run as the image's user), then spec.env.
std::map<std::string, std::string> EnvironmentVariables(const std::map<std::string, std::string>& defaults,
                                                        const EnvironmentSpec& spec);

// Default cache directory: $XDG_CACHE_HOME/seragen/env; else, as root,
// /var/cache/seragen/env (root's home is closed to the sandbox uids, which
// must reach prefixes and image roots); else $HOME/.cache/seragen/env; else
// /tmp/seragen-env-cache.
std::string DefaultEnvironmentCacheDir();

}  // namespace seragen::env
