// Internal to the teacher: reading facts out of free text (issues, patches,
// category topics) that the rollout and text policies share.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "teacher/edit_transforms.h"

namespace seragen::teacher {

// A function and file a piece of text points at ("" when not found).
struct TextTarget {
  std::string function;
  std::string path;  // as written (relative or absolute)
};

// Looks for `identifier(...)`/`identifier` in backticks, bare `name(` calls
// and source-file paths. `repo_root` is stripped from absolute paths.
TextTarget FindTargetInText(std::string_view text, std::string_view repo_root);

// Every plausible function name the text mentions, most likely first:
// backticked calls, then backticked identifiers, then bare calls.
std::vector<std::string> FunctionCandidates(std::string_view text);

// Edit kinds that fit a category topic best, most fitting first.
std::vector<EditKind> PreferredKindsForTopic(std::string_view topic);

// The kind of change an issue text describes, judged from its symptoms.
EditKind InferKindFromIssue(std::string_view issue_text);

struct PatchFacts {
  std::string path;                 // from "+++ b/..."
  std::string function;             // enclosing function, if the patch or notes reveal it
  bool function_from_diff = false;  // `function` is a definition line of the diff's context
  std::vector<std::string> added;
  std::vector<std::string> removed;
  EditKind kind = EditKind::kCommentGuard;
  std::string subject;  // parameter / expression / message the change is about
  bool empty = true;
};

PatchFacts AnalyzePatch(std::string_view patch, std::string_view notes);

// True when the text has a source-file extension the teacher knows.
bool IsSourcePath(std::string_view token);

}  // namespace seragen::teacher
