#include "seragen/report/report_writer.h"

#include <fmt/format.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <unordered_map>

#include "seragen/base/file_util.h"
#include "seragen/base/hash.h"
#include "seragen/base/json_depth.h"
#include "seragen/journal/run_paths.h"
#include "seragen/report/task_detail.h"
#include "seragen/report/task_page.h"

namespace seragen::report {
namespace {

// Changes whenever pages would render differently from the same inputs, so
// every page of an older report is rewritten.
constexpr std::string_view kPageFormat = "report-page-2";
constexpr std::string_view kStateFile = "data/pages.jsonl";
constexpr std::uint64_t kMaxPageStateBytes = 256ull << 20;

// Temp file + rename (a browser open on the report never reads half a file); no fsync.
Status WriteOutput(const std::string& path, std::string_view bytes) {
  static std::atomic<unsigned> counter{0};
  std::string tmp = fmt::format("{}.tmp.{}.{}", path, ::getpid(), counter++);
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) return IoError("cannot write " + tmp);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!out) return IoError("cannot write " + tmp);
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) return IoError(fmt::format("cannot rename {} to {}: {}", tmp, path, ec.message()));
  return Status::Ok();
}

// What a task page is made from, as far as the journal tells: a change of
// any of these (a new record, a ref, a score) makes a new page.
std::string Stamp(const TaskRow& row) {
  std::string refs;
  for (const auto& [role, path] : row.refs) refs += role + "=" + path + ";";
  return ContentId(
      {kPageFormat, row.outcome, row.stage, row.detail, row.error_message, refs, std::to_string(row.shard),
       std::to_string(row.tokens.calls), std::to_string(row.tokens.prompt_tokens), std::to_string(row.judge_rejections),
       row.scores ? fmt::format("{}", row.scores->recall) : "-", row.demo_issue, row.category_name, row.function_id},
      24);
}

nlohmann::json SummaryJson(const RolloutSummary& s) {
  return {s.present, s.exit_status, s.steps, s.model_calls, s.format_errors, s.tokens, s.wall_seconds, s.model};
}

RolloutSummary SummaryFromJson(const nlohmann::json& j) {
  RolloutSummary s;
  // 7 entries: written before the model was kept.
  if (!j.is_array() || (j.size() != 7 && j.size() != 8)) return s;
  try {
    s.present = j[0].get<bool>();
    s.exit_status = j[1].get<std::string>();
    s.steps = j[2].get<int>();
    s.model_calls = j[3].get<int>();
    s.format_errors = j[4].get<int>();
    s.tokens = j[5].get<std::int64_t>();
    s.wall_seconds = j[6].get<double>();
    if (j.size() == 8) s.model = j[7].get<std::string>();
  } catch (const nlohmann::json::exception&) {
    return RolloutSummary{};
  }
  return s;
}

struct KeptPage {
  std::string stamp;
  RolloutSummary r1, r2;
};

// The previous report's page stamps (a damaged or missing file: none).
std::unordered_map<std::string, KeptPage> ReadState(const std::string& path) {
  std::unordered_map<std::string, KeptPage> out;
  auto text = ReadRegularFile(path, kMaxPageStateBytes);
  if (!text.ok()) return out;
  std::size_t start = 0;
  while (start < text->size()) {
    std::size_t end = text->find('\n', start);
    if (end == std::string::npos) end = text->size();
    std::string_view line(text->data() + start, end - start);
    start = end + 1;
    // The report directory is outside input too: a line nested too deep is damaged.
    if (!CheckJsonDepth(line, "page state").ok()) continue;
    auto j = nlohmann::json::parse(line, nullptr, false);
    if (!j.is_object() || !j.contains("page") || !j.contains("stamp") || !j["page"].is_string() ||
        !j["stamp"].is_string())
      continue;
    out[j["page"].get<std::string>()] = {j["stamp"].get<std::string>(),
                                         SummaryFromJson(j.value("r1", nlohmann::json())),
                                         SummaryFromJson(j.value("r2", nlohmann::json()))};
  }
  return out;
}

bool Exists(const std::string& path) {
  std::error_code ec;
  return std::filesystem::exists(path, ec);
}

// Writes (or keeps) every task page, filling each row's rollout summaries.
Status WritePages(RunView& view, const ReportOptions& o, const std::string& out_dir, const ReportProgress& progress,
                  ReportResult* result) {
  const std::string tasks_dir = out_dir + "/" + o.index.tasks_dir;
  SG_RETURN_IF_ERROR(MakeDirs(tasks_dir));
  auto kept = ReadState(out_dir + "/" + std::string(kStateFile));
  GraphIndex graphs(journal::GraphDir(view.run_dir));
  DemoIndex demos(view);
  std::string state;
  for (std::size_t i = 0; i < view.rows.size(); ++i) {
    TaskRow& row = view.rows[i];
    std::string stamp = Stamp(row);
    std::string path = tasks_dir + "/" + row.page;
    auto k = kept.find(row.page);
    if (k != kept.end() && k->second.stamp == stamp && Exists(path)) {
      row.r1 = k->second.r1;
      row.r2 = k->second.r2;
      result->pages_kept++;
    } else {
      TaskDetail detail = LoadTaskDetail(view, row, o.call_graph ? &graphs : nullptr, &demos);
      if (detail.r1) row.r1 = Summarize(*detail.r1);
      if (detail.r2) row.r2 = Summarize(*detail.r2);
      SG_RETURN_IF_ERROR(WriteOutput(path, RenderTaskPage(view, row, detail)));
      result->pages_written++;
    }
    nlohmann::json line = {
        {"page", row.page}, {"stamp", stamp}, {"r1", SummaryJson(row.r1)}, {"r2", SummaryJson(row.r2)}};
    state += line.dump(-1, ' ', true, nlohmann::json::error_handler_t::replace) + "\n";
    if (progress) progress(i + 1, view.rows.size());
  }
  return WriteOutput(out_dir + "/" + std::string(kStateFile), state);
}

}  // namespace

std::string DefaultReportDir(const std::string& run_dir) { return run_dir + "/report"; }

Result<ReportResult> WriteReport(const ReportOptions& o, const ReportProgress& progress) {
  SG_ASSIGN_OR_RETURN(RunView view, LoadRunView(o.run_dir));
  ReportResult result;
  result.out_dir = o.out_dir.empty() ? DefaultReportDir(o.run_dir) : o.out_dir;
  result.tasks = view.rows.size();
  SG_RETURN_IF_ERROR(MakeDirs(result.out_dir + "/data"));
  SG_RETURN_IF_ERROR(WritePages(view, o, result.out_dir, progress, &result));
  result.chunks = ChunkCount(view.rows.size(), o.index);
  std::size_t per = std::max<std::size_t>(1, o.index.rows_per_chunk);
  for (std::size_t k = 0; k < result.chunks; ++k) {
    SG_RETURN_IF_ERROR(
        WriteOutput(result.out_dir + "/" + ChunkPath(k), RowsChunkJs(view.rows, k * per, (k + 1) * per, k)));
    SG_RETURN_IF_ERROR(WriteOutput(result.out_dir + "/" + ChunkPagePath(k), RowsPageHtml(view.rows, k, o.index)));
  }
  result.index_path = result.out_dir + "/index.html";
  SG_RETURN_IF_ERROR(WriteOutput(result.index_path, RenderIndex(view, o.index)));
  return result;
}

}  // namespace seragen::report
