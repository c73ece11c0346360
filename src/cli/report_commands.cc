#include "cli/report_commands.h"

#include <unistd.h>

#include <iostream>
#include <memory>

#include "cli/exit_codes.h"
#include "seragen/journal/result_files.h"
#include "seragen/journal/run_paths.h"
#include "seragen/report/report_writer.h"
#include "seragen/report/run_view.h"
#include "seragen/report/task_detail.h"
#include "seragen/report/terminal.h"

namespace seragen::cli {
namespace {

constexpr std::size_t kMaxMessageBytes = 64 * 1024;

struct ShowArgs {
  std::string run_dir, task_id;
  int rollout = 1;
  bool raw = false;
  bool full = false;
};

// Messages name files and refs of the run directory: shown terminal-safe.
int ErrorExit(const char* command, const Status& status) {
  std::cerr << "seragen " << command << ": " << report::TerminalSafe(status.message(), kMaxMessageBytes) << "\n";
  return status.code() == StatusCode::kNotFound || status.code() == StatusCode::kInvalidArgument ? kExitUsage
                                                                                                 : kExitRuntimeFailure;
}

int RunReport(const report::ReportOptions& o) {
  report::ReportProgress progress;
  if (::isatty(STDERR_FILENO) == 1) {  // a person is watching: pages done so far, on one line
    progress = [](std::size_t done, std::size_t total) {
      if (done % 500 == 0 || done == total) std::cerr << "\rseragen report: " << done << "/" << total << " task pages";
      if (done == total) std::cerr << "\n";
    };
  }
  auto r = report::WriteReport(o, progress);
  if (!r.ok()) return ErrorExit("report", r.status());
  std::cout << "report   " << r->index_path << "\n"
            << "tasks    " << r->tasks << " (" << r->pages_written << " pages written, " << r->pages_kept
            << " unchanged), " << r->chunks << " table chunk(s)\n";
  return kExitOk;
}

int RunShow(const ShowArgs& a) {
  auto view = report::LoadRunView(a.run_dir);
  if (!view.ok()) return ErrorExit("show", view.status());
  const report::TaskRow* row = report::FindTask(*view, a.task_id);
  if (row == nullptr) {
    std::cerr << "seragen show: no task (or more than one) with id "
              << report::TerminalSafe(a.task_id, 200, report::TerminalField::kLine) << " in "
              << report::TerminalSafe(a.run_dir, 4096, report::TerminalField::kLine) << "\n";
    return kExitUsage;
  }
  if (a.raw) {
    const char* role = a.rollout == 2 ? journal::kRefRollout2 : journal::kRefRollout1;
    auto ref = row->refs.Find(role);
    auto shard = view->shard_dirs.find(row->shard);
    if (!ref || shard == view->shard_dirs.end()) {
      std::cerr << "seragen show: task has no rollout " << a.rollout << " trajectory (yet)\n";
      return kExitRuntimeFailure;
    }
    auto text = journal::ReadResultFile(shard->second, *ref);
    if (!text.ok()) return ErrorExit("show", text.status());
    std::string shown = report::TerminalSafe(*text, text->size(), report::TerminalField::kJson);
    std::cout << shown;
    if (!shown.empty() && shown.back() != '\n') std::cout << "\n";
    return kExitOk;
  }
  report::TaskDetail detail = report::LoadTaskDetail(*view, *row, nullptr);
  report::ShowOptions so;
  so.rollout = a.rollout;
  so.color = ::isatty(STDOUT_FILENO) == 1;
  if (a.full) so.max_text_bytes = 1u << 20;
  std::cout << report::FormatShow(*row, detail, so);
  return kExitOk;
}

}  // namespace

void AddReportCommands(CLI::App& app, std::function<int()>* action) {
  {
    auto o = std::make_shared<report::ReportOptions>();
    CLI::App* cmd = app.add_subcommand(
        "report", "Static HTML report of a run (funnel, charts, one page per task); opens from disk, no server");
    cmd->add_option("run_dir", o->run_dir, "Run directory")->required();
    cmd->add_option("-o,--out", o->out_dir, "Output directory (default RUN_DIR/report)");
    cmd->add_option("--page-rows", o->index.first_page_rows, "Rows per page of the task table")
        ->check(CLI::Range(1, 100000));
    cmd->add_option("--chunk-rows", o->index.rows_per_chunk, "Rows per lazily loaded data file of the task table")
        ->check(CLI::Range(1, 1000000));
    cmd->add_flag_function(
        "--no-call-graph", [o](std::int64_t) { o->call_graph = false; },
        "Do not read RUN_DIR/graph for the start functions' neighbours");
    cmd->callback([o, action] { *action = [o] { return RunReport(*o); }; });
  }
  {
    auto a = std::make_shared<ShowArgs>();
    CLI::App* cmd =
        app.add_subcommand("show", "One task's trajectory in the terminal (colored on a TTY, plain when piped)");
    cmd->add_option("run_dir", a->run_dir, "Run directory")->required();
    cmd->add_option("task_id", a->task_id, "Task id (or a prefix that names one task)")->required();
    cmd->add_option("--rollout", a->rollout, "1 or 2")->check(CLI::IsMember({1, 2}));
    cmd->add_flag("--raw", a->raw, "Print the trajectory file (JSON) as stored");
    cmd->add_flag("--full", a->full, "Do not clip long reasoning, content and observations");
    cmd->callback([a, action] { *action = [a] { return RunShow(*a); }; });
  }
}

}  // namespace seragen::cli
