// The comparison page of several `seragen eval` directories (docs/EVAL.md,
// "Comparing models"): one self-contained HTML file, no script, that opens
// from disk. Per model its rates with their 95% intervals (also drawn as bars
// with whiskers), tokens and wall time per task; then the per-task table,
// one row per task, each model's resolved/rollouts and mean recall.
// Labels, model ids, directories and task ids come from the evaluation
// directories (files a user may have been handed): all escaped and clipped.
#pragma once

#include <string>
#include <vector>

#include "seragen/eval/eval_summary.h"

namespace seragen::report {

// The page for `models`, in the order given (e.g. teacher, base student,
// fine-tuned student).
std::string RenderEvalComparison(const std::vector<eval::EvalSummary>& models);

}  // namespace seragen::report
