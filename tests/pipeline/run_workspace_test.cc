// RunWorkspaceFactory end to end on a real pool: what the agent does to the
// copy's .git through its bash tool never reaches host-side diff or restore.
#include "seragen/pipeline/run_workspace.h"

#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include "seragen/repo/repository.h"
#include "seragen/sandbox/self_check.h"
#include "seragen/tools/tool_box.h"
#include "testing/sandbox_uids.h"
#include "testing/source_paths.h"
#include "testing/temp_dir.h"

namespace seragen::pipeline {
namespace {

using seragen::testing::RunShell;
using seragen::testing::TempDir;

const std::string kGit =
    "env HOME=/nonexistent GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null GIT_AUTHOR_NAME=t "
    "GIT_AUTHOR_EMAIL=t@example.com GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.com git";

// Output of `command`, whatever its exit code.
std::string RunShellOut(const std::string& command) {
  std::string out;
  (void)RunShell(command, &out);
  return out;
}

std::string MustRun(const std::string& command) {
  std::string out;
  int rc = RunShell(command, &out);
  INFO(command << "\n" << out);
  REQUIRE(rc == 0);
  return out;
}

const tools::ToolResources& Resources() {
  static const tools::ToolResources resources = [] {
    std::string src = seragen::testing::SourceDir();
    auto r = tools::LoadToolResources(src + "/configs/tools.yaml", src + "/prompts/tools/messages.yaml");
    if (!r.ok()) throw std::runtime_error(r.status().ToString());
    return std::move(r).value();
  }();
  return resources;
}

llm::ToolCall Bash(const std::string& command) {
  llm::ToolCall call;
  call.id = "c1";
  call.name = "bash";
  std::string escaped;
  for (char c : command) {
    if (c == '"' || c == '\\') escaped += '\\';
    escaped += c;
  }
  call.arguments_json = "{\"command\":\"" + escaped + "\"}";
  call.arguments_raw = call.arguments_json;
  call.arguments_valid = true;
  return call;
}

TEST_CASE("run workspace: core.worktree set by the agent's bash reaches neither patch nor host files") {
  TempDir tmp;
  ::chmod(tmp.path().c_str(), 0755);
  std::string source = tmp.Sub("source");
  MustRun("mkdir -p " + source + " && cd " + source + " && " + kGit + " init -q && echo alpha > a.txt && " + kGit +
          " add -A && " + kGit + " commit -qm base");
  std::string commit = MustRun("cd " + source + " && " + kGit + " rev-parse HEAD");
  commit.pop_back();
  // A root-only host directory holding a secret.
  std::string host = tmp.Sub("host");
  MustRun("mkdir -p " + host + " && echo TOP-SECRET > " + host + "/secret.txt && echo mine > " + host +
          "/a.txt && chmod 600 " + host + "/secret.txt");
  std::string listing = "cd " + host + " && stat -c '%n %a %U %s' . * && md5sum *";
  std::string before = MustRun(listing);

  auto repo = repo::Repository::Open(source);
  REQUIRE(repo.ok());
  std::map<std::string, std::shared_ptr<repo::Repository>> repos;
  repos["demo"] = std::make_shared<repo::Repository>(std::move(repo).value());
  WorkspaceOptions options;
  options.sandbox_mode = "none";
  options.pool.pool_dir = tmp.Sub("pool");
  options.pool.capacity = 1;
  const seragen::testing::LeasedUids leased(21430);  // as root the unconfined runner switches to it
  options.uid_base = leased.uid();
  options.slot_uids = leased.uids();
  RunWorkspaceFactory factory(repos, &Resources(), options);
  callgraph::PlannedTask task;
  task.task_id = "t1";
  task.repo = "demo";
  task.commit = commit;

  {
    auto env = factory.Acquire(task, 0);
    REQUIRE(env.ok());
    agent::ToolOutcome out = (*env)->tools().Execute(Bash("git config core.worktree " + host +
                                                          " && printf '\\tbare = false\\n' >> .git/config && "
                                                          "echo changed >> a.txt"));
    INFO(out.text);
    auto patch = (*env)->patch().CurrentPatch();
    REQUIRE(patch.ok());
    CHECK(patch->find("TOP-SECRET") == std::string::npos);
    CHECK(patch->find("secret.txt") == std::string::npos);
    CHECK(patch->find("+changed\n") != std::string::npos);
  }  // released: restored in place
  CHECK(MustRun(listing) == before);

  auto env = factory.Acquire(task, 0);
  REQUIRE(env.ok());
  auto clean = (*env)->patch().CurrentPatch();
  REQUIRE(clean.ok());
  CHECK(clean->empty());
  agent::ToolOutcome status =
      (*env)->tools().Execute(Bash("git config --get core.worktree; echo next >> a.txt; git status --porcelain"));
  CHECK(status.text.find("M a.txt") != std::string::npos);  // the agent's git works again, unpoisoned
  auto next = (*env)->patch().CurrentPatch();
  REQUIRE(next.ok());
  CHECK(next->find("+next\n") != std::string::npos);
  CHECK(MustRun(listing) == before);
}

// A one-file repository and a bwrap workspace factory over a pool of
// `capacity` copies (disk bound `max_copy_bytes`, 0 = none), one slot uid per
// copy from uid_base (21410 unless `configure` says otherwise), leased on the
// node as a run's; Skipped() when bubblewrap cannot run here.
struct BwrapWorld {
  TempDir tmp;
  WorkspaceOptions options;
  std::optional<seragen::testing::LeasedUids> uids;
  Status check;
  std::unique_ptr<RunWorkspaceFactory> factory;
  callgraph::PlannedTask task;

