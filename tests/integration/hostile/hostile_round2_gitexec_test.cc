// Hostile INPUT repositories (issue 28, findings 1, 2, 7 and 11): the
// repository seragen is pointed at is as hostile as the model. Each case
// builds the repository in the test, runs the real `seragen run` on it and
// holds it to HostileFixture's invariants (canary, secrets, RSS, disk).
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "integration/hostile/hostile_fixture.h"
#include "testing/temp_dir.h"

namespace seragen::hostile {
namespace {

namespace fs = std::filesystem;

// A shell word for `text` (single-quoted).
std::string Sh(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// git in the input repository, with no host configuration and a fixed identity.
std::string Git(const std::string& repo) {
  return "cd " + Sh(repo) +
         " && env HOME=/nonexistent GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null GIT_AUTHOR_NAME=t"
         " GIT_AUTHOR_EMAIL=t@example.invalid GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.invalid git";
}

std::string MustRun(const std::string& command) {
  std::string out;
  int rc = testing::RunShell(command, &out);
  INFO(command << "\n" << out);
  REQUIRE(rc == 0);
  return out;
}

void WriteFile(const std::string& path, const std::string& content, fs::perms perms = fs::perms(0644)) {
  fs::create_directories(fs::path(path).parent_path());
  std::ofstream(path, std::ios::binary | std::ios::trunc) << content;
  fs::permissions(path, perms);
}

// A program that, run as root, leaves evidence: who ran it, the API key from
// its environment and the root-only canary secret, in `marker`.
std::string EvidenceScript(const HostileFixture& f, const std::string& marker) {
  return "#!/bin/sh\n{ id -u; env; cat " + Sh(f.canary() + "/secret.txt") + "; } > " + Sh(marker) + " 2>&1\n";
}

// Commits on top of main a commit whose header carries a signature of the
// given form ("-----BEGIN PGP SIGNATURE-----" for gpg, SSH, x509).
void CommitWithSignature(const std::string& repo, const std::string& begin, const std::string& end,
                         const std::string& message) {
  const std::string tree = MustRun(Git(repo) + " rev-parse 'HEAD^{tree}'").substr(0, 40);
  const std::string parent = MustRun(Git(repo) + " rev-parse HEAD").substr(0, 40);
  const std::string body = "tree " + tree + "\nparent " + parent +
                           "\nauthor t <t@example.invalid> 1767225600 +0000\n"
                           "committer t <t@example.invalid> 1767225600 +0000\ngpgsig " +
                           begin + "\n AAAA\n " + end + "\n\n" + message + "\n";
  WriteFile(repo + "/../commit.txt", body);
  const std::string id = MustRun(Git(repo) + " hash-object -t commit -w ../commit.txt").substr(0, 40);
  MustRun(Git(repo) + " update-ref refs/heads/main " + id);
}

// Rollout 1: one real edit, then submit (so the judge and issue writer run).
std::string EditAndSubmit() {
  return Editor({{"command", "str_replace"},
                 {"path", "/repo/calc/ops.py"},
                 {"old_str", "    return value\n"},
                 {"new_str", "    return min(value, high)\n"}}) +
         Submit() + Submit();
}

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A path in the case's directory whose name spells a command substitution
// touching `marker` (its slashes make nested directories, made here).
std::string InjectionPath(const HostileFixture& f, const std::string& stem, const std::string& marker,
                          const std::string& suffix) {
  const std::string path = f.dir().Sub(stem + "'$(touch " + marker + ")'" + suffix);
  fs::create_directories(fs::path(path).parent_path());
  return path;
}

// One ordinary task on the prepared input repository: the invariants hold
// and `marker` was never made.
void RunExpectingNoMarker(HostileFixture& f, const std::string& marker, const std::string& extra_yaml = "") {
  RunOutcome o = f.Run(EditAndSubmit(), extra_yaml);
  f.CheckInvariants(o);
  INFO("first line left in the marker: " << Slurp(marker).substr(0, Slurp(marker).find('\n')));
  CHECK_FALSE(fs::exists(marker));
}

// The run must stop at planning with exit code 2, before any rollout,
// naming the repository; returns its stderr.
std::string RunExpectingRefusal(HostileFixture& f) {
  RunOutcome o = f.Run(EditAndSubmit());
  Bounds bounds;
  bounds.expected_exit_code = 2;
  bounds.expect_rollout = false;
  f.CheckInvariants(o, bounds);
  CHECK(o.stderr_text.find("repos.hostile") != std::string::npos);
  return o.stderr_text;
}

}  // namespace

TEST_CASE("round 2 finding 1: the input repository's gpg programs never run on the host",
          "[hostile][round2][r2-finding1]") {
  HostileFixture f(24000);
  const std::string repo = f.input_repository(), marker = f.dir().Sub("gpg-ran");
  WriteFile(f.dir().Sub("evil-gpg"), EvidenceScript(f, marker), fs::perms(0755));
  CommitWithSignature(repo, "-----BEGIN PGP SIGNATURE-----", "-----END PGP SIGNATURE-----",
                      "Verify the upper bound of clamp so values above high are returned as high");
  CommitWithSignature(repo, "-----BEGIN SSH SIGNATURE-----", "-----END SSH SIGNATURE-----",
                      "Document clamp and its closed range with an example for negative values");
  CommitWithSignature(repo, "-----BEGIN SIGNED MESSAGE-----", "-----END SIGNED MESSAGE-----",
                      "Keep the Latin-1 comment in ops.py intact when the file is rewritten");
  MustRun(Git(repo) + " config log.showSignature true");
  for (const char* key : {"gpg.program", "gpg.ssh.program", "gpg.x509.program"}) {
    MustRun(Git(repo) + " config " + key + " " + Sh(f.dir().Sub("evil-gpg")));
  }
  RunExpectingNoMarker(f, marker);
}

TEST_CASE("round 2 finding 2: a quote and a command substitution in the repository's path run no command",
          "[hostile][round2][r2-finding2]") {
  // Once through a `.git` file naming the git directory, once as the
  // configured repository path.
  const bool gitdir_file = GENERATE(true, false);
  HostileFixture f(gitdir_file ? 24010 : 24020);
  const std::string marker = f.dir().Sub("pwned");
  if (gitdir_file) {
    const std::string git_dir = InjectionPath(f, "q", marker, "x.git");
    fs::rename(f.input_repository() + "/.git", git_dir);
    WriteFile(f.input_repository() + "/.git", "gitdir: " + git_dir + "\n");
  } else {
    const std::string source = InjectionPath(f, "r", marker, "x");
    fs::rename(f.input_repository(), source);
    f.UseInputRepository(source);
  }
  INFO((gitdir_file ? "a .git file: gitdir: " : "repos[0].source: ") << "...'$(touch " << marker << ")'...");
  RunExpectingNoMarker(f, marker);
}

TEST_CASE("round 2 finding 7: huge commit messages do not reach the issue writer", "[hostile][round2][r2-finding7]") {
  HostileFixture f(24030);
  const std::string repo = f.input_repository();
  const std::string usable = "Reject a low bound above the high bound in clamp instead of returning low silently";
  MustRun(Git(repo) + " commit -q --allow-empty -m " + Sh(usable));
  std::string huge;
  for (int i = 0; huge.size() < (20u << 20); ++i) huge += "line " + std::to_string(i) + " of a very long message\n";
  WriteFile(f.dir().Sub("huge.txt"), huge);
  for (int i = 0; i < 3; ++i) MustRun(Git(repo) + " commit -q --allow-empty -F " + Sh(f.dir().Sub("huge.txt")));
  RunOutcome o = f.Run(EditAndSubmit(), "issue: {demos: {source: commits}}\n");
  Bounds bounds;
  bounds.max_sent_bytes = 2u << 20;
  f.CheckInvariants(o, bounds);
  // The one usable message still served as the demonstration.
  std::ifstream bodies(f.BodyLogPath());
  std::string line;
  std::size_t largest = 0;
  bool demo_seen = false;
  while (std::getline(bodies, line)) {
    largest = std::max(largest, line.size());
    demo_seen = demo_seen || line.find(usable) != std::string::npos;
  }
  CHECK(largest < (256u << 10));
  CHECK(demo_seen);
}

TEST_CASE("round 2 finding 11: a tracked path longer than a working copy can hold is refused at planning",
          "[hostile][round2][r2-finding11]") {
  HostileFixture f(24040);
  const std::string repo = f.input_repository();
  std::string long_path;
  for (int i = 0; i < 21; ++i) long_path += std::string(200, 'd') + "/";
  long_path += "deep.py";  // 4,228 bytes, over PATH_MAX
  const std::string blob = MustRun(Git(repo) + " rev-parse HEAD:README.md").substr(0, 40);
  MustRun(Git(repo) + " update-index --add --cacheinfo 100644," + blob + "," + long_path + " && " + Git(repo) +
          " commit -q -m 'a path over PATH_MAX'");
  CHECK(RunExpectingRefusal(f).find("'" + long_path.substr(0, 100)) != std::string::npos);
}

TEST_CASE("round 2 finding 11: a .gitmodules libgit2 refuses (update = !command) is refused at planning",
          "[hostile][round2][r2-finding11]") {
  HostileFixture f(24050);
  const std::string repo = f.input_repository(), marker = f.dir().Sub("submodule-ran");
  WriteFile(repo + "/.gitmodules",
            "[submodule \"vendor/lib\"]\n\tpath = vendor/lib\n\turl = ./lib\n\tupdate = !touch " + marker + "\n");
  const std::string head = MustRun(Git(repo) + " rev-parse HEAD").substr(0, 40);
  MustRun(Git(repo) + " add .gitmodules && " + Git(repo) + " update-index --add --cacheinfo 160000," + head +
          ",vendor/lib && " + Git(repo) + " commit -q -m 'a submodule with an update command'");
  CHECK(RunExpectingRefusal(f).find(".gitmodules") != std::string::npos);
  CHECK_FALSE(fs::exists(marker));
}

}  // namespace seragen::hostile
