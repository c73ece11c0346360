// The report's index page: the overview (funnel with drop reasons, tokens,
// cost, wall time, throughput, config summary and recipe hash), the charts
// and the task table. The table's first page is plain HTML (readable without
// JavaScript); the rest of the rows live in data chunks (data/rows-K.js, one
// per `rows_per_chunk` tasks) that the page's script loads when the reader
// pages, sorts or filters, so the index stays small at 100,000 tasks.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "seragen/report/run_view.h"

namespace seragen::report {

struct IndexOptions {
  std::size_t first_page_rows = 100;  // rows in the HTML itself (and per page of the table)
  std::size_t rows_per_chunk = 1000;  // rows per data/rows-K.js
  std::string tasks_dir = "tasks";    // where the task pages are, relative to the index
};

// Number of data chunks for `rows` rows.
std::size_t ChunkCount(std::size_t rows, const IndexOptions& options);

// data/rows-K.js: `seragenRows(K, [[...], ...]);` with rows
// [begin, end) as arrays of JSON strings and numbers (see the page's script).
std::string RowsChunkJs(const std::vector<TaskRow>& rows, std::size_t begin, std::size_t end, std::size_t chunk);

// The name of chunk K's file inside the report directory ("data/rows-K.js").
std::string ChunkPath(std::size_t chunk);

// The same rows as a plain HTML table page with previous/next links
// ("data/rows-K.html"), so every task is reachable without JavaScript.
std::string ChunkPagePath(std::size_t chunk);
std::string RowsPageHtml(const std::vector<TaskRow>& rows, std::size_t chunk, const IndexOptions& options);

std::string RenderIndex(const RunView& view, const IndexOptions& options);

}  // namespace seragen::report
