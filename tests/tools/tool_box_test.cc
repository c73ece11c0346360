#include "seragen/tools/tool_box.h"

#include <catch2/catch.hpp>

#include <sys/stat.h>

#include "seragen/sandbox/bwrap_runner.h"
#include "seragen/sandbox/self_check.h"
#include "testing/fake_command_runner.h"
#include "testing/sandbox_uids.h"
#include "testing/temp_dir.h"
#include "tools/tools_test_util.h"

namespace seragen::tools {
namespace {

using test::Expected;

struct BoxFixture {
  BoxFixture() : box(&test::Resources(), &fake, dir.path(), &patches, ToolOptions{}) {}
  ValidationError Error(std::string_view tool, std::string_view args) {
    auto r = box.Call(tool, args);
    REQUIRE(r.ok());
    REQUIRE(r->validation_error);
    return *r->validation_error;
  }
  ToolOutcome Outcome(std::string_view tool, std::string_view args) {
    auto r = box.Call(tool, args);
    REQUIRE(r.ok());
    if (r->validation_error) FAIL(r->validation_error->message);
    return r->outcome;
  }
  testing::TempDir dir;
  sandbox::FakeCommandRunner fake;
  test::FakePatchSource patches;
  ToolBox box;
};

TEST_CASE("malformed calls give typed validation errors with ready messages", "[tools][toolbox]") {
  BoxFixture f;
  auto unknown = f.Error("python", R"({"code": "1"})");
  CHECK(unknown.kind == ValidationErrorKind::kUnknownTool);
  CHECK(unknown.message == Expected("error_unknown_tool", {{"tool", "python"}, {"tools", "bash, editor, submit"}}));

  auto bad_json = f.Error("bash", R"({"command": "ls)");
  CHECK(bad_json.kind == ValidationErrorKind::kInvalidJson);
  CHECK(bad_json.message.find("not valid JSON") != std::string::npos);

  auto not_object = f.Error("bash", R"(["ls"])");
  CHECK(not_object.kind == ValidationErrorKind::kNotAnObject);
  CHECK(not_object.message == Expected("error_not_object", {{"tool", "bash"}}));
  CHECK(bad_json.message == Expected("error_invalid_json", {{"tool", "bash"}, {"detail", "parse error at byte 16"}}));

  auto bad_range = f.Error("editor", R"({"command": "view", "path": "a", "view_range": "1-5"})");
  CHECK(bad_range.message ==
        Expected("error_wrong_type",
                 {{"tool", "editor"}, {"argument", "view_range"}, {"expected", Expected("type_integer_array", {})}}));

  auto missing = f.Error("bash", "{}");
  CHECK(missing.kind == ValidationErrorKind::kMissingArgument);
  CHECK(missing.argument == "command");
  CHECK(missing.message == Expected("error_missing_argument", {{"tool", "bash"}, {"argument", "command"}}));

  auto extra = f.Error("bash", R"({"command": "ls", "timeout": 5})");
  CHECK(extra.kind == ValidationErrorKind::kUnexpectedArgument);
  CHECK(extra.message ==
        Expected("error_unexpected_argument", {{"tool", "bash"}, {"argument", "timeout"}, {"allowed", "command"}}));

  auto wrong = f.Error("bash", R"({"command": ["ls"]})");
  CHECK(wrong.kind == ValidationErrorKind::kWrongType);
  CHECK(wrong.message ==
        Expected("error_wrong_type",
                 {{"tool", "bash"}, {"argument", "command"}, {"expected", Expected("type_string", {})}}));

  auto bad_enum = f.Error("editor", R"({"command": "delete", "path": "/repo/a"})");
  CHECK(bad_enum.kind == ValidationErrorKind::kInvalidValue);
  CHECK(bad_enum.message ==
        Expected("error_invalid_value", {{"tool", "editor"},
                                         {"argument", "command"},
                                         {"allowed", "view, create, str_replace, insert, undo_edit"}}));

  auto bad_line = f.Error("editor", R"({"command": "insert", "path": "a", "insert_line": "two", "new_str": "x"})");
  CHECK(bad_line.kind == ValidationErrorKind::kWrongType);
  CHECK(bad_line.argument == "insert_line");
  CHECK(bad_line.message ==
        Expected("error_wrong_type",
                 {{"tool", "editor"}, {"argument", "insert_line"}, {"expected", Expected("type_integer", {})}}));

  auto missing_path = f.Error("editor", R"({"command": "view"})");
  CHECK(missing_path.argument == "path");
  CHECK(f.fake.requests().empty());
}

// Issue 12, finding 2: arguments nested far past any schema are refused
// before they are parsed into a value (which is copied and dumped recursively).
TEST_CASE("deeply nested arguments and overflowing numbers are invalid JSON", "[tools][toolbox]") {
  BoxFixture f;
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  auto e = f.Error("bash", "{\"command\":" + deep + "}");
  CHECK(e.kind == ValidationErrorKind::kInvalidJson);
  CHECK(e.message ==
        Expected("error_invalid_json",
                 {{"tool", "bash"}, {"detail", "the arguments JSON nests deeper than 64 levels (at byte 74)"}}));
  // Found by the tool_validation fuzz target: a number that overflows a double
  // threw nlohmann's out_of_range past the parse_error handler (terminate).
  auto huge = f.Error("bash", R"({"command": 1e999})");
  CHECK(huge.kind == ValidationErrorKind::kInvalidJson);
  CHECK(huge.message == Expected("error_invalid_json", {{"tool", "bash"}, {"detail", "a number is out of range"}}));
  auto list = f.Error("editor", "{\"command\": \"view\", \"path\": \"a\", \"view_range\": \"" + deep + "\"}");
  CHECK(list.kind == ValidationErrorKind::kWrongType);
}

TEST_CASE("huge tool names and argument keys are echoed bounded", "[tools][toolbox]") {
  BoxFixture f;
  const std::string huge(1 << 20, 'n');
  auto unknown = f.Error(huge, "{}");
  CHECK(unknown.kind == ValidationErrorKind::kUnknownTool);
  CHECK(unknown.message.size() < 2048);
  CHECK(unknown.tool.size() <= 131);
  CHECK(unknown.message.find(std::string(128, 'n') + "...") != std::string::npos);
  auto extra = f.Error("bash", R"({"command": "ls", ")" + huge + R"(": 1})");
  CHECK(extra.kind == ValidationErrorKind::kUnexpectedArgument);
  CHECK(extra.message.size() < 2048);
  CHECK(extra.argument.size() <= 131);
}

TEST_CASE("numeric strings, stringified lists and nulls are accepted", "[tools][toolbox]") {
  BoxFixture f;
  f.dir.Write("a.txt", "1\n2\n3\n");
  auto v = f.box.Validate("editor", R"({"command": "insert", "path": "a.txt", "insert_line": " 2 ", "new_str": "x",
                                       "file_text": null, "view_range": "[1, 2]"})");
  REQUIRE(v.call);
  CHECK(v.call->Integer("insert_line") == 2);
  CHECK(v.call->IntegerList("view_range") == std::vector<long long>{1, 2});
  CHECK_FALSE(v.call->String("file_text"));
  auto view = f.Outcome("editor", R"({"command": "view", "path": "/repo/a.txt", "view_range": ["2", 3.0]})");
  CHECK(view.observation.find("lines 2 to 3 of 3") != std::string::npos);
  // No arguments at all is fine for a tool without parameters.
  f.patches.patch = "diff";
  CHECK(f.Outcome("submit", "").role == ToolRole::kSubmit);
  CHECK(f.Outcome("submit", "{}").submitted);
}

TEST_CASE("the bash tool goes through the runner and infrastructure errors propagate", "[tools][toolbox]") {
  BoxFixture f;
  f.fake.EnqueueOutput("a.txt\n");
  f.fake.Enqueue(UnavailableError("sandbox down"));
  auto out = f.Outcome("bash", R"({"command": "ls"})");
  CHECK(out.role == ToolRole::kBash);
  CHECK(out.observation == "a.txt\n");
  CHECK(f.fake.requests()[0].command == "ls");
  auto failed = f.box.Call("bash", R"({"command": "ls"})");
  CHECK(failed.status().code() == StatusCode::kUnavailable);
}

TEST_CASE("a copy over its disk limit after a command or an edit ends the rollout", "[tools][toolbox]") {
  testing::TempDir dir;
  sandbox::FakeCommandRunner fake;
  test::FakePatchSource patches;
  sandbox::FakeCopyMeter meter;
  ToolOptions options;
  options.max_copy_bytes = 10ull << 20;
  options.max_copy_entries = 500;
  ToolBox box(&test::Resources(), &fake, dir.path(), &patches, options, &meter);
  const std::string note = Expected("copy_too_large", {{"limit_mb", "10"}, {"max_entries", "500"}});

  fake.EnqueueOutput("ok\n");
  meter.SetBytes(1 << 20);
  auto small = box.Call("bash", R"({"command": "echo ok"})");
  REQUIRE(small.ok());
  CHECK_FALSE(small->outcome.disk_limit);
  CHECK(small->outcome.observation == "ok\n");

  fake.EnqueueOutput("written\n");
  meter.SetBytes(11ull << 20);
  auto big = box.Call("bash", R"({"command": "dd if=/dev/zero of=big bs=1M count=11"})");
  REQUIRE(big.ok());
  CHECK(big->outcome.disk_limit);
  CHECK(big->outcome.observation == "written\n" + note);

  auto edit = box.Call("editor", R"({"command": "create", "path": "/repo/n.txt", "file_text": "x\n"})");
  REQUIRE(edit.ok());
  CHECK(edit->outcome.disk_limit);
  CHECK(edit->outcome.observation.find(note) != std::string::npos);

  // Views change nothing and are not measured.
  const int calls = meter.calls();
  auto view = box.Call("editor", R"({"command": "view", "path": "/repo/n.txt"})");
  REQUIRE(view.ok());
  CHECK_FALSE(view->outcome.disk_limit);
  CHECK(meter.calls() == calls);
}

TEST_CASE("without max_copy_bytes the copy is never measured", "[tools][toolbox]") {
  testing::TempDir dir;
  sandbox::FakeCommandRunner fake;
  test::FakePatchSource patches;
  sandbox::FakeCopyMeter meter;
  meter.SetBytes(1ull << 40);
  ToolBox box(&test::Resources(), &fake, dir.path(), &patches, ToolOptions{}, &meter);
  auto r = box.Call("bash", R"({"command": "ls"})");
  REQUIRE(r.ok());
  CHECK_FALSE(r->outcome.disk_limit);
  CHECK(meter.calls() == 0);
}

// git diff of a real test repository, as the repo module will provide.
class GitDiffPatchSource final : public PatchSource {
 public:
  explicit GitDiffPatchSource(std::string repo) : repo_(std::move(repo)) {}
  Result<std::string> CurrentPatch() override {
    std::string out;
    // The copy belongs to the sandbox uid; the harness (root) reads it anyway.
    const std::string git = "git -c safe.directory='*' ";
    int rc = testing::RunShell("cd " + repo_ + " && " + git + "add -A >/dev/null && " + git +
                                   "diff --cached --no-color && " + git + "reset -q",
                               &out);
    if (rc != 0) return IoError("git diff failed: " + out);
    return out;
  }

