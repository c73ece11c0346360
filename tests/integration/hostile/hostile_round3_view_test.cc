// Hostile-model cases of issue 36 (round 3) on what a rollout can see and
// what an environment image can do on the host: a rollout looks for
// world-readable files under /home, /srv, /opt, another checkout's .git,
// another run's directory and history after its base commit, and finds none
// of them; an image's setuid binary and device nodes never reach the cache,
// which no host user but root and the sandbox uids can enter. Each case runs
// with the suite's canary, secret and memory checks (CheckInvariants), with
// the planted strings added to the secrets nothing may show.
#include <grp.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include <filesystem>
#include <random>
#include <string>

#include "integration/hostile/hostile_fixture.h"
#include "integration/pipeline/harness.h"

namespace seragen::hostile {
namespace {

namespace fs = std::filesystem;

std::string Unique(const std::string& tag) {
  std::random_device rd;
  return "round3-" + tag + "-" + std::to_string(rd()) + std::to_string(rd());
}

// A fresh world-readable directory under `top` (created when missing) holding
// canary.txt with a unique marker; removed with everything in it at the end.
struct PlantedDir {
  std::string dir, marker;
  PlantedDir(const std::string& top, const std::string& tag) : marker(Unique(tag)) {
    fs::create_directories(top);
    std::string tmpl = top + "/seragen-hostile-XXXXXX";
    REQUIRE(::mkdtemp(tmpl.data()) != nullptr);
    dir = tmpl;
    REQUIRE(::chmod(dir.c_str(), 0755) == 0);
    REQUIRE(testing::RunShell("printf '%s\\n' " + marker + " > " + dir + "/canary.txt && chmod 0644 " + dir +
                              "/canary.txt") == 0);
  }
  ~PlantedDir() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
};

std::string Git(const std::string& dir) { return "git -C " + dir + " -c user.name=t -c user.email=t@example.invalid"; }

std::string Head(const std::string& repo) {
  std::string out;
  REQUIRE(testing::RunShell("git -C " + repo + " rev-parse HEAD", &out) == 0);
  return out.substr(0, 40);
}

std::string AllObservations(const HostileFixture& f) {
  std::string all;
  for (const std::string& o : f.Rollout1Observations()) all += o + "\n";
  return all;
}

}  // namespace

TEST_CASE("round 3: a rollout finds nothing of /home, /srv, /opt, other checkouts and runs, or later history",
          "[hostile][round3][view]") {
  HostileFixture f(23600);
  PlantedDir home("/home", "home"), srv("/srv", "srv"), opt("/opt", "opt"), run("/var/tmp", "run");
  // Another checkout, with its .git, and another run's trajectory.
  const std::string other = srv.dir + "/other-checkout", checkout_marker = Unique("checkout");
  REQUIRE(testing::RunShell("set -e; mkdir " + other + " && cd " + other + " && git init -q && echo " +
                            checkout_marker + " > notes.txt && " + Git(".") + " add -A && " + Git(".") +
                            " commit -q -m " + checkout_marker + " && chmod -R a+rX .") == 0);
  REQUIRE(testing::RunShell("mkdir -p " + run.dir + "/shard-0/trajectories && echo " + run.marker + " > " + run.dir +
                            "/shard-0/trajectories/t.json && chmod -R a+rX " + run.dir) == 0);
  // History after the task's base commit: a later commit on main (the task is
  // pinned to the base) and a branch of its own.
  const std::string repo = f.input_repository(), base = Head(repo);
  const std::string later_marker = Unique("later"), branch_marker = Unique("branch");
  f.CommitToInputRepo("echo " + later_marker + " > later.txt");
  const std::string later = Head(repo);
  REQUIRE(testing::RunShell("set -e; " + Git(repo) + " checkout -q -b feature " + base + " && echo " + branch_marker +
                            " > " + repo + "/branch.txt && " + Git(repo) + " add -A && " + Git(repo) +
                            " commit -q -m " + branch_marker + " && " + Git(repo) + " checkout -q main") == 0);
  f.config_sets = {"repos.0.ref=" + base};
  f.extra_secrets = {home.marker, srv.marker, opt.marker, run.marker, checkout_marker, later_marker, branch_marker};

  RunOutcome o =
      f.Run(Bash("ls -la / /home /srv /opt /mnt /var /root 2>&1; cat " + home.dir + "/canary.txt " + srv.dir +
                 "/canary.txt " + opt.dir + "/canary.txt 2>&1") +
            Bash("cat " + other + "/notes.txt " + other + "/.git/COMMIT_EDITMSG " + run.dir +
                 "/shard-0/trajectories/t.json 2>&1; ls -R " + f.run_dir() + " 2>&1 | head -50") +
            Bash("git -C /repo cat-file --batch-all-objects --batch 2>&1 | head -c 60000; git -C /repo log --all "
                 "--format=%H%n%B 2>&1; git -C /repo cat-file -p " +
                 later + " 2>&1; git -C /repo for-each-ref 2>&1") +
            Submit() + Submit());
  f.CheckInvariants(o);
  const std::string seen = AllObservations(f);
  INFO(seen.substr(0, 6000));
  // The attempts ran and were answered by absence.
  CHECK(seen.find(home.dir + "/canary.txt: No such file or directory") != std::string::npos);
  CHECK(seen.find(other + "/notes.txt: No such file or directory") != std::string::npos);
  CHECK(seen.find("Arithmetic helpers") != std::string::npos);  // the base commit itself is there
  CHECK(seen.find("Not a valid object name " + later) != std::string::npos);
}

namespace {

// An OCI layout of a tiny root: bash and its libraries from the host, an
// os-release, a setuid-root and a setgid copy of bash, device nodes (/dev/mem
// world-writable) and a file owned by uid 1000.
std::string HostileImage(const testing::TempDir& dir) {
  const std::string build =
      "set -e; cd " + dir.path() +
      " && mkdir -p img/bin img/etc img/dev img/home/user"
      " && cp /bin/bash img/bin/bash"
      " && for lib in $(ldd /bin/bash | grep -o '/[^ ]*'); do mkdir -p img$(dirname $lib); cp -L $lib img$lib; done"
      " && echo NAME=round3-hostile-image > img/etc/os-release"
      " && cp img/bin/bash img/bin/rootshell && chmod 4755 img/bin/rootshell"
      " && cp img/bin/bash img/bin/groupshell && chown 0:0 img/bin/groupshell && chmod 2755 img/bin/groupshell"
      " && mknod img/dev/mem c 1 1 && chmod 0666 img/dev/mem && mknod img/dev/sda b 8 0"
      " && echo mine > img/home/user/notes.txt && chown -R 1000:1000 img/home/user"
      " && umoci init --layout layout && umoci new --image layout:t && umoci insert --image layout:t img /";
  std::string log;
  const bool built = testing::RunShell(build, &log) == 0;
  UNSCOPED_INFO("building the image: " << log);
  REQUIRE(built);
  return dir.Sub("layout");
}

// Whether uid 65534 (an ordinary host user) can stat `path`.
bool NobodyCanReach(const std::string& path) {
  pid_t pid = ::fork();
  if (pid == 0) {
    if (::setgroups(0, nullptr) != 0 || ::setresgid(65534, 65534, 65534) != 0 ||
        ::setresuid(65534, 65534, 65534) != 0) {
      ::_exit(2);
    }
    struct stat st;
    ::_exit(::stat(path.c_str(), &st) == 0 ? 0 : 1);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

}  // namespace

TEST_CASE("round 3: an image's setuid binary and device nodes give nothing, and its cache is closed",
          "[hostile][round3][image]") {
  if (::system("command -v skopeo >/dev/null && command -v umoci >/dev/null") != 0) {
    WARN("skopeo or umoci is not installed; skipped (scripts/setup installs both)");
    return;
  }
  HostileFixture f(23610);
  const std::string layout = HostileImage(f.dir());
  const std::string cache = f.dir().Sub("envcache");
  RunOutcome o = f.Run(Bash("echo \"$(</etc/os-release)\"; echo /bin/* /dev/*; "  // the image has bash only
                            "/bin/rootshell -p -c 'echo euid=$EUID'") +
                           Submit() + Submit(),
                       "environment: {image: '" + layout + "', cache_dir: '" + cache + "'}\n");
  f.CheckInvariants(o);
  const std::string seen = AllObservations(f);
  INFO(seen.substr(0, 4000));
  CHECK(seen.find("NAME=round3-hostile-image") != std::string::npos);  // the rollout ran in the image
  CHECK(seen.find("euid=0") == std::string::npos);
  // On the host: nothing in the cache grants privilege, and only root and the
  // sandbox group may enter it.
  std::vector<std::string> bad;
  std::string rootfs;
  for (const auto& e : fs::recursive_directory_iterator(cache)) {
    struct stat st;
    if (::lstat(e.path().c_str(), &st) != 0) continue;
    if (e.path().filename() == "rootfs") rootfs = e.path().string();
    if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) || (!S_ISLNK(st.st_mode) && (st.st_mode & (S_ISUID | S_ISGID)))) {
      bad.push_back(e.path().string());
    }
  }
  for (const std::string& b : bad) UNSCOPED_INFO("in the image cache: " << b);
  CHECK(bad.empty());
  REQUIRE_FALSE(rootfs.empty());
  struct stat st;
  REQUIRE(::stat(cache.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0711);  // every run's sandbox uids pass through, none lists it
  const std::string group_dir = cache + "/group-" + std::to_string(23610 - 1);  // sandbox::SandboxGroup(uid_base)
  REQUIRE(::stat(group_dir.c_str(), &st) == 0);
  CHECK((st.st_mode & 07) == 0);
  CHECK(st.st_gid == 23610 - 1);
  CHECK(rootfs.rfind(group_dir + "/", 0) == 0);
  CHECK_FALSE(NobodyCanReach(rootfs + "/bin/rootshell"));
}

}  // namespace seragen::hostile
