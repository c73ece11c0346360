// Root filesystems made from container images, for commands that must run in
// the repository's own environment rather than over the host root.
#pragma once

#include <string>

#include "seragen/base/result.h"

namespace seragen::env {

// A root filesystem unpacked from an image, used read-only as the sandbox's root.
struct ImageRoot {
  std::string rootfs;  // absolute directory holding the unpacked root filesystem
  std::string digest;  // hex sha256 of the image manifest; part of environment cache keys
};

// Makes (or reuses) the root filesystem of `image_path`: an OCI image layout
// directory or a `docker save` / `podman save` archive, unpacked without a
// daemon under `cache_dir`. Reuse is keyed by the image digest. Failure: a
// Status naming the image path and the step that failed. Thread-safety: safe
// to call from several processes at once on the same cache.
Result<ImageRoot> PrepareImageRoot(const std::string& image_path, const std::string& cache_dir);

}  // namespace seragen::env
