// Round 3 of the hostile-model suite (issue 36): what leaves in the data and
// writes a root process makes. Each case runs the real binary; the cases
// with a rollout run the suite's canary, secret and memory checks
// (HostileFixture::CheckInvariants).
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "integration/hostile/hostile_fixture.h"
#include "integration/pipeline/harness.h"
#include "seragen/base/file_util.h"
#include "seragen/export/record.h"
#include "testing/fake_secrets.h"

namespace seragen::hostile {
namespace {

std::string FakeOf(const std::string& rule, int k = 0) {
  for (const testing::FakeSecret& f : testing::FakeSecrets(36)) {
    if (f.rule == rule && k-- == 0) return f.secret;
  }
  FAIL("no fake secret for " << rule);
  return "";
}

// Runs `seragen ARGS` after `plant(pid)` has run with the pid the process
// will have (it waits on a pipe until then), as an attacker who predicts a
// temp name would. Returns the exit code; output to `out`.
int RunWithKnownPid(const std::vector<std::string>& args, const std::function<void(pid_t)>& plant,
                    const std::string& out_path) {
  int gate[2];
  REQUIRE(::pipe(gate) == 0);
  const std::string binary = e2e::Binary();
  std::vector<std::string> argv_text = {"seragen"};
  argv_text.insert(argv_text.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& a : argv_text) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::close(gate[1]);
    char c;
    if (::read(gate[0], &c, 1) != 1) ::_exit(122);
    int fd = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || ::dup2(fd, 1) < 0 || ::dup2(fd, 2) < 0) ::_exit(120);
    ::execv(binary.c_str(), argv.data());
    ::_exit(121);
  }
  ::close(gate[0]);
  plant(pid);
  REQUIRE(::write(gate[1], "x", 1) == 1);
  ::close(gate[1]);
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// Symlinks to `victim` at every temp name the old writer would have used
// for `path` in process `pid`.
void PlantLinks(const std::string& path, pid_t pid, const std::string& victim) {
  for (int n = 0; n < 8; ++n) {
    const std::string name = path + ".tmp." + std::to_string(pid) + "." + std::to_string(n);
    ::symlink(victim.c_str(), name.c_str());
  }
}

// An edit of the fixture's function, so that rollout 1 has a patch to export.
std::string EditClamp() {
  return Editor({{"command", "str_replace"},
                 {"path", "/repo/calc/ops.py"},
                 {"old_str", "        return high\n"},
                 {"new_str", "        return high  # upper bound\n"}});
}

std::string ReadAllOf(const std::string& path) {
  Result<std::string> text = ReadFile(path);
  return text.ok() ? *text : "";
}

}  // namespace

// Findings 3 and 4 (and the unscanned test metadata): a private key written
// through the editor into a file and into a JSON string in it, assignments
// whose quotes are JSON-escaped in the arguments, and a token in the test
// command that metadata.tests copies from the raw turns; every format and
// --dataset must carry none of them.
TEST_CASE("r3: secrets in decoded tool arguments and test commands leave in no format", "[hostile][r3-finding3]") {
  HostileFixture f(27200);
  const std::string key = FakeOf("private-key-block"), key_in_json = FakeOf("private-key-block", 2);
  const std::string key_id = FakeOf("gcp-service-account-key-id"), db = FakeOf("generic-assignment");
  const std::string aws = FakeOf("aws-secret-access-key"), token = FakeOf("github-token");
  const std::string file = "KEY = \"\"\"\n" + key + "\n\"\"\"\nCONFIG = '{\"private_key_id\": \"" + key_id +
                           "\", \"private_key\": \"" + key_in_json + "\"}'\n";
  const std::string test = "DB_PASSWORD=\"" + db + "\" aws_secret_access_key=\"" + aws + "\" GITHUB_TOKEN=" + token +
                           " python3 -m pytest -q /repo/calc || true";
  RunOutcome o = f.Run(Editor({{"command", "create"}, {"path", "/repo/deploy.py"}, {"file_text", file}}) + Bash(test) +
                       EditClamp() + Submit() + Submit());
  f.CheckInvariants(o);
  std::vector<std::string> secrets = {key_id, db, aws, token};
  for (std::string k : {key, key_in_json}) {
    for (std::size_t p; (p = k.find("\\n")) != std::string::npos;) k.replace(p, 2, "\n");
    for (std::size_t at = 0, end; at < k.size(); at = end + 1) {
      end = std::min(k.find('\n', at), k.size());
      std::string line = k.substr(at, end - at);
      if (line.size() >= 16 && line.find("-----") == std::string::npos) secrets.push_back(line);
    }
  }
  const std::string run = f.run_dir();
  std::string out;
  for (const std::string& format : exporter::FormatNames()) {
    REQUIRE(testing::RunShell(e2e::Binary() + " export " + run + " --format " + format, &out) == 0);
    const std::string t1 = ReadAllOf(run + "/data/t1." + format + ".jsonl");
    INFO(format << "\n" << out);
    REQUIRE(!t1.empty());
    for (const std::string& s : secrets) {
      INFO(s.substr(0, 10));
      CHECK(t1.find(s) == std::string::npos);
    }
    CHECK(t1.find("\"source\":\"model\"") != std::string::npos);  // metadata.tests: the model's claim
  }
  REQUIRE(testing::RunShell(e2e::Binary() + " export " + run + " --dataset " + f.dir().Sub("hub"), &out) == 0);
  for (const auto& e : std::filesystem::recursive_directory_iterator(f.dir().Sub("hub"))) {
    if (!e.is_regular_file()) continue;
    const std::string text = ReadAllOf(e.path().string());
    for (const std::string& s : secrets) CHECK(text.find(s) == std::string::npos);
  }
}

