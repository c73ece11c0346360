#include "seragen/verify/verify_command.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "seragen/base/file_util.h"

namespace seragen::verify {
namespace {

// A unified diff has a "diff --git", "---", "+++" or "@@" line; a file of
// only whitespace is an empty patch.
bool LooksLikePatch(std::string_view text) {
  if (text.find_first_not_of(" \t\r\n") == std::string_view::npos) return true;
  for (std::size_t start = 0; start < text.size();) {
    std::size_t end = text.find('\n', start);
    std::string_view line = text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
    for (std::string_view head : {"diff --git ", "--- ", "+++ ", "@@ "}) {
      if (line.starts_with(head)) return true;
    }
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  return false;
}

Result<std::string> ReadPatch(const std::string& path, std::string_view which) {
  auto text = ReadFile(path);
  if (!text.ok()) return text.status().WithContext(fmt::format("cannot read patch {}", which));
  if (!LooksLikePatch(*text)) {
    return InvalidArgumentError(
        fmt::format("{} ({}) is not a unified diff: it has no 'diff --git', '---', '+++' or "
                    "'@@' line (an empty file is read as an empty patch)",
                    which, path));
  }
  return text;
}

std::string HumanReport(const VerifyCommandOptions& o, const VerifyCommandOutput& out) {
  std::string text =
      fmt::format("P1: {}\nP2: {}\nrule:             {}\n", o.p1_path, o.p2_path, VerifyRuleName(out.scores.rule));
  text += FormatScores(out.scores);
  text += fmt::format("threshold:        {}\n", o.threshold);
  if (!out.scores.scorable && out.scores.p2_blank) {
    text += "verdict:          not scorable (P2 is empty; never accepted)\n";
  } else if (!out.scores.scorable) {
    text += "verdict:          not scorable (P1 has no changed lines; never accepted)\n";
  } else if (out.accepted) {
    text += fmt::format("verdict:          accepted (recall {:.4f} >= {})\n", out.scores.recall, o.threshold);
  } else {
    text += fmt::format("verdict:          rejected (recall {:.4f} < {})\n", out.scores.recall, o.threshold);
  }
  return text;
}

std::string JsonReport(const VerifyCommandOptions& o, const VerifyCommandOutput& out) {
  nlohmann::ordered_json j;
  j["p1"] = o.p1_path;
  j["p2"] = o.p2_path;
  nlohmann::ordered_json scores = nlohmann::ordered_json::parse(ScoresToJson(out.scores));
  for (auto& [key, value] : scores.items()) j[key] = value;
  j["threshold"] = o.threshold;
  j["accepted"] = out.accepted;
  // Paths are bytes from the command line; replace invalid UTF-8 instead of throwing.
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace

Result<VerifyCommandOutput> RunVerifyCommand(const VerifyCommandOptions& options) {
  SG_RETURN_IF_ERROR(ValidateThreshold(options.threshold));
  SG_ASSIGN_OR_RETURN(std::string p1, ReadPatch(options.p1_path, "P1"));
  SG_ASSIGN_OR_RETURN(std::string p2, ReadPatch(options.p2_path, "P2"));
  VerifyCommandOutput out;
  out.scores = ScorePatches(p1, p2, options.rule);
  out.accepted = Accept(out.scores, options.threshold);
  out.text = options.json ? JsonReport(options, out) : HumanReport(options, out);
  return out;
}

}  // namespace seragen::verify
