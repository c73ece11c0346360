#include "seragen/report/terminal.h"

#include <catch2/catch.hpp>

#include "report/synthetic_run.h"
#include "testing/temp_dir.h"

namespace seragen::report {
namespace {

TEST_CASE("TerminalSafe shows control characters as escapes and clips", "[report]") {
  CHECK(TerminalSafe("a\x1b[31mb\tc\nd\x7f", 100) == "a\\x1b[31mb\tc\nd\\x7f");
  CHECK(TerminalSafe("abcdef", 3) == "abc… [3 more bytes]");
  CHECK(TerminalSafe("caf\xe9", 100) == "caf\xef\xbf\xbd");
}

TEST_CASE("TerminalSafe escapes C1 controls, DEL and bidirectional controls visibly", "[report]") {
  // C1 controls as UTF-8: CSI, OSC, ST, and the ends of the range.
  CHECK(TerminalSafe("a\xc2\x9b"
                     "31mb",
                     100) == "a\\u{009b}31mb");
  CHECK(TerminalSafe("\xc2\x9d"
                     "0;title\xc2\x9c",
                     100) == "\\u{009d}0;title\\u{009c}");
  CHECK(TerminalSafe("\xc2\x80|\xc2\x9f|\xc2\xa0|\x7f", 100) == "\\u{0080}|\\u{009f}|\xc2\xa0|\\x7f");
  // Bidirectional controls: embeddings, overrides, isolates, marks.
  for (const char* bidi :
       {"\xe2\x80\xaa", "\xe2\x80\xae", "\xe2\x81\xa6", "\xe2\x81\xa9", "\xe2\x80\x8e", "\xe2\x80\x8f", "\xd8\x9c"}) {
    std::string shown = TerminalSafe(std::string("x") + bidi + "y", 100);
    INFO(shown);
    CHECK(shown.find(bidi) == std::string::npos);
    CHECK_THAT(shown, Catch::StartsWith("x\\u{") && Catch::EndsWith("}y"));
  }
  CHECK(TerminalSafe("\xe2\x80\xae", 100) == "\\u{202e}");
  // Other text is kept, whatever its script.
  CHECK(TerminalSafe("caf\xc3\xa9 \xe2\x86\x92 \xe6\x97\xa5", 100) == "caf\xc3\xa9 \xe2\x86\x92 \xe6\x97\xa5");
}

TEST_CASE("TerminalSafe escapes newlines and tabs in one-line fields only", "[report]") {
  CHECK(TerminalSafe("a\nb\tc\rd", 100) == "a\nb\tc\\x0dd");
  CHECK(TerminalSafe("a\nb\tc\rd", 100, TerminalField::kLine) == "a\\x0ab\\x09c\\x0dd");
}

TEST_CASE("TerminalSafe keeps JSON valid for show --raw", "[report]") {
  std::string json =
      "{\"observation\": \"\xc2\x9b"
      "2J\xe2\x80\xae"
      "evil\"}\n";
  std::string shown = TerminalSafe(json, json.size(), TerminalField::kJson);
  CHECK(shown == "{\"observation\": \"\\u009b2J\\u202eevil\"}\n");
  auto parsed = nlohmann::json::parse(shown);
  CHECK(parsed["observation"] ==
        "\xc2\x9b"
        "2J\xe2\x80\xae"
        "evil");
}

struct Loaded {
  seragen::testing::TempDir dir;
  RunView view;
  Loaded() {
    testing::SyntheticRunOptions o;
    o.tasks = 3;
    REQUIRE(testing::MakeSyntheticRun(dir.Sub("run"), o).ok());
    auto v = LoadRunView(dir.Sub("run"));
    REQUIRE(v.ok());
    view = std::move(*v);
  }
};

TEST_CASE("FormatShow without color is plain text with every step of the rollout", "[report]") {
  Loaded l;
  const TaskRow& row = l.view.rows[0];
  TaskDetail d = LoadTaskDetail(l.view, row, nullptr);
  std::string text = FormatShow(row, d, {});
  CHECK(text.find('\x1b') == std::string::npos);
  CHECK(text.find("task " + row.task_id) != std::string::npos);
  CHECK(text.find("rollout 1: submitted · 3 steps") != std::string::npos);
  CHECK(text.find("tool call submit") != std::string::npos);
  CHECK(text.find("<script>console.error('injected')</script>") != std::string::npos);
  CHECK(text.find("\\x1b[31m") != std::string::npos);
  CHECK(text.find("+    return 2") != std::string::npos);
  CHECK(text.find("synthetic issue") == std::string::npos);  // rollout 1 has none

  ShowOptions two;
  two.rollout = 2;
  std::string text2 = FormatShow(row, d, two);
  CHECK(text2.find("synthetic issue") != std::string::npos);
  CHECK(text2.find("rollout 2: submitted") != std::string::npos);
}

TEST_CASE("FormatShow with color uses escapes only of its own", "[report]") {
  Loaded l;
  const TaskRow& row = l.view.rows[0];
  TaskDetail d = LoadTaskDetail(l.view, row, nullptr);
  ShowOptions color;
  color.color = true;
  std::string text = FormatShow(row, d, color);
  CHECK(text.find("\x1b[32m+    return 2\x1b[0m") != std::string::npos);
  CHECK(text.find("\x1b[31m\"&") == std::string::npos);  // the run's own ESC stays escaped
}

TEST_CASE("FormatShow prints hostile one-line fields on one line and no control of the run", "[report]") {
  Loaded l;
  TaskRow row = l.view.rows[0];
  const std::string hostile =
      "x\n\xc2\x9b"
      "31m\xe2\x80\xae\x1b]0;t\x07";
  row.function_id = row.file = row.repo = row.category_name = row.detail = row.error_message = hostile;
  TaskDetail d = LoadTaskDetail(l.view, row, nullptr);
  REQUIRE(d.r1);
  d.r1->model = d.r1->exit_detail = hostile;
  for (auto& turn : d.r1->turns) {
    for (auto& call : turn.response.tool_calls) call.name = hostile;
    turn.response.content =
        "\xc2\x9b"
        "2J";
  }
  std::string text = FormatShow(row, d, {});
  for (const char* raw : {"\xc2\x9b", "\xe2\x80\xae", "\x1b", "\x07"}) {
    INFO(raw);
    CHECK(text.find(raw) == std::string::npos);
  }
  const std::string shown = "x\\x0a\\u{009b}31m\\u{202e}\\x1b]0;t\\x07";
  CHECK(text.find("function   " + shown + " (") != std::string::npos);
  CHECK(text.find("error      " + shown + "\n") != std::string::npos);
  CHECK(text.find("tool call " + shown + "\n") != std::string::npos);
  CHECK(text.find("model " + shown + "\n") != std::string::npos);
}

}  // namespace
}  // namespace seragen::report
