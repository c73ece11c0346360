// The task plan (`seragen plan`, RUN_DIR/tasks.jsonl): one task per selected
// function × bug category × replica, with content-hash ids and seeds derived
// from the run seed. Same inputs and seed ⇒ byte-identical tasks.jsonl.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "seragen/base/result.h"
#include "seragen/callgraph/graph.h"

namespace seragen::callgraph {

enum class CategoryMode {
  kAll,     // every category for every function
  kSample,  // categories_per_function distinct categories per function, seeded
};

// "all" / "sample" (config spelling); nullopt for anything else.
std::optional<CategoryMode> CategoryModeFromName(std::string_view name);

struct PlanOptions {
  std::uint64_t seed = 0;
  // kAll: rollouts per (function, category). kSample: each function gets
  // categories_per_function * replicas tasks, each drawing a category the
  // function has not had yet, until all category_count are used; only then
  // does a category come back (its `replica` counts up from 0).
  int replicas = 1;
  CategoryMode category_mode = CategoryMode::kSample;
  int categories_per_function = 1;  // kSample only
  int category_count = 51;          // index 0 is the generic category
  std::string recipe_hash;          // hash of prompts/config that shape rollouts
};

// Names the field in the message ("plan.replicas must be >= 1, got 0").
Status ValidatePlanOptions(const PlanOptions& options);

struct PlannedTask {
  std::string task_id;  // ContentId({repo, commit, function_id, category, replica, recipe_hash})
  std::string repo;
  std::string commit;
  std::string function_id;  // path::qualname
  std::string file;
  std::string qualname;
  std::string language;
  int start_line = 0;
  int end_line = 0;
  int category = 0;
  int replica = 0;         // earlier tasks of the same (function, category)
  std::uint64_t seed = 0;  // per-task seed (< 2^53, exact in JSON everywhere)
  // Held out for evaluation (holdout.h): runs like any task, never exported
  // for training. Written as "heldout":true only when set, so plans without
  // a split keep their bytes.
  bool heldout = false;
};

// The functions chosen in one repository (SelectFunctions output).
struct RepoSelection {
  std::string repo;    // a stable name for the repository (used in ids and seeds)
  std::string commit;  // resolved commit id ("" for an unpinned directory)
  const CallGraph* graph = nullptr;
  std::vector<std::uint32_t> functions;
};

// Tasks for every repository, in a seeded order (a different seed gives a
// different order). Deterministic.
std::vector<PlannedTask> PlanTasks(const std::vector<RepoSelection>& repos, const PlanOptions& options);

// Distinct functions per directory of the plan, keyed "repo/dir" ("repo/."
// for files at the top of the repository). Works on a reused plan too.
std::map<std::string, std::size_t> PickedPerDirectory(const std::vector<PlannedTask>& tasks);

// The first line of tasks.jsonl, as the journal has one:
//   {"format":"seragen-tasks","version":1}
inline constexpr std::string_view kTasksFormat = "seragen-tasks";
inline constexpr int kTasksVersion = 1;

// The header line, then one JSON object per task (keys sorted), each line
// '\n'-terminated.
std::string WriteTasksJsonl(const std::vector<PlannedTask>& tasks);
// Parses WriteTasksJsonl output; errors name `name` (the file), the line
// number and the field. The plan is written atomically, so a last line
// without its newline means the file was cut: kDataLoss, never a shorter plan.
// A file without the header (written before it existed) is read as tasks
// from line 1; a header of another format is kParseError, of another
// version kFailedPrecondition.
Result<std::vector<PlannedTask>> ReadTasksJsonl(std::string_view text, std::string_view name = "tasks.jsonl");
// The largest plan file ReadTasksFile reads.
inline constexpr std::uint64_t kMaxTasksFileBytes = 4ull << 30;
// Reads and parses a plan file: only a regular file (ReadRegularFile: no
// symbolic link, FIFO or device); kNotFound when it does not exist.
Result<std::vector<PlannedTask>> ReadTasksFile(const std::string& path);
// Durable write of RUN_DIR/tasks.jsonl (or any path).
Status WriteTasksFile(const std::string& path, const std::vector<PlannedTask>& tasks);

}  // namespace seragen::callgraph
