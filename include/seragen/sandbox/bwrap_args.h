// The bubblewrap command line, built as data so a test can check it word
// for word. No effects here except ScanRootfs (reads one directory).
#pragma once

#include <string>
#include <vector>

#include "seragen/base/result.h"
#include "seragen/sandbox/sandbox_options.h"

namespace seragen::sandbox {

// The top level of the root filesystem shown inside the sandbox.
struct RootfsEntry {
  enum class Kind { kDirectory, kFile, kSymlink };
  std::string name;  // one path component, e.g. "usr"
  Kind kind = Kind::kDirectory;
  std::string symlink_target;  // for kSymlink, e.g. "usr/bin"
  friend bool operator==(const RootfsEntry&, const RootfsEntry&) = default;
};

// Lists `rootfs` ("" = "/"), sorted by name, skipping sockets, devices and
// fifos. kNotFound / kIoError naming the directory when it cannot be read.
Result<std::vector<RootfsEntry>> ScanRootfs(const std::string& rootfs);

// Adapts the host paths shown inside to a root other than the host's (an
// image root), where they usually do not exist. A hidden path the root does
// not have is dropped (the host directory is not visible there anyway). An
// extra read-only bind must appear at its host path: fine when its first
// component is new to the root (bwrap creates it in the root's tmpfs) or when
// the root has the whole path; when the root has the first directory but not
// the path (e.g. /home/user/...), bwrap cannot create it in the read-only
// image directory, so this is kFailedPrecondition naming the path.
// No-op for the host root.
Status FitPathsToRootfs(SandboxOptions& options, const std::vector<RootfsEntry>& rootfs_entries);

// The full argv (argv[0] = bwrap_path as given) that runs `command_argv`
// with the working copy `host_copy` (absolute) at options.mount_point.
//
// Layout inside: an empty read-only tmpfs root holding a read-only bind of
// every rootfs entry (symlinks recreated), except proc, dev, tmp, run, the
// mount point's name and lost+found; fresh /proc and /dev; private /tmp
// (size-capped) and /run; hidden paths as empty tmpfs; extra read-only
// binds; the copy read-write. Namespaces: user (non-root uid, no caps,
// no nested user namespaces), net (loopback only), pid, ipc, uts, cgroup.
// `chdir_inside` is the starting directory ("" = the mount point).
std::vector<std::string> BuildBwrapArgv(const SandboxOptions& options, const std::vector<RootfsEntry>& rootfs_entries,
                                        const std::string& host_copy, const std::string& chdir_inside,
                                        const std::vector<std::string>& command_argv);

// The same sandbox with every option passed through a file descriptor
// (bwrap's `--args FD`): argv is {bwrap_path, "--args", FD, command...} and
// `args_data` holds the options, each NUL-terminated. The command line seen
// in /proc (also /proc/1/cmdline inside the sandbox) then names no host
// path (working copy, run directory, hidden and bound paths).
struct BwrapInvocation {
  std::vector<std::string> argv;
  std::string args_data;
};
BwrapInvocation BuildBwrapInvocation(const SandboxOptions& options, const std::vector<RootfsEntry>& rootfs_entries,
                                     const std::string& host_copy, const std::string& chdir_inside,
                                     const std::vector<std::string>& command_argv, int args_fd);

}  // namespace seragen::sandbox
