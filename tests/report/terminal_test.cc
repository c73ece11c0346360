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

}  // namespace
}  // namespace seragen::report
