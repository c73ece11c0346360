// The bubblewrap command line, built as data so a test can check it word
// for word. No effects here; the root view comes from ScanRootView.
#pragma once

#include <string>
#include <vector>

#include "seragen/base/result.h"
#include "seragen/sandbox/root_view.h"
#include "seragen/sandbox/sandbox_options.h"

namespace seragen::sandbox {

// The full argv (argv[0] = bwrap_path as given) that runs `command_argv`
// with the working copy `host_copy` (absolute) at options.mount_point.
//
// Layout inside: an empty read-only tmpfs root holding a read-only bind of
// every entry of `view` (symlinks recreated) except proc, dev, tmp, run, the
// mount point's name and lost+found, its masked paths covered; fresh /proc
// and /dev; private /tmp (size-capped, or options.host_tmp) and /run; hidden
// paths as empty tmpfs and extra read-only binds, in path order; binds; the
// copy read-write. Namespaces: user (non-root uid, no caps,
// no nested user namespaces), net (loopback only), pid, ipc, uts, cgroup.
// `chdir_inside` is the starting directory ("" = the mount point).
std::vector<std::string> BuildBwrapArgv(const SandboxOptions& options, const RootView& view,
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
BwrapInvocation BuildBwrapInvocation(const SandboxOptions& options, const RootView& view, const std::string& host_copy,
                                     const std::string& chdir_inside, const std::vector<std::string>& command_argv,
                                     int args_fd);

}  // namespace seragen::sandbox