 private:
  std::string repo_;
};

TEST_CASE("a scripted rollout through the real sandbox: view, grep, edit, submit", "[tools][toolbox][sandbox]") {
  testing::TempDir dir;
  ::chmod(dir.path().c_str(), 0755);
  const std::string repo = dir.Sub("repo");
  dir.Write("repo/pkg/mod.py", "def area(w, h):\n\treturn w * h\r\n");
  REQUIRE(testing::RunShell("cd " + repo +
                            " && git init -q && git add -A && git -c user.name=t -c "
                            "user.email=t@t commit -qm base") == 0);
  const testing::LeasedUids leased(21301);
  sandbox::SandboxOptions options;
  options.uid = options.gid = leased.uid();
  REQUIRE(sandbox::PrepareWorkingCopy(repo, options.uid, options.gid).ok());
  auto runner = sandbox::BwrapRunner::Create(options, repo);
  REQUIRE(runner.ok());
  GitDiffPatchSource patches(repo);
  ToolBox box(&test::Resources(), runner->get(), repo, &patches, ToolOptions{});
  auto call = [&](std::string_view tool, std::string_view args) {
    auto r = box.Call(tool, args);
    REQUIRE(r.ok());
    REQUIRE_FALSE(r->validation_error);
    return r->outcome;
  };

  auto listing = call("editor", R"({"command": "view", "path": "/repo"})");
  CHECK(listing.observation.find("/repo/pkg/mod.py") != std::string::npos);
  CHECK(listing.observation.find(".git") == std::string::npos);
  auto grep = call("bash", R"({"command": "grep -rn area /repo --include=*.py"})");
  CHECK(grep.observation == "/repo/pkg/mod.py:1:def area(w, h):\n");
  auto view = call("editor", R"({"command": "view", "path": "/repo/pkg/mod.py"})");
  CHECK(view.observation.find("     2\t\treturn w * h") != std::string::npos);
  // The model copies the text it saw (tab kept, no \r) into str_replace.
  auto edit = call("editor", R"({"command": "str_replace", "path": "/repo/pkg/mod.py",
                               "old_str": "\treturn w * h", "new_str": "\tif w < 0 or h < 0:\n\t\traise ValueError(\"negative\")\n\treturn w * h"})");
  CHECK(edit.observation.find("was changed") != std::string::npos);
  auto cd = call("bash", R"({"command": "cd pkg && python3 -c 'import mod; print(mod.area(2, 3))'"})");
  CHECK(cd.observation == "6\n");
  auto pwd = call("bash", R"({"command": "pwd"})");
  CHECK(pwd.observation == "/repo/pkg\n");
  auto review = call("submit", "{}");
  CHECK_FALSE(review.submitted);
  CHECK(review.observation.find("+\tif w < 0 or h < 0:\r") != std::string::npos);
  auto done = call("submit", "{}");
  CHECK(done.submitted);
  CHECK(done.patch.find("raise ValueError") != std::string::npos);
  CHECK(dir.Read("repo/pkg/mod.py") ==
        "def area(w, h):\n\tif w < 0 or h < 0:\r\n\t\traise ValueError(\"negative\")\r\n\treturn w * h\r\n");
}

}  // namespace
}  // namespace seragen::tools

