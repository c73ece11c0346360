#include "env/image_root.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <functional>
#include <mutex>
#include <thread>

#include "seragen/base/file_util.h"
#include "seragen/base/hash.h"
#include "seragen/base/unique_fd.h"
#include "seragen/env/environment.h"
#include "testing/temp_dir.h"

namespace seragen::env {
namespace {

namespace fs = std::filesystem;

const char* kManifest = R"({"schemaVersion":2,"layers":[]})";

void WriteText(const std::string& path, const std::string& text) {
  fs::create_directories(fs::path(path).parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

// Plays skopeo and umoci: `inspect` prints kManifest for the references in
// `readable`, `copy` writes a one-image OCI layout whose configuration has
// `image_env`, `unpack` writes a bundle with rootfs/etc/os-release. Every
// argument vector is recorded; `fail_step` makes that step exit 1.
class FakeTools final : public ProgramRunner {
 public:
  std::vector<std::string> readable;
  std::vector<std::string> image_env = {"PATH=/opt/venv/bin:/usr/bin", "HOME=/root"};
  std::string fail_step;
  bool installed = true;
  std::function<void()> on_inspect;

  Result<ProgramOutput> Run(const ProgramRequest& request) override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      calls_.push_back(request.argv);
    }
    if (!installed) return NotFoundError(request.argv.front() + " is not installed");
    const std::vector<std::string>& a = request.argv;
    ProgramOutput out;
    out.exit_code = 0;
    const std::string step = a.size() > 3 && a[0] == "skopeo" ? a[3] : a.size() > 1 ? a[1] : "";
    if (step == fail_step) {
      out.exit_code = 1;
      out.err = "level=fatal msg=\"" + step + " went wrong\"\n";
      return out;
    }
    if (step == "inspect") {
      if (on_inspect) on_inspect();
      if (std::find(readable.begin(), readable.end(), a.back()) == readable.end()) {
        out.exit_code = 1;
        out.err = "cannot read " + a.back();
      } else {
        out.out = kManifest;
      }
    } else if (step == "copy") {
      WriteLayout(a.back().substr(4, a.back().rfind(':') - 4));
    } else if (step == "unpack") {
      const std::string bundle = a.back();
      WriteText(bundle + "/rootfs/etc/os-release", "NAME=fake\n");
      WriteText(bundle + "/sha256_abc.mtree", "mtree\n");
      WriteText(bundle + "/config.json", "{}\n");
      ::chmod(bundle.c_str(), 0700);
    }
    return out;
  }

  std::vector<std::vector<std::string>> calls() {
    std::lock_guard<std::mutex> lock(mu_);
    return calls_;
  }

 private:
  void WriteLayout(const std::string& layout) {
    std::string config = R"({"architecture":"amd64","config":{"Env":[)";
    for (std::size_t i = 0; i < image_env.size(); ++i) config += (i ? "," : "") + ("\"" + image_env[i] + "\"");
    config += "]}}";
    const std::string config_hex = Sha256Hex(config);
    const std::string manifest =
        R"({"schemaVersion":2,"config":{"digest":"sha256:)" + config_hex + R"("},"layers":[]})";
    const std::string manifest_hex = Sha256Hex(manifest);
    WriteText(layout + "/oci-layout", R"({"imageLayoutVersion":"1.0.0"})");
    WriteText(layout + "/blobs/sha256/" + config_hex, config);
    WriteText(layout + "/blobs/sha256/" + manifest_hex, manifest);
    WriteText(layout + "/index.json",
              R"({"schemaVersion":2,"manifests":[{"digest":"sha256:)" + manifest_hex + R"("}]})");
  }

  std::mutex mu_;
  std::vector<std::vector<std::string>> calls_;
};

std::string MakeLayoutDir(const testing::TempDir& dir) {
  WriteText(dir.Sub("image/oci-layout"), "{}");
  return dir.Sub("image");
}

std::vector<std::string> TmpLeftovers(const std::string& cache) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(cache)) {
    if (e.path().filename().string().find(".tmp-") != std::string::npos) out.push_back(e.path().string());
  }
  return out;
}

