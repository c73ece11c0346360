// What a sandbox shows of the machine: the "root view".
//
// A rollout sees what a container would hold and nothing else:
//   * over the host's root: only the system directories a toolchain lives in
//     (HostSystemDirs(): /usr, /bin, /sbin, /lib*, /etc), read-only, with the
//     secrets of /etc (EtcSecrets(): shadow, sudoers, ssh host keys...) covered
//     by empty ones; nothing of /home, /root, /srv, /mnt, /opt, /var, /sys,
//     other checkouts or runs;
//   * over an image root (or sandbox.rootfs): every top-level entry of that
//     root except proc, dev, sys, tmp, run and lost+found, the /etc secrets
//     covered the same way.
// The argv builder then adds fresh /proc, /dev, /run and the rollout's /tmp,
// the environment prefix (SandboxOptions::binds), the working copy and the
// host paths of SandboxOptions::extra_ro_binds: the config's
// `sandbox.extra_ro_paths` (the one way to widen the view) and the copy's
// object store. This is the whole API other modules need: put a host path in
// extra_ro_binds (same path inside) or binds (another path inside).
#pragma once

#include <string>
#include <vector>

#include "seragen/base/result.h"
#include "seragen/sandbox/sandbox_options.h"

namespace seragen::sandbox {

// One top-level entry of a root filesystem.
struct RootfsEntry {
  enum class Kind { kDirectory, kFile, kSymlink };
  std::string name;  // one path component, e.g. "usr"
  Kind kind = Kind::kDirectory;
  std::string symlink_target;  // for kSymlink, e.g. "usr/bin"
  friend bool operator==(const RootfsEntry&, const RootfsEntry&) = default;
};

// What BuildBwrapArgv shows of a root.
struct RootView {
  std::vector<RootfsEntry> entries;       // top-level entries bound read-only (symlinks recreated)
  std::vector<std::string> masked_dirs;   // paths inside covered by an empty read-only directory
  std::vector<std::string> masked_files;  // paths inside covered by /dev/null (nodev there: cannot be opened)
  friend bool operator==(const RootView&, const RootView&) = default;
};

// Top-level names shown from the host's root: bin, etc, lib, lib32, lib64,
// libx32, sbin, usr.
const std::vector<std::string>& HostSystemDirs();

// Paths under the root (e.g. "/etc/shadow") covered in every view when they
// are a file or directory (symlinks are left: they lead out of the view or to
// a covered path).
const std::vector<std::string>& EtcSecrets();

// Lists `rootfs` ("" = "/"), sorted by name, skipping sockets, devices and
// fifos. kNotFound / kIoError naming the directory when it cannot be read.
Result<std::vector<RootfsEntry>> ScanRootfs(const std::string& rootfs);

// The view of `rootfs` ("" or "/" = the host's root) described above.
Result<RootView> ScanRootView(const std::string& rootfs);

// Adapts the host paths of `options` to the view before a runner uses them.
//   * An extra read-only bind must exist on the host (kFailedPrecondition
//     naming it; a typo in sandbox.extra_ro_paths is not silently empty).
//   * A hidden path (run directory, copy pool) is kept only where the view
//     shows something there: under a shown top-level directory or an extra
//     bind, and for an image root only when the image has it; elsewhere it is
//     invisible anyway and hiding it would create its parents in the view.
//   * Over an image root an extra bind must be creatable: fine when its first
//     component is new to the root (bwrap creates it in the root's tmpfs) or
//     when the root has the whole path; when the root has the first directory
//     but not the path (e.g. /home/user/...), bwrap cannot create it in the
//     read-only image directory: kFailedPrecondition naming the path.
Status FitPathsToView(SandboxOptions& options, const RootView& view);

}  // namespace seragen::sandbox
