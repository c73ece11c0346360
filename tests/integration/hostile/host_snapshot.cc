#include "integration/hostile/host_snapshot.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "seragen/base/hash.h"

namespace seragen::hostile {
namespace {

namespace fs = std::filesystem;

std::string HashFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return "unreadable";
  Sha256 h;
  std::string buf(1 << 16, '\0');
  while (in) {
    in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
    h.Update(std::string_view(buf.data(), static_cast<std::size_t>(in.gcount())));
  }
  return h.FinalHex();
}

EntryState StateOf(const std::string& path) {
  EntryState e;
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return e;
  e.mode = st.st_mode & 07777;
  e.uid = st.st_uid;
  e.gid = st.st_gid;
  e.size = S_ISDIR(st.st_mode) ? 0 : static_cast<std::uint64_t>(st.st_size);
  e.mtime_ns = static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
  if (S_ISREG(st.st_mode)) {
    e.type = 'f';
    e.digest = HashFile(path);
  } else if (S_ISDIR(st.st_mode)) {
    e.type = 'd';
  } else if (S_ISLNK(st.st_mode)) {
    e.type = 'l';
    std::error_code ec;
    e.digest = fs::read_symlink(path, ec).string();
  } else {
    e.type = 'o';
  }
  return e;
}

std::string Describe(const EntryState& e) {
  return std::string(1, e.type) + " mode " + std::to_string(e.mode) + " uid " + std::to_string(e.uid) + " size " +
         std::to_string(e.size) + " mtime " + std::to_string(e.mtime_ns) + " " + e.digest.substr(0, 16);
}

}  // namespace

Snapshot TakeSnapshot(const std::string& root) {
  Snapshot snap;
  snap[""] = StateOf(root);
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(root, fs::directory_options::skip_permission_denied, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    const std::string path = it->path().string();
    snap[path.substr(root.size() + 1)] = StateOf(path);
  }
  return snap;
}

std::vector<std::string> DiffSnapshots(const Snapshot& before, const Snapshot& after) {
  std::vector<std::string> out;
  for (const auto& [path, state] : before) {
    auto it = after.find(path);
    if (it == after.end()) out.push_back("removed '" + path + "'");
    else if (!(it->second == state))
      out.push_back("changed '" + path + "': " + Describe(state) + " -> " + Describe(it->second));
  }
  for (const auto& [path, state] : after) {
    if (!before.count(path)) out.push_back("added '" + path + "': " + Describe(state));
  }
  return out;
}

bool FileContains(const std::string& path, const std::string& needle) {
  if (needle.empty()) return false;
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  const std::size_t chunk = 1 << 20;
  std::string window;
  std::string buf(chunk, '\0');
  while (in) {
    in.read(buf.data(), static_cast<std::streamsize>(chunk));
    window.append(buf.data(), static_cast<std::size_t>(in.gcount()));
    if (window.find(needle) != std::string::npos) return true;
    // Keep the last needle-1 bytes so a match across chunks is found.
    if (window.size() >= needle.size()) window.erase(0, window.size() - (needle.size() - 1));
  }
  return false;
}

std::vector<std::string> FilesContaining(const std::string& root, const std::string& needle) {
  std::vector<std::string> out;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(root, fs::directory_options::skip_permission_denied, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (it->is_symlink() || !it->is_regular_file()) continue;
    if (FileContains(it->path().string(), needle)) out.push_back(it->path().string());
  }
  return out;
}

std::uint64_t TreeBytes(const std::string& root) {
  std::uint64_t total = 0;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(root, fs::directory_options::skip_permission_denied, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    struct stat st {};
    if (::lstat(it->path().c_str(), &st) == 0 && S_ISREG(st.st_mode)) total += static_cast<std::uint64_t>(st.st_size);
  }
  return total;
}

}  // namespace seragen::hostile
