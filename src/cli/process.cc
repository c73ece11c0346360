#include "cli/process.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <iostream>

#include "cli/exit_codes.h"
#include "cli/run_lines.h"
#include "seragen/base/status_line.h"
#include "seragen/pipeline/shard_run.h"

namespace seragen::cli {
namespace {

std::atomic<int> g_signals{0};

extern "C" void OnStopSignal(int) {
  if (g_signals.fetch_add(1) >= 1) std::_Exit(kExitInterrupted);  // second signal: stop now; the journal is durable
}

}  // namespace

void RaiseOpenFileLimit() {
  if (rlimit nofile{}; ::getrlimit(RLIMIT_NOFILE, &nofile) == 0 && nofile.rlim_cur < nofile.rlim_max) {
    nofile.rlim_cur = nofile.rlim_max;
    ::setrlimit(RLIMIT_NOFILE, &nofile);
  }
}

StopSignals::StopSignals() {
  g_signals = 0;
  std::signal(SIGINT, OnStopSignal);
  std::signal(SIGTERM, OnStopSignal);
}

StopSignals::~StopSignals() {
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
}

bool StopSignals::requested() const { return g_signals > 0; }

ProgressDisplay::ProgressDisplay(const std::string& progress_setting, const log::Logger* logger, double grace_period_s)
    : live_(progress_setting == "always" || (progress_setting == "auto" && ::isatty(STDERR_FILENO) != 0)),
      logger_(logger),
      grace_period_s_(grace_period_s) {}

std::string ProgressDisplay::Line(const pipeline::RunSummary& summary, double elapsed_s, bool stopping,
                                  const std::string& note) {
  std::string line;
  if (stopping) {
    if (stop_seen_at_ < 0) stop_seen_at_ = elapsed_s;
    double left = std::max(0.0, grace_period_s_ - (elapsed_s - stop_seen_at_));
    // No rate or ETA: the run is not heading for them any more.
    line = fmt::format("stopping, grace {:.0f} s, Ctrl-C again to quit; ", std::ceil(left)) + ProgressLine(summary, 0);
  } else {
    line = ProgressLine(summary, elapsed_s);
  }
  if (!note.empty()) line += "; " + note;
  return line;
}

void ProgressDisplay::OnTick(const pipeline::RunSummary& summary, double elapsed_s, bool stopping,
                             const std::string& note) {
  if (live_) {
    log::SetStatusLine(Line(summary, elapsed_s, stopping, note));
  } else if (elapsed_s - last_log_ >= 30) {
    logger_->Info("{}", Line(summary, elapsed_s, stopping, note));
    last_log_ = elapsed_s;
  }
}

void ProgressDisplay::Finish() const {
  if (live_) log::SetStatusLine("");
}

}  // namespace seragen::cli
