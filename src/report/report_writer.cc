#include "seragen/report/report_writer.h"

#include <fmt/format.h>

#include <simdjson.h>
#include <algorithm>
#include <atomic>
#include <charconv>
#include <condition_variable>
#include <cstdio>
#include <filesystem>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <thread>
#include <unordered_map>

#include "report/task_page.h"
#include "seragen/base/atomic_file.h"
#include "seragen/base/file_util.h"
#include "seragen/base/hash.h"
#include "seragen/base/json_depth.h"
#include "seragen/base/thread_pool.h"
#include "seragen/journal/run_paths.h"
#include "seragen/report/task_detail.h"

namespace seragen::report {
namespace {

// Changes whenever pages would render differently from the same inputs, so
// every page of an older report is rewritten.
constexpr std::string_view kPageFormat = "report-page-2";
constexpr std::string_view kStateFile = "data/pages.jsonl";
constexpr std::uint64_t kMaxPageStateBytes = 256ull << 20;
constexpr std::size_t kMaxStateLineBytes = 64 * 1024;  // a line is a few hundred bytes

// Written under a temp name and renamed into place (a browser open on the
// report never reads half a file); no fsync.
Status WriteOutput(const std::string& path, std::string_view bytes) {
  SG_ASSIGN_OR_RETURN(AtomicFile f, AtomicFile::Open(path, /*durable=*/false));
  (void)f.Append(bytes);  // an error is Commit's result
  return f.Commit();
}

// Appends `field` as Sha256::UpdateField hashes it ("<size>:<bytes>").
void AppendField(std::string& message, std::string_view field) {
  char size[24];
  message.append(size, std::to_chars(size, size + sizeof size, field.size()).ptr);
  message += ':';
  message += field;
}

void AppendField(std::string& message, std::int64_t number) {
  char text[24];
  AppendField(message, std::string_view(text, std::to_chars(text, text + sizeof text, number).ptr));
}

// What a task page is made from, as far as the journal tells: a change of
// any of these (a new record, a ref, a score) makes a new page. The same id
// as ContentId over these fields, made in one reused buffer: this runs for
// every task of every report.
std::string Stamp(const TaskRow& row) {
  thread_local std::string message, refs;
  refs.clear();
  for (const auto& [role, path] : row.refs) {
    refs += role;
    refs += '=';
    refs += path;
    refs += ';';
  }
  char recall[64] = "-";
  std::size_t recall_size = 1;
  if (row.scores) recall_size = fmt::format_to_n(recall, sizeof recall, "{}", row.scores->recall).size;
  message.clear();
  for (std::string_view f : {kPageFormat, row.OutcomeName(), row.StageName(), std::string_view(row.detail),
                             std::string_view(row.error_message), std::string_view(refs)})
    AppendField(message, f);
  for (std::int64_t n :
       {std::int64_t{row.shard}, row.tokens.calls, row.tokens.prompt_tokens, std::int64_t{row.judge_rejections}})
    AppendField(message, n);
  AppendField(message, std::string_view(recall, std::min(recall_size, sizeof recall)));
  for (std::string_view f :
       {std::string_view(row.demo_issue), std::string_view(row.category_name), std::string_view(row.function_id)})
    AppendField(message, f);
  return Sha256Hex(message).substr(0, 24);
}

nlohmann::json SummaryJson(const RolloutSummary& s) {
  return {s.present, s.exit_status, s.steps, s.model_calls, s.format_errors, s.tokens, s.wall_seconds, s.model};
}

// The summary array of a state line; a default summary for any other value.
RolloutSummary SummaryFromState(simdjson::simdjson_result<simdjson::dom::element> value) {
  simdjson::dom::array a;
  // 7 entries: written before the model was kept.
  if (value.get_array().get(a) != simdjson::SUCCESS || (a.size() != 7 && a.size() != 8)) return {};
  RolloutSummary s;
  std::string_view exit_status, model;
  std::int64_t steps = 0, calls = 0, errors = 0;
  bool ok =
      a.at(0).get_bool().get(s.present) == simdjson::SUCCESS &&
      a.at(1).get_string().get(exit_status) == simdjson::SUCCESS &&
      a.at(2).get_int64().get(steps) == simdjson::SUCCESS && a.at(3).get_int64().get(calls) == simdjson::SUCCESS &&
      a.at(4).get_int64().get(errors) == simdjson::SUCCESS && a.at(5).get_int64().get(s.tokens) == simdjson::SUCCESS &&
      a.at(6).get_double().get(s.wall_seconds) == simdjson::SUCCESS &&
      (a.size() == 7 || a.at(7).get_string().get(model) == simdjson::SUCCESS);
  auto fits = [](std::int64_t v) { return v >= INT32_MIN && v <= INT32_MAX; };
  if (!ok || !fits(steps) || !fits(calls) || !fits(errors)) return {};
  s.exit_status = exit_status;
  s.model = model;
  s.steps = static_cast<int>(steps);
  s.model_calls = static_cast<int>(calls);
  s.format_errors = static_cast<int>(errors);
  return s;
}

// Calls `visit` with each line of `path` (the last may lack its newline),
// reading at most kMaxPageStateBytes; a line longer than kMaxStateLineBytes
// is passed as "". A missing, unreadable or irregular file (a FIFO: not
// waited on) has no lines. Streamed: the file is never held whole. True when
// the whole file was read.
bool ForEachStateLine(const std::string& path, const std::function<void(std::string_view)>& visit) {
  Status read = ForEachLine(
      path, kMaxPageStateBytes,
      [&visit](const FileLine& line) {
        visit(line.text);  // empty for a line too long to keep: damaged
        return Status::Ok();
      },
      kMaxStateLineBytes);
  return read.ok();
}

// A line of the page state: what the page named `page` was made from and the
// rollout summaries its trajectories gave.
struct StateEntry {
  std::string_view page, stamp;
  RolloutSummary r1, r2;
};

// Parsed with simdjson: UTF-8 checked, nesting bounded by the parser, error
// codes only. `padded` is scratch space; nullopt for a damaged line.
std::optional<StateEntry> ParseStateLine(simdjson::dom::parser& parser, std::string& padded, std::string_view line) {
  padded.assign(line);
  padded.append(simdjson::SIMDJSON_PADDING, '\0');
  simdjson::dom::object j;
  StateEntry e;
  if (parser.parse(padded.data(), line.size(), false).get_object().get(j) != simdjson::SUCCESS ||
      j.at_key("page").get_string().get(e.page) != simdjson::SUCCESS ||
      j.at_key("stamp").get_string().get(e.stamp) != simdjson::SUCCESS) {
    return std::nullopt;
  }
  e.r1 = SummaryFromState(j.at_key("r1"));
  e.r2 = SummaryFromState(j.at_key("r2"));
  return e;
}

// Writes `bytes` to `path` unless the file holds exactly them already (a
// table chunk of tasks that did not change).
Status WriteIfChanged(const std::string& path, std::string_view bytes) {
  auto old = ReadRegularFile(path, bytes.size() + 1);
  if (old.ok() && *old == bytes) return Status::Ok();
  return WriteOutput(path, bytes);
}

std::string StateLine(const TaskRow& row, const std::string& stamp) {
  nlohmann::json line = {
      {"page", row.page}, {"stamp", stamp}, {"r1", SummaryJson(row.r1)}, {"r2", SummaryJson(row.r2)}};
  return line.dump(-1, ' ', true, nlohmann::json::error_handler_t::replace) + "\n";
}

// Rows whose pages are decided, made and recorded together: pages are made
// on the pool a window at a time, the state file and progress follow in row
// order, and nothing of a window outlives it.
constexpr std::size_t kWindowRows = 256;
constexpr unsigned kMaxPageThreads = 4;

// What one pool thread reads with: GraphIndex and DemoIndex are not
// thread-safe, so each thread has its own.
struct PageWorker {
  explicit PageWorker(const RunView& view) : graphs(journal::GraphDir(view.run_dir)), demos(view) {}
  GraphIndex graphs;
  DemoIndex demos;
};

// Runs body(worker) once for each of `workers` workers on `pool`; returns when all have returned.
void RunOnPool(ThreadPool& pool, std::size_t workers, const std::function<void(std::size_t)>& body) {
  std::mutex mu;
  std::condition_variable done;
  std::size_t left = workers;
  for (std::size_t w = 0; w < workers; ++w) {
    pool.Post([&, w] {
      body(w);
      std::lock_guard<std::mutex> lock(mu);
      if (--left == 0) done.notify_one();  // under the lock: the waiter owns `done`
    });
  }
  std::unique_lock<std::mutex> lock(mu);
  done.wait(lock, [&] { return left == 0; });
}

// Writes (or keeps) every task page, filling each row's rollout summaries.
class PageWriter {
 public:
  PageWriter(RunView& view, const ReportOptions& o, const std::string& out_dir, ReportResult* result)
      : view_(view),
        o_(o),
        tasks_dir_(out_dir + "/" + o.index.tasks_dir),
        result_(result),
        threads_(o.threads > 0 ? o.threads : std::clamp(std::thread::hardware_concurrency(), 1u, kMaxPageThreads)),
        pool_(threads_) {
    for (std::size_t w = 0; w < threads_; ++w) workers_.emplace_back(view);
  }

