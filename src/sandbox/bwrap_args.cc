#include "seragen/sandbox/bwrap_args.h"

#include <algorithm>
#include <utility>

namespace seragen::sandbox {

std::vector<std::string> BuildBwrapArgv(const SandboxOptions& o, const RootView& view, const std::string& host_copy,
                                        const std::string& chdir_inside, const std::vector<std::string>& command_argv) {
  const std::string uid = std::to_string(o.uid);
  const std::string gid = std::to_string(o.gid);
  std::vector<std::string> a = {o.bwrap_path,
                                // Identity: a user namespace with a non-root uid, no capabilities and
                                // no way to create further user namespaces.
                                "--unshare-user", "--uid", uid, "--gid", gid, "--disable-userns", "--cap-drop", "ALL",
                                // Isolation.
                                "--unshare-net", "--unshare-pid", "--unshare-ipc", "--unshare-uts",
                                "--unshare-cgroup-try", "--hostname", "sandbox",
                                // Lifetime: everything dies with the runner; no controlling terminal.
                                "--die-with-parent", "--new-session",
                                // Environment.
                                "--clearenv"};
  if (o.share_network) a.erase(std::find(a.begin(), a.end(), "--unshare-net"));
  const auto env = o.env.empty() ? DefaultSandboxEnv() : o.env;
  for (const auto& [name, value] : env) {
    a.insert(a.end(), {"--setenv", name, value});
  }
  // Filesystem: a fresh root holding read-only views of the rootfs.
  a.insert(a.end(), {"--tmpfs", "/"});
  const std::string root_prefix = o.rootfs.empty() || o.rootfs == "/" ? "" : o.rootfs;
  const std::string mount_name = o.mount_point.substr(1);
  for (const RootfsEntry& e : view.entries) {
    if (e.name == "proc" || e.name == "dev" || e.name == "tmp" || e.name == "run" || e.name == "lost+found" ||
        e.name == mount_name) {
      continue;
    }
    if (e.kind == RootfsEntry::Kind::kSymlink) {
      a.insert(a.end(), {"--symlink", e.symlink_target, "/" + e.name});
    } else {
      a.insert(a.end(), {"--ro-bind", root_prefix + "/" + e.name, "/" + e.name});
    }
  }
  for (const auto& p : view.masked_dirs) a.insert(a.end(), {"--tmpfs", p, "--remount-ro", p});
  for (const auto& p : view.masked_files) a.insert(a.end(), {"--ro-bind", "/dev/null", p});
  const std::string small_tmpfs = std::to_string(64 * 1024 * 1024);
  a.insert(a.end(), {"--dev", "/dev", "--size", small_tmpfs, "--tmpfs", "/dev/shm", "--proc", "/proc"});
  if (o.host_tmp.empty()) {
    a.insert(a.end(), {"--size", std::to_string(o.tmp_size_mb * 1024 * 1024), "--tmpfs", "/tmp"});
  } else {
    a.insert(a.end(), {"--bind", o.host_tmp, "/tmp"});
  }
  a.insert(a.end(), {"--size", small_tmpfs, "--tmpfs", "/run"});
  // Hidden paths and extra binds in path order, so a parent is mounted before
  // what lies inside it (the copies' object store inside the hidden pool, a
  // hidden run directory inside an extra bind); at the same path, hiding wins.
  std::vector<std::pair<std::string, bool>> layered;  // (path, hidden)
  for (const auto& p : o.extra_ro_binds) layered.emplace_back(p, false);
  for (const auto& p : o.hidden_paths) layered.emplace_back(p, true);
  std::stable_sort(layered.begin(), layered.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  for (const auto& [p, hidden] : layered) {
    if (hidden) {
      a.insert(a.end(), {"--tmpfs", p});
    } else {
      a.insert(a.end(), {"--ro-bind", p, p});
    }
  }
  for (const auto& b : o.binds) a.insert(a.end(), {b.writable ? "--bind" : "--ro-bind", b.host, b.inside});
  a.insert(a.end(), {"--bind", host_copy, o.mount_point});
  a.insert(a.end(), {"--remount-ro", "/"});
  a.insert(a.end(), {"--chdir", chdir_inside.empty() ? o.mount_point : chdir_inside});
  a.insert(a.end(), command_argv.begin(), command_argv.end());
  return a;
}

BwrapInvocation BuildBwrapInvocation(const SandboxOptions& options, const RootView& view, const std::string& host_copy,
                                     const std::string& chdir_inside, const std::vector<std::string>& command_argv,
                                     int args_fd) {
  const std::vector<std::string> full = BuildBwrapArgv(options, view, host_copy, chdir_inside, command_argv);
  BwrapInvocation out;
  out.argv = {full.front(), "--args", std::to_string(args_fd)};
  const std::size_t options_end = full.size() - command_argv.size();
  for (std::size_t i = 1; i < options_end; ++i) {
    out.args_data += full[i];
    out.args_data.push_back('\0');
  }
  out.argv.insert(out.argv.end(), command_argv.begin(), command_argv.end());
  return out;
}

}  // namespace seragen::sandbox