// Finding 6: root wrote through a link planted at the predictable temp name
// of `--secrets-report` and of `config init`'s probe file.
TEST_CASE("r3: planted links at predictable temp names are never written through", "[hostile][r3-finding6]") {
  HostileFixture f(27210);
  const std::string token = FakeOf("github-token");
  RunOutcome o = f.Run(Bash("echo GITHUB_TOKEN=" + token) + EditClamp() + Submit() + Submit());
  f.CheckInvariants(o);
  const std::string victim = f.dir().Sub("victim"), shared = f.dir().Sub("shared");
  REQUIRE(WriteFileAtomic(victim, "root-only content\n").ok());
  REQUIRE(MakeDirs(shared).ok());
  const std::string report = shared + "/secrets.jsonl";
  int rc = RunWithKnownPid(
      {"export", f.run_dir(), "--format", "hf", "--secrets-report", report},
      [&](pid_t pid) { PlantLinks(report, pid, victim); }, f.dir().Sub("export.log"));
  INFO(ReadAllOf(f.dir().Sub("export.log")));
  CHECK(rc == 0);
  CHECK(ReadAllOf(victim) == "root-only content\n");
  CHECK(ReadAllOf(report).find("github-token") != std::string::npos);

  const std::string out = shared + "/config.yaml";
  rc = RunWithKnownPid(
      {"config", "init", "--repo", f.input_repository(), "--base-url", "http://127.0.0.1:9/v1", "--model", "m", "-o",
       out},
      [&](pid_t pid) {
        const std::string probe = shared + "/.seragen-init-" + std::to_string(pid) + ".yaml";
        ::symlink(victim.c_str(), probe.c_str());
        PlantLinks(probe, pid, victim);
        PlantLinks(out, pid, victim);
      },
      f.dir().Sub("init.log"));
  INFO(ReadAllOf(f.dir().Sub("init.log")));
  CHECK(rc == 0);
  CHECK(ReadAllOf(victim) == "root-only content\n");
}

// Finding 6, second half, and the low finding on --dataset: a directory
// seragen did not make is refused, and a rerun leaves no stale data.
TEST_CASE("r3: export --dataset refuses a directory it did not make and replaces only its own files",
          "[hostile][r3-dataset]") {
  HostileFixture f(27220);
  RunOutcome o = f.Run(Bash("ls /repo") + EditClamp() + Submit() + Submit());
  f.CheckInvariants(o);
  const std::string hub = f.dir().Sub("hub");
  REQUIRE(WriteFileAtomic(hub + "/README.md", "the team's own card\n").ok());
  std::string out;
  const std::string cmd = e2e::Binary() + " export " + f.run_dir() + " --dataset " + hub;
  CHECK(testing::RunShell(cmd + " 2>&1", &out) != 0);
  CHECK(out.find(hub) != std::string::npos);
  CHECK(ReadAllOf(hub + "/README.md") == "the team's own card\n");

  const std::string fresh = f.dir().Sub("fresh");
  REQUIRE(testing::RunShell(e2e::Binary() + " export " + f.run_dir() + " --dataset " + fresh + " --format xml", &out) ==
          0);
  REQUIRE(std::filesystem::exists(fresh + "/data/t1.xml.jsonl"));
  REQUIRE(testing::RunShell(e2e::Binary() + " export " + f.run_dir() + " --dataset " + fresh + " --format hf", &out) ==
          0);
  CHECK_FALSE(std::filesystem::exists(fresh + "/data/t1.xml.jsonl"));  // stale: removed
  CHECK(std::filesystem::exists(fresh + "/data/t1.hf.jsonl"));
}