namespace seragen::tools {
namespace {

TEST_CASE("boolean parameters accept true/false and name their type otherwise", "[tools][toolbox]") {
  auto specs = ParseToolSpecs(R"(
tools:
  - {role: bash, name: sh, description: run, parameters: {type: object, properties: {command: {type: string}, quiet: {type: boolean}}, required: [command]}}
  - {role: editor, name: ed, description: edit}
  - {role: submit, name: done, description: finish}
)",
                              "custom.yaml");
  REQUIRE(specs.ok());
  ToolResources resources{*specs, test::Messages()};
  testing::TempDir dir;
  sandbox::FakeCommandRunner fake;
  test::FakePatchSource patches;
  ToolBox box(&resources, &fake, dir.path(), &patches, ToolOptions{});
  auto ok = box.Validate("sh", R"({"command": "ls", "quiet": "true"})");
  REQUIRE(ok.call);
  auto bad = box.Validate("sh", R"({"command": "ls", "quiet": 3})");
  REQUIRE(bad.error);
  CHECK(bad.error->message ==
        Expected("error_wrong_type",
                 {{"tool", "sh"}, {"argument", "quiet"}, {"expected", Expected("type_boolean", {})}}));
  auto unknown = box.Validate("bash", R"({"command": "ls"})");
  REQUIRE(unknown.error);
  CHECK(unknown.error->message == Expected("error_unknown_tool", {{"tool", "bash"}, {"tools", "sh, ed, done"}}));
}

}  // namespace
}  // namespace seragen::tools
