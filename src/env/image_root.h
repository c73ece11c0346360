// Root filesystems made from container images, for commands that must run in
// the repository's own environment rather than over the host root.
//
// An image (an OCI image layout directory, or a `docker save` / `podman save`
// archive) is unpacked once, without a daemon, by Debian's skopeo (copy into
// a private OCI layout) and umoci (unpack; `--rootless` when not root), into
//   CACHE_DIR/<manifest digest hex>/rootfs      the root filesystem
//   CACHE_DIR/<manifest digest hex>/image.json  digest, source, image Env
// Unpacking is rootless even as root, bounded before and after (ImageRootOptions)
// and followed by a walk that removes device nodes and setuid/setgid bits and
// gives everything to root, so nothing in the cache grants privilege on the
// host. The entry is built in CACHE_DIR/<hex>.tmp-<pid> and renamed into place, under
// an flock on CACHE_DIR/<hex>.lock, so processes and shards sharing the cache
// never see a half-unpacked root and never unpack the same image twice.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "env/program_runner.h"
#include "seragen/base/result.h"

namespace seragen::env {

// A root filesystem unpacked from an image, used read-only as the sandbox's root.
struct ImageRoot {
  std::string rootfs;            // absolute directory holding the unpacked root filesystem
  std::string digest;            // hex sha256 of the image manifest; part of environment cache keys
  std::vector<std::string> env;  // the image's configured environment ("NAME=value"), e.g. its PATH
  bool reused = false;           // taken from the cache (nothing was unpacked)
};

// How entries are unpacked: 1 = rootless, bounded, sanitised (no setuid or
// setgid bits, no device nodes, root-owned). An entry of an older version
// (absent = 0) is unpacked again, never reused.
inline constexpr int kImageUnpackVersion = 1;

// What is in CACHE_DIR/<hex>/image.json.
struct ImageRecord {
  std::string digest;  // "sha256:<hex>"
  std::string source;  // the skopeo reference it was unpacked from
  std::vector<std::string> env;
  int unpack_version = kImageUnpackVersion;
};
std::string EncodeImageRecord(const ImageRecord& record);
Result<ImageRecord> DecodeImageRecord(std::string_view text);

struct ImageRootOptions {
  std::string cache_dir;  // absolute; created when missing
  // Bounds of the unpacked root: bytes of file data and entries, counted in
  // the layers' tar streams before anything is unpacked, and again on disk.
  std::uint64_t max_bytes = 16384ull << 20;
  std::uint64_t max_files = 1000000;
};

// The skopeo references `image_path` may stand for, in the order tried:
// "oci:DIR" for a directory holding an `oci-layout` file; for a file,
// "docker-archive:FILE" (docker save, podman save) then "oci-archive:FILE".
// kInvalidArgument / kNotFound naming the path otherwise.
Result<std::vector<std::string>> ImageReferences(const std::string& image_path);

// Makes (or reuses) the root filesystem of `image_path` under
// options.cache_dir. Reuse is keyed by the sha256 of the raw manifest
// (`skopeo inspect --raw`). Failure: a Status naming the image path and the
// step that failed; nothing is published and the temporary directory is
// removed. Thread-safety: safe to call from several threads and processes at
// once on the same cache.
Result<ImageRoot> PrepareImageRoot(const std::string& image_path, const ImageRootOptions& options,
                                   ProgramRunner& runner);

// The same with the real programs.
Result<ImageRoot> PrepareImageRoot(const std::string& image_path, const ImageRootOptions& options);

}  // namespace seragen::env