  Status Run(const std::string& state_path, const ReportProgress& progress) {
    SG_RETURN_IF_ERROR(MakeDirs(tasks_dir_));
    stamps_.reserve(view_.rows.size());
    for (const TaskRow& row : view_.rows) stamps_.push_back(Stamp(row));
    FindKeptPages(state_path);
    // Every page kept and the state file holds each row's line, in row order:
    // it says what a new one would and stays as it is.
    std::optional<AtomicFile> state;
    if (!state_unchanged_) {
      SG_ASSIGN_OR_RETURN(state, AtomicFile::Open(state_path, /*durable=*/false));
    }
    for (std::size_t start = 0; start < view_.rows.size(); start += kWindowRows) {
      std::size_t end = std::min(view_.rows.size(), start + kWindowRows);
      SG_RETURN_IF_ERROR(Window(start, end));
      for (std::size_t i = start; i < end; ++i) {
        if (state) (void)state->Append(StateLine(view_.rows[i], stamps_[i]));  // errors: Commit's
        if (progress) progress(i + 1, view_.rows.size());
      }
    }
    return state ? state->Commit() : Status::Ok();
  }

 private:
  // Marks the rows whose page can be kept: the previous report's state line
  // for the page has the row's stamp and the page is in the tasks directory
  // (one listing, not a lookup per page). Their rollout summaries come from
  // that line. Lines are matched to rows as they are read: nothing of the
  // previous report is held.
  void FindKeptPages(const std::string& state_path) {
    std::unordered_map<std::string_view, std::size_t> by_page;
    by_page.reserve(view_.rows.size());
    for (std::size_t i = 0; i < view_.rows.size(); ++i) by_page.emplace(view_.rows[i].page, i);
    kept_.assign(view_.rows.size(), false);
    on_disk_.assign(view_.rows.size(), false);
    std::vector<bool>& on_disk = on_disk_;
    std::error_code ec;
    for (std::filesystem::directory_iterator d(tasks_dir_, ec), end; !ec && d != end; d.increment(ec)) {
      if (auto it = by_page.find(d->path().filename().string()); it != by_page.end()) on_disk[it->second] = true;
    }
    simdjson::dom::parser parser;
    if (parser.allocate(1 << 16, kMaxJsonDepth) != simdjson::SUCCESS) return;
    std::string padded;
    std::size_t lines = 0;
    bool in_order = true;  // line k is row k's, kept
    const bool whole = ForEachStateLine(state_path, [&](std::string_view line) {
      const std::size_t k = lines++;
      std::optional<StateEntry> e = ParseStateLine(parser, padded, line);
      auto it = e ? by_page.find(e->page) : by_page.end();
      in_order = in_order && it != by_page.end() && it->second == k;
      if (it == by_page.end()) return;
      const std::size_t i = it->second;
      // A later line of the same page wins, as it would have in the file's writer.
      kept_[i] = on_disk[i] && e->stamp == stamps_[i];
      view_.rows[i].r1 = kept_[i] ? std::move(e->r1) : RolloutSummary{};
      view_.rows[i].r2 = kept_[i] ? std::move(e->r2) : RolloutSummary{};
      in_order = in_order && kept_[i];
    });
    state_unchanged_ = whole && in_order && lines == view_.rows.size();
  }

