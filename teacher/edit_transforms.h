// Small, plausible source edits the scripted teacher makes to a function it
// has viewed: a None guard, an empty-input check, a boundary fix, a clearer
// error message, or (for languages without a specific rule) a guard comment.
// Pure functions of the file text: the same input gives the same edit.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace seragen::teacher {

enum class EditKind { kGuardNone, kEmptyCheck, kBoundary, kErrorMessage, kCommentGuard };

std::string_view EditKindName(EditKind kind);
// Every kind, in the fixed fallback order.
const std::vector<EditKind>& AllEditKinds();

// What the teacher knows about one file: line texts by 1-based number, as
// read from numbered `view` output. Lines it never saw are absent.
class FileKnowledge {
 public:
  void SetLine(int number, std::string text);
  bool empty() const { return lines_.empty(); }
  // Highest known line number.
  int LastLine() const;
  const std::string* Line(int number) const;
  // Known text joined with '\n' (unknown lines become a line that no edit
  // text can match).
  std::string JoinedText() const;
  // Number of (possibly overlapping) occurrences of `needle` in JoinedText().
  int CountOccurrences(std::string_view needle) const;

 private:
  std::vector<std::optional<std::string>> lines_;  // index 0 is line 1
};

// Parses `cat -n`-style output ("<spaces><number>\t<text>" per line) into
// *knowledge; other lines (headers, notes) are ignored. Returns lines read.
int ReadNumberedView(std::string_view observation, FileKnowledge* knowledge);

struct FunctionSpan {
  int first_line = 0;  // 1-based, the definition line
  int last_line = 0;   // 1-based, inclusive
};

// Where `function_name` is defined in the known text (first definition).
std::optional<FunctionSpan> LocateFunction(const FileKnowledge& file, std::string_view function_name,
                                           std::string_view file_path);

struct FunctionParameter {
  std::string name;
  bool optional = false;  // has a default value or an Optional / None type
};

// The parameters of `function_name` as its definition in the known text lists
// them (self, cls, *args and **kwargs left out); std::nullopt when the
// function is not in the known text.
std::optional<std::vector<FunctionParameter>> FunctionParameters(const FileKnowledge& file,
                                                                 std::string_view function_name,
                                                                 std::string_view file_path);

// Name of the first function defined in the file, if any (for rollouts that
// know only the file).
std::optional<std::string> FirstFunctionName(const FileKnowledge& file, std::string_view file_path);

struct SourceEdit {
  EditKind kind = EditKind::kCommentGuard;
  std::string old_str;  // occurs exactly once in the known text
  std::string new_str;
  std::string subject;  // the parameter or expression the edit is about ("" if none)
  std::string summary;  // one sentence for the agent's reasoning
};

// Tries `kinds` in order and returns the first edit that applies to the
// function. std::nullopt when the function is not in the known text.
std::optional<SourceEdit> MakeEdit(const FileKnowledge& file, std::string_view function_name,
                                   std::string_view file_path, const std::vector<EditKind>& kinds);

}  // namespace seragen::teacher