// Low findings: the model can forge a passing metadata.tests; config init
// wrote `${...}` from its arguments, which the loader then expanded.
TEST_CASE("r3: a forged passing test run is not evidence, and config init writes no ${...}", "[hostile][r3-low]") {
  HostileFixture f(27230);
  RunOutcome o = f.Run(EditClamp() + Bash("python3 -m pytest -q /repo/does-not-exist || true") + Submit() + Submit());
  f.CheckInvariants(o);
  std::string out;
  REQUIRE(testing::RunShell(e2e::Binary() + " export " + f.run_dir() + " --format hf --rollouts t1", &out) == 0);
  const std::string all = ReadAllOf(f.run_dir() + "/data/t1.hf.jsonl");
  REQUIRE(!all.empty());
  CHECK(nlohmann::json::parse(all.substr(0, all.find('\n')))["metadata"]["tests"]["source"] == "model");
  REQUIRE(testing::RunShell(
              e2e::Binary() + " export " + f.run_dir() + " --format hf --rollouts t1 --require-tests-passed", &out) ==
          0);
  CHECK(ReadAllOf(f.run_dir() + "/data/t1.hf.jsonl").empty());  // `... || true` is not a passing run

  const std::string init = e2e::Binary() + " config init --repo " + f.input_repository() +
                           " --base-url http://127.0.0.1:9/v1 --model '${SERAGEN_HOSTILE_API_KEY}' -o " +
                           f.dir().Sub("init.yaml") + " 2>&1";
  CHECK(testing::RunShell("SERAGEN_HOSTILE_API_KEY=" + f.api_key() + " " + init, &out) == 2);
  CHECK(out.find("--model") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(f.dir().Sub("init.yaml")));
}

// Low findings: an endpoint's words reached the terminal raw (`llm ping`),
// and with llm.model empty a 1 MB listed id would be sent in every request.
TEST_CASE("r3: an endpoint's model list is bounded and printed escaped", "[hostile][r3-low]") {
  testing::TempDir dir;
  const std::string huge(1 << 20, 'M');
  dir.Write("v1/models", "{\"object\": \"list\", \"data\": [{\"id\": \"" + huge +
                             "\"}, {\"id\": \"evil\\u001b]0;owned\\u0007\"}, " +
                             "{\"id\": \"ok-model\", \"owned_by\": \"vllm \\u001b[2J\\u009b31m\"}]}");
  std::string port;
  REQUIRE(
      testing::RunShell("cd " + dir.path() +
                            " && (python3 -m http.server 0 --bind 127.0.0.1 > server.log 2>&1 & echo $! > server.pid)"
                            " && for i in $(seq 50); do grep -o 'port [0-9]*' server.log && break; sleep 0.1; done",
                        &port) == 0);
  port = port.substr(port.find(' ') + 1);
  while (!port.empty() && (port.back() == '\n' || port.back() == ' ')) port.pop_back();
  REQUIRE(!port.empty());
  std::string out;
  testing::RunShell(e2e::Binary() + " llm ping --base-url http://127.0.0.1:" + port + "/v1 2>&1", &out);
  testing::RunShell("kill $(cat " + dir.Sub("server.pid") + ")");
  INFO(out.substr(0, 2000));
  CHECK(out.find('\x1b') == std::string::npos);
  CHECK(out.find("\xC2\x9B") == std::string::npos);
  CHECK(out.find(std::string(300, 'M')) == std::string::npos);
  CHECK(out.size() < 64 * 1024);
}

}  // namespace seragen::hostile
