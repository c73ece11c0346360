// The demo pipeline inside a real container image: a minimal Debian 12 root
// filesystem made by mmdebstrap (scripts/make-test-image, cached between test
// runs), saved as a `docker save`-style archive and given as
// environment.image. Labelled `slow` (the first build takes about a minute);
// scripts/test runs it like every other test.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>

#include "integration/pipeline/harness.h"
#include "seragen/base/file_util.h"
#include "seragen/base/hash.h"
#include "seragen/base/unique_fd.h"
#include "testing/source_paths.h"

namespace seragen::e2e {
namespace {

namespace fs = std::filesystem;

// Every entry under `root` (not following symlinks) with its type, mode,
// owner, size and modification and change times: any write, chmod, chown,
// new or removed file changes the result.
std::string TreeDigest(const std::string& root) {
  Sha256 h;
  std::error_code ec;
  std::size_t entries = 0;
  for (fs::recursive_directory_iterator it(root, fs::directory_options::none, ec), end; !ec && it != end;
       it.increment(ec)) {
    struct stat st;
    if (::lstat(it->path().c_str(), &st) != 0) continue;
    h.UpdateField(it->path().string());
    h.UpdateField(std::to_string(st.st_mode) + " " + std::to_string(st.st_uid) + " " + std::to_string(st.st_gid) + " " +
                  std::to_string(st.st_size) + " " + std::to_string(st.st_mtim.tv_sec) + "." +
                  std::to_string(st.st_mtim.tv_nsec) + " " + std::to_string(st.st_ctim.tv_sec) + "." +
                  std::to_string(st.st_ctim.tv_nsec));
    ++entries;
  }
  REQUIRE_FALSE(ec);
  REQUIRE(entries > 1000);  // a whole Debian root, not an empty directory
  return h.FinalHex();
}

// A listening TCP socket on the host's loopback: a sandbox with the host's
// network could connect to it.
struct HostListener {
  UniqueFd fd;
  int port = 0;
  HostListener() : fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) {
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    REQUIRE(::bind(fd.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
    REQUIRE(::listen(fd.get(), 16) == 0);
    socklen_t len = sizeof addr;
    REQUIRE(::getsockname(fd.get(), reinterpret_cast<sockaddr*>(&addr), &len) == 0);
    port = ntohs(addr.sin_port);
  }
};

std::string Trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

// Rollout 1 is replayed from this script (the teacher stands in for a model):
// it reads the os-release, tries to write outside the working copy (the
// image, the prepared prefix), writes /tmp, tries the host network, edits one
// file and submits.
std::string RolloutScript(const std::string& probe, int port) {
  const std::string command =
      "cat /etc/os-release; touch /etc/seragen-image-probe; touch /seragen-image-probe; touch /env/x; "
      "echo inside > /tmp/" +
      probe + " && echo tmp-writable-$((6*7)); (echo > /dev/tcp/127.0.0.1/" + std::to_string(port) +
      ") 2>/dev/null && echo net-open-$((2+3)) || echo net-closed-$((2+3))";
  return "rollout1:\n"
         "  - tool: bash\n"
         "    arguments: '{\"command\": \"" +
         command +
         "\"}'\n"
         "  - tool: editor\n"
         "    arguments: '{\"command\": \"create\", \"path\": \"/repo/IMAGE_CHECK.md\", "
         "\"file_text\": \"Checked inside the image.\\n\"}'\n"
         "  - tool: submit\n"
         "    arguments: '{}'\n"
         "  - tool: submit\n"
         "    arguments: '{}'\n";
}

TEST_CASE("the demo pipeline runs inside a Debian image given as a docker-save archive", "[e2e][image][slow]") {
  if (::geteuid() != 0) {
    WARN("skipped: building the test image with mmdebstrap needs root");
    return;
  }
  std::string built;  // mmdebstrap's messages (on a failure), then the archive's path
  int rc = testing::RunShell(seragen::testing::SourcePath("scripts/make-test-image"), &built);
  INFO(built);
  REQUIRE(rc == 0);
  built = Trim(built);
  const std::string archive = built.substr(built.rfind('\n') == std::string::npos ? 0 : built.rfind('\n') + 1);
  REQUIRE(fs::is_regular_file(archive));
  std::string host_release;
  REQUIRE(testing::RunShell("cat /etc/os-release", &host_release) == 0);
  REQUIRE(host_release.find("SERAGEN_TEST_IMAGE") == std::string::npos);

  testing::TempDir dir;
  MakePythonRepo(dir.Sub("repo"));
  // Unpacked images are kept between test runs (keyed by digest, like any
  // image cache); the sandbox uids must reach it, which $HOME may not allow.
  const std::string env_cache = "/var/tmp/seragen-test-env-" + std::to_string(::geteuid());
  HostListener listener;
  const std::string probe = "seragen-image-probe-" + ContentId({dir.path()}, 12);
  TeacherProcess teacher(dir, ReplayFlags(dir, RolloutScript(probe, listener.port)));
  dir.Write("config.yaml",
            "run: {dir: run, seed: 11, concurrency: 2, progress: never, grace_period_s: 2}\n"
            "repos: [{name: sample, source: '" +
                dir.Sub("repo") +
                "'}]\n"
                "selection: {min_lines: 3, max_functions_per_repo: 2}\n"
                "llm:\n  model: 'seragen-scripted-teacher (not a model)'\n  endpoints: [{base_url: '" +
                teacher.url() +
                "'}]\n  request_timeout_s: 5\n"
                "  retry: {initial_backoff_s: 0.05, max_backoff_s: 0.2, total_budget_s: 30}\n"
                "agent: {max_steps: 30, wall_clock_s: 120, command_timeout_s: 20}\n"
                "environment:\n  image: '" +
                archive + "'\n  cache_dir: '" + env_cache +
                "'\n"
                // Setup runs in the image too, and its prefix is read-only for rollouts.
                "  setup: ['echo setup-saw-$(grep -c SERAGEN_TEST_IMAGE=1 /etc/os-release) > /env/setup-saw']\n"
                "  check: 'cat /etc/os-release /env/setup-saw'\n");

  // env check: unpacks (or reuses) the image and shows what a rollout sees.
  std::string out;
  rc = testing::RunShell(Binary() + " env check -c " + dir.Sub("config.yaml"), &out);
  INFO(out);
  REQUIRE(rc == 0);
  CHECK(out.find("SERAGEN_TEST_IMAGE=1") != std::string::npos);
  CHECK(out.find("system: Debian GNU/Linux 12 (bookworm)") != std::string::npos);
  CHECK(out.find("setup-saw-1") != std::string::npos);
  std::smatch m;
  REQUIRE(std::regex_search(
      out, m, std::regex("root: (" + env_cache + "(/group-[0-9]+)?/images/[0-9a-f]{64}/rootfs) \\(read-only\\)")));
  const std::string rootfs = m[1];
  const std::string before = TreeDigest(rootfs);

  rc = testing::RunShell(Binary() + " run -c " + dir.Sub("config.yaml"), &out);
  INFO(out);
  REQUIRE(rc == 0);

  // Every rollout-1 attempt ran the script inside the image.
  int rollouts = 0;
  for (const auto& e : fs::directory_iterator(dir.Sub("run/shard-0/trajectories"))) {
    const std::string text = *ReadFile(e.path().string());
    if (text.find("cat /etc/os-release") == std::string::npos) continue;
    ++rollouts;
    INFO(e.path().string());
    CHECK(text.find("SERAGEN_TEST_IMAGE=1") != std::string::npos);
    CHECK(text.find("VERSION_CODENAME=bookworm") != std::string::npos);
    // (Outputs differ from the command text: $((6*7)) prints 42.)
    CHECK(std::regex_search(text,
                            std::regex("cannot touch .{1,8}/etc/seragen-image-probe.{1,8}: Read-only file system")));
    CHECK(std::regex_search(text, std::regex("cannot touch .{1,8}/seragen-image-probe.{1,8}: Read-only file system")));
    CHECK(std::regex_search(text, std::regex("cannot touch .{1,8}/env/x.{1,8}: Read-only file system")));
    CHECK(text.find("tmp-writable-42") != std::string::npos);
    CHECK(text.find("net-closed-5") != std::string::npos);
    CHECK(text.find("net-open-5") == std::string::npos);
  }
  CHECK(rollouts >= 1);
  std::string status;
  REQUIRE(testing::RunShell(Binary() + " status " + dir.Sub("run") + " --json 2>/dev/null", &status) == 0);
  const nlohmann::json st = nlohmann::json::parse(status);
  CHECK(st["planned"].get<int>() >= 1);
  CHECK(st["finished"] == st["planned"]);

  // Nothing outside the working copies was written: not the image root, not
  // the host's /, /etc or /tmp.
  CHECK(TreeDigest(rootfs) == before);
  CHECK_FALSE(fs::exists("/tmp/" + probe));
  CHECK_FALSE(fs::exists("/etc/seragen-image-probe"));
  CHECK_FALSE(fs::exists("/seragen-image-probe"));
}

}  // namespace
}  // namespace seragen::e2e
