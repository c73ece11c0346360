#include "seragen/sandbox/root_view.h"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace seragen::sandbox {
namespace {

bool IsHostRoot(const std::string& rootfs) { return rootfs.empty() || rootfs == "/"; }

// Never bound from any root: the sandbox makes its own (proc, dev, tmp, run),
// or they show the host's hardware and kernel state (sys).
bool MadeBySandbox(const std::string& name) {
  return name == "proc" || name == "dev" || name == "tmp" || name == "run" || name == "sys" || name == "lost+found";
}

// True when `path` is `top` or below it (both absolute, normalised).
bool IsUnder(const std::string& path, const std::string& top) {
  return path == top || (path.size() > top.size() && path.compare(0, top.size(), top) == 0 && path[top.size()] == '/');
}

std::string FirstComponent(const std::string& p) {
  const std::size_t slash = p.find('/', 1);
  return p.substr(1, slash == std::string::npos ? std::string::npos : slash - 1);
}

bool ViewHasDir(const RootView& view, const std::string& name) {
  return std::any_of(view.entries.begin(), view.entries.end(),
                     [&](const RootfsEntry& e) { return e.name == name && e.kind == RootfsEntry::Kind::kDirectory; });
}

}  // namespace

const std::vector<std::string>& HostSystemDirs() {
  static const std::vector<std::string> kDirs = {"bin", "etc", "lib", "lib32", "lib64", "libx32", "sbin", "usr"};
  return kDirs;
}

const std::vector<std::string>& EtcSecrets() {
  static const std::vector<std::string> kSecrets = {
      "/etc/shadow",
      "/etc/shadow-",
      "/etc/gshadow",
      "/etc/gshadow-",
      "/etc/sudoers",
      "/etc/sudoers.d",
      "/etc/ssh",
      "/etc/ssl/private",
      "/etc/krb5.keytab",
      "/etc/security/opasswd",
      "/etc/apt/auth.conf",
      "/etc/apt/auth.conf.d",
      "/etc/wireguard",
      "/etc/NetworkManager/system-connections",
      "/etc/ppp/chap-secrets",
      "/etc/ppp/pap-secrets",
      "/etc/docker/key.json",
      "/etc/pki/tls/private",
  };
  return kSecrets;
}

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

Result<RootView> ScanRootView(const std::string& rootfs) {
  SG_ASSIGN_OR_RETURN(std::vector<RootfsEntry> all, ScanRootfs(rootfs));
  RootView view;
  const std::vector<std::string>& system = HostSystemDirs();
  for (RootfsEntry& e : all) {
    if (MadeBySandbox(e.name)) continue;
    if (IsHostRoot(rootfs) && std::find(system.begin(), system.end(), e.name) == system.end()) continue;
    view.entries.push_back(std::move(e));
  }
  const std::string prefix = IsHostRoot(rootfs) ? "" : rootfs;
  for (const std::string& secret : EtcSecrets()) {
    struct stat st;
    if (!ViewHasDir(view, "etc") || ::lstat((prefix + secret).c_str(), &st) != 0) continue;
    if (S_ISDIR(st.st_mode)) view.masked_dirs.push_back(secret);
    if (S_ISREG(st.st_mode)) view.masked_files.push_back(secret);
  }
  return view;
}

Status FitPathsToView(SandboxOptions& o, const RootView& view) {
  const bool host = IsHostRoot(o.rootfs);
  auto in_root = [&](const std::string& inside) {
    struct stat st;
    return ::lstat(((host ? "" : o.rootfs) + inside).c_str(), &st) == 0;
  };
  for (const std::string& p : o.extra_ro_binds) {
    struct stat st;
    if (::stat(p.c_str(), &st) != 0) {
      return FailedPreconditionError("the host path " + p + " to be shown read-only in the sandbox (" +
                                     "sandbox.extra_ro_paths) cannot be used: " + std::strerror(errno));
    }
  }
  std::erase_if(o.hidden_paths, [&](const std::string& p) {
    const bool under_root = ViewHasDir(view, FirstComponent(p)) && in_root(p);
    const bool under_bind = std::any_of(o.extra_ro_binds.begin(), o.extra_ro_binds.end(),
                                        [&](const std::string& b) { return IsUnder(p, b); });
    return !under_root && !under_bind;
  });
  if (host) return Status::Ok();
  for (const std::string& p : o.extra_ro_binds) {
    const std::string first = FirstComponent(p);
    const bool fresh = MadeBySandbox(first) || std::none_of(view.entries.begin(), view.entries.end(),
                                                            [&](const RootfsEntry& e) { return e.name == first; });
    if (!fresh && !in_root(p)) {
      return FailedPreconditionError("the host path " + p + " must be visible inside the sandbox, but the root " +
                                     o.rootfs + " has /" + first + " and not this path, and it is read-only; " +
                                     "keep repositories and the run directory outside /" + first +
                                     " (e.g. under /tmp or a directory the image lacks)");
    }
  }
  return Status::Ok();
}

}  // namespace seragen::sandbox