  // `files` (path -> content) make the repository's one commit; with
  // `bytecode`, the factory keeps a bytecode cache in the temp directory;
  // `configure` edits the options last.
  explicit BwrapWorld(std::size_t capacity, std::uint64_t max_copy_bytes = 0,
                      const std::map<std::string, std::string>& files = {{"a.txt", "alpha\n"}}, bool bytecode = false,
                      const std::function<void(WorkspaceOptions&)>& configure = {}) {
    options.sandbox_mode = "bwrap";
    options.tools.max_copy_bytes = max_copy_bytes;
    options.uid_base = 21410;
    options.env_log_dir = tmp.Sub("env-logs");
    if (bytecode) options.bytecode_cache_dir = tmp.Sub("pycache");
    if (configure) configure(options);
    uids.emplace(options.uid_base, static_cast<int>(capacity));
    options.slot_uids = uids->uids();
    options.sandbox.uid = options.sandbox.gid = uids->uid();
    check = sandbox::SelfCheck(options.sandbox);
    if (!check.ok()) return;
    ::chmod(tmp.path().c_str(), 0755);
    std::string source = tmp.Sub("source");
    for (const auto& [path, content] : files) tmp.Write("source/" + path, content);
    MustRun("cd " + source + " && " + kGit + " init -q && " + kGit + " add -A && " + kGit +
            " commit -qm base && chmod -R o+rX " + source);
    task.commit = MustRun("cd " + source + " && " + kGit + " rev-parse HEAD");
    task.commit.pop_back();
    auto repo = repo::Repository::Open(source);
    REQUIRE(repo.ok());
    std::map<std::string, std::shared_ptr<repo::Repository>> repos;
    repos["demo"] = std::make_shared<repo::Repository>(std::move(repo).value());
    options.pool.pool_dir = tmp.Sub("pool");
    options.pool.capacity = capacity;
    factory = std::make_unique<RunWorkspaceFactory>(repos, &Resources(), options);
    task.task_id = "t1";
    task.repo = "demo";
  }
  bool Skipped() const {
    if (!check.ok()) WARN("bubblewrap unusable here, skipped: " << check.message());
    return !check.ok();
  }
  // Host directories of the rollouts' /tmp in the pool.
  std::string TmpDirs() { return MustRun("find " + options.pool.pool_dir + " -name 'copy-*.tmp'"); }
  // A rollout's workspace in slot 0.
  std::unique_ptr<Workspace> Lease() {
    auto env = factory->Acquire(task, 0);
    REQUIRE(env.ok());
    return std::move(env).value();
  }
  // The host directory of copy-0's bytecode layer (its pool made by a lease).
  std::string Copy0Layer() {
    std::string copy = MustRun("ls -d " + options.pool.pool_dir + "/*/*/copy-0");
    copy.pop_back();
    return copy + ".pyc";
  }
  // Every file of the bytecode cache with its checksum, one per line.
  std::string BytecodeFiles() {
    return MustRun("cd " + options.bytecode_cache_dir + " && find . -type f -o -type l | sort | xargs -r md5sum");
  }
};

TEST_CASE("run workspace: under bubblewrap the agent's git status and diff work on its disposable .git") {
  BwrapWorld w(1);
  if (w.Skipped()) return;
  for (int lease = 0; lease < 2; ++lease) {
    auto env = w.factory->Acquire(w.task, 0);
    REQUIRE(env.ok());
    agent::ToolOutcome out = (*env)->tools().Execute(
        Bash("echo more >> a.txt && git status --porcelain && git diff && git config core.worktree /tmp"));
    INFO(out.text);
    CHECK(out.text.find(" M a.txt") != std::string::npos);
    CHECK(out.text.find("+more") != std::string::npos);
    auto patch = (*env)->patch().CurrentPatch();
    REQUIRE(patch.ok());
    CHECK(patch->find("+more\n") != std::string::npos);
  }
}

llm::ToolCall Editor(const std::string& arguments_json) {
  llm::ToolCall call = Bash("");
  call.name = "editor";
  call.arguments_json = call.arguments_raw = arguments_json;
  return call;
}

TEST_CASE(
    "run workspace: under bubblewrap the patch is computed again after each command or editor call and only then") {
  BwrapWorld w(1);
  if (w.Skipped()) return;
  auto env = w.factory->Acquire(w.task, 0);
  REQUIRE(env.ok());
  PatchSource& patch = (*env)->patch();
  (*env)->tools().Execute(Bash("echo one >> a.txt"));
  CHECK(patch.CurrentPatch().value().find("+one\n") != std::string::npos);
  // A write by nothing the rollout runs (no tool call, no command) is not
  // looked for: the patch taken for a submission is the one the rollout ends with.
  MustRun("for f in " + w.options.pool.pool_dir + "/*/*/copy-0/a.txt; do echo outside >> \"$f\"; done");
  CHECK(patch.CurrentPatch().value().find("+outside") == std::string::npos);
  agent::ToolOutcome created =
      (*env)->tools().Execute(Editor(R"({"command":"create","path":"/repo/b.txt","file_text":"from the editor\n"})"));
  INFO(created.text);
  std::string after_editor = patch.CurrentPatch().value();
  CHECK(after_editor.find("+from the editor") != std::string::npos);
  CHECK(after_editor.find("+outside") != std::string::npos);
  (*env)->tools().Execute(Bash("echo three >> a.txt"));
  CHECK(patch.CurrentPatch().value().find("+three\n") != std::string::npos);
  (void)(*env)->ApplyPatch("");  // a command (this one fails: nothing to apply)
  MustRun("for f in " + w.options.pool.pool_dir + "/*/*/copy-0/a.txt; do echo four >> \"$f\"; done");
  CHECK(patch.CurrentPatch().value().find("+four\n") != std::string::npos);
}

TEST_CASE("run workspace: a rollout keeps one /tmp from command to command, its own, gone with the lease") {
  BwrapWorld w(2);
  if (w.Skipped()) return;
  {
    auto first = w.factory->Acquire(w.task, 0);
    auto second = w.factory->Acquire(w.task, 1);
    REQUIRE(first.ok());
    REQUIRE(second.ok());
    agent::ToolOutcome wrote = (*first)->tools().Execute(Bash("echo kept-for-later > /tmp/note && cd /tmp && pwd"));
    INFO(wrote.text);
    agent::ToolOutcome read = (*first)->tools().Execute(Bash("cat /tmp/note; cat ~/note 2>&1"));
    CHECK(read.text.find("kept-for-later\nkept-for-later") != std::string::npos);  // HOME is /tmp too
    agent::ToolOutcome other = (*second)->tools().Execute(Bash("ls -A /tmp; cat /tmp/note 2>&1 || echo absent"));
    CHECK(other.text.find("absent") != std::string::npos);
    CHECK((*first)->patch().CurrentPatch().value().empty());  // /tmp is not part of the patch
    CHECK(w.TmpDirs().find("copy-0.tmp") != std::string::npos);
  }
  CHECK(w.TmpDirs().empty());  // deleted when the leases were given back
  auto again = w.factory->Acquire(w.task, 0);
  REQUIRE(again.ok());
  agent::ToolOutcome fresh = (*again)->tools().Execute(Bash("cat /tmp/note 2>&1 || echo absent"));
  CHECK(fresh.text.find("absent") != std::string::npos);
}

// A `seragen run` started meanwhile on the node skips leased uids, so it never kills the test's commands.
TEST_CASE("run workspace: the test factory's rollouts run as uids leased on the node") {
  BwrapWorld w(2);
  if (w.Skipped()) return;
  CHECK(seragen::testing::UidLeased(21410));
  CHECK(seragen::testing::UidLeased(21411));
  auto second = w.factory->Acquire(w.task, 1);
  REQUIRE(second.ok());
  CHECK((*second)->tools().Execute(Bash("id -u")).text.find("21411") != std::string::npos);
}

// Two runs with different sandbox.uid_base on one node, one environment cache:
// each keeps the group its sandboxes need on its own subtree.
TEST_CASE("run workspace: runs of two uid bases sharing the environment cache keep their environments usable") {
  TempDir shared;
  ::chmod(shared.path().c_str(), 0755);
  env::EnvironmentSpec spec;
  spec.setup = {"echo prepared > /env/marker"};
  spec.cache_dir = shared.Sub("env");
  auto with_environment = [&](uid_t base) {
    return [&spec, base](WorkspaceOptions& o) {
      o.uid_base = base;
      o.environments["demo"] = spec;
    };
  };
  BwrapWorld first(1, 0, {{"a.txt", "alpha\n"}}, false, with_environment(21410));
  if (first.Skipped()) return;
  BwrapWorld second(1, 0, {{"a.txt", "alpha\n"}}, false, with_environment(21420));
  const std::string show = "cat /env/marker 2>&1";
  CHECK(first.Lease()->tools().Execute(Bash(show)).text.find("prepared") != std::string::npos);
  CHECK(second.Lease()->tools().Execute(Bash(show)).text.find("prepared") != std::string::npos);
  agent::ToolOutcome again = first.Lease()->tools().Execute(Bash(show));
  INFO(again.text);
  CHECK(again.text.find("prepared") != std::string::npos);
  if (::geteuid() != 0) return;
  struct stat st {};
  REQUIRE(::stat(spec.cache_dir.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0711);
  CHECK(st.st_gid == 0u);
  for (gid_t group : {21409u, 21419u}) {
    REQUIRE(::stat((spec.cache_dir + "/group-" + std::to_string(group)).c_str(), &st) == 0);
    CHECK(st.st_gid == group);
    CHECK((st.st_mode & 0777) == 0750);
  }
}

TEST_CASE("run workspace: the rollout's /tmp counts in the copy's disk bound") {
  BwrapWorld w(1, 4 << 20);
  if (w.Skipped()) return;
  auto env = w.factory->Acquire(w.task, 0);
  REQUIRE(env.ok());
  agent::ToolOutcome small = (*env)->tools().Execute(Bash("head -c 100000 /dev/urandom > /tmp/small"));
  CHECK_FALSE(small.disk_limit);
  agent::ToolOutcome big = (*env)->tools().Execute(Bash("head -c 6000000 /dev/urandom > /tmp/big"));
  INFO(big.text);
  CHECK(big.disk_limit);
}

// A package whose module names the version of it that runs, and a module
// named like one the bytecode compiler imports: were the repository on the
// compiler's path, it would write into the shared cache.
std::map<std::string, std::string> PythonRepo() {
  return {{"pkg/__init__.py", ""},
          {"pkg/mod.py", "VALUE = 'base'\n"},
          {"py_compile.py",
           "import os, sys\n"
           "os.makedirs('/tmp/.pycache/usr/lib', exist_ok=True)\n"
           "open('/tmp/.pycache/usr/lib/planted.cpython-311.pyc', 'w').write('planted')\n"
           "sys.path = [p for p in sys.path if p not in ('', os.getcwd())]\n"
           "del sys.modules['py_compile']\n"
           "import py_compile\n"}};
}

TEST_CASE("run workspace: a rollout loads its repository's and the library's bytecode from the shared cache") {
  BwrapWorld w(1, 0, PythonRepo(), true);
  if (w.Skipped()) return;
  std::unique_ptr<Workspace> env = w.Lease();
  // -v says "code object from '<pyc>'" for bytecode it loads and "code object from <source>" for what it compiles.
  agent::ToolOutcome out = env->tools().Execute(
      Bash("python3 -v -c 'import pkg.mod, json; print(pkg.mod.VALUE)' 2>&1 | grep -E '^# code object from|^base'"));
  INFO(out.text);
  CHECK(out.text.find("# code object from '/tmp/.pycache/repo/pkg/mod.cpython-") != std::string::npos);
  CHECK(out.text.find("# code object from '/tmp/.pycache/usr/lib/python3") != std::string::npos);
  CHECK(out.text.find("# code object from /") == std::string::npos);  // nothing compiled
  CHECK(out.text.find("base") != std::string::npos);
}

TEST_CASE("run workspace: an edited module runs its new code, never the shared bytecode of its base") {
  BwrapWorld w(1, 0, PythonRepo(), true);
  if (w.Skipped()) return;
  std::unique_ptr<Workspace> env = w.Lease();
  const std::string show = "python3 -c 'import pkg.mod; print(pkg.mod.VALUE)'";
  CHECK(env->tools().Execute(Bash(show)).text.find("base") != std::string::npos);
  // Same length, same mtime: only the content tells the edit apart.
  agent::ToolOutcome edited =
      env->tools().Execute(Bash("touch -r pkg/mod.py /tmp/t && sed -i s/base/next/ pkg/mod.py && "
                                "touch -r /tmp/t pkg/mod.py && " +
                                show + " && " + show));
  INFO(edited.text);
  CHECK(edited.text.find("next\nnext") != std::string::npos);
  CHECK(edited.text.find("base") == std::string::npos);
}

TEST_CASE("run workspace: neither the repository's files nor a rollout can write into the shared bytecode") {
  BwrapWorld w(1, 0, PythonRepo(), true);
  if (w.Skipped()) return;
  std::unique_ptr<Workspace> env = w.Lease();
  const std::string before = w.BytecodeFiles();
  INFO(before);
  CHECK(before.find("/repo/pkg/mod.cpython-") != std::string::npos);
  CHECK(before.find("planted") == std::string::npos);  // the compiler never imported the repository's py_compile
  agent::ToolOutcome out = env->tools().Execute(Bash(
      "touch /tmp/.pycache/new 2>&1; for f in $(find /tmp/.pycache/repo -name '*.pyc'); do echo x > $f; done 2>&1; "
      "cd /tmp/.pycache/repo/pkg && echo y > y.tmp && mv -f y.tmp $(ls mod.cpython-*.pyc) && cat mod.cpython-*.pyc; "
      "rm -rf /tmp/.pycache/usr 2>&1; cd /repo && sed -i s/base/next/ pkg/mod.py && "
      "python3 -c 'import pkg.mod, py_compile' 2>&1"));
  INFO(out.text);
  CHECK(out.text.find("Permission denied") != std::string::npos);  // a shared pyc is not opened for writing
  CHECK(out.text.find("y\n") != std::string::npos);  // replaced, as Python does, in the rollout's own layer only
  CHECK(w.BytecodeFiles() == before);
}

TEST_CASE("run workspace: no bytecode reaches the patch") {
  BwrapWorld w(1, 0, PythonRepo(), true);
  if (w.Skipped()) return;
  std::unique_ptr<Workspace> env = w.Lease();
  CHECK(env->patch().CurrentPatch().value().empty());  // the compile left the copy as it was
  env->tools().Execute(
      Bash("python3 -c 'import pkg.mod' && echo 'EXTRA = 1' >> pkg/mod.py && "
           "echo 'import pkg.mod' > pkg/new.py && python3 -c 'import pkg.new'"));
  auto patch = env->patch().CurrentPatch();
  REQUIRE(patch.ok());
  INFO(*patch);
  CHECK(patch->find("+EXTRA = 1") != std::string::npos);
  CHECK(patch->find("pkg/new.py") != std::string::npos);
  CHECK(patch->find("pyc") == std::string::npos);
  CHECK(patch->find("__pycache__") == std::string::npos);
}

// A package without the planted py_compile.py (`python3 -m py_compile` from
// /repo would run that one).
std::map<std::string, std::string> EditableRepo() {
  std::map<std::string, std::string> files = PythonRepo();
  files.erase("py_compile.py");
  return files;
}

// The lines of /proc/self/mountinfo that name a path under `dir`.
std::string MountsUnder(const std::string& dir) {
  return RunShellOut("grep -F ' " + dir + "/' /proc/self/mountinfo || true");
}

TEST_CASE(
    "run workspace: python -m py_compile of an edited file works over the shared bytecode, into the rollout's layer") {
  BwrapWorld w(1, 0, EditableRepo(), true);
  if (w.Skipped()) return;
  std::unique_ptr<Workspace> env = w.Lease();
  const std::string before = w.BytecodeFiles();
  agent::ToolOutcome out = env->tools().Execute(
      Bash("sed -i s/base/next/ pkg/mod.py && python3 -m py_compile pkg/mod.py 2>&1 && echo compiled && "
           "python3 -c 'import pkg.mod; print(pkg.mod.VALUE)'"));
  INFO(out.text);
  CHECK(out.text.find("compiled\nnext\n") != std::string::npos);
  CHECK(w.BytecodeFiles() == before);
  CHECK_FALSE(MustRun("find " + w.Copy0Layer() + "/upper/repo/pkg -name 'mod.cpython-*.pyc'").empty());
  auto patch = env->patch().CurrentPatch();
  REQUIRE(patch.ok());
  CHECK(patch->find("pyc") == std::string::npos);
}

TEST_CASE("run workspace: a rollout never sees what an earlier rollout on its copy wrote into its bytecode layer") {
  BwrapWorld w(1, 0, EditableRepo(), true);
  if (w.Skipped()) return;
  // The first rollout writes a file and an edited module's pyc into its
  // layer; the second, on the same copy, finds neither.
  const std::string commands[] = {
      "echo mine > /tmp/.pycache/repo/pkg/marker && echo \"VALUE = 'other'\" > /tmp/x.py && "
      "cp /tmp/x.py pkg/mod.py && python3 -m py_compile pkg/mod.py && cat /tmp/.pycache/repo/pkg/marker",
      "cat /tmp/.pycache/repo/pkg/marker 2>&1 || echo absent; "
      "python3 -v -c 'import pkg.mod; print(pkg.mod.VALUE)' 2>&1 | grep -E '^# code object from .*mod|^base'"};
  std::string seen[2];
  for (int rollout = 0; rollout < 2; ++rollout) {
    seen[rollout] = w.Lease()->tools().Execute(Bash(commands[rollout])).text;
    if (rollout == 0) CHECK(MustRun("find " + w.options.pool.pool_dir + " -name 'copy-*.pyc'").empty());  // wiped
  }
  INFO(seen[0] << "\n----\n" << seen[1]);
  CHECK(seen[0].find("mine") != std::string::npos);
  CHECK(seen[1].find("absent") != std::string::npos);
  CHECK(seen[1].find("# code object from '/tmp/.pycache/repo/pkg/mod.cpython-") != std::string::npos);
  CHECK(seen[1].find("base") != std::string::npos);
}

TEST_CASE("run workspace: a bytecode layer a killed process left mounted is taken off by the next lease of its copy") {
  BwrapWorld w(1, 0, EditableRepo(), true);
  if (w.Skipped()) return;
  w.Lease().reset();  // the copy and the cache exist
  const std::string stale = w.Copy0Layer();
  MustRun("mkdir -p " + stale + "/lower " + stale + "/upper/repo " + stale + "/work " + stale +
          "/merged && echo old > " + stale + "/upper/repo/marker && mount -t overlay overlay -o lowerdir=" + stale +
          "/lower,upperdir=" + stale + "/upper,workdir=" + stale + "/work " + stale + "/merged");
  REQUIRE_FALSE(MountsUnder(stale).empty());
  {
    std::unique_ptr<Workspace> env = w.Lease();
    agent::ToolOutcome out = env->tools().Execute(Bash("cat /tmp/.pycache/repo/marker 2>&1 || echo absent"));
    INFO(out.text);
    CHECK(out.text.find("absent") != std::string::npos);
    CHECK(RunShellOut("grep -c ' " + stale + "/merged ' /proc/self/mountinfo") == "1\n");  // its own layer only
  }
  CHECK(MountsUnder(w.tmp.path()).empty());
}

TEST_CASE("run workspace: no mount is left once the rollouts and an env check are done") {
  BwrapWorld w(3, 0, EditableRepo(), true);
  if (w.Skipped()) return;
  {
    auto first = w.factory->Acquire(w.task, 0);
    auto second = w.factory->Acquire(w.task, 1);
    REQUIRE(first.ok());
    REQUIRE(second.ok());
    CHECK_FALSE(MountsUnder(w.options.pool.pool_dir).empty());  // each rollout has its layer
    auto check = w.factory->RunCheck(w.task, 0, "python3 -m py_compile pkg/mod.py && echo ok");
    REQUIRE(check.ok());
    CHECK(check->result.output.find("ok") != std::string::npos);
  }
  CHECK(MountsUnder(w.tmp.path()).empty());
  CHECK(MustRun("find " + w.options.pool.pool_dir + " -name 'copy-*.pyc'").empty());
}

TEST_CASE("run workspace: where no bytecode layer can be mounted a rollout runs with its own empty /tmp/.pycache") {
  // overlayfs options cannot carry the ',' of the cache's path
  BwrapWorld w(1, 0, EditableRepo(), true, [](WorkspaceOptions& o) { o.bytecode_cache_dir += ",comma"; });
  if (w.Skipped()) return;
  std::unique_ptr<Workspace> env = w.Lease();
  agent::ToolOutcome out =
      env->tools().Execute(Bash("ls -A /tmp/.pycache 2>/dev/null | wc -l; sed -i s/base/next/ pkg/mod.py && python3 -m "
                                "py_compile pkg/mod.py 2>&1 && "
                                "python3 -c 'import pkg.mod; print(pkg.mod.VALUE)'"));
  INFO(out.text);
  CHECK(out.text.rfind("0\n", 0) == 0);
  CHECK(out.text.find("next") != std::string::npos);
  CHECK(MountsUnder(w.tmp.path()).empty());
}

}  // namespace
}  // namespace seragen::pipeline