TEST_CASE("image references: an OCI layout directory, or an archive tried as docker then OCI", "[env]") {
  testing::TempDir dir;
  const std::string layout = MakeLayoutDir(dir);
  auto refs = ImageReferences(layout);
  REQUIRE(refs.ok());
  CHECK(*refs == std::vector<std::string>{"oci:" + layout});

  WriteText(dir.Sub("saved.tar"), "tar");
  refs = ImageReferences(dir.Sub("saved.tar"));
  REQUIRE(refs.ok());
  CHECK(*refs ==
        std::vector<std::string>{"docker-archive:" + dir.Sub("saved.tar"), "oci-archive:" + dir.Sub("saved.tar")});

  fs::create_directories(dir.Sub("plain"));
  refs = ImageReferences(dir.Sub("plain"));
  REQUIRE_FALSE(refs.ok());
  CHECK(refs.status().message().find("no oci-layout file") != std::string::npos);

  WriteText(dir.Sub("a:b.tar"), "tar");
  refs = ImageReferences(dir.Sub("a:b.tar"));
  REQUIRE_FALSE(refs.ok());
  CHECK(refs.status().message().find("':'") != std::string::npos);
}

TEST_CASE("a missing image is an error naming its path", "[env]") {
  auto root = PrepareImageRoot("/nonexistent/image.tar", ImageRootOptions{"/tmp/seragen-env-test-cache"});
  REQUIRE_FALSE(root.ok());
  CHECK(root.status().code() == StatusCode::kNotFound);
  CHECK(root.status().message().find("/nonexistent/image.tar") != std::string::npos);
}

TEST_CASE("an image is copied and unpacked once, then reused by its manifest digest", "[env]") {
  testing::TempDir dir;
  const std::string layout = MakeLayoutDir(dir);
  const std::string cache = dir.Sub("cache");
  FakeTools tools;
  tools.readable = {"oci:" + layout};
  const std::string hex = Sha256Hex(kManifest);
  const std::string tmp = cache + "/" + hex + ".tmp-" + std::to_string(::getpid());

  auto root = PrepareImageRoot(layout, ImageRootOptions{cache}, tools);
  REQUIRE(root.ok());
  CHECK_FALSE(root->reused);
  CHECK(root->digest == hex);
  CHECK(root->rootfs == cache + "/" + hex + "/rootfs");
  CHECK(ReadFile(root->rootfs + "/etc/os-release").value() == "NAME=fake\n");
  CHECK(root->env == std::vector<std::string>{"PATH=/opt/venv/bin:/usr/bin", "HOME=/root"});
  const std::vector<std::vector<std::string>> expected = {
      {"skopeo", "--tmpdir", cache + "/tmp", "inspect", "--raw", "oci:" + layout},
      {"skopeo", "--tmpdir", tmp + "/skopeo-tmp", "copy", "--quiet", "--dest-compress-level", "1", "oci:" + layout,
       "oci:" + tmp + "/layout:seragen"},
      {"umoci", "unpack", "--rootless", "--image", tmp + "/layout:seragen", tmp + "/bundle"}};
  CHECK(tools.calls() == expected);
  // Published: readable by the sandbox uids, no umoci mtree, no temporary left.
  struct stat st;
  REQUIRE(::stat((cache + "/" + hex).c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0755);
  CHECK_FALSE(fs::exists(cache + "/" + hex + "/sha256_abc.mtree"));
  CHECK(TmpLeftovers(cache).empty());
  auto record = DecodeImageRecord(ReadFile(cache + "/" + hex + "/image.json").value());
  REQUIRE(record.ok());
  CHECK(record->digest == "sha256:" + hex);
  CHECK(record->source == "oci:" + layout);

  FakeTools again;
  again.readable = tools.readable;
  auto reused = PrepareImageRoot(layout, ImageRootOptions{cache}, again);
  REQUIRE(reused.ok());
  CHECK(reused->reused);
  CHECK(reused->rootfs == root->rootfs);
  CHECK(reused->env == root->env);
  REQUIRE(again.calls().size() == 1);
  CHECK(again.calls()[0][3] == "inspect");
}

TEST_CASE("umoci always unpacks rootless, as root too", "[env]") {
  testing::TempDir dir;
  const std::string layout = MakeLayoutDir(dir);
  FakeTools tools;
  tools.readable = {"oci:" + layout};
  REQUIRE(PrepareImageRoot(layout, ImageRootOptions{dir.Sub("cache")}, tools).ok());
  REQUIRE(tools.calls().size() == 3);
  CHECK(tools.calls()[2][1] == "unpack");
  CHECK(tools.calls()[2][2] == "--rootless");
}

TEST_CASE("an archive skopeo cannot read as docker-archive is read as oci-archive", "[env]") {
  testing::TempDir dir;
  WriteText(dir.Sub("img.tar"), "tar");
  FakeTools tools;
  tools.readable = {"oci-archive:" + dir.Sub("img.tar")};
  auto root = PrepareImageRoot(dir.Sub("img.tar"), ImageRootOptions{dir.Sub("cache")}, tools);
  REQUIRE(root.ok());
  auto calls = tools.calls();
  REQUIRE(calls.size() == 4);
  CHECK(calls[0].back() == "docker-archive:" + dir.Sub("img.tar"));
  CHECK(calls[1].back() == "oci-archive:" + dir.Sub("img.tar"));
  CHECK(calls[2][3] == "copy");
  CHECK(calls[2][7] == "oci-archive:" + dir.Sub("img.tar"));

  FakeTools neither;
  auto bad = PrepareImageRoot(dir.Sub("img.tar"), ImageRootOptions{dir.Sub("cache")}, neither);
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.status().message().find("skopeo cannot read it as an image") != std::string::npos);
  CHECK(bad.status().message().find("cannot read docker-archive:") != std::string::npos);
  CHECK(bad.status().message().find("cannot read oci-archive:") != std::string::npos);
}

