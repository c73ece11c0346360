// Process-wide concerns of `seragen run`: descriptor limit, stop signals and
// the progress display on stderr. Only the composition root uses these.
#pragma once

#include <string>

#include "seragen/base/log.h"
#include "seragen/pipeline/task_scheduler.h"

namespace seragen::cli {

// Raises the soft RLIMIT_NOFILE to the hard limit: every in-flight request
// holds a socket and every command a few pipes, so a thousand rollouts in
// flight need more than the usual soft limit of 1024. Best effort.
void RaiseOpenFileLimit();

// While alive, SIGINT and SIGTERM request a stop (requested() turns true);
// a second signal ends the process at once with kExitInterrupted (the
// journal is durable). The destructor restores the default handlers. One
// instance at a time per process; requested() is safe from any thread.
class StopSignals {
 public:
  StopSignals();
  ~StopSignals();
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;
  bool requested() const;
};

// Progress of a shard run: when `live`, the log's status line on stderr
// (log::SetStatusLine, so log lines never run into it), redrawn every half
// second; else a log line every 30 s. Once a stop was requested the line
// says so, with the grace period left and how to quit at once. Call OnTick
// on one thread only.
class ProgressDisplay {
 public:
  // run.progress: always | never | auto (live when stderr is a terminal).
  ProgressDisplay(const std::string& progress_setting, const log::Logger* logger, double grace_period_s = 0);
  bool live() const { return live_; }
  // `stopping`: a stop signal arrived; `note` is appended when not empty.
  void OnTick(const pipeline::RunSummary& summary, double elapsed_s, bool stopping = false,
              const std::string& note = "");
  // Removes the live line (nothing when not live).
  void Finish() const;

  // The text of one tick (what OnTick shows).
  std::string Line(const pipeline::RunSummary& summary, double elapsed_s, bool stopping, const std::string& note);

 private:
  bool live_ = false;
  const log::Logger* logger_;
  double grace_period_s_ = 0;
  double last_log_ = 0;
  double stop_seen_at_ = -1;  // elapsed_s of the first tick with `stopping`
};

}  // namespace seragen::cli
