// Preparing a run directory, its prompts, repositories and plan (shared by
// `seragen run` and `seragen plan`, which the composition root in cli wires).
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "seragen/callgraph/plan.h"
#include "seragen/config/loader.h"
#include "seragen/pipeline/prompt_library.h"
#include "seragen/repo/repository.h"
#include "seragen/tools/tool_box.h"

namespace seragen::pipeline {

struct PreparedRun {
  std::string run_dir;
  std::string prompts_dir;
  PromptLibrary prompts;
  tools::ToolResources tool_resources;
  std::string recipe_hash;                                         // config recipe + prompt/tool texts
  std::map<std::string, std::shared_ptr<repo::Repository>> repos;  // by name
  std::vector<callgraph::PlannedTask> plan;
  bool plan_reused = false;
  std::vector<std::string> plan_notes;  // per-repo graph/selection summary lines
  std::string previous_config;          // the copy of the config an accepted change replaced (config_record.h)
};

// The prompts and tools a config names (prompts.dir, tools.file; the
// shipped ones when unset), as every rollout of the run gets them.
struct RunResources {
  std::string prompts_dir;
  PromptLibrary prompts;
  tools::ToolResources tool_resources;
};
Result<RunResources> LoadRunResources(const config::Config& cfg);

// Creates/validates RUN_DIR (config compatibility first), loads prompts and
// tools, opens repositories, builds or reuses RUN_DIR/tasks.jsonl, and only
// then records the config (config_record.h).
// kFailedPrecondition for a config change without the flag (message lists
// the changes); kInvalidArgument/kNotFound for bad input; others for I/O.
Result<PreparedRun> PrepareRun(const config::LoadedConfig& loaded, bool allow_config_change);

}  // namespace seragen::pipeline
