#include "seragen/sandbox/bwrap_args.h"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace seragen::sandbox {

Result<std::vector<RootfsEntry>> ScanRootfs(const std::string& rootfs) {
  const std::string root = rootfs.empty() ? "/" : rootfs;
  DIR* dir = ::opendir(root.c_str());
  if (dir == nullptr) {
    int err = errno;
    std::string msg = "cannot list the sandbox root filesystem " + root + ": " + std::strerror(err);
    return err == ENOENT ? NotFoundError(msg) : IoError(msg);
  }
  std::vector<RootfsEntry> entries;
  while (dirent* e = ::readdir(dir)) {
    std::string name = e->d_name;
    if (name == "." || name == "..") continue;
    std::string path = (root == "/" ? "" : root) + "/" + name;
    struct stat st;
    if (::lstat(path.c_str(), &st) != 0) continue;
    RootfsEntry entry;
    entry.name = name;
    if (S_ISDIR(st.st_mode)) {
      entry.kind = RootfsEntry::Kind::kDirectory;
    } else if (S_ISREG(st.st_mode)) {
      entry.kind = RootfsEntry::Kind::kFile;
    } else if (S_ISLNK(st.st_mode)) {
      entry.kind = RootfsEntry::Kind::kSymlink;
      char buf[4096];
      ssize_t n = ::readlink(path.c_str(), buf, sizeof buf);
      if (n <= 0) continue;
      entry.symlink_target.assign(buf, static_cast<std::size_t>(n));
    } else {
      continue;
    }
    entries.push_back(std::move(entry));
  }
  ::closedir(dir);
  std::sort(entries.begin(), entries.end(), [](const RootfsEntry& a, const RootfsEntry& b) { return a.name < b.name; });
  return entries;
}

Status FitPathsToRootfs(SandboxOptions& o, const std::vector<RootfsEntry>& rootfs_entries) {
  if (o.rootfs.empty() || o.rootfs == "/") return Status::Ok();
  auto exists = [&](const std::string& inside) {
    struct stat st;
    return ::lstat((o.rootfs + inside).c_str(), &st) == 0;
  };
  std::erase_if(o.hidden_paths, [&](const std::string& p) { return !exists(p); });
  for (const std::string& p : o.extra_ro_binds) {
    const std::string first = p.substr(1, p.find('/', 1) == std::string::npos ? std::string::npos : p.find('/', 1) - 1);
    const bool fresh = first == "tmp" || first == "run" || first == "dev" || first == "proc" ||
                       std::none_of(rootfs_entries.begin(), rootfs_entries.end(),
                                    [&](const RootfsEntry& e) { return e.name == first; });
    if (!fresh && !exists(p)) {
      return FailedPreconditionError("the host path " + p + " must be visible inside the sandbox, but the root " +
                                     o.rootfs + " has /" + first + " and not this path, and it is read-only; " +
                                     "keep repositories and the run directory outside /" + first +
                                     " (e.g. under /tmp or a directory the image lacks)");
    }
  }
  return Status::Ok();
}

std::vector<std::string> BuildBwrapArgv(const SandboxOptions& o, const std::vector<RootfsEntry>& rootfs_entries,
                                        const std::string& host_copy, const std::string& chdir_inside,
                                        const std::vector<std::string>& command_argv) {
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
  for (const RootfsEntry& e : rootfs_entries) {
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
  const std::string small_tmpfs = std::to_string(64 * 1024 * 1024);
  a.insert(a.end(), {"--dev", "/dev", "--size", small_tmpfs, "--tmpfs", "/dev/shm", "--proc", "/proc"});
  if (o.host_tmp.empty()) {
    a.insert(a.end(), {"--size", std::to_string(o.tmp_size_mb * 1024 * 1024), "--tmpfs", "/tmp"});
  } else {
    a.insert(a.end(), {"--bind", o.host_tmp, "/tmp"});
  }
  a.insert(a.end(), {"--size", small_tmpfs, "--tmpfs", "/run"});
  for (const auto& p : o.hidden_paths) a.insert(a.end(), {"--tmpfs", p});
  for (const auto& p : o.extra_ro_binds) a.insert(a.end(), {"--ro-bind", p, p});
  for (const auto& b : o.binds) a.insert(a.end(), {b.writable ? "--bind" : "--ro-bind", b.host, b.inside});
  a.insert(a.end(), {"--bind", host_copy, o.mount_point});
  a.insert(a.end(), {"--remount-ro", "/"});
  a.insert(a.end(), {"--chdir", chdir_inside.empty() ? o.mount_point : chdir_inside});
  a.insert(a.end(), command_argv.begin(), command_argv.end());
  return a;
}

BwrapInvocation BuildBwrapInvocation(const SandboxOptions& options, const std::vector<RootfsEntry>& rootfs_entries,
                                     const std::string& host_copy, const std::string& chdir_inside,
                                     const std::vector<std::string>& command_argv, int args_fd) {
  const std::vector<std::string> full = BuildBwrapArgv(options, rootfs_entries, host_copy, chdir_inside, command_argv);
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