  // Keeps what can be kept from the journal alone (no file read), makes the
  // rest on the pool; the first failure in row order is the result.
  Status Window(std::size_t start, std::size_t end) {
    std::vector<std::size_t> todo;
    for (std::size_t i = start; i < end; ++i) {
      if (kept_[i]) {
        result_->pages_kept++;
      } else {
        todo.push_back(i);
      }
    }
    std::vector<Status> status(todo.size());
    std::atomic<std::size_t> next{0};
    RunOnPool(pool_, std::min(threads_, todo.size()), [&](std::size_t w) {
      for (std::size_t t = next++; t < todo.size(); t = next++) status[t] = WritePage(view_.rows[todo[t]], workers_[w]);
    });
    for (const Status& s : status) SG_RETURN_IF_ERROR(s);
    result_->pages_written += todo.size();
    return Status::Ok();
  }

  // On a pool thread: reads only the view and writes only `row` and its page.
  Status WritePage(TaskRow& row, PageWorker& w) {
    try {
      TaskDetail detail = LoadTaskDetail(view_, row, o_.call_graph ? &w.graphs : nullptr, &w.demos);
      if (detail.r1) row.r1 = Summarize(*detail.r1);
      if (detail.r2) row.r2 = Summarize(*detail.r2);
      const std::string path = tasks_dir_ + "/" + row.page;
      const std::size_t i = static_cast<std::size_t>(&row - view_.rows.data());
      return on_disk_[i] ? WriteOutput(path, RenderTaskPage(view_, row, detail))
                         : WriteFileInPlace(path, RenderTaskPage(view_, row, detail));  // nothing reads a new page yet
    } catch (const std::exception& e) {  // e.g. bad_alloc: an error of this page, not of the pool thread
      return IoError(fmt::format("cannot make the page of {}: {}", row.task_id, e.what()));
    }
  }

