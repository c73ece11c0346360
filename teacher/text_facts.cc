#include "text_facts.h"

#include <algorithm>
#include <cctype>

#include "seragen/base/strings.h"

namespace seragen::teacher {
namespace {

bool IsIdentifier(std::string_view s) {
  return !s.empty() && !std::isdigit(static_cast<unsigned char>(s[0])) &&
         std::all_of(s.begin(), s.end(), IsAsciiIdentChar);
}

bool Contains(std::string_view hay, std::string_view needle) { return hay.find(needle) != std::string_view::npos; }

std::string StripRoot(std::string path, std::string_view repo_root) {
  std::string root(repo_root);
  if (!root.empty() && root.back() != '/') root += '/';
  if (!root.empty() && path.rfind(root, 0) == 0) path = path.substr(root.size());
  while (path.rfind("./", 0) == 0) path = path.substr(2);
  return path;
}

// Words that look like calls but are not what a user means by "the function".
bool IsNoiseName(std::string_view name) {
  static const char* kNoise[] = {"print", "len",  "str",   "int",  "dict",   "list", "range", "isinstance", "repr",
                                 "None",  "True", "False", "self", "return", "if",   "for",   "while",      "assert"};
  for (const char* n : kNoise) {
    if (name == n) return true;
  }
  return false;
}

}  // namespace

bool IsSourcePath(std::string_view token) {
  static const char* kExt[] = {".py", ".js", ".jsx", ".mjs", ".ts",  ".tsx", ".go", ".rs",  ".java",  ".kt",
                               ".c",  ".h",  ".cc",  ".cpp", ".hpp", ".cs",  ".rb", ".php", ".swift", ".scala"};
  for (const char* e : kExt) {
    std::string_view ext(e);
    if (token.size() > ext.size() && token.substr(token.size() - ext.size()) == ext) return true;
  }
  return false;
}

std::vector<std::string> FunctionCandidates(std::string_view text) {
  std::vector<std::string> calls, names, bare;
  auto add = [](std::vector<std::string>& list, std::string_view name) {
    std::string n(name);
    if (std::find(list.begin(), list.end(), n) == list.end()) list.push_back(n);
  };
  std::size_t pos = 0;
  while ((pos = text.find('`', pos)) != std::string_view::npos) {
    std::size_t end = text.find('`', pos + 1);
    if (end == std::string_view::npos) break;
    std::string_view span = text.substr(pos + 1, end - pos - 1);
    pos = end + 1;
    if (span.empty() || span.size() > 200 || IsSourcePath(span)) continue;
    std::string_view name = span.substr(0, span.find('('));
    std::size_t dot = name.rfind('.');
    if (dot != std::string_view::npos) name = name.substr(dot + 1);
    if (!IsIdentifier(name) || IsNoiseName(name)) continue;
    add(span.find('(') != std::string_view::npos ? calls : names, name);
  }
  for (std::size_t p = text.find('('); p != std::string_view::npos; p = text.find('(', p + 1)) {
    std::size_t s = p;
    while (s > 0 && IsAsciiIdentChar(text[s - 1])) --s;
    std::string_view name = text.substr(s, p - s);
    if (name.size() >= 3 && IsIdentifier(name) && !IsNoiseName(name)) add(bare, name);
  }
  std::vector<std::string> all;
  for (auto* list : {&calls, &names, &bare}) {
    for (const std::string& n : *list) {
      if (std::find(all.begin(), all.end(), n) == all.end()) all.push_back(n);
    }
  }
  return all;
}

TextTarget FindTargetInText(std::string_view text, std::string_view repo_root) {
  TextTarget target;
  std::vector<std::string> candidates = FunctionCandidates(text);
  if (!candidates.empty()) target.function = candidates.front();
  // Backticked file paths first, then bare paths anywhere.
  std::size_t pos = 0;
  while (target.path.empty() && (pos = text.find('`', pos)) != std::string_view::npos) {
    std::size_t end = text.find('`', pos + 1);
    if (end == std::string_view::npos) break;
    std::string_view span = text.substr(pos + 1, end - pos - 1);
    pos = end + 1;
    if (IsSourcePath(span) && span.find(' ') == std::string_view::npos) {
      target.path = StripRoot(std::string(span), repo_root);
    }
  }
  if (target.path.empty()) {
    std::size_t i = 0;
    while (i < text.size()) {
      while (i < text.size() && (std::isspace(static_cast<unsigned char>(text[i])) || text[i] == '"' ||
                                 text[i] == '\'' || text[i] == '(')) {
        ++i;
      }
      std::size_t start = i;
      while (i < text.size() && !std::isspace(static_cast<unsigned char>(text[i])) && text[i] != '"' &&
             text[i] != '\'' && text[i] != ',' && text[i] != ')' && text[i] != ':') {
        ++i;
      }
      std::string_view token = text.substr(start, i - start);
      while (!token.empty() && (token.back() == '.' || token.back() == ';')) token.remove_suffix(1);
      if (IsSourcePath(token)) {
        target.path = StripRoot(std::string(token), repo_root);
        break;
      }
      if (i == start) ++i;
    }
  }
  return target;
}

std::vector<EditKind> PreferredKindsForTopic(std::string_view topic) {
  const std::string t = AsciiLower(topic);
  if (Contains(t, "null") || Contains(t, "none") || Contains(t, "optional")) {
    return {EditKind::kGuardNone, EditKind::kEmptyCheck};
  }
  if (Contains(t, "boundary") || Contains(t, "edge") || Contains(t, "algorithm") || Contains(t, "control flow") ||
      Contains(t, "logical") || Contains(t, "output correctness")) {
    return {EditKind::kBoundary, EditKind::kEmptyCheck};
  }
  if (Contains(t, "error") || Contains(t, "exception") || Contains(t, "logging") || Contains(t, "debug") ||
      Contains(t, "documentation") || Contains(t, "naming") || Contains(t, "observab")) {
    return {EditKind::kErrorMessage, EditKind::kGuardNone};
  }
  if (Contains(t, "validation") || Contains(t, "precondition") || Contains(t, "assumption") || Contains(t, "sanitiz") ||
      Contains(t, "contract") || Contains(t, "invariant") || Contains(t, "rules")) {
    return {EditKind::kGuardNone, EditKind::kEmptyCheck, EditKind::kErrorMessage};
  }
  return {EditKind::kGuardNone, EditKind::kEmptyCheck, EditKind::kBoundary, EditKind::kErrorMessage};
}

EditKind InferKindFromIssue(std::string_view issue_text) {
  const std::string t = AsciiLower(issue_text);
  if (Contains(t, "error message") || Contains(t, "the message") || Contains(t, "does not say") ||
      Contains(t, "doesn't say")) {
    return EditKind::kErrorMessage;
  }
  if (Contains(t, "none") || Contains(t, "null") || Contains(t, "undefined")) return EditKind::kGuardNone;
  if (Contains(t, "empty")) return EditKind::kEmptyCheck;
  if (Contains(t, "boundary") || Contains(t, "exactly") || Contains(t, "limit") || Contains(t, "off by") ||
      Contains(t, "last ") || Contains(t, "edge")) {
    return EditKind::kBoundary;
  }
  return EditKind::kCommentGuard;
}

PatchFacts AnalyzePatch(std::string_view patch, std::string_view notes) {
  PatchFacts facts;
  std::vector<std::string> context;
  std::size_t start = 0;
  while (start < patch.size()) {
    std::size_t end = patch.find('\n', start);
    std::string line(patch.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
    start = end == std::string_view::npos ? patch.size() : end + 1;
    if (line.rfind("+++ ", 0) == 0) {
      std::string p = line.substr(4);
      if (p.rfind("b/", 0) == 0) p = p.substr(2);
      if (facts.path.empty() && p != "/dev/null") facts.path = p;
      continue;
    }
    if (line.rfind("--- ", 0) == 0 || line.rfind("diff ", 0) == 0 || line.rfind("index ", 0) == 0) continue;
    if (line.rfind("@@", 0) == 0) {
      std::size_t close = line.find("@@", 2);
      if (close != std::string::npos && facts.added.empty() && facts.removed.empty()) {
        context.push_back(line.substr(close + 2));
      }
      continue;
    }
    if (!line.empty() && line[0] == '+') facts.added.push_back(line.substr(1));
    else if (!line.empty() && line[0] == '-') facts.removed.push_back(line.substr(1));
    else if (!line.empty() && facts.added.empty() && facts.removed.empty()) {
      context.push_back(line.substr(1));  // only what precedes the first change
    }
  }
  facts.empty = facts.added.empty() && facts.removed.empty();
  // Enclosing function: the last definition line before the first change.
  for (const std::string& c : context) {
    std::size_t d = c.find("def ");
    if (d == std::string::npos) d = c.find("function ");
    if (d == std::string::npos) continue;
    std::size_t s = c.find(' ', d) + 1;
    std::size_t e = s;
    while (e < c.size() && IsAsciiIdentChar(c[e])) ++e;
    if (e > s) facts.function = c.substr(s, e - s);
  }
  facts.function_from_diff = !facts.function.empty();
  if (facts.function.empty()) facts.function = FindTargetInText(notes, "/repo").function;
  if (facts.path.empty()) facts.path = FindTargetInText(notes, "/repo").path;
  // What kind of change it is.
  auto added_has = [&](std::string_view needle) {
    for (const std::string& a : facts.added) {
      if (a.find(needle) != std::string::npos) return true;
    }
    return false;
  };
  auto subject_after = [&](std::string_view head, std::string_view tail) {
    for (const std::string& a : facts.added) {
      std::size_t h = a.find(head);
      if (h == std::string::npos) continue;
      std::size_t s = h + head.size();
      std::size_t e = a.find(tail, s);
      if (e != std::string::npos) return a.substr(s, e - s);
    }
    return std::string();
  };
  if (added_has(" is None:") || added_has("=== null") || added_has("== null)")) {
    facts.kind = EditKind::kGuardNone;
    facts.subject = subject_after("if ", " is None");
    if (facts.subject.empty()) facts.subject = subject_after("if (", " ===");
    if (facts.subject.empty()) facts.subject = subject_after("if (", " ==");
  } else if (added_has("if not ") && added_has("non-empty")) {
    facts.kind = EditKind::kEmptyCheck;
    facts.subject = subject_after("if not ", ":");
  } else if (!facts.removed.empty() &&
             (added_has(" <= ") || added_has(" >= ") || added_has(" < ") || added_has(" > ") || added_has("len("))) {
    facts.kind = EditKind::kBoundary;
    std::string a = facts.added.front();
    std::size_t b = a.find_first_not_of(" \t");
    facts.subject = b == std::string::npos ? a : a.substr(b);
  } else if (!facts.removed.empty() && (added_has("raise ") || added_has("throw "))) {
    facts.kind = EditKind::kErrorMessage;
    facts.subject = subject_after("(\"", "\"");
    if (facts.subject.empty()) facts.subject = subject_after("(f\"", " (");
  } else {
    facts.kind = EditKind::kCommentGuard;
  }
  return facts;
}

}  // namespace seragen::teacher