TEST_CASE("a failed unpack publishes nothing, leaves no temporary and names the step", "[env]") {
  testing::TempDir dir;
  const std::string layout = MakeLayoutDir(dir);
  const std::string cache = dir.Sub("cache");
  for (const char* step : {"copy", "unpack"}) {
    FakeTools tools;
    tools.readable = {"oci:" + layout};
    tools.fail_step = step;
    auto root = PrepareImageRoot(layout, ImageRootOptions{cache}, tools);
    REQUIRE_FALSE(root.ok());
    INFO(root.status().message());
    CHECK(root.status().message().find("image " + layout) != std::string::npos);
    CHECK(root.status().message().find(std::string(step) + " went wrong") != std::string::npos);
    CHECK(root.status().message().find(std::string(step) + " failed (exit status 1") != std::string::npos);
    CHECK_FALSE(fs::exists(cache + "/" + Sha256Hex(kManifest)));
    CHECK(TmpLeftovers(cache).empty());
  }
  FakeTools tools;
  tools.readable = {"oci:" + layout};
  CHECK(PrepareImageRoot(layout, ImageRootOptions{cache}, tools).ok());
}

TEST_CASE("leftovers of a process that died while unpacking are removed, even read-only ones", "[env]") {
  testing::TempDir dir;
  const std::string layout = MakeLayoutDir(dir);
  const std::string cache = dir.Sub("cache");
  const std::string stale = cache + "/" + Sha256Hex(kManifest) + ".tmp-999999";
  WriteText(stale + "/bundle/rootfs/usr/file", "x");
  ::chmod((stale + "/bundle/rootfs/usr").c_str(), 0500);
  ::chmod((stale + "/bundle/rootfs").c_str(), 0500);
  FakeTools tools;
  tools.readable = {"oci:" + layout};
  REQUIRE(PrepareImageRoot(layout, ImageRootOptions{cache}, tools).ok());
  CHECK_FALSE(fs::exists(stale));
}

