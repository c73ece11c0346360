// A rollout's writable layer over the shared bytecode cache
// (env/bytecode_cache.h): an overlayfs mounted in the host's mount namespace
// whose lower layers are the shared entries (read-only to everyone, never
// written: overlayfs copies up into the upper layer) and whose upper layer is
// a fresh directory private to one working-copy lease. The sandbox binds the
// merged directory read-write at kPycachePrefix, so Python reads the shared
// pycs and writes those of edited or new files (py_compile included) into the
// rollout's own layer, which is wiped when the lease is given back.
//
// Every directory of the lower layers is made in the upper one beforehand,
// owned by the slot uid: overlayfs shows a directory that exists only in a
// lower layer with that layer's owner and mode (root, 0755), where the slot
// uid could create no pyc. A pyc the rollout writes over a shared one
// (os.replace) then lands in its layer.
//
// Needs root (mount(2)). The layer's host directory is a tmpfs of its own
// (bounded, so no disk meter needs to walk it, and gone with one unmount)
// holding upper/, work/ (one file system, as overlayfs requires) and merged/
// (the overlay's mount point); nothing in it is part of a working copy or its
// patch.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "seragen/base/result.h"
#include "seragen/base/status.h"

namespace seragen::env {

struct BytecodeLayerOptions {
  std::string dir;                    // lease-private host directory, made fresh (anything there is cleared first)
  std::vector<std::string> lowers;    // shared entries, topmost first (at least one)
  std::vector<std::string> skeleton;  // directories (relative, parents first) made in the upper layer
  uid_t uid = 0;                      // the slot uid that owns the upper layer's directories
  gid_t gid = 0;
  // The layer's own tmpfs: what a rollout can write there (a write past it
  // fails with ENOSPC; Python then skips that pyc).
  std::uint64_t max_bytes = 256ull << 20;
  std::uint64_t max_inodes = 200000;
};

// A mounted layer, owned by one lease; destruction releases it (as Release does).
class BytecodeLayer {
 public:
  // Clears `o.dir` (ClearBytecodeLayer), makes the upper layer and its
  // skeleton, and mounts the overlay. Any failure (not root, no overlayfs, a
  // path overlayfs options cannot carry) is an error and leaves nothing mounted.
  static Result<std::unique_ptr<BytecodeLayer>> Mount(const BytecodeLayerOptions& o);

  BytecodeLayer(const BytecodeLayer&) = delete;
  BytecodeLayer& operator=(const BytecodeLayer&) = delete;
  ~BytecodeLayer() { (void)Release(); }

  // The host directory to bind read-write at kPycachePrefix.
  std::string merged() const { return dir_ + "/merged"; }
  // The host directory holding what the rollout wrote (bounded by the layer's tmpfs, not metered).
  std::string upper() const { return dir_ + "/upper"; }
  // Unmounts and wipes the layer (what the rollout wrote is gone). Calling it
  // again is a no-op returning OK.
  Status Release();

 private:
  explicit BytecodeLayer(std::string dir) : dir_(std::move(dir)) {}
  std::string dir_;  // "" once released
};

// Unmounts whatever is mounted at `dir`/merged and at `dir` (lazily,
// MNT_DETACH: a layer left by a killed process) and removes `dir`. OK when `dir` does not exist;
// an error when something stays mounted there (nothing is then removed).
Status ClearBytecodeLayer(const std::string& dir);

// Clears (ClearBytecodeLayer) every layer directory `NAME.pyc` directly in
// `dir` whose owner `NAME` is free: its lock file `NAME.lock` can be locked
// now (flock, not waiting), so no process, this one included, holds that
// working copy. What a killed run left on copies no lease takes again.
void ClearFreeBytecodeLayers(const std::string& dir);

// The directories under `entry` (relative, sorted: a parent before what it
// holds), never following a link; ResourceExhausted past `max_dirs`.
Result<std::vector<std::string>> EntryDirectories(const std::string& entry, std::size_t max_dirs);

// True when `path` is a mount point in this process's mount namespace
// (/proc/self/mountinfo).
bool IsMountPoint(const std::string& path);

}  // namespace seragen::env
