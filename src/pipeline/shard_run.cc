#include "seragen/pipeline/shard_run.h"

#include <algorithm>
#include <atomic>
#include <future>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>

#include "pipeline/journal_store.h"
#include "pipeline/usage_meter.h"
#include "seragen/base/file_util.h"
#include "seragen/base/json_depth.h"
#include "seragen/base/log.h"
#include "seragen/base/thread_pool.h"
#include "seragen/journal/outcomes.h"
#include "seragen/journal/resume_state.h"
#include "seragen/journal/run_paths.h"
#include "seragen/llm/failure.h"
#include "seragen/runview/run_budget.h"

namespace seragen::pipeline {
namespace {

// {"<TaskOutcomeKindName>": count, ...} in name order.
nlohmann::ordered_json OutcomesJson(const RunSummary& summary) {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  for (const auto& [kind, n] : summary.outcomes) j[std::string(TaskOutcomeKindName(kind))] = n;
  return j;
}

}  // namespace

std::string ShardSummaryText(const ShardSpec& shard, const ShardOutcome& o) {
  const RunSummary& summary = o.summary;
  const std::string config_stop = o.run_stop ? o.run_stop->message() : std::string();
  nlohmann::ordered_json js = {{"shard", shard.index},
                               {"shards", shard.count},
                               {"planned", summary.planned},
                               {"already_finished", summary.already_finished},
                               {"accepted_before", summary.accepted_before},
                               {"dispatched", summary.dispatched},
                               {"outcomes", OutcomesJson(summary)},
                               {"accepted", summary.accepted},
                               {"prompt_tokens", summary.prompt_tokens},
                               {"completion_tokens", summary.completion_tokens},
                               {"cost_usd", summary.cost_usd},
                               {"stop_reason", summary.stop_reason},
                               {"aborted", summary.aborted},
                               {"abort_detail", summary.abort_detail},
                               {"config_stop", config_stop},
                               {"seconds", o.seconds}};
  return js.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

namespace {

// The journal, not SHARD_DIR/summary.json, is the durable record, so a failed
// write is logged and the run's result stands.
void WriteShardSummary(const std::string& shard_dir, const ShardSpec& shard, const ShardOutcome& o,
                       const log::Logger& logger) {
  Status written = WriteFileAtomic(journal::ShardSummaryPath(shard_dir), ShardSummaryText(shard, o));
  if (!written.ok()) {
    logger.Warn("could not write {}/summary.json ({}); the journal still records every task", shard_dir,
                written.message());
  }
}

// The other shards' budget use (run_budget.h), read from their journals on
// a worker at most every kRefreshInterval; Get() is the latest reading.
// Shared with the worker task that refreshes it.
class OtherShardsLedger : public std::enable_shared_from_this<OtherShardsLedger> {
 public:
  static constexpr std::chrono::seconds kRefreshInterval{5};

  OtherShardsLedger(std::string run_dir, int shard, PriceBook prices)
      : run_dir_(std::move(run_dir)), shard_(shard), prices_(std::move(prices)) {}

  // Blocking. The use never goes down: a journal that does not read, or
  // reads as less than before, keeps the last reading (logged once).
  Status Refresh() {
    auto use = runview::OtherShardsUse(run_dir_, shard_, prices_);
    std::lock_guard<std::mutex> lock(mu_);
    refreshing_ = false;
    last_ = std::chrono::steady_clock::now();
    if (use.ok()) {
      use_.tasks = std::max(use_.tasks, use->tasks);
      use_.tokens = std::max(use_.tokens, use->tokens);
      use_.cost_usd = std::max(use_.cost_usd, use->cost_usd);
      return Status::Ok();
    }
    if (!warned_) {
      warned_ = true;
      log::Logger("run").Warn("budgets: cannot read the other shards' journals ({}); using the last reading",
                              use.status().message());
    }
    return use.status();
  }
  void MaybeRefresh(Executor& workers) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (refreshing_ || std::chrono::steady_clock::now() - last_ < kRefreshInterval) return;
      refreshing_ = true;
    }
    workers.Post([self = shared_from_this()] { (void)self->Refresh(); });  // logged there
  }
  BudgetUse Get() const {
    std::lock_guard<std::mutex> lock(mu_);
    return use_;
  }

 private:
  const std::string run_dir_;
  const int shard_;
  const PriceBook prices_;
  mutable std::mutex mu_;
  BudgetUse use_;
  bool refreshing_ = false;
  bool warned_ = false;
  std::chrono::steady_clock::time_point last_{};
};

// With a budget set, the scheduler sees the other shards' use: read once now
// (a journal that does not read stops the shard: the budget could not be
// kept), then refreshed from the progress tick.
Result<std::shared_ptr<OtherShardsLedger>> ShareBudgets(const ShardRunInputs& in, TaskSchedulerOptions& sopts) {
  if (!sopts.budget.any() || in.run_dir.empty()) return std::shared_ptr<OtherShardsLedger>();
  auto ledger = std::make_shared<OtherShardsLedger>(in.run_dir, in.shard.index, sopts.prices);
  if (Status read = ledger->Refresh(); !read.ok()) {
    return FailedPreconditionError(
        "budgets: cannot read the other shards' journals, so the run-wide budget (budget.*) "
        "cannot be kept: " +
        read.message());
  }
  sopts.other_shards = [ledger] { return ledger->Get(); };
  return ledger;
}

// The auto concurrency of `in`, steering `scheduler` (both on `loop`), started.
std::unique_ptr<AutoConcurrency> StartAutoConcurrency(Executor& loop, const ShardRunInputs& in,
                                                      TaskScheduler& scheduler) {
  auto tuner = std::make_unique<AutoConcurrency>(
      loop, SystemClock(), *in.auto_concurrency, in.sample_load,
      [&scheduler] { return static_cast<int>(scheduler.summary().in_flight); },
      [&scheduler](int limit) { scheduler.SetLimit(limit); });
  tuner->Start();
  return tuner;
}

}  // namespace

