#include "env/image_root.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "env/image_limits.h"
#include "seragen/base/file_util.h"
#include "seragen/base/hash.h"
#include "seragen/base/json_depth.h"
#include "seragen/base/unique_fd.h"

namespace seragen::env {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

constexpr char kTag[] = "seragen";
constexpr std::size_t kMaxMetadataBytes = 4 * 1024 * 1024;  // manifests, configs, image.json
constexpr std::size_t kMaxEnvEntries = 256;
constexpr std::size_t kMaxEnvEntryBytes = 16 * 1024;

bool IsDir(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

bool IsHex64(std::string_view s) {
  return s.size() == 64 &&
         std::all_of(s.begin(), s.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

// The last part of a program's standard error, on one line.
std::string ErrorText(const ProgramOutput& out) {
  std::string err = out.err.size() > 2000 ? out.err.substr(out.err.size() - 2000) : out.err;
  std::replace(err.begin(), err.end(), '\n', ' ');
  while (!err.empty() && err.back() == ' ') err.pop_back();
  std::string status = out.timed_out ? "timed out" : "exit status " + std::to_string(out.exit_code);
  return err.empty() ? status : status + ": " + err;
}

// Removes a tree, first making every directory in it writable and searchable
// by its owner (a rootless unpack keeps the image's read-only directories).
void RemoveTree(const std::string& path) {
  std::error_code ec;
  fs::remove_all(path, ec);
  if (!ec) return;
  std::vector<fs::path> dirs = {path};
  while (!dirs.empty()) {
    fs::path d = dirs.back();
    dirs.pop_back();
    ::chmod(d.c_str(), 0700);
    for (fs::directory_iterator it(d, ec), end; !ec && it != end; it.increment(ec)) {
      if (it->symlink_status(ec).type() == fs::file_type::directory) dirs.push_back(it->path());
    }
  }
  fs::remove_all(path, ec);
}

Result<std::string> ReadSmallFile(const std::string& path) {
  std::error_code ec;
  const std::uintmax_t size = fs::file_size(path, ec);
  if (ec) return IoError("cannot read " + path + ": " + ec.message());
  if (size > kMaxMetadataBytes) return InvalidArgumentError(path + " is larger than 4 MiB");
  return ReadFile(path);
}

Result<json> ParseJsonFile(const std::string& path) {
  SG_ASSIGN_OR_RETURN(std::string text, ReadSmallFile(path));
  SG_RETURN_IF_ERROR(CheckJsonDepth(text, path));
  json j = json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return ParseError(path + " is not a JSON object");
  return j;
}

// "sha256:<hex>" of a descriptor, checked so that it names a blob file.
Result<std::string> BlobPath(const std::string& layout, const json& descriptor) {
  const json* digest = descriptor.is_object() && descriptor.contains("digest") ? &descriptor["digest"] : nullptr;
  if (digest == nullptr || !digest->is_string()) return ParseError("descriptor without a digest in " + layout);
  const std::string d = digest->get<std::string>();
  if (d.rfind("sha256:", 0) != 0 || !IsHex64(std::string_view(d).substr(7))) {
    return ParseError("unsupported digest \"" + d.substr(0, 80) + "\" in " + layout);
  }
  return layout + "/blobs/sha256/" + d.substr(7);
}

// The manifest of the single image in an OCI layout, and its path.
Result<std::pair<json, std::string>> ReadManifest(const std::string& layout) {
  SG_ASSIGN_OR_RETURN(json index, ParseJsonFile(layout + "/index.json"));
  if (!index.contains("manifests") || !index["manifests"].is_array() || index["manifests"].size() != 1) {
    return ParseError(layout + "/index.json does not list exactly one manifest");
  }
  SG_ASSIGN_OR_RETURN(std::string manifest_path, BlobPath(layout, index["manifests"][0]));
  SG_ASSIGN_OR_RETURN(json manifest, ParseJsonFile(manifest_path));
  return std::make_pair(std::move(manifest), std::move(manifest_path));
}

// The layer blob files of the single image in an OCI layout, in order.
Result<std::vector<std::string>> LayerPaths(const std::string& layout) {
  SG_ASSIGN_OR_RETURN(auto manifest, ReadManifest(layout));
  const json& m = manifest.first;
  if (!m.contains("layers") || !m["layers"].is_array()) return ParseError(manifest.second + " lists no layers");
  std::vector<std::string> out;
  for (const json& layer : m["layers"]) {
    SG_ASSIGN_OR_RETURN(std::string path, BlobPath(layout, layer));
    out.push_back(std::move(path));
  }
  return out;
}

// The image configuration's Env of the single image in an OCI layout.
Result<std::vector<std::string>> ReadImageEnv(const std::string& layout) {
  SG_ASSIGN_OR_RETURN(auto read, ReadManifest(layout));
  const json& manifest = read.first;
  const std::string& manifest_path = read.second;
  if (!manifest.contains("config")) return ParseError(manifest_path + " has no config");
  SG_ASSIGN_OR_RETURN(std::string config_path, BlobPath(layout, manifest["config"]));
  SG_ASSIGN_OR_RETURN(json config, ParseJsonFile(config_path));
  std::vector<std::string> env;
  if (!config.contains("config") || !config["config"].is_object()) return env;
  const json& c = config["config"];
  if (!c.contains("Env") || !c["Env"].is_array()) return env;
  for (const json& e : c["Env"]) {
    if (!e.is_string()) continue;
    std::string entry = e.get<std::string>();
    const std::size_t eq = entry.find('=');
    if (eq == 0 || eq == std::string::npos || entry.size() > kMaxEnvEntryBytes) continue;
    if (entry.find('\0') != std::string::npos || env.size() >= kMaxEnvEntries) continue;
    env.push_back(std::move(entry));
  }
  return env;
}

// Runs one skopeo/umoci step; a clear error when the program is missing.
Result<ProgramOutput> RunTool(ProgramRunner& runner, ProgramRequest request, const std::string& image) {
  const std::string program = request.argv.front();
  Result<ProgramOutput> out = runner.Run(request);
  if (!out.ok() && out.status().code() == StatusCode::kNotFound) {
    return FailedPreconditionError("image " + image + ": " + program +
                                   " is not installed; install the Debian package '" + program +
                                   "' (environment.image needs skopeo and umoci)");
  }
  if (!out.ok()) return out.status().WithContext("image " + image + ": running " + program);
  return out;
}

struct Inspected {
  std::string reference;   // the skopeo reference that could be read
  std::string digest_hex;  // sha256 of its raw manifest
};

Result<Inspected> Inspect(const std::string& image, const std::vector<std::string>& refs, const std::string& tmpdir,
                          ProgramRunner& runner) {
  std::string errors;
  for (const std::string& ref : refs) {
    ProgramRequest req;
    req.argv = {"skopeo", "--tmpdir", tmpdir, "inspect", "--raw", ref};
    req.env["TMPDIR"] = tmpdir;
    req.max_output_bytes = kMaxMetadataBytes;
    SG_ASSIGN_OR_RETURN(ProgramOutput out, RunTool(runner, req, image));
    if (out.exit_code == 0 && !out.timed_out && !out.out_truncated && !out.out.empty()) {
      return Inspected{ref, Sha256Hex(out.out)};
    }
    errors += (errors.empty() ? "" : "; ") + ref + ": " + (out.out_truncated ? "manifest over 4 MiB" : ErrorText(out));
  }
  return InvalidArgumentError("image " + image + ": skopeo cannot read it as an image (" + errors + ")");
}

Result<ImageRoot> Reuse(const std::string& entry, const std::string& hex) {
  SG_ASSIGN_OR_RETURN(std::string text, ReadSmallFile(entry + "/image.json"));
  SG_ASSIGN_OR_RETURN(ImageRecord record, DecodeImageRecord(text));
  return ImageRoot{entry + "/rootfs", hex, std::move(record.env), true};
}

// A published entry unpacked by the current rules (kImageUnpackVersion).
bool Published(const std::string& entry) {
  if (!IsDir(entry + "/rootfs")) return false;
  Result<std::string> text = ReadSmallFile(entry + "/image.json");
  if (!text.ok()) return false;
  Result<ImageRecord> record = DecodeImageRecord(*text);
  return record.ok() && record->unpack_version == kImageUnpackVersion;
}

// Leftovers of processes that died while unpacking this image (the caller
// holds the entry's lock, so no live process owns them).
void RemoveStaleTemps(const std::string& cache_dir, const std::string& hex) {
  std::error_code ec;
  const std::string prefix = hex + ".tmp-";
  for (fs::directory_iterator it(cache_dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->path().filename().string().rfind(prefix, 0) == 0) RemoveTree(it->path().string());
  }
}

// Copies the image into a private OCI layout and unpacks it into tmp/bundle.
Status Unpack(const std::string& image, const Inspected& in, const ImageRootOptions& o, const std::string& tmp,
              ProgramRunner& runner) {
  SG_RETURN_IF_ERROR(MakeDirs(tmp + "/skopeo-tmp"));
  ProgramRequest copy;
  // Layers of a docker archive are stored uncompressed and must be gzipped for
  // umoci; level 1 is several times faster than the default and only costs
  // disk in a directory removed right after. Compressed layers are copied as is.
  copy.argv = {"skopeo", "--tmpdir",   tmp + "/skopeo-tmp",
               "copy",   "--quiet",    "--dest-compress-level",
               "1",      in.reference, "oci:" + tmp + "/layout:" + kTag};
  copy.env["TMPDIR"] = tmp + "/skopeo-tmp";
  SG_ASSIGN_OR_RETURN(ProgramOutput copied, RunTool(runner, copy, image));
  if (copied.exit_code != 0 || copied.timed_out) {
    return FailedPreconditionError("image " + image + ": skopeo copy failed (" + ErrorText(copied) + ")");
  }
  // Bounded before a byte is unpacked: a layer bomb never reaches the disk.
  const internal::ImageLimits limits{o.max_bytes, o.max_files};
  SG_ASSIGN_OR_RETURN(std::vector<std::string> layers, LayerPaths(tmp + "/layout"));
  SG_RETURN_IF_ERROR(internal::CheckLayerLimits(layers, limits).WithContext("image " + image));
  ProgramRequest unpack;
  // Rootless even as root: no device nodes, no ownership taken from the image.
  unpack.argv = {"umoci", "unpack", "--rootless"};
  unpack.argv.insert(unpack.argv.end(), {"--image", tmp + "/layout:" + kTag, tmp + "/bundle"});
  unpack.env["TMPDIR"] = tmp + "/skopeo-tmp";
  SG_ASSIGN_OR_RETURN(ProgramOutput unpacked, RunTool(runner, unpack, image));
  if (unpacked.exit_code != 0 || unpacked.timed_out) {
    return FailedPreconditionError("image " + image + ": umoci unpack failed (" + ErrorText(unpacked) + ")");
  }
  if (!IsDir(tmp + "/bundle/rootfs")) {
    return FailedPreconditionError("image " + image + ": umoci unpack made no root filesystem in " + tmp + "/bundle");
  }
  return internal::SanitizeUnpackedRoot(tmp + "/bundle/rootfs", limits).WithContext("image " + image);
}

// Unpacks into a temporary directory and renames it into place. The caller
// holds the entry's lock.
Result<ImageRoot> Build(const std::string& image, const Inspected& in, const ImageRootOptions& o,
                        ProgramRunner& runner) {
  const std::string entry = o.cache_dir + "/" + in.digest_hex;
  const std::string tmp = entry + ".tmp-" + std::to_string(::getpid());
  RemoveStaleTemps(o.cache_dir, in.digest_hex);
  SG_RETURN_IF_ERROR(MakeDirs(tmp));
  Status st = Unpack(image, in, o, tmp, runner);
  Result<std::vector<std::string>> env = std::vector<std::string>{};
  if (st.ok()) env = ReadImageEnv(tmp + "/layout");
  if (st.ok() && !env.ok()) st = env.status().WithContext("image " + image + ": reading the image configuration");
  if (st.ok()) {
    st = WriteFileAtomic(tmp + "/bundle/image.json",
                         EncodeImageRecord(ImageRecord{"sha256:" + in.digest_hex, in.reference, *env}));
  }
  if (st.ok()) {
    std::error_code ec;
    std::vector<fs::path> mtrees;  // umoci's repack manifests, not needed
    for (fs::directory_iterator it(tmp + "/bundle", ec), end; !ec && it != end; it.increment(ec)) {
      if (it->path().extension() == ".mtree") mtrees.push_back(it->path());
    }
    for (const fs::path& p : mtrees) fs::remove(p, ec);
    ::chmod((tmp + "/bundle").c_str(), 0755);  // umoci makes it 0700; the sandbox uids must get through
    if (IsDir(entry)) RemoveTree(entry);       // unpacked by older rules
    if (::rename((tmp + "/bundle").c_str(), entry.c_str()) != 0) {
      st = IoError("image " + image + ": cannot publish " + entry + ": " + std::strerror(errno));
    }
  }
  RemoveTree(tmp);
  SG_RETURN_IF_ERROR(st);
  (void)SyncDir(o.cache_dir);
  return ImageRoot{entry + "/rootfs", in.digest_hex, std::move(*env), false};
}

}  // namespace

std::string EncodeImageRecord(const ImageRecord& record) {
  json j = {{"digest", record.digest},
            {"source", record.source},
            {"env", record.env},
            {"unpack_version", record.unpack_version}};
  return j.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

Result<ImageRecord> DecodeImageRecord(std::string_view text) {
  SG_RETURN_IF_ERROR(CheckJsonDepth(text, "image.json"));
  json j = json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return ParseError("image.json is not a JSON object");
  ImageRecord r;
  try {
    r.digest = j.at("digest").get<std::string>();
    r.source = j.at("source").get<std::string>();
    r.env = j.at("env").get<std::vector<std::string>>();
    r.unpack_version = j.contains("unpack_version") ? j.at("unpack_version").get<int>() : 0;
  } catch (const json::exception& e) {
    return ParseError(std::string("image.json: ") + e.what());
  }
  return r;
}

Result<std::vector<std::string>> ImageReferences(const std::string& image_path) {
  if (image_path.empty()) return InvalidArgumentError("environment.image is empty");
  const std::string path = fs::absolute(image_path).lexically_normal().string();
  if (path.find(':') != std::string::npos) {
    return InvalidArgumentError("image " + image_path + ": a path containing ':' cannot be given to skopeo; rename it");
  }
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) {
    return NotFoundError("image " + image_path + ": " + std::strerror(errno));
  }
  if (S_ISDIR(st.st_mode)) {
    if (::access((path + "/oci-layout").c_str(), F_OK) != 0) {
      return InvalidArgumentError("image " + image_path +
                                  ": a directory must be an OCI image layout (it has no oci-layout file)");
    }
    return std::vector<std::string>{"oci:" + path};
  }
  if (!S_ISREG(st.st_mode)) return InvalidArgumentError("image " + image_path + ": not a file or directory");
  return std::vector<std::string>{"docker-archive:" + path, "oci-archive:" + path};
}

Result<ImageRoot> PrepareImageRoot(const std::string& image_path, const ImageRootOptions& options,
                                   ProgramRunner& runner) {
  if (options.cache_dir.empty() || options.cache_dir[0] != '/' || options.cache_dir.find(':') != std::string::npos) {
    return InvalidArgumentError("image cache directory must be an absolute path without ':', got \"" +
                                options.cache_dir + "\"");
  }
  SG_ASSIGN_OR_RETURN(std::vector<std::string> refs, ImageReferences(image_path));
  SG_RETURN_IF_ERROR(MakeDirs(options.cache_dir + "/tmp"));
  ::chmod(options.cache_dir.c_str(), 0755);
  SG_ASSIGN_OR_RETURN(Inspected in, Inspect(image_path, refs, options.cache_dir + "/tmp", runner));
  const std::string entry = options.cache_dir + "/" + in.digest_hex;
  if (Published(entry)) return Reuse(entry, in.digest_hex);
  UniqueFd lock(::open((entry + ".lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644));
  if (!lock.valid() || ::flock(lock.get(), LOCK_EX) != 0) {
    return IoError("image " + image_path + ": cannot lock the image cache entry " + entry + ".lock");
  }
  if (Published(entry)) return Reuse(entry, in.digest_hex);  // another process unpacked it meanwhile
  return Build(image_path, in, options, runner);
}

Result<ImageRoot> PrepareImageRoot(const std::string& image_path, const ImageRootOptions& options) {
  HostProgramRunner runner;
  return PrepareImageRoot(image_path, options, runner);
}

}  // namespace seragen::env
