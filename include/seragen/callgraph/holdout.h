// The held-out split of a plan (`eval.holdout`, docs/EVAL.md): some selected
// functions are kept out of training so that `seragen eval` can measure a
// model on tasks of the user's own repository it never trained on.
//
// The unit of the split is a group of whole files: every task of a function
// goes with its file, and files holding near-identical functions (the same
// body after the signature, whitespace collapsed, at least kMinBodyLines
// lines) are one group, so a copied function never sits on both sides. Groups
// are drawn in an order seeded by the run seed until the held-out functions
// reach the target. Pure and deterministic: same plan, bodies and options ⇒
// same split.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "seragen/base/result.h"
#include "seragen/callgraph/plan.h"
#include "seragen/callgraph/source_set.h"

namespace seragen::callgraph {

// `eval.holdout`: 0 = off; in (0, 1) a fraction of the selected functions
// (rounded, at least one); an integer >= 1 a count of functions.
struct HoldoutOptions {
  double holdout = 0;
  std::uint64_t seed = 0;  // the run seed
};

// Bodies shorter than this (non-blank lines after the signature) never join
// files into one group: one-line bodies are alike by chance.
inline constexpr int kMinBodyLines = 3;

// "repo\nfunction_id" -> hash of the function's body (see above), for the
// functions of `repo` planned in `tasks`; files that cannot be read are left
// out (their functions are grouped by file only).
using BodyKeys = std::map<std::string, std::uint64_t>;
void AddBodyKeys(const FileSource& source, std::string_view repo, const std::vector<PlannedTask>& tasks,
                 BodyKeys* keys);

// How a plan is split (held-out side; totals for the whole plan).
struct HoldoutSplit {
  std::size_t functions = 0, heldout_functions = 0;
  std::size_t files = 0, heldout_files = 0;
  std::size_t tasks = 0, heldout_tasks = 0;
};

// Sets PlannedTask::heldout on every task of the drawn groups (and clears it
// elsewhere). Never holds out every group: with a single group nothing is
// held out. Returns the split.
HoldoutSplit MarkHoldout(std::vector<PlannedTask>* tasks, const HoldoutOptions& options, const BodyKeys& bodies);

// The split a plan records (works on a reused plan).
HoldoutSplit SplitOf(const std::vector<PlannedTask>& tasks);

// "held out for eval: 3 of 20 functions (2 of 9 files), 3 of 20 tasks".
std::string FormatSplit(const HoldoutSplit& split);

// The files of held-out tasks, per repository (sorted): a training row whose patch
// touches one of them is left out of training exports.
std::map<std::string, std::vector<std::string>> HeldOutFiles(const std::vector<PlannedTask>& tasks);

}  // namespace seragen::callgraph
