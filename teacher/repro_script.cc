#include "teacher/repro_script.h"

#include <algorithm>
#include <cctype>
#include <tuple>

#include "seragen/base/strings.h"

namespace seragen::teacher {
namespace {

bool IsIdentifier(std::string_view s) {
  return !s.empty() && !std::isdigit(static_cast<unsigned char>(s[0])) &&
         std::all_of(s.begin(), s.end(), IsAsciiIdentChar);
}

std::string Indent(std::string_view line) {
  std::size_t i = line.find_first_not_of(" \t");
  return std::string(line.substr(0, i == std::string_view::npos ? line.size() : i));
}

bool HasWord(const std::string& name, std::initializer_list<const char*> words) {
  for (const char* w : words) {
    if (name == w || name.rfind(std::string(w) + "_", 0) == 0 ||
        (name.size() > std::string_view(w).size() + 1 &&
         name.compare(name.size() - std::string_view(w).size() - 1, std::string::npos, "_" + std::string(w)) == 0)) {
      return true;
    }
  }
  return false;
}

// A plain sample value for a parameter, judged from its name.
std::string SampleValue(const std::string& raw_name) {
  const std::string name = AsciiLower(raw_name);
  if (name.rfind("is_", 0) == 0 || name.rfind("has_", 0) == 0 ||
      HasWord(name, {"flag", "enabled", "strict", "verbose", "debug", "force", "recursive"})) {
    return "True";
  }
  if (HasWord(name, {"config", "options", "settings", "mapping", "defaults", "kwargs", "headers", "env", "attrs"})) {
    return "{}";
  }
  if (HasWord(name, {"n",      "i",     "j",      "k",     "x",     "y",        "count",   "num",    "number",
                     "size",   "limit", "level",  "index", "idx",   "quantity", "qty",     "amount", "low",
                     "high",   "lo",    "hi",     "min",   "max",   "start",    "end",     "stop",   "width",
                     "height", "depth", "offset", "step",  "total", "timeout",  "retries", "port",   "value"})) {
    return "3";
  }
  if (HasWord(name, {"name", "key",  "text", "path", "sku", "label", "title",  "prefix", "suffix",  "sep", "message",
                     "msg",  "line", "word", "id",   "url", "s",     "string", "source", "pattern", "code"})) {
    return "\"example\"";
  }
  if (name.size() > 3 && name.back() == 's' && name[name.size() - 2] != 's') return "[1, 2, 3]";
  return "None";
}

// The value that exercises the planned edit's parameter.
std::string EdgeValue(const std::string& name, EditKind kind) {
  if (kind == EditKind::kGuardNone) return "None";
  if (kind == EditKind::kEmptyCheck) {
    const std::string sample = SampleValue(name);
    return sample == "\"example\"" ? "\"\"" : sample == "{}" ? "{}" : "[]";
  }
  return SampleValue(name);
}

// Where the definition of `function` sits: "" and true for a top-level
// function, the class name and true for a method of a top-level class, false
// when it is anything else (nested, conditional, or lines not seen).
std::pair<std::string, bool> Enclosing(const FileKnowledge& file, int def_line) {
  const std::string* def = file.Line(def_line);
  if (def == nullptr) return {"", false};
  const std::string def_indent = Indent(*def);
  if (def_indent.empty()) return {"", true};
  for (int n = def_line - 1; n >= 1; --n) {
    const std::string* line = file.Line(n);
    if (line == nullptr) return {"", false};
    std::string_view t = TrimLineSpace(*line);
    if (t.empty() || t[0] == '#' || t[0] == '@') continue;
    const std::string indent = Indent(*line);
    if (indent.size() >= def_indent.size()) continue;
    if (!indent.empty() || t.rfind("class ", 0) != 0) return {"", false};
    std::string_view rest = TrimLeft(t.substr(6), " \t");
    std::size_t end = 0;
    while (end < rest.size() && IsAsciiIdentChar(rest[end])) ++end;
    std::string name(rest.substr(0, end));
    return {name, IsIdentifier(name)};
  }
  return {"", false};
}

}  // namespace

std::optional<std::string> PythonModuleName(std::string_view rel_path) {
  while (rel_path.rfind("./", 0) == 0) rel_path.remove_prefix(2);
  if (rel_path.size() < 4 || rel_path.substr(rel_path.size() - 3) != ".py") return std::nullopt;
  rel_path.remove_suffix(3);
  if (rel_path.rfind("src/", 0) == 0) rel_path.remove_prefix(4);
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (true) {
    std::size_t slash = rel_path.find('/', start);
    std::string_view part =
        rel_path.substr(start, slash == std::string_view::npos ? std::string_view::npos : slash - start);
    if (!IsIdentifier(part)) return std::nullopt;
    parts.emplace_back(part);
    if (slash == std::string_view::npos) break;
    start = slash + 1;
  }
  if (parts.back() == "__init__") parts.pop_back();
  if (parts.empty()) return std::nullopt;
  std::string module;
  for (const std::string& p : parts) module += (module.empty() ? "" : ".") + p;
  return module;
}

std::string ReproScriptName(std::string_view function) {
  std::size_t cut = function.find_last_of(".:");
  if (cut != std::string_view::npos) function = function.substr(cut + 1);
  std::string name;
  for (char c : function) name.push_back(IsAsciiIdentChar(c) ? c : '_');
  return "repro_" + (name.empty() ? std::string("issue") : name) + ".py";
}

bool IsReproScriptPath(std::string_view rel_path) {
  return rel_path.rfind("repro_", 0) == 0 && rel_path.size() > 9 && rel_path.substr(rel_path.size() - 3) == ".py" &&
         rel_path.find('/') == std::string_view::npos;
}

std::optional<ReproTarget> PythonReproTarget(const FileKnowledge& file, std::string_view function,
                                             std::string_view rel_path, const std::optional<SourceEdit>& planned) {
  std::optional<std::string> module = PythonModuleName(rel_path);
  auto span = LocateFunction(file, function, rel_path);
  auto params = FunctionParameters(file, function, rel_path);
  if (!module || !span || !params || !IsIdentifier(function)) return std::nullopt;
  ReproTarget target;
  target.module = *module;
  target.function = std::string(function);
  std::tie(target.class_name, target.callable) = Enclosing(file, span->first_line);
  const bool guard = planned && (planned->kind == EditKind::kGuardNone || planned->kind == EditKind::kEmptyCheck);
  for (const FunctionParameter& p : *params) {
    const bool suspect = guard && p.name == planned->subject;
    if (p.optional && !suspect) continue;
    target.arguments.emplace_back(p.name, suspect ? EdgeValue(p.name, planned->kind) : SampleValue(p.name));
  }
  return target;
}

std::string PythonReproScript(const ReproTarget& t) {
  const std::string& m = t.module;
  std::string text = "# Reproduction for `" + t.function + "` (module " + m + ").\n";
  text += "import " + m + "\n";
  if (!t.callable) {
    text += "\nprint(\"" + m + " loaded from\", " + m + ".__file__)\n";
    text += "print(\"" + t.function + " is defined inside another function; it cannot be called directly\")\n";
    return text;
  }
  const std::string imported = t.class_name.empty() ? t.function : t.class_name;
  text += "from " + m + " import " + imported + "\n\n";
  text += "print(\"" + m + " loaded from\", " + m + ".__file__)\n";
  std::string args;
  for (const auto& [name, value] : t.arguments) args += (args.empty() ? "" : ", ") + name + "=" + value;
  const std::string call = (t.class_name.empty() ? "" : t.class_name + "().") + t.function + "(" + args + ")";
  std::string shown = call;
  for (std::size_t p = shown.find('"'); p != std::string::npos; p = shown.find('"', p + 2)) shown.insert(p, "\\");
  text += "try:\n";
  text += "    result = " + call + "\n";
  text += "    print(\"" + shown + " returned\", repr(result))\n";
  text += "except Exception as error:  # show the failure instead of stopping\n";
  text += "    print(\"" + shown + " raised\", type(error).__name__ + \":\", error)\n";
  return text;
}

}  // namespace seragen::teacher