  RunView& view_;
  const ReportOptions& o_;
  const std::string tasks_dir_;
  ReportResult* result_;
  const std::size_t threads_;
  std::vector<PageWorker> workers_;
  ThreadPool pool_;                  // after what its work uses: destroyed (joined) first
  std::vector<std::string> stamps_;  // of every row
  std::vector<bool> kept_;           // the row's page is kept as it is
  std::vector<bool> on_disk_;        // the row's page file existed when the report started
  bool state_unchanged_ = false;     // the state file has every row, in order, each kept
};

}  // namespace

std::string DefaultReportDir(const std::string& run_dir) { return run_dir + "/report"; }

Result<ReportResult> WriteReport(const ReportOptions& o, const ReportProgress& progress) {
  SG_ASSIGN_OR_RETURN(RunView view, LoadRunView(o.run_dir));
  ReportResult result;
  result.out_dir = o.out_dir.empty() ? DefaultReportDir(o.run_dir) : o.out_dir;
  result.tasks = view.rows.size();
  SG_RETURN_IF_ERROR(MakeDirs(result.out_dir + "/data"));
  SG_RETURN_IF_ERROR(
      PageWriter(view, o, result.out_dir, &result).Run(result.out_dir + "/" + std::string(kStateFile), progress));
  result.chunks = ChunkCount(view.rows.size(), o.index);
  std::size_t per = std::max<std::size_t>(1, o.index.rows_per_chunk);
  for (std::size_t k = 0; k < result.chunks; ++k) {
    SG_RETURN_IF_ERROR(
        WriteIfChanged(result.out_dir + "/" + ChunkPath(k), RowsChunkJs(view.rows, k * per, (k + 1) * per, k)));
    SG_RETURN_IF_ERROR(WriteIfChanged(result.out_dir + "/" + ChunkPagePath(k), RowsPageHtml(view.rows, k, o.index)));
  }
  result.index_path = result.out_dir + "/index.html";
  SG_RETURN_IF_ERROR(WriteOutput(result.index_path, RenderIndex(view, o.index)));
  return result;
}

}  // namespace seragen::report