std::vector<callgraph::PlannedTask> ShardTasks(const std::vector<callgraph::PlannedTask>& plan,
                                               const ShardSpec& shard) {
  std::vector<callgraph::PlannedTask> tasks;
  for (std::size_t i = 0; i < plan.size(); ++i) {
    if (static_cast<int>(i % static_cast<std::size_t>(shard.count)) == shard.index) tasks.push_back(plan[i]);
  }
  return tasks;
}

std::string ShardDir(const std::string& run_dir, const ShardSpec& shard) {
  return journal::ShardDir(run_dir, shard.index);
}

TaskTally TallyOf(const RunSummary& summary) {
  TaskTally tally;
  tally.planned = summary.planned;
  tally.done = summary.already_finished;
  using Kind = TaskOutcome::Kind;
  for (const auto& [kind, n] : summary.outcomes) {
    if (kind == Kind::kVerified || kind == Kind::kSkipped || kind == Kind::kModelFailure) tally.done += n;
    // Neither is the model's: a resumed run retries both.
    if (kind == Kind::kInfraFailure || kind == Kind::kConfigFailure) tally.infra_failed += n;
  }
  return tally;
}

RunResult ClassifyShard(const RunSummary& summary, const std::optional<Status>& run_stop, bool interrupted,
                        const TaskTally& tally) {
  if (run_stop && llm::FailureClassOf(*run_stop) == llm::FailureClass::kConfig) return RunResult::kConfigStop;
  if (summary.aborted) return RunResult::kRuntimeError;
  if (interrupted) return RunResult::kInterrupted;
  RunResult result = ClassifyTally(tally);
  // A budget used up before this invocation started anything: tasks were
  // not started (3), not failed (1).
  if (result == RunResult::kNothingSucceeded && summary.dispatched == 0 &&
      summary.stop_reason.rfind("budget.", 0) == 0) {
    return RunResult::kIncomplete;
  }
  return result;
}

// A shard that could not start because its budgets cannot be kept: nothing
// ran, the run ends as a runtime error naming the journal.
ShardOutcome BudgetsUnreadable(const ShardRunInputs& in, const Status& why, const log::Logger& logger) {
  ShardOutcome out;
  out.summary.aborted = true;
  out.summary.abort_detail = why.message();
  out.result = RunResult::kRuntimeError;
  logger.Error("shard {}/{}: {}", in.shard.index, in.shard.count, why.message());
  return out;
}

