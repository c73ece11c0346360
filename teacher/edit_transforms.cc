#include "teacher/edit_transforms.h"

#include <algorithm>
#include <cctype>

#include "seragen/base/strings.h"

namespace seragen::teacher {
namespace {

// How a file's code is edited: comment marker, parameter syntax, indentation,
// raise vs throw. Deliberately not callgraph::Language: it is keyed by
// extension only, groups languages by surface syntax, and covers files the
// call graph does not parse (Ruby, shell, Kotlin, C#).
enum class EditSyntax { kPython, kJavaScript, kJava, kCStyle, kHashComment };

EditSyntax EditSyntaxOf(std::string_view path) {
  std::size_t dot = path.rfind('.');
  std::string ext = dot == std::string_view::npos ? "" : std::string(path.substr(dot + 1));
  if (ext == "py" || ext == "pyi") return EditSyntax::kPython;
  if (ext == "js" || ext == "jsx" || ext == "mjs" || ext == "cjs" || ext == "ts" || ext == "tsx") {
    return EditSyntax::kJavaScript;
  }
  if (ext == "java" || ext == "kt" || ext == "cs") return EditSyntax::kJava;
  if (ext == "rb" || ext == "sh" || ext == "pl" || ext == "r" || ext == "jl") return EditSyntax::kHashComment;
  return EditSyntax::kCStyle;
}

// Identifier bytes of the languages edited here ('$' for JavaScript and Java).
bool IsIdentCharOrDollar(char c) { return IsAsciiIdentChar(c) || c == '$'; }

std::string LeadingWhitespace(std::string_view line) {
  std::size_t i = 0;
  while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
  return std::string(line.substr(0, i));
}

bool IsBlank(const std::string* line) { return line == nullptr || TrimLineSpace(*line).empty(); }

// Position right after `name` used as a whole identifier followed by '(' (spaces allowed).
std::size_t FindCallLike(std::string_view line, std::string_view name, std::size_t from = 0) {
  std::size_t pos = line.find(name, from);
  while (pos != std::string_view::npos) {
    bool left_ok = pos == 0 || !IsIdentCharOrDollar(line[pos - 1]);
    std::size_t after = pos + name.size();
    bool right_ok = after >= line.size() || !IsIdentCharOrDollar(line[after]);
    if (left_ok && right_ok) {
      std::size_t k = after;
      while (k < line.size() && line[k] == ' ') ++k;
      if (k < line.size() && line[k] == '(') return k;
    }
    pos = line.find(name, pos + 1);
  }
  return std::string_view::npos;
}

struct Param {
  std::string name;
  std::string type;
  std::string default_value;
};

// Splits a parameter list at top-level commas.
std::vector<std::string> SplitTopLevel(std::string_view text) {
  std::vector<std::string> parts;
  int depth = 0;
  char quote = 0;
  std::string current;
  for (char c : text) {
    if (quote != 0) {
      current.push_back(c);
      if (c == quote) quote = 0;
      continue;
    }
    if (c == '"' || c == '\'') quote = c;
    if (c == '(' || c == '[' || c == '{' || c == '<') ++depth;
    if (c == ')' || c == ']' || c == '}' || c == '>') --depth;
    if (c == ',' && depth == 0) {
      parts.push_back(std::string(TrimLineSpace(current)));
      current.clear();
      continue;
    }
    current.push_back(c);
  }
  if (!TrimLineSpace(current).empty()) parts.push_back(std::string(TrimLineSpace(current)));
  return parts;
}

// Text between the '(' at `open` (in the joined signature) and its partner.
std::string ParenContents(std::string_view text, std::size_t open) {
  int depth = 0;
  for (std::size_t i = open; i < text.size(); ++i) {
    if (text[i] == '(') ++depth;
    if (text[i] == ')' && --depth == 0) return std::string(text.substr(open + 1, i - open - 1));
  }
  return std::string(text.substr(open + 1));
}

std::vector<Param> ParsePythonParams(std::string_view list) {
  std::vector<Param> params;
  for (const std::string& raw : SplitTopLevel(list)) {
    if (raw.empty() || raw == "self" || raw == "cls" || raw == "*" || raw == "/" || raw[0] == '*') continue;
    Param p;
    std::size_t eq = raw.find('=');
    std::string head = eq == std::string::npos ? raw : std::string(TrimLineSpace(raw.substr(0, eq)));
    if (eq != std::string::npos) p.default_value = std::string(TrimLineSpace(raw.substr(eq + 1)));
    std::size_t colon = head.find(':');
    p.name = std::string(TrimLineSpace(colon == std::string::npos ? head : head.substr(0, colon)));
    if (colon != std::string::npos) p.type = std::string(TrimLineSpace(head.substr(colon + 1)));
    if (!p.name.empty() && std::all_of(p.name.begin(), p.name.end(), IsIdentCharOrDollar)) params.push_back(p);
  }
  return params;
}

std::vector<Param> ParseGenericParams(std::string_view list, EditSyntax lang, std::string_view path) {
  std::vector<Param> params;
  const bool go = path.size() > 3 && path.substr(path.size() - 3) == ".go";
  for (std::string raw : SplitTopLevel(list)) {
    std::size_t eq = raw.find('=');
    if (eq != std::string::npos) raw = std::string(TrimLineSpace(raw.substr(0, eq)));
    if (raw.empty() || raw == "self" || raw == "&self" || raw == "&mut self" || raw == "void") continue;
    Param p;
    std::size_t colon = raw.find(':');
    if (colon != std::string::npos && lang != EditSyntax::kCStyle) {  // TS / Kotlin "name: Type"
      p.name = std::string(TrimLineSpace(raw.substr(0, colon)));
      p.type = std::string(TrimLineSpace(raw.substr(colon + 1)));
    } else if (colon != std::string::npos) {  // Rust "name: Type"
      p.name = std::string(TrimLineSpace(raw.substr(0, colon)));
      p.type = std::string(TrimLineSpace(raw.substr(colon + 1)));
    } else if (go) {  // Go "name Type"
      std::size_t sp = raw.find(' ');
      p.name = raw.substr(0, sp);
      if (sp != std::string::npos) p.type = std::string(TrimLineSpace(raw.substr(sp + 1)));
    } else {  // C / Java "Type name", JS "name"
      std::size_t end = raw.size();
      while (end > 0 && !IsIdentCharOrDollar(raw[end - 1])) --end;
      std::size_t start = end;
      while (start > 0 && IsIdentCharOrDollar(raw[start - 1])) --start;
      p.name = raw.substr(start, end - start);
      p.type = std::string(TrimLineSpace(raw.substr(0, start)));
    }
    while (!p.name.empty() && (p.name[0] == '.' || p.name[0] == '&' || p.name[0] == '*')) p.name.erase(0, 1);
    if (!p.name.empty() && std::all_of(p.name.begin(), p.name.end(), IsIdentCharOrDollar) &&
        !std::isdigit(static_cast<unsigned char>(p.name[0]))) {
      params.push_back(p);
    }
  }
  return params;
}

// Everything the transforms need about one function.
struct FunctionShape {
  EditSyntax lang = EditSyntax::kPython;
  int def_line = 0;    // 1-based
  int header_end = 0;  // last line of the signature (Python ':' / the '{' line)
  int first_stmt = 0;  // first statement after a docstring (0: none)
  int last_line = 0;
  std::string body_indent;
  std::string indent_unit;
  std::vector<Param> params;
};

std::string IndentUnit(const std::string& outer, const std::string& inner, EditSyntax lang) {
  if (inner.size() > outer.size() && inner.compare(0, outer.size(), outer) == 0) {
    return inner.substr(outer.size());
  }
  return lang == EditSyntax::kJavaScript ? "  " : "    ";
}

int PythonDefLine(const FileKnowledge& f, std::string_view name) {
  for (int n = 1; n <= f.LastLine(); ++n) {
    const std::string* line = f.Line(n);
    if (line == nullptr) continue;
    std::string_view s = TrimLeft(*line, " \t");
    if (s.rfind("async ", 0) == 0) s = TrimLeft(s.substr(6), " \t");
    if (s.rfind("def ", 0) != 0) continue;
    s = TrimLeft(s.substr(4), " \t");
    if (s.rfind(name, 0) == 0 && FindCallLike(s, name) != std::string_view::npos &&
        FindCallLike(s, name) <= name.size() + 2) {
      return n;
    }
  }
  return 0;
}

std::optional<FunctionShape> ShapePython(const FileKnowledge& f, std::string_view name) {
  FunctionShape shape;
  shape.lang = EditSyntax::kPython;
  shape.def_line = PythonDefLine(f, name);
  if (shape.def_line == 0) return std::nullopt;
  const std::string def_indent = LeadingWhitespace(*f.Line(shape.def_line));
  // Signature: until parentheses balance and the line ends with ':'.
  std::string signature;
  int depth = 0;
  int n = shape.def_line;
  for (; n <= f.LastLine() && n < shape.def_line + 40; ++n) {
    const std::string* line = f.Line(n);
    if (line == nullptr) return std::nullopt;
    signature += *line + "\n";
    for (char c : *line) {
      if (c == '(' || c == '[') ++depth;
      if (c == ')' || c == ']') --depth;
    }
    std::string t(TrimLineSpace(*line));
    std::size_t hash = t.find(" #");
    if (hash != std::string::npos) t = std::string(TrimLineSpace(t.substr(0, hash)));
    if (depth <= 0 && !t.empty() && t.back() == ':') break;
  }
  if (n > f.LastLine()) return std::nullopt;
  shape.header_end = n;
  std::size_t open = FindCallLike(signature, name);
  if (open != std::string::npos) shape.params = ParsePythonParams(ParenContents(signature, open));
  // Body.
  int b = n + 1;
  while (b <= f.LastLine() && IsBlank(f.Line(b)) && f.Line(b) != nullptr) ++b;
  if (b > f.LastLine() || f.Line(b) == nullptr) return std::nullopt;
  shape.body_indent = LeadingWhitespace(*f.Line(b));
  if (shape.body_indent.size() <= def_indent.size()) return std::nullopt;  // one-line def
  shape.indent_unit = IndentUnit(def_indent, shape.body_indent, EditSyntax::kPython);
  // Skip a docstring.
  int stmt = b;
  std::string_view first = TrimLeft(*f.Line(b), " \t");
  std::size_t q = first.find_first_not_of("rRuUbB");
  if (q != std::string_view::npos && (first.substr(q, 3) == "\"\"\"" || first.substr(q, 3) == "'''")) {
    std::string triple(first.substr(q, 3));
    int end = b;
    if (first.find(triple, q + 3) == std::string_view::npos) {
      end = b + 1;
      while (end <= f.LastLine() && f.Line(end) != nullptr && f.Line(end)->find(triple) == std::string::npos) {
        ++end;
      }
      if (end > f.LastLine() || f.Line(end) == nullptr) return std::nullopt;
    }
    stmt = end + 1;
    while (stmt <= f.LastLine() && f.Line(stmt) != nullptr && IsBlank(f.Line(stmt))) ++stmt;
    if (stmt > f.LastLine() || f.Line(stmt) == nullptr ||
        LeadingWhitespace(*f.Line(stmt)).size() <= def_indent.size()) {
      stmt = 0;  // docstring-only function
    }
  }
  shape.first_stmt = stmt;
  // End: the last line before something indented at or left of the def.
  int last = b;
  for (int k = b; k <= f.LastLine(); ++k) {
    const std::string* line = f.Line(k);
    if (line == nullptr) break;
    if (IsBlank(line)) continue;
    if (LeadingWhitespace(*line).size() <= def_indent.size()) break;
    last = k;
  }
  shape.last_line = last;
  return shape;
}

std::optional<FunctionShape> ShapeGeneric(const FileKnowledge& f, std::string_view name, std::string_view path) {
  FunctionShape shape;
  shape.lang = EditSyntaxOf(path);
  for (int n = 1; n <= f.LastLine() && shape.def_line == 0; ++n) {
    const std::string* line = f.Line(n);
    if (line == nullptr) continue;
    std::string t(TrimLineSpace(*line));
    if (t.empty() || t.back() == ';' || t.rfind("//", 0) == 0 || t.rfind("#", 0) == 0 || t.rfind("*", 0) == 0 ||
        t.rfind("return", 0) == 0) {
      continue;
    }
    if (FindCallLike(*line, name) == std::string::npos && line->find(std::string(name) + " = (") == std::string::npos &&
        line->find(std::string(name) + " = function") == std::string::npos) {
      continue;
    }
    // The body must open on this line or within the next few.
    for (int k = n; k <= f.LastLine() && k < n + 6; ++k) {
      const std::string* l = f.Line(k);
      if (l == nullptr) break;
      std::string lt(TrimLineSpace(*l));
      if (lt.find('{') != std::string::npos && lt.back() == '{') {
        shape.def_line = n;
        shape.header_end = k;
        break;
      }
      if (!lt.empty() && lt.back() == ';') break;
    }
  }
  if (shape.def_line == 0) return std::nullopt;
  std::string header;
  for (int k = shape.def_line; k <= shape.header_end; ++k) header += *f.Line(k) + "\n";
  std::size_t open = FindCallLike(header, name);
  if (open == std::string::npos) open = header.find('(');
  if (open != std::string::npos) shape.params = ParseGenericParams(ParenContents(header, open), shape.lang, path);
  const std::string def_indent = LeadingWhitespace(*f.Line(shape.def_line));
  int b = shape.header_end + 1;
  while (b <= f.LastLine() && f.Line(b) != nullptr && IsBlank(f.Line(b))) ++b;
  std::string inner = (b <= f.LastLine() && f.Line(b) != nullptr) ? LeadingWhitespace(*f.Line(b)) : "";
  if (inner.size() <= def_indent.size()) inner = def_indent + (shape.lang == EditSyntax::kJavaScript ? "  " : "    ");
  shape.body_indent = inner;
  shape.indent_unit = IndentUnit(def_indent, inner, shape.lang);
  // End: matching brace by counting from the header.
  int depth = 0;
  shape.last_line = shape.header_end;
  for (int k = shape.def_line; k <= f.LastLine(); ++k) {
    const std::string* l = f.Line(k);
    if (l == nullptr) break;
    for (char c : *l) {
      if (c == '{') ++depth;
      if (c == '}') --depth;
    }
    shape.last_line = k;
    if (k >= shape.header_end && depth <= 0) break;
  }
  return shape;
}

std::optional<FunctionShape> Shape(const FileKnowledge& f, std::string_view name, std::string_view path) {
  if (EditSyntaxOf(path) == EditSyntax::kPython) return ShapePython(f, name);
  return ShapeGeneric(f, name, path);
}

// Grows a block of lines [first, last] upwards until its text is unique.
bool MakeUnique(const FileKnowledge& f, int* first, int last, int floor) {
  while (true) {
    std::string text;
    for (int k = *first; k <= last; ++k) {
      const std::string* l = f.Line(k);
      if (l == nullptr) return false;
      text += *l;
      if (k < last) text += "\n";
    }
    if (f.CountOccurrences(text) == 1) return true;
    if (*first <= floor || *first <= 1) return false;
    --*first;
  }
}

std::string JoinLines(const FileKnowledge& f, int first, int last) {
  std::string text;
  for (int k = first; k <= last; ++k) {
    text += *f.Line(k);
    if (k < last) text += "\n";
  }
  return text;
}

// Replaces line `k` by `changed`, with as many lines above it (not above
// `floor`) as make the old text unique in the file; nullopt when none do.
std::optional<SourceEdit> LineEdit(const FileKnowledge& f, int k, int floor, EditKind kind,
                                   const std::string& changed) {
  int first = k;
  if (!MakeUnique(f, &first, k, floor)) return std::nullopt;
  SourceEdit edit;
  edit.kind = kind;
  edit.old_str = JoinLines(f, first, k);
  edit.new_str = (first < k ? JoinLines(f, first, k - 1) + "\n" : "") + changed;
  return edit;
}

// Inserts `block` (already indented, '\n'-joined) before line `anchor`
// (or after it when `after` is set).
std::optional<SourceEdit> InsertAt(const FileKnowledge& f, int anchor, bool after, const std::string& block,
                                   int floor) {
  int first = anchor;
  if (!MakeUnique(f, &first, anchor, floor)) return std::nullopt;
  SourceEdit edit;
  edit.old_str = JoinLines(f, first, anchor);
  if (after) {
    edit.new_str = edit.old_str + "\n" + block;
  } else {
    std::string prefix = first < anchor ? JoinLines(f, first, anchor - 1) + "\n" : "";
    edit.new_str = prefix + block + "\n" + *f.Line(anchor);
  }
  return edit;
}

bool LooksLikeCollection(const std::string& name) {
  static const char* kWords[] = {"list",  "items", "names",   "values",  "keys", "data",   "text", "path",
                                 "lines", "rows",  "entries", "records", "seq",  "string", "args", "buf"};
  for (const char* w : kWords) {
    if (name.find(w) != std::string::npos) return true;
  }
  return name.size() > 3 && name.back() == 's' && name[name.size() - 2] != 's';
}

std::optional<SourceEdit> GuardEdit(const FileKnowledge& f, const FunctionShape& s, std::string_view func,
                                    bool empty_check) {
  const Param* chosen = nullptr;
  for (const Param& p : s.params) {
    bool optional = !p.default_value.empty() || p.type.find("Optional") != std::string::npos ||
                    p.type.find("None") != std::string::npos || p.type.find('?') != std::string::npos;
    if (optional) continue;
    if (empty_check && !LooksLikeCollection(p.name)) continue;
    chosen = &p;
    break;
  }
  if (chosen == nullptr) return std::nullopt;
  const std::string& bi = s.body_indent;
  const std::string in2 = bi + s.indent_unit;
  const std::string fn(func);
  std::string block;
  if (s.lang == EditSyntax::kPython) {
    if (empty_check) {
      block = bi + "if not " + chosen->name + ":\n" + in2 + "raise ValueError(\"" + fn + "() needs a non-empty '" +
              chosen->name + "'\")";
    } else {
      block = bi + "if " + chosen->name + " is None:\n" + in2 + "raise ValueError(\"" + fn + "() got None for '" +
              chosen->name + "'\")";
    }
  } else if (s.lang == EditSyntax::kJavaScript && !empty_check) {
    block = bi + "if (" + chosen->name + " === undefined || " + chosen->name + " === null) {\n" + in2 +
            "throw new TypeError(\"" + fn + ": '" + chosen->name + "' is required\");\n" + bi + "}";
  } else if (s.lang == EditSyntax::kJava && !empty_check && !chosen->type.empty() &&
             std::isupper(static_cast<unsigned char>(chosen->type[0]))) {
    block = bi + "if (" + chosen->name + " == null) {\n" + in2 + "throw new IllegalArgumentException(\"" + fn + ": '" +
            chosen->name + "' must not be null\");\n" + bi + "}";
  } else {
    return std::nullopt;
  }
  std::optional<SourceEdit> edit;
  if (s.lang == EditSyntax::kPython) {
    // Before the first statement; in a docstring-only body, after its end.
    edit = s.first_stmt != 0 ? InsertAt(f, s.first_stmt, false, block, s.def_line)
                             : InsertAt(f, s.last_line, true, block, s.def_line);
  } else {
    edit = InsertAt(f, s.header_end, true, block, s.def_line);
  }
  if (!edit) return std::nullopt;
  edit->kind = empty_check ? EditKind::kEmptyCheck : EditKind::kGuardNone;
  edit->subject = chosen->name;
  edit->summary = empty_check ? "reject an empty `" + chosen->name + "` up front instead of failing later"
                              : "reject a missing `" + chosen->name + "` up front instead of failing later";
  return edit;
}

bool HasQuote(std::string_view s) {
  return s.find('"') != std::string_view::npos || s.find('\'') != std::string_view::npos;
}

std::optional<SourceEdit> BoundaryEdit(const FileKnowledge& f, const FunctionShape& s) {
  struct Swap {
    const char* from;
    const char* to;
  };
  static const Swap kSwaps[] = {{" <= ", " < "}, {" >= ", " > "}, {" < ", " <= "}, {" > ", " >= "}, {"- 1)", ")"}};
  int body_start = s.header_end + 1;
  for (int k = body_start; k <= s.last_line; ++k) {
    const std::string* line = f.Line(k);
    if (line == nullptr) continue;
    std::string_view t = TrimLeft(*line, " \t");
    bool conditional = t.rfind("if ", 0) == 0 || t.rfind("elif ", 0) == 0 || t.rfind("while ", 0) == 0 ||
                       t.rfind("return ", 0) == 0 || t.rfind("for ", 0) == 0 || t.rfind("} else if", 0) == 0;
    if (!conditional || HasQuote(t) || t.find("#") != std::string_view::npos ||
        t.find("//") != std::string_view::npos) {
      continue;
    }
    for (const Swap& sw : kSwaps) {
      std::size_t pos = line->find(sw.from);
      if (pos == std::string::npos) continue;
      if (std::string(sw.from) == "- 1)" && line->find("len(") == std::string::npos &&
          line->find("length") == std::string::npos && line->find("size") == std::string::npos) {
        continue;
      }
      std::string changed = *line;
      changed.replace(pos, std::string(sw.from).size(), sw.to);
      std::optional<SourceEdit> edit = LineEdit(f, k, s.def_line, EditKind::kBoundary, changed);
      if (edit) {
        edit->subject = std::string(TrimLineSpace(t));
        edit->summary = "fix the comparison in `" + edit->subject + "` so the limit case is handled";
      }
      return edit;
    }
  }
  return std::nullopt;
}

std::optional<SourceEdit> ErrorMessageEdit(const FileKnowledge& f, const FunctionShape& s, std::string_view func) {
  for (int k = s.header_end + 1; k <= s.last_line; ++k) {
    const std::string* line = f.Line(k);
    if (line == nullptr) continue;
    std::string_view t = TrimLeft(*line, " \t");
    std::string_view keyword = s.lang == EditSyntax::kPython ? "raise " : "throw new ";
    if (t.rfind(keyword, 0) != 0) continue;
    std::size_t open = t.find("(\"");
    char quote = '"';
    if (open == std::string_view::npos && s.lang == EditSyntax::kPython) {
      open = t.find("('");
      quote = '\'';
    }
    if (open == std::string_view::npos) continue;
    std::size_t msg_start = open + 2;
    std::size_t msg_end = t.find(quote, msg_start);
    if (msg_end == std::string_view::npos) continue;
    std::string_view rest = t.substr(msg_end + 1);
    if (rest != ")" && rest != ");") continue;
    std::string msg(t.substr(msg_start, msg_end - msg_start));
    if (msg.find('{') != std::string::npos || msg.find('\\') != std::string::npos) continue;
    std::string detail;
    std::string new_literal;
    const Param* p = s.params.empty() ? nullptr : &s.params.front();
    if (s.lang == EditSyntax::kPython && p != nullptr) {
      new_literal = std::string("f") + quote + msg + " (" + p->name + "={" + p->name + "!r})" + quote;
    } else {
      new_literal = std::string(1, quote) + msg + " in " + std::string(func) + "()" + quote;
    }
    std::string changed =
        LeadingWhitespace(*line) + std::string(t.substr(0, open + 1)) + new_literal + std::string(rest);
    std::optional<SourceEdit> edit = LineEdit(f, k, s.def_line, EditKind::kErrorMessage, changed);
    if (edit) {
      edit->subject = msg;
      edit->summary = "make the error raised for \"" + msg + "\" say which value caused it";
    }
    return edit;
  }
  return std::nullopt;
}

std::optional<SourceEdit> CommentEdit(const FileKnowledge& f, const FunctionShape& s, std::string_view func) {
  const std::string marker = s.lang == EditSyntax::kPython || s.lang == EditSyntax::kHashComment ? "# " : "// ";
  std::string subject = s.params.empty() ? "" : s.params.front().name;
  std::string text =
      subject.empty() ? marker + "Callers rely on " + std::string(func) + " having no side effects before this point."
                      : marker + "'" + subject + "' comes straight from the caller; it is checked before use below.";
  std::optional<SourceEdit> edit;
  if (s.lang == EditSyntax::kPython && s.first_stmt != 0) {
    edit = InsertAt(f, s.first_stmt, false, s.body_indent + text, s.def_line);
  } else if (s.lang == EditSyntax::kPython) {
    edit = InsertAt(f, s.last_line, true, s.body_indent + text, s.def_line);
  } else {
    edit = InsertAt(f, s.header_end, true, s.body_indent + text, s.def_line);
  }
  if (!edit) return std::nullopt;
  edit->kind = EditKind::kCommentGuard;
  edit->subject = subject;
  edit->summary = "document the assumption `" + std::string(func) + "` makes about its input";
  return edit;
}

}  // namespace

std::string_view EditKindName(EditKind kind) {
  switch (kind) {
    case EditKind::kGuardNone: return "guard_none";
    case EditKind::kEmptyCheck: return "empty_check";
    case EditKind::kBoundary: return "boundary";
    case EditKind::kErrorMessage: return "error_message";
    case EditKind::kCommentGuard: return "comment_guard";
  }
  return "comment_guard";
}

const std::vector<EditKind>& AllEditKinds() {
  static const std::vector<EditKind> kAll = {EditKind::kGuardNone, EditKind::kEmptyCheck, EditKind::kBoundary,
                                             EditKind::kErrorMessage, EditKind::kCommentGuard};
  return kAll;
}

void FileKnowledge::SetLine(int number, std::string text) {
  if (number < 1 || number > 10'000'000) return;
  if (static_cast<std::size_t>(number) > lines_.size()) lines_.resize(number);
  lines_[number - 1] = std::move(text);
}

int FileKnowledge::LastLine() const { return static_cast<int>(lines_.size()); }

const std::string* FileKnowledge::Line(int number) const {
  if (number < 1 || number > LastLine() || !lines_[number - 1]) return nullptr;
  return &*lines_[number - 1];
}

std::string FileKnowledge::JoinedText() const {
  std::string text;
  for (std::size_t i = 0; i < lines_.size(); ++i) {
    text += lines_[i] ? *lines_[i] : std::string("\x01\x02unknown\x02\x01");
    if (i + 1 < lines_.size()) text += "\n";
  }
  return text;
}

int FileKnowledge::CountOccurrences(std::string_view needle) const {
  if (needle.empty()) return 0;
  std::string text = JoinedText();
  int count = 0;
  for (std::size_t pos = text.find(needle); pos != std::string::npos; pos = text.find(needle, pos + 1)) ++count;
  return count;
}

int ReadNumberedView(std::string_view observation, FileKnowledge* knowledge) {
  int read = 0;
  std::size_t start = 0;
  while (start <= observation.size()) {
    std::size_t end = observation.find('\n', start);
    std::string_view line =
        observation.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
    std::size_t i = 0;
    while (i < line.size() && line[i] == ' ') ++i;
    std::size_t digits = i;
    while (i < line.size() && std::isdigit(static_cast<unsigned char>(line[i]))) ++i;
    if (i > digits && i - digits <= 9 && i < line.size() && line[i] == '\t') {
      int number = std::stoi(std::string(line.substr(digits, i - digits)));
      knowledge->SetLine(number, std::string(line.substr(i + 1)));
      ++read;
    }
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  return read;
}

std::optional<FunctionSpan> LocateFunction(const FileKnowledge& file, std::string_view function_name,
                                           std::string_view file_path) {
  auto shape = Shape(file, function_name, file_path);
  if (!shape) return std::nullopt;
  return FunctionSpan{shape->def_line, shape->last_line};
}

std::optional<std::vector<FunctionParameter>> FunctionParameters(const FileKnowledge& file,
                                                                 std::string_view function_name,
                                                                 std::string_view file_path) {
  auto shape = Shape(file, function_name, file_path);
  if (!shape) return std::nullopt;
  std::vector<FunctionParameter> out;
  for (const Param& p : shape->params) {
    bool optional = !p.default_value.empty() || p.type.find("Optional") != std::string::npos ||
                    p.type.find("None") != std::string::npos || p.type.find('?') != std::string::npos;
    out.push_back({p.name, optional});
  }
  return out;
}

std::optional<std::string> FirstFunctionName(const FileKnowledge& file, std::string_view file_path) {
  const bool python = EditSyntaxOf(file_path) == EditSyntax::kPython;
  for (int n = 1; n <= file.LastLine(); ++n) {
    const std::string* line = file.Line(n);
    if (line == nullptr) continue;
    std::string_view t = TrimLeft(*line, " \t");
    if (t.rfind("async ", 0) == 0) t = TrimLeft(t.substr(6), " \t");
    std::size_t skip = 0;
    if (python && t.rfind("def ", 0) == 0) skip = 4;
    if (!python && t.rfind("function ", 0) == 0) skip = 9;
    if (!python && t.rfind("func ", 0) == 0) skip = 5;
    if (!python && t.rfind("fn ", 0) == 0) skip = 3;
    if (skip == 0) continue;
    t = TrimLeft(t.substr(skip), " \t");
    std::size_t len = 0;
    while (len < t.size() && IsIdentCharOrDollar(t[len])) ++len;
    if (len > 0 && !(len >= 2 && t[0] == '_' && t[1] == '_')) return std::string(t.substr(0, len));
  }
  return std::nullopt;
}

std::optional<SourceEdit> MakeEdit(const FileKnowledge& file, std::string_view function_name,
                                   std::string_view file_path, const std::vector<EditKind>& kinds) {
  auto shape = Shape(file, function_name, file_path);
  if (!shape) return std::nullopt;
  for (EditKind kind : kinds) {
    std::optional<SourceEdit> edit;
    switch (kind) {
      case EditKind::kGuardNone: edit = GuardEdit(file, *shape, function_name, false); break;
      case EditKind::kEmptyCheck: edit = GuardEdit(file, *shape, function_name, true); break;
      case EditKind::kBoundary: edit = BoundaryEdit(file, *shape); break;
      case EditKind::kErrorMessage: edit = ErrorMessageEdit(file, *shape, function_name); break;
      case EditKind::kCommentGuard: edit = CommentEdit(file, *shape, function_name); break;
    }
    if (edit && edit->old_str != edit->new_str && file.CountOccurrences(edit->old_str) == 1) return edit;
  }
  return std::nullopt;
}

}  // namespace seragen::teacher
