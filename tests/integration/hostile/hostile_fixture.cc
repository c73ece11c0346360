#include "integration/hostile/hostile_fixture.h"

#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "integration/pipeline/harness.h"
#include "testing/sandbox_uids.h"

namespace seragen::hostile {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

// A single-quoted YAML scalar (JSON text from dump() has no raw newlines).
std::string Quote(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("''") : std::string(1, c);
  return out + "'";
}

std::string RandomHex(std::size_t bytes) {
  std::ifstream in("/dev/urandom", std::ios::binary);
  std::string raw(bytes, '\0');
  in.read(raw.data(), static_cast<std::streamsize>(bytes));
  static const char* kHex = "0123456789abcdef";
  std::string out;
  for (unsigned char c : raw) {
    out += kHex[c >> 4];
    out += kHex[c & 15];
  }
  return out;
}

void WriteBytes(const std::string& path, const std::string& bytes, mode_t mode) {
  fs::create_directories(fs::path(path).parent_path());
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << bytes;
  out.close();
  REQUIRE(out.good());
  REQUIRE(::chmod(path.c_str(), mode) == 0);
}

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The fixture repository: one Python function with a Latin-1 comment (bytes
// that are not UTF-8) three lines above its last statement.
void MakeRepo(const std::string& path) {
  const std::string ops =
      "\"\"\"Small arithmetic helpers.\"\"\"\n"
      "\n"
      "\n"
      "def clamp(value, low, high):\n"
      "    \"\"\"Limit value to the closed range [low, high].\"\"\"\n"
      "    if value < low:\n"
      "        return low\n"
      "    # Grenzf\xe4"
      "lle: gro\xdf"
      "e Werte werden begrenzt (Stra\xdf"
      "e, \xfc"
      "ber, \xe9"
      "t\xe9)\n"
      "    if value > high:\n"
      "        return high\n"
      "    return value\n";
  WriteBytes(path + "/calc/ops.py", ops, 0644);
  WriteBytes(path + "/calc/__init__.py", "", 0644);
  WriteBytes(path + "/README.md", "Arithmetic helpers.\n", 0644);
  REQUIRE(testing::RunShell(
              "cd " + path +
              " && export GIT_AUTHOR_DATE=2026-01-01T00:00:00Z GIT_COMMITTER_DATE=2026-01-01T00:00:00Z"
              " && git init -q -b main . && git -c user.name=t -c user.email=t@example.invalid add -A"
              " && git -c user.name=t -c user.email=t@example.invalid commit -q -m 'Arithmetic helpers'") == 0);
}

}  // namespace

std::string Bash(const std::string& command) {
  return "  - {tool: bash, arguments: " + Quote(json{{"command", command}}.dump()) + "}\n";
}

std::string Editor(const json& arguments) { return "  - {tool: editor, arguments: " + Quote(arguments.dump()) + "}\n"; }

std::string RawCall(const std::string& tool, const std::string& raw_arguments) {
  return "  - {tool: " + tool + ", arguments: " + Quote(raw_arguments) + "}\n";
}

std::string Submit() { return "  - {tool: submit, arguments: '{}'}\n"; }

HostileFixture::HostileFixture(std::uint32_t uid_base) : uid_base_(uid_base) {
  // The canary lives outside /tmp (which the sandbox replaces), so the sandbox
  // sees it read-only, like any other host directory.
  char tmpl[] = "/var/tmp/seragen-hostile-XXXXXX";
  REQUIRE(::mkdtemp(tmpl) != nullptr);
  canary_root_ = tmpl;
  REQUIRE(::chmod(canary_root_.c_str(), 0755) == 0);
  canary_ = canary_root_ + "/canary";
  secret_ = "hostile-canary-secret-" + RandomHex(12);
  api_key_ = "sk-hostile-apikey-" + RandomHex(12);
  WriteBytes(canary_ + "/secret.txt", secret_ + "\n", 0600);
  WriteBytes(canary_ + "/notes/public.txt", "a public file next to the secret\n", 0644);
  WriteBytes(canary_ + "/open/keep.txt", "world-writable directory, world-writable file\n", 0666);
  REQUIRE(::chmod((canary_ + "/open").c_str(), 0777) == 0);
  REQUIRE(::chmod(canary_.c_str(), 0755) == 0);
  // The slot uids must be able to enter the directory above the working copies.
  REQUIRE(::chmod(dir_.path().c_str(), 0755) == 0);
  MakeRepo(input_repository());
  repo_source_ = input_repository();
  before_ = TakeSnapshot(canary_);
}

void HostileFixture::CommitToInputRepo(const std::string& commands) {
  REQUIRE(testing::RunShell("cd " + dir_.Sub("repo") + " && " + commands +
                            " && git -c user.name=t -c user.email=t@example.invalid add -A"
                            " && git -c user.name=t -c user.email=t@example.invalid commit -q -m 'Hostile change'") ==
          0);
}

HostileFixture::~HostileFixture() {
  std::error_code ec;
  fs::remove_all(canary_root_, ec);
}

RunOutcome HostileFixture::Run(const std::string& rollout1_turns, const std::string& extra_yaml,
                               double command_timeout_s) {
  ran_ = true;
  const std::string script =
      "rollout1:\n" + rollout1_turns + "rollout2:\n" + Submit() + Submit() + "issue_writer:\n" +
      (issue_writer_turns.empty()
           ? "  - content: \"<issue>\\nclamp() in calc/ops.py gives a wrong result at the upper bound.\\n</issue>\"\n"
           : issue_writer_turns) +
      "judge:\n"
      "  - content: <answer>yes</answer>\n";
  dir_.Write("script.yaml", script);
  e2e::TeacherProcess teacher(dir_.path(), "--script " + dir_.Sub("script.yaml") + " --body-log " + BodyLogPath(),
                              dir_.Sub("requests.jsonl"));
  REQUIRE_FALSE(teacher.url().empty());
  std::ostringstream cfg;
  cfg << "run: {dir: '" << run_dir() << "', seed: 1, concurrency: 1, progress: never, grace_period_s: 2}\n"
      << "repos: [{name: hostile, source: " << Quote(repo_source_) << "}]\n"
      << "selection: {min_lines: 3, max_functions_per_repo: 1, require_edges: none}\n"  // one edge-less function
      << "llm:\n  model: 'seragen-scripted-teacher (not a model)'\n"
      << "  api_key: '${SERAGEN_HOSTILE_API_KEY}'\n"
      << "  endpoints: [{base_url: '" << teacher.url() << "'}]\n"
      << "  request_timeout_s: 30\n"
      << "  retry: {max_attempts: 2, initial_backoff_s: 0.05, max_backoff_s: 0.2, total_budget_s: 20}\n"
      << "agent: {max_steps: 16, wall_clock_s: 90, command_timeout_s: " << command_timeout_s
      << ", max_consecutive_timeouts: 2}\n"
      << "sandbox: {uid_base: " << uid_base_ << ", max_processes: 64, memory_mb: 1024, cpu_seconds: 10}\n"
      << extra_yaml;
  dir_.Write("config.yaml", cfg.str());

  RunOutcome outcome;
  const std::string out_path = dir_.Sub("run.stdout"), err_path = dir_.Sub("run.stderr");
  const std::string binary = e2e::Binary(), config = dir_.Sub("config.yaml");
  const std::string key = api_key_;
  std::vector<std::string> args = {"seragen", "run", "-c", config};
  for (const std::string& set : config_sets) {
    args.push_back("--set");
    args.push_back(set);
  }
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  auto started = std::chrono::steady_clock::now();
  pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    int out = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int err = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (out < 0 || err < 0 || ::dup2(out, 1) < 0 || ::dup2(err, 2) < 0) ::_exit(120);
    ::setenv("SERAGEN_HOSTILE_API_KEY", key.c_str(), 1);
    ::execv(binary.c_str(), argv.data());
    ::_exit(121);
  }
  int status = 0;
  rusage usage{};
  const auto deadline = started + std::chrono::seconds(90);
  while (true) {
    pid_t done = ::wait4(pid, &status, WNOHANG, &usage);
    if (done == pid) break;
    if (std::chrono::steady_clock::now() > deadline && !outcome.timed_out) {
      outcome.timed_out = true;
      ::kill(pid, SIGKILL);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  outcome.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  outcome.max_rss_kb = usage.ru_maxrss;
  outcome.exited = WIFEXITED(status);
  outcome.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  outcome.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
  outcome.stdout_text = ReadAll(out_path);
  outcome.stderr_text = ReadAll(err_path);
  // Export the training data too: it must hold no secret either.
  std::string export_out;
  testing::RunShell(e2e::Binary() + " export " + run_dir() + " --format openai", &export_out);
  dir_.Write("export.out", export_out);
  return outcome;
}

void HostileFixture::CheckInvariants(const RunOutcome& o, const Bounds& b) {
  REQUIRE(ran_);
  INFO("seragen run: exit " << o.exit_code << ", signal " << o.signal << ", " << o.seconds << " s, peak RSS "
                            << o.max_rss_kb / 1024 << " MB\nstderr (tail): "
                            << o.stderr_text.substr(o.stderr_text.size() > 3000 ? o.stderr_text.size() - 3000 : 0));
  // No crash, the documented exit code, in time.
  CHECK_FALSE(o.timed_out);
  CHECK(o.signal == 0);
  CHECK(o.exited);
  CHECK(o.exit_code == b.expected_exit_code);
  std::string played;
  for (const std::string& seen : Rollout1Observations()) played += "\n> " + seen.substr(0, 300);
  INFO("rollout 1 answers to the agent:" << played);
  // The attack was really played: rollout 1 ran and no task ended as an
  // infrastructure failure (a model's own doing is a model outcome).
  const std::string summary = ReadAll(run_dir() + "/shard-0/summary.json");
  INFO("summary: " << summary);
  CHECK(summary.find("infra") == std::string::npos);
  bool rollout1 = false;
  for (const json& t : Trajectories()) rollout1 = rollout1 || t.value("rollout", 0) == 1;
  CHECK(rollout1 == b.expect_rollout);
  // Nothing outside the copy changed.
  std::vector<std::string> changes = DiffSnapshots(before_, TakeSnapshot(canary_));
  for (const std::string& c : changes) UNSCOPED_INFO("canary: " << c);
  CHECK(changes.empty());
  // No secret in any output, stored file, exported record, or request sent to the model.
  std::vector<std::string> secrets = {secret_, api_key_};
  secrets.insert(secrets.end(), extra_secrets.begin(), extra_secrets.end());
  for (const std::string& secret : secrets) {
    std::vector<std::string> leaks = FilesContaining(run_dir(), secret);
    for (const char* f : {"bodies.jsonl", "requests.jsonl", "teacher.out", "export.out"}) {
      if (FileContains(dir_.Sub(f), secret)) leaks.push_back(dir_.Sub(f));
    }
    if (o.stdout_text.find(secret) != std::string::npos) leaks.push_back("stdout of seragen run");
    if (o.stderr_text.find(secret) != std::string::npos) leaks.push_back("stderr of seragen run");
    for (const std::string& l : leaks) UNSCOPED_INFO("secret " << secret.substr(0, 18) << "... found in " << l);
    CHECK(leaks.empty());
  }
  // Memory and disk within bounds.
  CHECK(o.max_rss_kb < b.max_rss_kb);
  const std::uint64_t run_bytes = TreeBytes(run_dir());
  INFO("run directory: " << run_bytes << " bytes");
  CHECK(run_bytes < b.max_run_dir_bytes);
  std::error_code ec;
  const std::uintmax_t sent = fs::file_size(BodyLogPath(), ec);
  INFO("request bodies sent to the model: " << (ec ? 0 : sent) << " bytes");
  CHECK(!ec);
  CHECK(sent < b.max_sent_bytes);
  // No sandbox process of this scenario's slot uids outlives the run. SIGKILLed
  // ones get up to 5 s to vanish (they do so asynchronously, later under load);
  // zombies (already dead, reaped by the host's init or never) do not count.
  for (std::uint32_t slot = 0; slot < 2; ++slot) {
    CHECK(testing::LiveProcessesAfter(uid_base_ + slot, std::chrono::seconds(5)) == 0);
  }
}

std::vector<json> HostileFixture::Trajectories() const {
  std::vector<json> out;
  const std::string dir = run_dir() + "/shard-0/trajectories";
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    json j = json::parse(ReadAll(e.path().string()), nullptr, false);
    if (!j.is_discarded()) out.push_back(std::move(j));
  }
  std::sort(out.begin(), out.end(),
            [](const json& a, const json& b) { return a.value("rollout", 0) < b.value("rollout", 0); });
  return out;
}

std::vector<std::string> HostileFixture::Rollout1Observations() const {
  std::vector<std::string> out;
  for (const json& t : Trajectories()) {
    if (t.value("rollout", 0) != 1) continue;
    for (const json& turn : t["turns"]) {
      out.push_back(turn.value("observation", "") + turn.value("format_error_message", ""));
    }
  }
  return out;
}

}  // namespace seragen::hostile