ShardOutcome RunShard(loop::EventLoop& pipeline_loop, ShardRunInputs in, const ShardRunHooks& hooks) {
  log::Logger logger("run");
  const std::string& shard_dir = in.shard_dir;
  journal::Journal* journal = in.journal;
  const runview::BudgetUse journal_use = runview::UseOf(in.folded, in.scheduler.prices);
  journal::ResumeState state = std::move(in.folded.tasks);
  std::vector<callgraph::PlannedTask> tasks = std::move(in.tasks);

  auto workers = std::make_unique<ThreadPool>(in.worker_threads);
  JournalStore store(shard_dir, journal);

  PipelineContext ctx = std::move(in.context);
  ctx.store = &store;
  ctx.loop = &pipeline_loop;
  ctx.workers = workers.get();
  ctx.clock = &SystemClock();
  ctx.p1_hashes.insert(in.folded.p1_hashes.begin(), in.folded.p1_hashes.end());

  std::size_t accepted_before = 0;
  for (const callgraph::PlannedTask& t : tasks) {
    const journal::TaskProgress* p = state.Find(t.task_id);
    if (p != nullptr && p->finished && journal::IsAccepted(p->last)) {
      ++accepted_before;
    }
  }
  UsageMeter meter(ctx.chat);  // tokens of calls answered so far, for the progress line
  ctx.chat = &meter;

  TaskSchedulerOptions sopts = std::move(in.scheduler);
  sopts.journal_use = journal_use;
  Result<std::shared_ptr<OtherShardsLedger>> shared = ShareBudgets(in, sopts);
  if (!shared.ok()) return BudgetsUnreadable(in, shared.status(), logger);
  std::shared_ptr<OtherShardsLedger> ledger = std::move(*shared);
  auto started = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count(); };
  auto stop_requested = [&] { return hooks.stop_requested && hooks.stop_requested(); };

  std::promise<RunSummary> finished;
  std::unique_ptr<TaskScheduler> scheduler;
  std::unique_ptr<AutoConcurrency> tuner;  // run.concurrency auto
  std::atomic<bool> done{false};
  // Cleared on the loop before this function returns: a tick already
  // scheduled on the loop (which outlives this frame) then does nothing
  // instead of reading this frame's locals.
  auto live = std::make_shared<bool>(true);
  // Watches for a stop request and reports progress, on the loop.
  std::function<void()> tick;
  tick = [&, live] {
    if (!*live || done) return;
    if (stop_requested()) scheduler->RequestStop("interrupted by signal");
    if (ledger) ledger->MaybeRefresh(*workers);
    if (tuner && in.on_auto_status) in.on_auto_status(tuner->status());
    if (hooks.on_tick) {
      RunSummary live = scheduler->summary();
      live.accepted_before = accepted_before;
      live.prompt_tokens = std::max(live.prompt_tokens, meter.prompt_tokens());
      live.completion_tokens = std::max(live.completion_tokens, meter.completion_tokens());
      hooks.on_tick(live, elapsed());
    }
    pipeline_loop.RunAfter(hooks.tick_interval, tick);
  };
  pipeline_loop.Post([&] {
    scheduler = std::make_unique<TaskScheduler>(&ctx, std::move(tasks), std::move(state), sopts);
    if (in.auto_concurrency) tuner = StartAutoConcurrency(pipeline_loop, in, *scheduler);
    scheduler->Start([&](RunSummary summary) {
      done = true;
      if (tuner) tuner->Stop();
      finished.set_value(std::move(summary));
    });
    if (!done) pipeline_loop.RunAfter(std::chrono::milliseconds(200), tick);
  });
  ShardOutcome out;
  out.summary = finished.get_future().get();
  out.summary.accepted_before = accepted_before;

  workers.reset();  // finish releasing working copies
  pipeline_loop.RunSync([&] {
    *live = false;
    tuner.reset();
    scheduler.reset();
  });
  out.run_stop = ctx.chat->RunStopStatus();
  out.interrupted = stop_requested();
  out.seconds = elapsed();
  out.tally = TallyOf(out.summary);
  out.result = ClassifyShard(out.summary, out.run_stop, out.interrupted, out.tally);
  WriteShardSummary(shard_dir, in.shard, out, logger);
  return out;
}

}  // namespace seragen::pipeline