TEST_CASE("a process waiting on the entry's lock reuses what the lock holder published", "[env]") {
  testing::TempDir dir;
  const std::string layout = MakeLayoutDir(dir);
  const std::string cache = dir.Sub("cache");
  const std::string entry = cache + "/" + Sha256Hex(kManifest);
  REQUIRE(MakeDirs(cache).ok());
  UniqueFd held(::open((entry + ".lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644));
  REQUIRE(::flock(held.get(), LOCK_EX) == 0);
  FakeTools tools;
  tools.readable = {"oci:" + layout};
  std::mutex mu;
  bool inspected = false;
  std::condition_variable cv;
  tools.on_inspect = [&] {
    std::lock_guard<std::mutex> lock(mu);
    inspected = true;
    cv.notify_all();
  };
  Result<ImageRoot> result = InternalError("not run");
  std::thread other([&] { result = PrepareImageRoot(layout, ImageRootOptions{cache}, tools); });
  {
    std::unique_lock<std::mutex> lock(mu);
    cv.wait(lock, [&] { return inspected; });
  }
  // The holder publishes, then unlocks.
  WriteText(entry + "/rootfs/etc/os-release", "NAME=holder\n");
  WriteText(entry + "/image.json", EncodeImageRecord(ImageRecord{"sha256:x", "oci:" + layout, {"A=1"}}));
  held.reset();
  other.join();
  REQUIRE(result.ok());
  CHECK(result->reused);
  CHECK(result->env == std::vector<std::string>{"A=1"});
  CHECK(tools.calls().size() == 1);
}

TEST_CASE("without skopeo the error says which package to install", "[env]") {
  testing::TempDir dir;
  const std::string layout = MakeLayoutDir(dir);
  FakeTools tools;
  tools.installed = false;
  auto root = PrepareImageRoot(layout, ImageRootOptions{dir.Sub("cache")}, tools);
  REQUIRE_FALSE(root.ok());
  CHECK(root.status().code() == StatusCode::kFailedPrecondition);
  CHECK(root.status().message().find("install the Debian package 'skopeo'") != std::string::npos);
}

TEST_CASE("image.json round trip and malformed records", "[env]") {
  ImageRecord r{"sha256:ab", "oci:/x", {"PATH=/a:/b", "LANG=C"}};
  auto back = DecodeImageRecord(EncodeImageRecord(r));
  REQUIRE(back.ok());
  CHECK(back->digest == r.digest);
  CHECK(back->source == r.source);
  CHECK(back->env == r.env);
  CHECK_FALSE(DecodeImageRecord("[]").ok());
  CHECK_FALSE(DecodeImageRecord(R"({"digest":1,"source":"","env":[]})").ok());
  CHECK_FALSE(DecodeImageRecord(std::string(1000, '[')).ok());
}

TEST_CASE("commands see the sandbox defaults, then the image's Env without HOME, then environment.env", "[env]") {
  EnvironmentSpec spec;
  spec.image_env = {"PATH=/opt/conda/bin:/usr/bin", "HOME=/root", "CONDA=1", "=bad", "novalue"};
  spec.env = {{"CONDA", "2"}};
  auto vars = EnvironmentVariables({{"PATH", "/usr/bin"}, {"HOME", "/tmp"}, {"LANG", "C.UTF-8"}}, spec);
  CHECK(vars == std::map<std::string, std::string>{
                    {"PATH", "/opt/conda/bin:/usr/bin"}, {"HOME", "/tmp"}, {"LANG", "C.UTF-8"}, {"CONDA", "2"}});
}

// With Debian's skopeo and umoci: a small image made by umoci itself, as an
// OCI layout directory and as a docker-archive written by skopeo.
TEST_CASE("real skopeo and umoci unpack an OCI layout and a docker archive", "[env][real]") {
  if (::system("command -v skopeo >/dev/null && command -v umoci >/dev/null") != 0) {
    WARN("skopeo or umoci is not installed; skipped (scripts/setup installs both)");
    return;
  }
  testing::TempDir dir;
  WriteText(dir.Sub("src/etc/os-release"), "NAME=seragen-tiny\n");
  const std::string build = "set -e; cd " + dir.path() +
                            " && umoci init --layout layout && umoci new --image layout:t"
                            " && umoci config --image layout:t --config.env PATH=/opt/tool/bin:/usr/bin"
                            " && umoci insert --image layout:t src/etc /etc"
                            " && skopeo copy -q oci:layout:t docker-archive:saved.tar:tiny:latest";
  std::string log;
  const int rc = testing::RunShell(build, &log);
  INFO(log);
  REQUIRE(rc == 0);

  const std::string cache = dir.Sub("cache");
  auto root = PrepareImageRoot(dir.Sub("layout"), ImageRootOptions{cache});
  REQUIRE(root.ok());
  CHECK_FALSE(root->reused);
  CHECK(ReadFile(root->rootfs + "/etc/os-release").value() == "NAME=seragen-tiny\n");
  CHECK(std::find(root->env.begin(), root->env.end(), "PATH=/opt/tool/bin:/usr/bin") != root->env.end());
  auto again = PrepareImageRoot(dir.Sub("layout"), ImageRootOptions{cache});
  REQUIRE(again.ok());
  CHECK(again->reused);
  CHECK(again->digest == root->digest);

  auto archive = PrepareImageRoot(dir.Sub("saved.tar"), ImageRootOptions{cache});
  REQUIRE(archive.ok());
  CHECK_FALSE(archive->reused);
  CHECK(archive->digest != root->digest);  // skopeo writes a Docker manifest for it
  CHECK(ReadFile(archive->rootfs + "/etc/os-release").value() == "NAME=seragen-tiny\n");
  CHECK(TmpLeftovers(cache).empty());
}

namespace {

// An OCI layout `dir`/NAME:t of one layer holding `src` as umoci (as root)
// records it: modes, owners and device nodes kept.
void BuildLayout(const testing::TempDir& dir, const std::string& name, const std::string& src) {
  const std::string build = "set -e; cd " + dir.path() + " && umoci init --layout " + name + " && umoci new --image " +
                            name + ":t && umoci insert --image " + name + ":t " + src + " /";
  std::string log;
  const int rc = testing::RunShell(build, &log);
  INFO(log);
  REQUIRE(rc == 0);
}

bool RealToolsAsRoot() {
  if (::system("command -v skopeo >/dev/null && command -v umoci >/dev/null") != 0 || ::geteuid() != 0) {
    WARN("needs root, skopeo and umoci (scripts/setup installs both); skipped");
    return false;
  }
  return true;
}

// Entries of `root` that are device nodes, setuid/setgid, writable by group
// or others, or not owned by root.
std::vector<std::string> Dangerous(const std::string& root) {
  std::vector<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    struct stat st;
    if (::lstat(e.path().c_str(), &st) != 0) continue;
    const bool bad = S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) || st.st_uid != 0 || st.st_gid != 0 ||
                     (!S_ISLNK(st.st_mode) && (st.st_mode & (S_ISUID | S_ISGID | S_IWGRP | S_IWOTH)) != 0);
    if (bad) out.push_back(e.path().string());
  }
  return out;
}

}  // namespace

TEST_CASE("an image's setuid files, device nodes and owners do not reach the cache", "[env][real]") {
  if (!RealToolsAsRoot()) return;
  testing::TempDir dir;
  const std::string src = dir.Sub("src");
  WriteText(src + "/etc/os-release", "NAME=hostile\n");
  WriteText(src + "/home/user/notes.txt", "mine\n");
  REQUIRE(testing::RunShell("set -e; cd " + src + " && mkdir -p bin dev opt && cp /bin/true bin/rootshell" +
                            " && chmod 4755 bin/rootshell && cp /bin/true bin/groupshell && chmod 2755 bin/groupshell" +
                            " && mknod dev/mem c 1 1 && mknod dev/sda b 8 0 && chmod 0666 dev/mem" +
                            " && chmod 1777 opt && chown -R 1000:1000 home/user") == 0);
  BuildLayout(dir, "layout", "src");
  auto root = PrepareImageRoot(dir.Sub("layout"), ImageRootOptions{dir.Sub("cache")});
  REQUIRE(root.ok());
  CHECK(ReadFile(root->rootfs + "/home/user/notes.txt").value() == "mine\n");
  CHECK(::access((root->rootfs + "/bin/rootshell").c_str(), X_OK) == 0);
  std::vector<std::string> bad = Dangerous(root->rootfs);
  for (const std::string& b : bad) UNSCOPED_INFO("left in the cache: " << b);
  CHECK(bad.empty());
}

TEST_CASE("a layer bomb stops before unpacking with a named error and leaves nothing in the cache", "[env][real]") {
  if (!RealToolsAsRoot()) return;
  testing::TempDir dir;
  WriteText(dir.Sub("big/etc/os-release"), "NAME=bomb\n");
  REQUIRE(testing::RunShell("truncate -s 96M " + dir.Sub("big/zeros")) == 0);
  BuildLayout(dir, "bytes", "big");
  const std::string cache = dir.Sub("cache");
  ImageRootOptions options{cache, 64ull << 20, 1000};
  auto root = PrepareImageRoot(dir.Sub("bytes"), options);
  REQUIRE_FALSE(root.ok());
  CHECK(root.status().code() == StatusCode::kResourceExhausted);
  CHECK_THAT(root.status().message(),
             Catch::Contains("sandbox.image_max_mb") && Catch::Contains("64 MiB") && Catch::Contains(dir.Sub("bytes")));

  REQUIRE(testing::RunShell("set -e; mkdir -p " + dir.Sub("many") + " && cd " + dir.Sub("many") +
                            " && for i in $(seq 1 1500); do : > f$i; done") == 0);
  BuildLayout(dir, "files", "many");
  root = PrepareImageRoot(dir.Sub("files"), options);
  REQUIRE_FALSE(root.ok());
  CHECK(root.status().code() == StatusCode::kResourceExhausted);
  CHECK_THAT(root.status().message(), Catch::Contains("sandbox.image_max_files"));
  // Nothing published, nothing half-unpacked left behind.
  std::vector<std::string> left;
  for (const auto& e : fs::directory_iterator(cache)) {
    const std::string name = e.path().filename().string();
    if (name != "tmp" && name.find(".lock") == std::string::npos) left.push_back(name);
  }
  CHECK(left.empty());
}

}  // namespace
}  // namespace seragen::env
