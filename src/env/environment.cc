#include "seragen/env/environment.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "env/image_root.h"
#include "seragen/base/file_util.h"
#include "seragen/base/hash.h"
#include "seragen/base/unique_fd.h"
#include "seragen/base/user_cache_dir.h"

namespace seragen::env {
namespace {

std::string DescribeExit(const sandbox::CommandResult& r) {
  if (r.timed_out) return "timed out";
  if (r.killed_by_signal != 0) return "was killed by signal " + std::to_string(r.killed_by_signal);
  return "exited with status " + std::to_string(r.exit_code);
}

void AppendLog(const std::string& log_path, const std::string& text) {
  std::ofstream out(log_path, std::ios::app | std::ios::binary);
  out << text;
}

std::string LogEntry(const std::string& command, const sandbox::CommandResult& r) {
  std::string text = "$ " + command + "\n" + r.output;
  if (r.truncated()) text += "\n[... " + std::to_string(r.omitted_bytes) + " bytes omitted ...]\n" + r.output_tail;
  if (!text.empty() && text.back() != '\n') text += "\n";
  return text + "[" + DescribeExit(r) + "]\n";
}

Status RunCommands(const EnvironmentSpec& spec, SetupRunner& runner, const std::string& dir,
                   const std::string& log_path) {
  for (const std::string& command : spec.setup) {
    Result<sandbox::CommandResult> r = runner.Run(command, dir);
    if (!r.ok()) {
      AppendLog(log_path, "$ " + command + "\n[could not start: " + r.status().message() + "]\n");
      return Status(r.status().code(), "environment setup command `" + command +
                                           "` could not start: " + r.status().message() + " (log: " + log_path + ")");
    }
    AppendLog(log_path, LogEntry(command, *r));
    if (r->exit_code != 0 || r->timed_out) {
      return FailedPreconditionError("environment setup command `" + command + "` " + DescribeExit(*r) +
                                     " (log: " + log_path + ")");
    }
  }
  return Status::Ok();
}

bool IsDir(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

}  // namespace

std::string EnvironmentCacheKey(const EnvironmentSpec& spec, const std::string& commit) {
  Sha256 h;
  h.UpdateField("seragen-env-v1");
  h.UpdateField(spec.root_id.empty() ? spec.rootfs : spec.root_id);
  h.UpdateField(commit);
  h.UpdateField(std::to_string(spec.setup.size()));
  for (const auto& c : spec.setup) h.UpdateField(c);
  h.UpdateField(spec.setup_network ? "net" : "nonet");
  for (const auto& [k, v] : spec.env) {
    h.UpdateField(k);
    h.UpdateField(v);
  }
  h.UpdateField(spec.prefix);
  return h.FinalHex().substr(0, 32);
}

Result<PreparedEnvironment> PrepareEnvironment(const EnvironmentSpec& spec, const std::string& commit,
                                               SetupRunner& runner, const std::string& log_path) {
  SG_RETURN_IF_ERROR(MakeDirs(spec.cache_dir));
  const std::string key = EnvironmentCacheKey(spec, commit);
  const std::string final_dir = spec.cache_dir + "/" + key;
  if (IsDir(final_dir)) return PreparedEnvironment{final_dir, true};
  UniqueFd lock(::open((final_dir + ".lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644));
  if (!lock.valid() || ::flock(lock.get(), LOCK_EX) != 0) {
    return IoError("cannot lock the environment cache entry " + final_dir + ".lock");
  }
  if (IsDir(final_dir)) return PreparedEnvironment{final_dir, true};  // another process built it
  const std::string tmp = final_dir + ".tmp-" + std::to_string(::getpid());
  std::error_code ec;
  std::filesystem::remove_all(tmp, ec);
  SG_RETURN_IF_ERROR(MakeDirs(tmp));
  ::chmod(tmp.c_str(), 0755);
  Status st = RunCommands(spec, runner, tmp, log_path);
  if (!st.ok()) {
    std::filesystem::remove_all(tmp, ec);
    return st;
  }
  if (::rename(tmp.c_str(), final_dir.c_str()) != 0) {
    std::filesystem::remove_all(tmp, ec);
    return IoError("cannot publish the environment " + final_dir);
  }
  (void)SyncDir(spec.cache_dir);
  return PreparedEnvironment{final_dir, false};
}

Status ResolveImage(EnvironmentSpec& spec) {
  if (spec.image.empty()) {
    spec.root_id = spec.rootfs;
    return Status::Ok();
  }
  ImageRootOptions options{spec.cache_dir + "/images", spec.image_max_bytes, spec.image_max_files};
  SG_ASSIGN_OR_RETURN(ImageRoot root, PrepareImageRoot(spec.image, options));
  spec.rootfs = root.rootfs;
  spec.root_id = "image:" + root.digest;
  spec.image_env = std::move(root.env);
  return Status::Ok();
}

std::map<std::string, std::string> EnvironmentVariables(const std::map<std::string, std::string>& defaults,
                                                        const EnvironmentSpec& spec) {
  std::map<std::string, std::string> out = defaults;
  for (const std::string& entry : spec.image_env) {
    const std::size_t eq = entry.find('=');
    if (eq == std::string::npos || eq == 0) continue;
    std::string name = entry.substr(0, eq);
    if (name != "HOME") out[name] = entry.substr(eq + 1);
  }
  for (const auto& [k, v] : spec.env) out[k] = v;
  return out;
}

std::string DefaultEnvironmentCacheDir() { return UserCacheDir("env"); }

}  // namespace seragen::env
