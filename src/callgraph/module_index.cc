#include "callgraph/module_index.h"

#include <algorithm>
#include <set>

#include "callgraph/language_rules.h"
#include "seragen/base/strings.h"

namespace seragen::callgraph {
namespace {

std::string_view StripExtension(std::string_view path) {
  std::size_t slash = path.rfind('/');
  std::size_t dot = path.rfind('.');
  if (dot == std::string_view::npos || (slash != std::string_view::npos && dot < slash)) return path;
  return path.substr(0, dot);
}

std::string_view BaseName(std::string_view path) {
  std::size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

// key equals `tail` or ends with "/" + tail.
bool KeyEndsWithPath(std::string_view key, std::string_view tail) {
  if (key == tail) return true;
  return key.size() > tail.size() && key.ends_with(tail) && key[key.size() - tail.size() - 1] == '/';
}

std::string Join(std::string_view a, std::string_view b) {
  if (a.empty()) return std::string(b);
  if (b.empty()) return std::string(a);
  return std::string(a) + "/" + std::string(b);
}

std::size_t CommonPrefixSegments(std::string_view a, std::string_view b) {
  std::size_t count = 0;
  std::size_t i = 0;
  while (i < a.size() && i < b.size()) {
    std::size_t ea = a.find('/', i);
    std::size_t eb = b.find('/', i);
    if (ea == std::string_view::npos) ea = a.size();
    if (eb == std::string_view::npos) eb = b.size();
    if (ea != eb || a.substr(i, ea - i) != b.substr(i, eb - i)) break;
    ++count;
    i = ea + 1;
  }
  return count;
}

std::string Tagged(std::string_view tag, std::string_view key) { return std::string(tag) + std::string(key); }

std::string_view TagFor(ModuleSystem system) {
  switch (system) {
    case ModuleSystem::kPython: return "py:";
    case ModuleSystem::kJavaScript: return "js:";
    case ModuleSystem::kGo: return "go:";
    case ModuleSystem::kRust: return "rs:";
    case ModuleSystem::kJava: return "java:";
    case ModuleSystem::kInclude: return "inc:";
  }
  return "?:";
}

}  // namespace

std::string DirName(std::string_view path) {
  std::size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? std::string() : std::string(path.substr(0, slash));
}

std::optional<std::string> NormalizeRelative(std::string_view path) {
  std::vector<std::string> parts;
  for (std::string& part : SplitOn(path, "/")) {
    if (part.empty() || part == ".") continue;
    if (part == "..") {
      if (parts.empty()) return std::nullopt;
      parts.pop_back();
      continue;
    }
    parts.push_back(std::move(part));
  }
  std::string out;
  for (const std::string& part : parts) out = Join(out, part);
  return out;
}

ModuleIndex::ModuleIndex(const std::vector<FileFacts>& files)
    : files_(files), module_of_(files.size()), crate_root_of_(files.size()), included_(files.size()) {
  std::set<std::string> rust_roots;  // directories holding lib.rs / main.rs
  for (const FileFacts& facts : files) {
    if (facts.language != Language::kRust) continue;
    std::string_view base = BaseName(facts.path);
    if (base == "lib.rs" || base == "main.rs") rust_roots.insert(DirName(facts.path));
  }
  for (std::size_t i = 0; i < files.size(); ++i) {
    const FileFacts& facts = files[i];
    const int index = static_cast<int>(i);
    ModuleSystem system = RulesFor(facts.language).module_system;
    std::string_view tag = TagFor(system);
    std::string key;
    switch (system) {
      case ModuleSystem::kPython: {
        std::string_view stem = StripExtension(facts.path);
        if (BaseName(stem) == "__init__") {
          key = DirName(stem);
        } else {
          key = std::string(stem);
        }
        // Every enclosing directory is a (namespace) package.
        for (std::string dir = DirName(key); !dir.empty(); dir = DirName(dir)) {
          std::string tagged = Tagged(tag, dir);
          if (files_of_.count(tagged) == 0) {
            files_of_[tagged];
            keys_by_last_segment_[Tagged(tag, BaseName(dir))].push_back(dir);
          }
        }
        if (!key.empty() && files_of_.count(Tagged(tag, key)) == 0) {
          keys_by_last_segment_[Tagged(tag, BaseName(key))].push_back(key);
        }
        break;
      }
      case ModuleSystem::kJavaScript:
        key = std::string(StripExtension(facts.path));
        if (key.ends_with(".d")) key.resize(key.size() - 2);
        break;
      case ModuleSystem::kGo: key = DirName(facts.path); break;
      case ModuleSystem::kRust: {
        std::string dir = DirName(facts.path);
        std::string root;
        for (std::string probe = dir;; probe = DirName(probe)) {
          if (rust_roots.count(probe) != 0) {
            root = probe;
            break;
          }
          if (probe.empty()) {
            root = dir;
            break;
          }
        }
        crate_root_of_[i] = root;
        std::string_view base = BaseName(facts.path);
        if ((base == "lib.rs" || base == "main.rs") && dir == root) {
          key = root;
        } else if (base == "mod.rs") {
          key = dir;
        } else {
          key = std::string(StripExtension(facts.path));
        }
        break;
      }
      case ModuleSystem::kJava: key = facts.package; break;
      case ModuleSystem::kInclude:
        key = facts.path;
        keys_by_last_segment_[Tagged(tag, BaseName(key))].push_back(key);
        break;
    }
    module_of_[i] = Tagged(tag, key);
    files_of_[module_of_[i]].push_back(index);
  }
  // C/C++ includes: resolved headers plus their same-stem sources.
  std::map<std::string, std::vector<int>> by_stem;       // "dir/stem" → files
  std::map<std::string, std::vector<int>> by_base_stem;  // "stem" → files anywhere
  for (std::size_t i = 0; i < files.size(); ++i) {
    if (RulesFor(files[i].language).module_system == ModuleSystem::kInclude) {
      std::string_view stem = StripExtension(files[i].path);
      by_stem[std::string(stem)].push_back(static_cast<int>(i));
      by_base_stem[std::string(BaseName(stem))].push_back(static_cast<int>(i));
    }
  }
  for (std::size_t i = 0; i < files.size(); ++i) {
    if (RulesFor(files[i].language).module_system != ModuleSystem::kInclude) continue;
    std::set<int> visible;
    for (const ImportFact& import : files[i].imports) {
      if (!import.is_include) continue;
      std::optional<std::string> key = ResolveInclude(static_cast<int>(i), import.module);
      if (!key) continue;
      for (int f : FilesOf(Tagged("inc:", *key))) visible.insert(f);
      // The header's implementation: same directory and stem, else the same
      // stem anywhere (include/foo.h ↔ src/foo.c).
      auto stem = by_stem.find(std::string(StripExtension(*key)));
      if (stem != by_stem.end() && stem->second.size() > 1) {
        visible.insert(stem->second.begin(), stem->second.end());
      } else {
        auto base = by_base_stem.find(std::string(BaseName(StripExtension(*key))));
        if (base != by_base_stem.end()) visible.insert(base->second.begin(), base->second.end());
      }
    }
    // A source file also sees its own header's companions (foo.c ↔ foo.h).
    auto own = by_stem.find(std::string(StripExtension(files[i].path)));
    if (own != by_stem.end()) visible.insert(own->second.begin(), own->second.end());
    visible.erase(static_cast<int>(i));
    included_[i].assign(visible.begin(), visible.end());
  }
}

const std::vector<int>& ModuleIndex::FilesOf(const std::string& key) const {
  static const std::vector<int> kEmpty;
  auto it = files_of_.find(key);
  return it == files_of_.end() ? kEmpty : it->second;
}

std::string ModuleIndex::ClassGroupOf(int file) const {
  const FileFacts& facts = files_[file];
  switch (RulesFor(facts.language).module_system) {
    case ModuleSystem::kGo: return "go:" + DirName(facts.path);
    case ModuleSystem::kRust: return "rs:" + crate_root_of_[file];
    case ModuleSystem::kInclude: return "inc:";
    default: return facts.path;
  }
}

std::string ModuleIndex::PickClosest(int file, const std::vector<std::string>& keys) const {
  const std::string dir = DirName(files_[file].path);
  const std::string* best = nullptr;
  std::size_t best_common = 0;
  for (const std::string& key : keys) {
    std::size_t common = CommonPrefixSegments(dir, key);
    if (best == nullptr || common > best_common ||
        (common == best_common && (key.size() < best->size() || (key.size() == best->size() && key < *best)))) {
      best = &key;
      best_common = common;
    }
  }
  return best == nullptr ? std::string() : *best;
}

std::optional<std::string> ModuleIndex::ResolveImport(int file, std::string_view module) const {
  switch (RulesFor(files_[file].language).module_system) {
    case ModuleSystem::kPython: return ResolvePython(file, module);
    case ModuleSystem::kJavaScript: return ResolveJavaScript(file, module);
    case ModuleSystem::kGo: return ResolveGo(module);
    case ModuleSystem::kInclude: {
      auto key = ResolveInclude(file, module);
      if (key) return "inc:" + *key;
      return std::nullopt;
    }
    case ModuleSystem::kJava: {
      auto split = SplitJavaPath(module);
      if (split && split->second.empty()) return split->first;
      return std::nullopt;
    }
    case ModuleSystem::kRust: {
      auto resolved = ResolveRustPath(file, module);
      if (resolved && resolved->second.empty()) return resolved->first;
      return std::nullopt;
    }
  }
  return std::nullopt;
}

std::optional<std::string> ModuleIndex::ResolvePython(int file, std::string_view module) const {
  std::size_t dots = 0;
  while (dots < module.size() && module[dots] == '.') ++dots;
  std::string rest(module.substr(dots));
  std::replace(rest.begin(), rest.end(), '.', '/');
  if (dots > 0) {
    std::string base = DirName(files_[file].path);
    for (std::size_t i = 1; i < dots; ++i) {
      if (base.empty()) return std::nullopt;
      base = DirName(base);
    }
    std::string key = Join(base, rest);
    if (key.empty() || !Exists("py:" + key)) return std::nullopt;
    return "py:" + key;
  }
  if (rest.empty()) return std::nullopt;
  auto candidates = keys_by_last_segment_.find("py:" + std::string(BaseName(rest)));
  if (candidates == keys_by_last_segment_.end()) return std::nullopt;
  std::vector<std::string> matching;
  for (const std::string& key : candidates->second) {
    if (key == rest) return "py:" + key;  // exact from the repository root wins
    if (KeyEndsWithPath(key, rest)) matching.push_back(key);
  }
  if (matching.empty()) return std::nullopt;
  return "py:" + PickClosest(file, matching);
}

std::optional<std::string> ModuleIndex::ResolveJavaScript(int file, std::string_view module) const {
  if (module.empty() || module[0] != '.') return std::nullopt;  // package or path alias
  std::optional<std::string> joined = NormalizeRelative(Join(DirName(files_[file].path), module));
  if (!joined) return std::nullopt;
  std::string key = *joined;
  for (std::string_view ext : {".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx", ".mts", ".cts"}) {
    if (key.ends_with(ext)) {
      key.resize(key.size() - ext.size());
      break;
    }
  }
  if (Exists("js:" + key)) return "js:" + key;
  std::string index = Join(key, "index");
  if (Exists("js:" + index)) return "js:" + index;
  return std::nullopt;
}

std::optional<std::string> ModuleIndex::ResolveGo(std::string_view module) const {
  // Longest suffix of the import path that is a package directory here.
  std::string path(module);
  std::size_t start = 0;
  while (true) {
    std::string_view suffix = std::string_view(path).substr(start);
    if (!suffix.empty() && Exists("go:" + std::string(suffix))) return "go:" + std::string(suffix);
    std::size_t slash = path.find('/', start);
    if (slash == std::string::npos) break;
    start = slash + 1;
  }
  return std::nullopt;
}

std::optional<std::string> ModuleIndex::ResolveInclude(int file, std::string_view module) const {
  std::optional<std::string> relative = NormalizeRelative(Join(DirName(files_[file].path), module));
  if (relative && Exists("inc:" + *relative)) return *relative;
  std::optional<std::string> normalized = NormalizeRelative(module);
  if (!normalized || normalized->empty()) return std::nullopt;
  auto candidates = keys_by_last_segment_.find("inc:" + std::string(BaseName(*normalized)));
  if (candidates == keys_by_last_segment_.end()) return std::nullopt;
  std::vector<std::string> matching;
  for (const std::string& key : candidates->second) {
    if (KeyEndsWithPath(key, *normalized)) matching.push_back(key);
  }
  if (matching.empty()) return std::nullopt;
  return PickClosest(file, matching);
}

std::optional<std::pair<std::string, std::vector<std::string>>> ModuleIndex::SplitJavaPath(
    std::string_view dotted) const {
  std::vector<std::string> parts = SplitOn(dotted, ".");
  for (std::size_t n = parts.size(); n > 0; --n) {
    std::string package;
    for (std::size_t i = 0; i < n; ++i) package += (i ? "." : "") + parts[i];
    if (Exists("java:" + package)) {
      return std::make_pair("java:" + package,
                            std::vector<std::string>(parts.begin() + static_cast<long>(n), parts.end()));
    }
  }
  return std::nullopt;
}

std::optional<std::pair<std::string, std::vector<std::string>>> ModuleIndex::ResolveRustPath(
    int file, std::string_view path) const {
  std::vector<std::string> parts = SplitOn(path, "::");
  if (parts.empty()) return std::nullopt;
  const std::string& root = crate_root_of_[file];
  std::string current = module_of_[file].substr(3);  // strip "rs:"
  std::string base;
  std::size_t i = 0;
  if (parts[0] == "crate") {
    base = root;
    i = 1;
  } else if (parts[0] == "self") {
    base = current;
    i = 1;
  } else if (parts[0] == "super") {
    base = current;
    while (i < parts.size() && parts[i] == "super") {
      if (base == root || base.empty()) return std::nullopt;
      base = DirName(base);
      ++i;
    }
  } else {
    // 2018 paths: a submodule of the current module, else of the crate root.
    if (Exists("rs:" + Join(current, parts[0]))) {
      base = current;
    } else if (Exists("rs:" + Join(root, parts[0]))) {
      base = root;
    } else {
      return std::nullopt;
    }
  }
  while (i < parts.size() && Exists("rs:" + Join(base, parts[i]))) {
    base = Join(base, parts[i]);
    ++i;
  }
  return std::make_pair("rs:" + base, std::vector<std::string>(parts.begin() + static_cast<long>(i), parts.end()));
}

}  // namespace seragen::callgraph
