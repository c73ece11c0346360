// Internal to the env module: what an unpacked image may hold.
//
// An image is input from whoever built it. Before it is unpacked, every layer
// is read as a tar stream (gzip or plain) and the entries and file bytes it
// declares are added up, so a layer bomb (a small layer that unpacks to a huge
// tree) stops before anything is written. After unpacking, the root is walked
// once more: counted again (whiteouts and links may differ from the stream),
// stripped of setuid/setgid bits and group/other write bits, device nodes
// removed, every entry owned by root (rootless unpacking as root already does
// this; the walk makes it a property of the cache, not of umoci's options).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "seragen/base/status.h"

namespace seragen::env::internal {

struct ImageLimits {
  std::uint64_t max_bytes = 0;  // file data of the whole image
  std::uint64_t max_files = 0;  // entries of the whole image
};

// Reads `layers` (blob files of one image, in order) and fails
// with kResourceExhausted naming the bound (sandbox.image_max_mb or
// sandbox.image_max_files) and the layer once the declared totals pass it;
// kInvalidArgument for a layer that is not a tar stream in gzip or no
// compression, or is malformed. The check reads headers only: data is
// inflated to reach the next header but never kept, and the stream is
// abandoned as soon as a bound is passed.
Status CheckLayerLimits(const std::vector<std::string>& layers, const ImageLimits& limits);

// The post-unpack walk described above over `rootfs` (never following a
// symlink, never leaving its file system); kResourceExhausted as above.
Status SanitizeUnpackedRoot(const std::string& rootfs, const ImageLimits& limits);

}  // namespace seragen::env::internal
