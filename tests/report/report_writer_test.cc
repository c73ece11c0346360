#include "seragen/report/report_writer.h"

#include <sys/stat.h>
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>

#include "report/synthetic_run.h"
#include "seragen/base/file_util.h"
#include "seragen/journal/record.h"
#include "seragen/journal/run_paths.h"
#include "seragen/report/run_view.h"
#include "testing/temp_dir.h"

namespace seragen::report {
namespace {

std::string Read(const std::string& path) {
  auto text = ReadFile(path);
  REQUIRE(text.ok());
  return *text;
}

TEST_CASE("WriteReport writes the index, one page per task and the table's data chunks", "[report]") {
  seragen::testing::TempDir dir;
  testing::SyntheticRunOptions o;
  o.tasks = 25;
  REQUIRE(testing::MakeSyntheticRun(dir.Sub("run"), o).ok());
  ReportOptions ro;
  ro.run_dir = dir.Sub("run");
  ro.index.rows_per_chunk = 10;
  ro.index.first_page_rows = 8;
  auto r = WriteReport(ro);
  REQUIRE(r.ok());
  CHECK(r->out_dir == dir.Sub("run/report"));
  CHECK(r->tasks == 25);
  CHECK(r->pages_written == 25);
  CHECK(r->chunks == 3);
  auto view = LoadRunView(dir.Sub("run"));
  REQUIRE(view.ok());
  std::string all_chunks;
  for (std::size_t k = 0; k < 3; ++k) all_chunks += Read(r->out_dir + "/data/rows-" + std::to_string(k) + ".js");
  for (const TaskRow& row : view->rows) {
    INFO(row.task_id);
    CHECK(std::filesystem::exists(r->out_dir + "/tasks/" + row.page));
    CHECK(all_chunks.find("\"" + row.page + "\"") != std::string::npos);
  }
  std::string index = Read(r->index_path);
  // The first page of rows is plain HTML: 8 task links.
  std::regex link("href=\"tasks/[^\"]+\\.html\"");
  CHECK(std::distance(std::sregex_iterator(index.begin(), index.end(), link), std::sregex_iterator()) == 8);
  CHECK(index.find("id=\"funnel\"") != std::string::npos);
  CHECK(index.find("<svg") != std::string::npos);
  CHECK(index.find("\"chunks\":3") != std::string::npos);
  // Without JavaScript: plain pages of the same rows, chained by previous/next links.
  std::string middle = Read(r->out_dir + "/data/rows-1.html");
  std::regex up_link("href=\"\\.\\./tasks/[^\"]+\\.html\"");
  CHECK(std::distance(std::sregex_iterator(middle.begin(), middle.end(), up_link), std::sregex_iterator()) == 10);
  CHECK(middle.find("href=\"rows-0.html\"") != std::string::npos);
  CHECK(middle.find("href=\"rows-2.html\"") != std::string::npos);
  CHECK(middle.find("tasks 11–20 of 25") != std::string::npos);
  CHECK(Read(r->out_dir + "/data/rows-2.html").find("rows-3.html") == std::string::npos);
  CHECK(index.find("href=\"data/rows-0.html\"") != std::string::npos);
  // Only the page's own script: the run's text never becomes markup.
  CHECK(index.find("injected") == std::string::npos);
  // The overview names the teacher model; no scripted-teacher warning for a model.
  CHECK(index.find("<td>teacher model</td><td><code>synthetic</code> (") != std::string::npos);
  CHECK(index.find("id=\"scripted-teacher\"") == std::string::npos);
}

TEST_CASE("the overview warns when the scripted teacher wrote the trajectories", "[report]") {
  seragen::testing::TempDir dir;
  testing::SyntheticRunOptions o;
  o.tasks = 4;
  o.model = "seragen-scripted-teacher (not a model)";
  REQUIRE(testing::MakeSyntheticRun(dir.Sub("run"), o).ok());
  ReportOptions ro;
  ro.run_dir = dir.Sub("run");
  auto r = WriteReport(ro);
  REQUIRE(r.ok());
  std::string index = Read(r->index_path);
  CHECK(index.find("<code>seragen-scripted-teacher (not a model)</code>") != std::string::npos);
  CHECK(index.find("id=\"scripted-teacher\"") != std::string::npos);
  CHECK(index.find("not training data") != std::string::npos);
}

// A synthetic run of `tasks` tasks in DIR/run, reported once into DIR/out.
ReportOptions ReportedRun(const seragen::testing::TempDir& dir, std::size_t tasks) {
  testing::SyntheticRunOptions o;
  o.tasks = tasks;
  REQUIRE(testing::MakeSyntheticRun(dir.Sub("run"), o).ok());
  ReportOptions ro;
  ro.run_dir = dir.Sub("run");
  ro.out_dir = dir.Sub("out");
  REQUIRE(WriteReport(ro).ok());
  return ro;
}

TEST_CASE("a second report keeps the pages of unchanged tasks and rewrites changed ones", "[report]") {
  seragen::testing::TempDir dir;
  ReportOptions ro = ReportedRun(dir, 10);
  auto again = WriteReport(ro);
  REQUIRE(again.ok());
  CHECK(again->pages_kept == 10);
  CHECK(again->pages_written == 0);

  // The running task (index 8) fails: its page (and only its page) is new.
  auto view = LoadRunView(dir.Sub("run"));
  REQUIRE(view.ok());
  journal::JournalRecord fail{view->rows[8].task_id, journal::Stage::kFailed, "", 1};
  fail.at = "2026-11-20T11:00:00.000Z";
  fail.error = journal::ErrorInfo{journal::ParseErrorClass("infra.sandbox"), "gone", false};
  std::ofstream(journal::JournalPath(journal::ShardDir(dir.Sub("run"), 0)), std::ios::app)
      << *journal::EncodeRecord(fail) << "\n";
  auto third = WriteReport(ro);
  REQUIRE(third.ok());
  CHECK(third->pages_written == 1);
  CHECK(third->pages_kept == 9);
  CHECK(Read(dir.Sub("out/tasks/" + view->rows[8].page)).find("infra.sandbox") != std::string::npos);
  // The kept pages still give the table their rollout figures.
  // Task 0: its detail (why it was accepted), then 3 and 4 steps.
  CHECK(Read(dir.Sub("out/data/rows-0.js")).find("\"recall 1.00 >= 0.75\",3,4,") != std::string::npos);
  CHECK(Read(dir.Sub("out/data/rows-0.js")).find("infra.sandbox") != std::string::npos);
}

// The inode of a file: a file written again (temp file + rename) gets a new one.
std::uintmax_t Inode(const std::string& path) {
  struct stat st {};
  REQUIRE(::stat(path.c_str(), &st) == 0);
  return st.st_ino;
}

TEST_CASE("a second report of an unchanged run leaves the table's data files and the page state as they were",
          "[report]") {
  seragen::testing::TempDir dir;
  ReportOptions ro = ReportedRun(dir, 10);
  const std::uintmax_t js = Inode(dir.Sub("out/data/rows-0.js")), html = Inode(dir.Sub("out/data/rows-0.html"));
  const std::uintmax_t state = Inode(dir.Sub("out/data/pages.jsonl"));
  const std::string js_bytes = Read(dir.Sub("out/data/rows-0.js"));
  const std::string state_bytes = Read(dir.Sub("out/data/pages.jsonl"));
  REQUIRE(WriteReport(ro).ok());
  CHECK(Inode(dir.Sub("out/data/rows-0.js")) == js);
  CHECK(Inode(dir.Sub("out/data/rows-0.html")) == html);
  CHECK(Inode(dir.Sub("out/data/pages.jsonl")) == state);
  // A state file missing its last line is written whole again.
  std::ofstream(dir.Sub("out/data/pages.jsonl"), std::ios::trunc)
      << state_bytes.substr(0, state_bytes.rfind('\n', state_bytes.size() - 2) + 1);
  REQUIRE(WriteReport(ro).ok());
  CHECK(Read(dir.Sub("out/data/pages.jsonl")) == state_bytes);
  // A chunk file that differs from what the report makes is made again.
  std::ofstream(dir.Sub("out/data/rows-0.js"), std::ios::app) << "tampered";
  REQUIRE(WriteReport(ro).ok());
  CHECK(Read(dir.Sub("out/data/rows-0.js")) == js_bytes);
}

TEST_CASE("a page whose file is gone is made again even though its task did not change", "[report]") {
  seragen::testing::TempDir dir;
  ReportOptions ro = ReportedRun(dir, 6);
  auto view = LoadRunView(dir.Sub("run"));
  REQUIRE(view.ok());
  const std::string page = dir.Sub("out/tasks/" + view->rows[2].page);
  REQUIRE(std::filesystem::remove(page));
  auto again = WriteReport(ro);
  REQUIRE(again.ok());
  CHECK(again->pages_written == 1);
  CHECK(again->pages_kept == 5);
  CHECK(std::filesystem::exists(page));
}

TEST_CASE("a page state line nested too deep is ignored and its page made again", "[report]") {
  seragen::testing::TempDir dir;
  ReportOptions ro = ReportedRun(dir, 4);
  // The report directory is as hostile as the run: the first page's line
  // gets a rollout summary nested a million levels deep.
  std::string state = Read(dir.Sub("out/data/pages.jsonl"));
  std::size_t r1 = state.find("\"r1\":");
  REQUIRE(r1 != std::string::npos);
  constexpr std::size_t kDepth = 1000000;
  state.insert(r1 + 5, std::string(kDepth, '[') + "0" + std::string(kDepth, ']') + ",\"x\":");
  std::ofstream(dir.Sub("out/data/pages.jsonl"), std::ios::trunc) << state;
  auto again = WriteReport(ro);
  REQUIRE(again.ok());
  CHECK(again->pages_written == 1);
  CHECK(again->pages_kept == 3);
}

TEST_CASE("a page state file cut anywhere keeps exactly its whole lines, bytes that are not UTF-8 lose their line",
          "[report]") {
  seragen::testing::TempDir dir;
  ReportOptions ro = ReportedRun(dir, 4);
  const std::string path = dir.Sub("out/data/pages.jsonl");
  const std::string state = Read(path);
  for (std::size_t cut = 0; cut <= state.size(); cut += 29) {
    INFO("cut at byte " << cut << " of " << state.size());
    std::size_t whole = 0;  // lines complete before the cut (a last line may lack its newline)
    for (std::size_t at = 0, nl; (nl = state.find('\n', at)) != std::string::npos && nl <= cut; at = nl + 1) ++whole;
    std::ofstream(path, std::ios::trunc) << state.substr(0, cut);
    auto again = WriteReport(ro);
    REQUIRE(again.ok());
    CHECK(again->pages_kept == whole);
    CHECK(again->pages_written == 4 - whole);
  }
  std::string damaged = state;
  damaged.insert(damaged.find("\"stamp\":\"") + 10, "\xff");
  std::ofstream(path, std::ios::trunc) << damaged;
  auto again = WriteReport(ro);
  REQUIRE(again.ok());
  CHECK(again->pages_kept == 3);
}

TEST_CASE("a page state line longer than a line can be is not used, and the lines after it are", "[report]") {
  seragen::testing::TempDir dir;
  ReportOptions ro = ReportedRun(dir, 4);
  const std::string path = dir.Sub("out/data/pages.jsonl");
  std::string state = Read(path);
  // The second line gets 100 KB of padding in a field nobody reads: still
  // valid JSON with the right stamp, but past the reader's line bound.
  const std::size_t second = state.find('\n') + 1;
  state.insert(second + 1, "\"pad\":\"" + std::string(100 * 1024, 'a') + "\",");
  std::ofstream(path, std::ios::trunc) << state;
  auto again = WriteReport(ro);
  REQUIRE(again.ok());
  CHECK(again->pages_written == 1);
  CHECK(again->pages_kept == 3);
}

TEST_CASE("a page state file that is a FIFO is not waited on: every page is made again", "[report]") {
  seragen::testing::TempDir dir;
  ReportOptions ro = ReportedRun(dir, 3);
  const std::string path = dir.Sub("out/data/pages.jsonl");
  REQUIRE(std::filesystem::remove(path));
  REQUIRE(::mkfifo(path.c_str(), 0600) == 0);
  auto again = WriteReport(ro);
  REQUIRE(again.ok());
  CHECK(again->pages_written == 3);
  CHECK(std::filesystem::is_regular_file(path));
}

TEST_CASE("WriteReport on a missing run fails with not found", "[report]") {
  seragen::testing::TempDir dir;
  ReportOptions ro;
  ro.run_dir = dir.Sub("nothing");
  auto r = WriteReport(ro);
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().code() == StatusCode::kNotFound);
}

}  // namespace
}  // namespace seragen::report
