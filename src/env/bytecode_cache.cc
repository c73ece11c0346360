#include "seragen/env/bytecode_cache.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <vector>

#include "seragen/base/file_util.h"
#include "seragen/base/hash.h"
#include "seragen/base/unique_fd.h"

namespace seragen::env {
namespace {

// Compiles into sys.pycache_prefix, as checked-hash pycs, the repository
// ("repo") or the interpreter's library paths ("lib"). argv: the scope, the
// repository's path inside, the CPU budget in seconds. No single quote in it:
// the command quotes it so.
constexpr const char* kCompileScript = R"PY(
import os, stat, sys, time, importlib.util, py_compile
if sys.version_info < (3, 8) or not getattr(sys, "pycache_prefix", None):
    print("seragen-pyc: interpreter without a pycache prefix, skipped")
    sys.exit(0)
scope, repo, budget = sys.argv[1], sys.argv[2], float(sys.argv[3])
mode = py_compile.PycInvalidationMode.CHECKED_HASH
done = [0, 0]
def sources(root, lib):
    for d, dirs, files in os.walk(root):
        dirs[:] = sorted(x for x in dirs if x not in ("__pycache__", ".git")
                         and not (lib and x in ("test", "tests", "idle_test")))
        for f in sorted(files):
            if f.endswith(".py"):
                yield os.path.join(d, f)
def compile_tree(root, lib):
    for path in sources(root, lib):
        if done[0] + done[1] >= 300000 or time.process_time() > budget:
            return False
        try:
            st = os.lstat(path)
            if not stat.S_ISREG(st.st_mode) or st.st_size > (8 << 20):
                continue
            if os.path.exists(importlib.util.cache_from_source(path)):
                continue
            py_compile.compile(path, doraise=True, invalidation_mode=mode)
            done[0] += 1
        except Exception:
            done[1] += 1
    return True
roots = [repo] if scope == "repo" else []
for p in sys.path + os.environ.get("PYTHONPATH", "").split(os.pathsep) if scope == "lib" else []:
    p = os.path.normpath(p) if os.path.isabs(p) else ""
    if p and os.path.isdir(p) and p != repo and not p.startswith(repo + os.sep) and not any(
            p == r or p.startswith(r + os.sep) for r in roots):
        roots.append(p)
for r in roots:
    if not compile_tree(r, scope == "lib"):
        break
print("seragen-pyc: %s compiled %d, failed %d, %.1f s CPU" % (sys.version.split()[0], done[0], done[1],
      time.process_time()))
)PY";

std::string ShellQuote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

bool IsDir(const std::string& path) {
  struct stat st;
  return ::lstat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

bool HasEntry(const std::string& dir) {
  std::error_code ec;
  return std::filesystem::directory_iterator(dir, ec) != std::filesystem::directory_iterator();
}

// Marks an entry used (its mtime orders pruning).
void Touch(const std::string& dir) { (void)::utimensat(AT_FDCWD, dir.c_str(), nullptr, AT_SYMLINK_NOFOLLOW); }

// Keeps `path` when it is a directory or a regular *.pyc; returns false when it was removed.
bool SealOne(const std::filesystem::path& path, bool as_root, std::uint64_t& files, std::uint64_t& bytes) {
  struct stat st;
  if (::lstat(path.c_str(), &st) != 0) return false;
  const bool dir = S_ISDIR(st.st_mode);
  if (!dir && !(S_ISREG(st.st_mode) && path.extension() == ".pyc")) {
    std::error_code ec;
    std::filesystem::remove(path, ec);
    return false;
  }
  if (as_root) (void)::lchown(path.c_str(), 0, 0);
  (void)::chmod(path.c_str(), dir ? 0755 : 0644);
  if (!dir) {
    ++files;
    bytes += static_cast<std::uint64_t>(st.st_size);
  }
  return true;
}

std::uint64_t TreeBytes(const std::string& dir) {
  std::uint64_t total = 0;
  std::error_code ec;
  for (std::filesystem::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    struct stat st;
    if (::lstat(it->path().c_str(), &st) == 0 && S_ISREG(st.st_mode)) total += static_cast<std::uint64_t>(st.st_size);
  }
  return total;
}

Result<BytecodeCache> Compile(const BytecodeCacheOptions& o, SetupRunner& compiler, const std::string& final_dir) {
  const std::string tmp = final_dir + ".tmp-" + std::to_string(::getpid());
  std::error_code ec;
  std::filesystem::remove_all(tmp, ec);
  SG_RETURN_IF_ERROR(MakeDirs(tmp));
  ::chmod(tmp.c_str(), 0755);
  BytecodeCache out{final_dir, false};
  for (const std::string& d : o.mount_dirs) SG_RETURN_IF_ERROR(MakeDirs(tmp + "/" + d));
  Result<sandbox::CommandResult> r = compiler.Run(BytecodeCompileCommand(o.scope, o.mount_point, o.cpu_budget_s), tmp);
  Status st = Status::Ok();
  if (!r.ok()) {
    st = r.status();
  } else if (r->exit_code != 0 || r->timed_out) {
    st = FailedPreconditionError("the bytecode compile " +
                                 (r->timed_out ? std::string("timed out") : "exited " + std::to_string(r->exit_code)) +
                                 ": " + r->output.substr(0, 400));
  } else {
    out.compiler_output = r->output.substr(0, 400);
    st = SealCompiledTree(tmp, 2000000, out.files, out.bytes);
  }
  if (st.ok() && ::rename(tmp.c_str(), final_dir.c_str()) != 0) {
    st = IoError("cannot publish the bytecode cache " + final_dir + ": " + std::strerror(errno));
  }
  if (!st.ok()) {
    std::filesystem::remove_all(tmp, ec);
    return st;
  }
  (void)SyncDir(o.cache_dir);
  (void)PruneBytecodeCache(o.cache_dir, o.max_cache_bytes, o.key);
  return out;
}

}  // namespace

std::string BytecodeCacheKey(const BytecodeCacheKeyParts& parts) {
  Sha256 h;
  h.UpdateField("seragen-pycache-v1");
  h.UpdateField(parts.repo);
  h.UpdateField(parts.commit);
  h.UpdateField(parts.root_id);
  h.UpdateField(parts.prefix_dir);
  h.UpdateField(std::to_string(parts.env.size()));
  for (const auto& [k, v] : parts.env) {
    h.UpdateField(k);
    h.UpdateField(v);
  }
  h.UpdateField(parts.mount_point);
  return h.FinalHex().substr(0, 32);
}

std::string BytecodeCompileCommand(BytecodeScope scope, const std::string& mount_point, int cpu_budget_s) {
  const std::string run = " -I -X pycache_prefix=" + std::string(kPycachePrefix) + " -c " + ShellQuote(kCompileScript) +
                          (scope == BytecodeScope::kRepository ? " repo " : " lib ") + ShellQuote(mount_point) + " " +
                          std::to_string(cpu_budget_s);
  // Success when no interpreter exists (nothing to compile) or one of them compiled.
  return "found=0; ok=0; for py in python3 python; do p=$(command -v \"$py\") || continue; found=1; \"$p\"" + run +
         " && ok=1; done; [ \"$found\" = 0 ] || [ \"$ok\" = 1 ]";
}

Status SealCompiledTree(const std::string& dir, std::uint64_t max_entries, std::uint64_t& files, std::uint64_t& bytes) {
  files = bytes = 0;
  const bool as_root = ::geteuid() == 0;
  std::uint64_t seen = 0;
  std::error_code ec;
  std::filesystem::recursive_directory_iterator it(dir, std::filesystem::directory_options::none, ec);
  for (std::filesystem::recursive_directory_iterator end; !ec && it != end; it.increment(ec)) {
    if (++seen > max_entries) return ResourceExhaustedError("the compiled bytecode tree has too many entries");
    const std::filesystem::path path = it->path();
    if (!SealOne(path, as_root, files, bytes)) it.disable_recursion_pending();
  }
  if (ec) return IoError("cannot walk the compiled bytecode tree " + dir + ": " + ec.message());
  if (as_root) (void)::lchown(dir.c_str(), 0, 0);
  ::chmod(dir.c_str(), 0755);
  return Status::Ok();
}

Result<BytecodeCache> PrepareBytecodeCache(const BytecodeCacheOptions& o, SetupRunner& compiler) {
  const std::string final_dir = o.cache_dir + "/" + o.key;
  if (IsDir(final_dir)) {
    Touch(final_dir);
    return BytecodeCache{final_dir, true, HasEntry(final_dir) ? 1u : 0u};
  }
  UniqueFd lock(::open((final_dir + ".lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600));
  if (!lock.valid() || ::flock(lock.get(), LOCK_EX) != 0) {
    return IoError("cannot lock the bytecode cache entry " + final_dir + ".lock");
  }
  if (IsDir(final_dir)) return BytecodeCache{final_dir, true, HasEntry(final_dir) ? 1u : 0u};  // another process
  return Compile(o, compiler, final_dir);
}

Status PruneBytecodeCache(const std::string& dir, std::uint64_t max_bytes, const std::string& keep_key) {
  struct Entry {
    std::string path;
    std::uint64_t bytes;
    std::time_t mtime;
  };
  std::vector<Entry> entries;
  std::uint64_t total = 0;
  std::error_code ec;
  for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string path = it->path().string();
    const std::string name = it->path().filename().string();
    struct stat st;
    if (::lstat(path.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) continue;
    if (name.find(".tmp-") != std::string::npos) {
      if (st.st_mtime < ::time(nullptr) - 3600) std::filesystem::remove_all(path, ec);  // a killed compile
      ec.clear();
      continue;
    }
    if (name == keep_key) continue;
    entries.push_back({path, TreeBytes(path), st.st_mtime});
    total += entries.back().bytes;
  }
  if (ec) return IoError("cannot list the bytecode cache " + dir + ": " + ec.message());
  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) { return a.mtime < b.mtime; });
  total += TreeBytes(dir + "/" + keep_key);
  for (const Entry& e : entries) {
    if (total <= max_bytes) break;
    std::filesystem::remove_all(e.path, ec);
    (void)::unlink((e.path + ".lock").c_str());
    total -= e.bytes;
  }
  return Status::Ok();
}

}  // namespace seragen::env
