// `seragen report RUN_DIR [-o DIR]`: writes the run report into DIR
// (default RUN_DIR/report):
//
//   DIR/index.html          overview, charts, task table (first page inline)
//   DIR/data/rows-K.js      the task table's rows, IndexOptions::rows_per_chunk per file
//   DIR/data/rows-K.html    the same rows as a plain table page (no JavaScript needed)
//   DIR/data/pages.jsonl    what each task page was made from (for the next run)
//   DIR/tasks/<id>.html     one page per task (task_page.h)
//
// Every file is self-contained or relative to DIR: it opens from disk, after
// a copy elsewhere, with no server and no network. Task pages are made on a
// few threads (ReportOptions::threads), a window of rows at a time, and each
// is written as soon as it is rendered (memory holds the rows, not the
// pages). A page whose task has not changed since the last report of the same
// DIR is kept instead of rewritten: its journal-derived stamp is unchanged, so
// it is decided before any file of the task is read, and reporting a run in
// progress again costs little. Writes are plain (temp file
// + rename, so a reader never sees half a page), not durable: the report can
// always be made again.
#pragma once

#include <cstddef>
#include <functional>
#include <string>

#include "seragen/base/result.h"
#include "seragen/report/index_page.h"

namespace seragen::report {

struct ReportOptions {
  std::string run_dir;
  std::string out_dir;  // default RUN_DIR/report
  IndexOptions index;
  bool call_graph = true;  // read RUN_DIR/graph for the start functions' neighbours
  // Threads reading and rendering task pages; 0: one per core, at most 4.
  // Each thread loads the call graphs it needs for itself.
  std::size_t threads = 0;
};

struct ReportResult {
  std::string out_dir;
  std::string index_path;
  std::size_t tasks = 0;
  std::size_t pages_written = 0;
  std::size_t pages_kept = 0;  // unchanged since the last report
  std::size_t chunks = 0;
};

// Progress: called after each task page with (done, total), in row order, on
// the thread that called WriteReport.
using ReportProgress = std::function<void(std::size_t done, std::size_t total)>;

// Errors: what LoadRunView returns (kNotFound for a missing run or plan);
// kIoError when an output file cannot be written.
Result<ReportResult> WriteReport(const ReportOptions& options, const ReportProgress& progress = nullptr);

// The report directory of a run: RUN_DIR/report.
std::string DefaultReportDir(const std::string& run_dir);

}  // namespace seragen::report
