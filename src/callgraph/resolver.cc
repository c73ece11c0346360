#include "callgraph/resolver.h"

#include <algorithm>
#include <map>
#include <string>
#include <unordered_map>
#include <utility>

#include "callgraph/language_rules.h"
#include "callgraph/module_index.h"
#include "seragen/base/strings.h"

namespace seragen::callgraph {
namespace {

constexpr int kMaxDepth = 8;

struct DefRef {
  int file = 0;
  int scope = 0;
};

struct Symbol {
  enum class Kind { kNone, kModule, kClass, kFunction };
  Kind kind = Kind::kNone;
  std::string key;  // module key (kModule) or class key (kClass)
  int def = -1;     // definition id (kFunction, kClass when known)
  explicit operator bool() const { return kind != Kind::kNone; }
};

struct Found {
  Symbol symbol;
  Resolution how = Resolution::kScope;
};

std::string Container(const std::string& qualname) {
  std::size_t dot = qualname.rfind('.');
  return dot == std::string::npos ? std::string() : qualname.substr(0, dot);
}

std::string LastSegment(std::string_view text, std::string_view separator) {
  std::size_t pos = text.rfind(separator);
  return std::string(pos == std::string_view::npos ? text : text.substr(pos + separator.size()));
}

template <typename Map>
const std::vector<int>* FindIn(const Map& map, const std::string& key) {
  auto it = map.find(key);
  return it == map.end() ? nullptr : &it->second;
}

class Resolver {
 public:
  Resolver(const std::vector<FileFacts>& files, const GraphOptions& options)
      : files_(files), options_(options), index_(files) {}

  void Run(CallGraph* graph);

 private:
  using NameMap = std::unordered_map<std::string, std::vector<int>>;

  void BuildIndexes();
  const ScopeFact& ScopeOf(int def) const { return files_[defs_[def].file].scopes[defs_[def].scope]; }
  std::string ClassKeyOfScope(int file, int scope) const {
    return group_[file] + "|" + files_[file].scopes[scope].qualname;
  }
  Symbol DefSymbol(int def) const;
  Symbol ModuleSymbol(std::string key) const;
  Symbol ClassSymbol(const std::string& key) const;

  // Memoized (and cycle-safe: a lookup in progress answers "not found").
  Symbol LookupMember(const Symbol& container, const std::string& name, int depth);
  Symbol ResolveBinding(int file, const ImportFact& import, int depth);
  Symbol ComputeLookupMember(const Symbol& container, const std::string& name, int depth);
  Symbol ComputeResolveBinding(int file, const ImportFact& import, int depth);
  // The module `key` names, or its `import.member` when the import names one.
  Symbol ModuleOrMember(const std::string& key, const ImportFact& import, int depth);
  Symbol ResolveBase(int class_def, const std::string& base, int depth);
  Found ResolveHead(int file, int caller, const std::string& head, int depth);
  Found ResolvePath(int file, int caller, const std::vector<std::string>& segments, int depth);
  std::string ClassContext(int file, int caller) const;
  bool IsSelfReceiver(int file, int caller, const std::string& receiver, bool qualified) const;
  Symbol Constructor(const Symbol& cls);
  std::vector<int> UniqueCandidates(const FileFacts& file, const CallFact& call) const;
  std::vector<int> QualifiedCandidates(int file, const CallFact& call) const;

  const std::vector<FileFacts>& files_;
  const GraphOptions& options_;
  ModuleIndex index_;

  std::vector<DefRef> defs_;
  std::vector<std::vector<int>> def_of_scope_;        // [file][scope] → def id
  std::vector<std::string> group_;                    // class-key group per file
  std::unordered_map<std::string, NameMap> members_;  // class key → name → defs
  std::unordered_map<std::string, int> class_def_;    // class key → first class def
  std::vector<NameMap> file_top_;                     // [file] name → top-level defs
  NameMap free_functions_;                            // family|name → functions not inside a class
  NameMap methods_;                                   // family|name → functions inside a class
  NameMap by_tail_;                                   // family|Container.name → functions
  std::vector<std::unordered_map<std::string, std::vector<const ImportFact*>>> bindings_;
  std::vector<std::vector<const ImportFact*>> wildcards_;
  std::unordered_map<std::string, bool> class_scope_keys_;  // class key → true if a class scope
  // Type hints: "file:scope:name" → type path of a local variable, and
  // "classkey\0attr" → (file, type path) of an attribute set through self/this.
  // An empty type path marks conflicting hints (never used).
  std::unordered_map<std::string, std::string> local_types_;
  std::unordered_map<std::string, std::pair<int, std::string>> attribute_types_;
  Found TypedReceiver(int file, int caller, const std::string& class_key, const std::vector<std::string>& segments);
  // Run's steps: graph nodes (returns node index per def, -1 for none), then
  // per call site the target by receiver kind, then the edges it adds.
  std::vector<int> AddNodes(CallGraph* graph) const;
  Found ResolveCall(int file, int caller, const CallFact& call, bool* settled);
  Found ResolveBareCall(int file, int caller, const CallFact& call, const std::string& class_key);
  Found ResolveSuperCall(const CallFact& call, const std::string& class_key);
  Found ResolveReceiverCall(int file, int caller, const CallFact& call, const std::string& class_key, bool* settled);
  void AddCallEdges(int file, int caller, const CallFact& call, const std::vector<int>& node_of_def, GraphStats& stats,
                    std::vector<CallEdge>* edges);
  std::unordered_map<std::string, Symbol> member_cache_;
  std::unordered_map<const ImportFact*, Symbol> binding_cache_;
};

std::string BindingName(const FileFacts& facts, const ImportFact& import, const ModuleIndex& index,
                        const std::vector<FileFacts>& files, int file) {
  if (!import.alias.empty()) return import.alias;
  switch (RulesFor(facts.language).module_system) {
    case ModuleSystem::kPython: {
      if (!import.member.empty()) return import.member;
      std::string_view module = import.module;
      std::size_t dot = module.find('.');
      return std::string(dot == std::string_view::npos ? module : module.substr(0, dot));
    }
    case ModuleSystem::kJavaScript: return import.member;
    case ModuleSystem::kGo: {
      std::optional<std::string> key = index.ResolveImport(file, import.module);
      if (key) {
        for (int f : index.FilesOf(*key)) {
          if (!files[f].package.empty()) return files[f].package;
        }
      }
      return LastSegment(import.module, "/");
    }
    case ModuleSystem::kRust: return LastSegment(import.module, "::");
    case ModuleSystem::kJava: return LastSegment(import.module, ".");
    case ModuleSystem::kInclude: return {};
  }
  return {};
}

void Resolver::BuildIndexes() {
  def_of_scope_.resize(files_.size());
  group_.resize(files_.size());
  file_top_.resize(files_.size());
  bindings_.resize(files_.size());
  wildcards_.resize(files_.size());
  for (std::size_t f = 0; f < files_.size(); ++f) {
    const FileFacts& facts = files_[f];
    const int file = static_cast<int>(f);
    group_[f] = index_.ClassGroupOf(file);
    const std::string family = std::to_string(LanguageFamily(facts.language)) + "|";
    def_of_scope_[f].resize(facts.scopes.size());
    for (std::size_t s = 0; s < facts.scopes.size(); ++s) {
      const ScopeFact& scope = facts.scopes[s];
      const int def = static_cast<int>(defs_.size());
      defs_.push_back({file, static_cast<int>(s)});
      def_of_scope_[f][s] = def;
      std::string container = Container(scope.qualname);
      if (container.empty()) {
        file_top_[f][scope.name].push_back(def);
      } else {
        members_[group_[f] + "|" + container][scope.name].push_back(def);
      }
      if (scope.kind == ScopeFact::Kind::kClass) {
        std::string key = ClassKeyOfScope(file, static_cast<int>(s));
        class_def_.emplace(key, def);
        class_scope_keys_[key] = true;
        continue;
      }
      bool in_class =
          !scope.qualifier.empty() || (scope.parent >= 0 && facts.scopes[scope.parent].kind == ScopeFact::Kind::kClass);
      (in_class ? methods_ : free_functions_)[family + scope.name].push_back(def);
      if (!container.empty()) {
        by_tail_[family + LastSegment(container, ".") + "." + scope.name].push_back(def);
      }
    }
    const LanguageRules& rules = RulesFor(facts.language);
    for (const TypeHintFact& hint : facts.type_hints) {
      const bool class_level = hint.scope >= 0 && facts.scopes[hint.scope].kind == ScopeFact::Kind::kClass &&
                               !facts.scopes[hint.scope].is_namespace;
      if (hint.object.empty() && class_level) {
        // A typed field declaration (Java/C++/TS): an attribute of that class.
        auto [it, inserted] = attribute_types_.emplace(ClassKeyOfScope(file, hint.scope) + '\0' + hint.name,
                                                       std::make_pair(file, hint.type_path));
        if (!inserted && it->second.second != hint.type_path) it->second.second.clear();
        continue;
      }
      if (hint.object.empty()) {
        std::string key = std::to_string(f) + ":" + std::to_string(hint.scope) + ":" + hint.name;
        auto [it, inserted] = local_types_.emplace(key, hint.type_path);
        if (!inserted && it->second != hint.type_path) it->second.clear();
        continue;
      }
      if (std::find(rules.self_words.begin(), rules.self_words.end(), hint.object) == rules.self_words.end()) {
        continue;
      }
      std::string class_key = ClassContext(file, hint.scope);
      if (class_key.empty()) continue;
      auto [it, inserted] =
          attribute_types_.emplace(class_key + '\0' + hint.name, std::make_pair(file, hint.type_path));
      if (!inserted && it->second.second != hint.type_path) it->second.second.clear();
    }
    for (const ImportFact& import : facts.imports) {
      if (import.is_include) continue;
      if (import.wildcard) {
        wildcards_[f].push_back(&import);
        continue;
      }
      std::string name = BindingName(facts, import, index_, files_, file);
      if (name.empty() || name == "_" || name == ".") continue;
      bindings_[f][name].push_back(&import);
    }
  }
}

Symbol Resolver::DefSymbol(int def) const {
  Symbol symbol;
  const ScopeFact& scope = ScopeOf(def);
  symbol.def = def;
  if (scope.kind == ScopeFact::Kind::kFunction) {
    symbol.kind = Symbol::Kind::kFunction;
  } else {
    symbol.kind = Symbol::Kind::kClass;
    symbol.key = ClassKeyOfScope(defs_[def].file, defs_[def].scope);
  }
  return symbol;
}

Symbol Resolver::ModuleSymbol(std::string key) const {
  Symbol symbol;
  symbol.kind = Symbol::Kind::kModule;
  symbol.key = std::move(key);
  return symbol;
}

Symbol Resolver::ClassSymbol(const std::string& key) const {
  Symbol symbol;
  symbol.kind = Symbol::Kind::kClass;
  symbol.key = key;
  auto it = class_def_.find(key);
  symbol.def = it == class_def_.end() ? -1 : it->second;
  return symbol;
}

Symbol Resolver::ResolveBinding(int file, const ImportFact& import, int depth) {
  auto [it, inserted] = binding_cache_.try_emplace(&import);
  if (!inserted) return it->second;  // known, or in progress (a cycle)
  Symbol symbol = ComputeResolveBinding(file, import, depth);
  binding_cache_[&import] = symbol;
  return symbol;
}

Symbol Resolver::ModuleOrMember(const std::string& key, const ImportFact& import, int depth) {
  Symbol module = ModuleSymbol(key);
  if (import.member.empty()) return module;
  return LookupMember(module, import.member, depth + 1);
}

Symbol Resolver::ComputeResolveBinding(int file, const ImportFact& import, int depth) {
  if (depth > kMaxDepth) return {};
  const FileFacts& facts = files_[file];
  switch (RulesFor(facts.language).module_system) {
    case ModuleSystem::kPython: {
      std::optional<std::string> key = index_.ResolveImport(file, import.module);
      if (!key) return {};
      if (import.member.empty() && import.alias.empty()) {
        // `import a.b.c` binds `a`: drop as many trailing segments as dots.
        std::string trimmed = *key;
        for (char c : import.module) {
          if (c == '.') trimmed = DirName(trimmed);
        }
        return ModuleSymbol(trimmed);
      }
      return ModuleOrMember(*key, import, depth);
    }
    case ModuleSystem::kJavaScript: {
      std::optional<std::string> key = index_.ResolveImport(file, import.module);
      if (!key) return {};
      return ModuleOrMember(*key, import, depth);
    }
    case ModuleSystem::kGo: {
      std::optional<std::string> key = index_.ResolveImport(file, import.module);
      if (!key) return {};
      return ModuleSymbol(*key);
    }
    case ModuleSystem::kRust: {
      auto resolved = index_.ResolveRustPath(file, import.module);
      if (!resolved) {
        // `use Type::method` style paths relative to the current file's items.
        std::string path = import.module;
        std::size_t pos;
        while ((pos = path.find("::")) != std::string::npos) path.replace(pos, 2, ".");
        Found found = ResolvePath(file, -1, SplitOn(path, "."), depth + 1);
        return found.symbol;
      }
      Symbol symbol = ModuleSymbol(resolved->first);
      for (const std::string& segment : resolved->second) {
        symbol = LookupMember(symbol, segment, depth + 1);
        if (!symbol) return {};
      }
      return symbol;
    }
    case ModuleSystem::kJava: {
      auto split = index_.SplitJavaPath(import.module);
      if (!split) return {};
      Symbol symbol = ModuleSymbol(split->first);
      for (const std::string& segment : split->second) {
        symbol = LookupMember(symbol, segment, depth + 1);
        if (!symbol) return {};
      }
      return symbol;
    }
    case ModuleSystem::kInclude: return {};
  }
  return {};
}

Symbol Resolver::ResolveBase(int class_def, const std::string& base, int depth) {
  if (depth > kMaxDepth) return {};
  const DefRef& ref = defs_[class_def];
  Found found = ResolvePath(ref.file, ref.scope, SplitOn(base, "."), depth + 1);
  if (found.symbol.kind == Symbol::Kind::kClass) return found.symbol;
  // C++/Rust/Go groups span files: a class key with that qualified name.
  std::string key = group_[ref.file] + "|" + base;
  if (class_scope_keys_.count(key) != 0) return ClassSymbol(key);
  return {};
}

Symbol Resolver::LookupMember(const Symbol& container, const std::string& name, int depth) {
  if (!container) return {};
  std::string key;
  key.reserve(container.key.size() + name.size() + 16);
  key += static_cast<char>('0' + static_cast<int>(container.kind));
  key += std::to_string(container.def);
  key += '|';
  key += container.key;
  key += '\0';
  key += name;
  auto [it, inserted] = member_cache_.try_emplace(key);
  if (!inserted) return it->second;  // known, or in progress (a cycle)
  Symbol symbol = ComputeLookupMember(container, name, depth);
  member_cache_[key] = symbol;
  return symbol;
}

Symbol Resolver::ComputeLookupMember(const Symbol& container, const std::string& name, int depth) {
  if (depth > kMaxDepth || !container) return {};
  if (container.kind == Symbol::Kind::kModule) {
    const std::vector<int>& module_files = index_.FilesOf(container.key);
    for (int f : module_files) {
      if (const std::vector<int>* defs = FindIn(file_top_[f], name)) return DefSymbol(defs->front());
    }
    if (name == "default") {
      for (int f : module_files) {
        if (!files_[f].default_export.empty() && files_[f].default_export != "default") {
          return LookupMember(container, files_[f].default_export, depth + 1);
        }
      }
      return container;  // CommonJS: the module object itself
    }
    for (int f : module_files) {
      auto it = bindings_[f].find(name);
      if (it != bindings_[f].end()) {
        Symbol symbol = ResolveBinding(f, *it->second.front(), depth + 1);
        if (symbol) return symbol;
      }
    }
    std::string_view key = container.key;
    if (key.substr(0, 3) == "py:" || key.substr(0, 3) == "rs:") {
      std::string sub = container.key + (key.size() > 3 ? "/" : "") + name;
      if (index_.Exists(sub)) return ModuleSymbol(sub);
    }
    if (key.substr(0, 3) == "rs:" && !module_files.empty()) {
      std::string class_key = group_[module_files.front()] + "|" + name;
      if (class_scope_keys_.count(class_key) != 0) return ClassSymbol(class_key);
    }
    for (int f : module_files) {
      for (const ImportFact* wildcard : wildcards_[f]) {
        Symbol module = ResolveBinding(f, *wildcard, depth + 1);
        Symbol symbol = LookupMember(module, name, depth + 1);
        if (symbol) return symbol;
      }
    }
    return {};
  }
  if (container.kind == Symbol::Kind::kClass) {
    auto members = members_.find(container.key);
    if (members != members_.end()) {
      if (const std::vector<int>* defs = FindIn(members->second, name)) return DefSymbol(defs->front());
    }
    if (container.def >= 0) {
      for (const std::string& base : ScopeOf(container.def).bases) {
        Symbol base_class = ResolveBase(container.def, base, depth + 1);
        if (base_class.key == container.key) continue;
        Symbol symbol = LookupMember(base_class, name, depth + 1);
        if (symbol) return symbol;
      }
    }
  }
  return {};
}

Found Resolver::ResolveHead(int file, int caller, const std::string& head, int depth) {
  const FileFacts& facts = files_[file];
  const LanguageRules& rules = RulesFor(facts.language);
  // Lexical scopes, innermost first.
  for (int s = caller; s >= 0; s = facts.scopes[s].parent) {
    const ScopeFact& scope = facts.scopes[s];
    if (scope.kind == ScopeFact::Kind::kClass && !scope.is_namespace && !rules.members_in_scope) continue;
    auto members = members_.find(ClassKeyOfScope(file, s));
    if (members == members_.end()) continue;
    if (const std::vector<int>* defs = FindIn(members->second, head)) {
      return {DefSymbol(defs->front()), Resolution::kScope};
    }
  }
  if (const std::vector<int>* defs = FindIn(file_top_[file], head)) {
    return {DefSymbol(defs->front()), Resolution::kScope};
  }
  auto binding = bindings_[file].find(head);
  if (binding != bindings_[file].end()) {
    for (const ImportFact* import : binding->second) {
      Symbol symbol = ResolveBinding(file, *import, depth + 1);
      if (symbol) return {symbol, Resolution::kImport};
    }
  }
  if (rules.module_system == ModuleSystem::kGo || rules.module_system == ModuleSystem::kJava) {
    for (int f : index_.FilesOf(index_.ModuleOf(file))) {
      if (f == file) continue;
      if (const std::vector<int>* defs = FindIn(file_top_[f], head)) {
        return {DefSymbol(defs->front()), Resolution::kPackage};
      }
    }
  }
  if (rules.module_system == ModuleSystem::kInclude) {
    for (int f : index_.IncludedFilesOf(file)) {
      if (const std::vector<int>* defs = FindIn(file_top_[f], head)) {
        return {DefSymbol(defs->front()), Resolution::kInclude};
      }
    }
  }
  if (rules.module_system == ModuleSystem::kRust) {
    auto resolved = index_.ResolveRustPath(file, head);
    if (resolved && resolved->second.empty()) return {ModuleSymbol(resolved->first), Resolution::kImport};
  }
  for (const ImportFact* wildcard : wildcards_[file]) {
    Symbol module = ResolveBinding(file, *wildcard, depth + 1);
    Symbol symbol = LookupMember(module, head, depth + 1);
    if (symbol) return {symbol, Resolution::kImport};
  }
  return {};
}

Found Resolver::ResolvePath(int file, int caller, const std::vector<std::string>& segments, int depth) {
  if (segments.empty() || depth > kMaxDepth) return {};
  Found found = ResolveHead(file, caller, segments.front(), depth + 1);
  for (std::size_t i = 1; i < segments.size() && found.symbol; ++i) {
    found.symbol = LookupMember(found.symbol, segments[i], depth + 1);
  }
  return found;
}

Found Resolver::TypedReceiver(int file, int caller, const std::string& class_key,
                              const std::vector<std::string>& segments) {
  const FileFacts& facts = files_[file];
  int hint_file = file;
  int hint_scope = -1;
  std::string type_path;
  const LanguageRules& rules = RulesFor(facts.language);
  if (segments.size() == 1) {
    // Innermost function first, then enclosing ones, then file level (-1).
    for (int s = caller; type_path.empty(); s = facts.scopes[s].parent) {
      auto it = local_types_.find(std::to_string(file) + ":" + std::to_string(s) + ":" + segments[0]);
      if (it != local_types_.end()) {
        if (it->second.empty()) return {};  // conflicting hints
        type_path = it->second;
        hint_scope = s;
      }
      if (s < 0) break;
    }
    if (type_path.empty() && rules.members_in_scope && !class_key.empty()) {
      // Java/C++: an unqualified field of the enclosing class.
      auto it = attribute_types_.find(class_key + '\0' + segments[0]);
      if (it == attribute_types_.end() || it->second.second.empty()) return {};
      hint_file = it->second.first;
      type_path = it->second.second;
    }
  } else if (segments.size() == 2 && !class_key.empty()) {
    if (std::find(rules.self_words.begin(), rules.self_words.end(), segments[0]) == rules.self_words.end()) {
      return {};
    }
    auto it = attribute_types_.find(class_key + '\0' + segments[1]);
    if (it == attribute_types_.end() || it->second.second.empty()) return {};
    hint_file = it->second.first;
    type_path = it->second.second;
  }
  if (type_path.empty()) return {};
  Found type = ResolvePath(hint_file, hint_scope, SplitOn(type_path, "."), 0);
  if (type.symbol.kind != Symbol::Kind::kClass) return {};
  return type;
}

std::string Resolver::ClassContext(int file, int caller) const {
  const FileFacts& facts = files_[file];
  for (int s = caller; s >= 0; s = facts.scopes[s].parent) {
    const ScopeFact& scope = facts.scopes[s];
    if (scope.kind == ScopeFact::Kind::kClass) {
      if (scope.is_namespace) return {};
      return ClassKeyOfScope(file, s);
    }
    if (!scope.qualifier.empty()) return group_[file] + "|" + Container(scope.qualname);
  }
  return {};
}

bool Resolver::IsSelfReceiver(int file, int caller, const std::string& receiver, bool qualified) const {
  const FileFacts& facts = files_[file];
  const LanguageRules& rules = RulesFor(facts.language);
  if (facts.language == Language::kRust && qualified && receiver == "self") return false;  // self:: = module
  for (std::string_view word : rules.self_words) {
    if (receiver == word) return true;
  }
  for (int s = caller; s >= 0; s = facts.scopes[s].parent) {
    if (!facts.scopes[s].self_name.empty()) return receiver == facts.scopes[s].self_name;
  }
  return false;
}

Symbol Resolver::Constructor(const Symbol& cls) {
  const LanguageRules& rules = RulesFor(cls.def >= 0 ? files_[defs_[cls.def].file].language : Language::kPython);
  for (std::string_view name : rules.constructor_names) {
    // "" = the class's own name (Java, C++): the last segment of its qualname.
    std::string ctor = name.empty() ? LastSegment(LastSegment(cls.key, "|"), ".") : std::string(name);
    Symbol symbol = LookupMember(cls, ctor, 0);
    if (symbol.kind == Symbol::Kind::kFunction) return symbol;
  }
  return {};
}

std::vector<int> Resolver::UniqueCandidates(const FileFacts& file, const CallFact& call) const {
  const std::string key = std::to_string(LanguageFamily(file.language)) + "|" + call.name;
  const NameMap& pool = call.receiver.empty() ? free_functions_ : methods_;
  if (const std::vector<int>* defs = FindIn(pool, key)) return *defs;
  return {};
}

std::vector<int> Resolver::QualifiedCandidates(int file, const CallFact& call) const {
  const FileFacts& facts = files_[file];
  std::vector<std::string> segments = SplitOn(call.receiver, ".");
  const std::string key = std::to_string(LanguageFamily(facts.language)) + "|" + segments.back() + "." + call.name;
  const std::vector<int>* defs = FindIn(by_tail_, key);
  if (defs == nullptr) return {};
  std::string suffix = call.receiver + "." + call.name;
  std::vector<int> matching;
  for (int def : *defs) {
    const std::string& qualname = ScopeOf(def).qualname;
    if (qualname == suffix || (qualname.size() > suffix.size() &&
                               qualname.compare(qualname.size() - suffix.size(), suffix.size(), suffix) == 0 &&
                               qualname[qualname.size() - suffix.size() - 1] == '.')) {
      matching.push_back(def);
    }
  }
  // Prefer this file, then files it includes.
  std::vector<int> local;
  for (int def : matching) {
    if (defs_[def].file == file) local.push_back(def);
  }
  if (!local.empty()) return local;
  const std::vector<int>& included = index_.IncludedFilesOf(file);
  for (int def : matching) {
    if (std::binary_search(included.begin(), included.end(), defs_[def].file)) local.push_back(def);
  }
  return local.empty() ? matching : local;
}

std::vector<int> Resolver::AddNodes(CallGraph* graph) const {
  // Nodes: every function definition; "~N" for repeated qualified names in a file.
  std::vector<int> node_of_def(defs_.size(), -1);
  std::vector<std::pair<std::string, int>> ids;  // (id, def)
  for (std::size_t f = 0; f < files_.size(); ++f) {
    std::unordered_map<std::string, int> seen;
    for (std::size_t s = 0; s < files_[f].scopes.size(); ++s) {
      const ScopeFact& scope = files_[f].scopes[s];
      if (scope.kind != ScopeFact::Kind::kFunction) continue;
      int count = ++seen[scope.qualname];
      std::string qualname = count == 1 ? scope.qualname : scope.qualname + "~" + std::to_string(count);
      ids.emplace_back(files_[f].path + "::" + qualname, def_of_scope_[f][s]);
    }
  }
  std::sort(ids.begin(), ids.end());
  graph->nodes.reserve(ids.size());
  for (const auto& [id, def] : ids) {
    const DefRef& ref = defs_[def];
    const ScopeFact& scope = ScopeOf(def);
    FunctionNode node;
    node.id = id;
    node.path = files_[ref.file].path;
    node.qualname = id.substr(node.path.size() + 2);
    node.language = files_[ref.file].language;
    node.start_line = scope.start_line;
    node.end_line = scope.end_line;
    node.loc = scope.loc;
    node.has_doc = scope.has_doc;
    node_of_def[def] = static_cast<int>(graph->nodes.size());
    graph->nodes.push_back(std::move(node));
  }
  graph->stats.functions = graph->nodes.size();
  return node_of_def;
}

Found Resolver::ResolveBareCall(int file, int caller, const CallFact& call, const std::string& class_key) {
  const FileFacts& facts = files_[file];
  const LanguageRules& rules = RulesFor(facts.language);
  Found found;
  for (int s = caller; s >= 0 && !found.symbol; s = facts.scopes[s].parent) {
    const ScopeFact& scope = facts.scopes[s];
    if (scope.kind == ScopeFact::Kind::kClass && !scope.is_namespace && !rules.members_in_scope) {
      continue;
    }
    std::string key = ClassKeyOfScope(file, s);
    auto members = members_.find(key);
    if (members == members_.end()) continue;
    if (const std::vector<int>* defs = FindIn(members->second, call.name)) {
      found = {DefSymbol(defs->front()), key == class_key ? Resolution::kSelf : Resolution::kScope};
    }
  }
  if (!found.symbol && rules.members_in_scope && !class_key.empty()) {
    // Out-of-line members (C++ Foo::bar): the class and enclosing namespaces.
    for (std::string key = class_key; !found.symbol && key.find('|') != std::string::npos;) {
      auto members = members_.find(key);
      if (members != members_.end()) {
        if (const std::vector<int>* defs = FindIn(members->second, call.name)) {
          found = {DefSymbol(defs->front()), key == class_key ? Resolution::kSelf : Resolution::kScope};
        }
      }
      std::size_t bar = key.find('|');
      std::string container = Container(key.substr(bar + 1));
      if (container.empty()) break;
      key = key.substr(0, bar + 1) + container;
    }
    if (!found.symbol) {
      Symbol symbol = LookupMember(ClassSymbol(class_key), call.name, 0);
      if (symbol) found = {symbol, Resolution::kSelf};
    }
  }
  if (!found.symbol) found = ResolveHead(file, caller, call.name, 0);
  return found;
}

Found Resolver::ResolveSuperCall(const CallFact& call, const std::string& class_key) {
  Found found;
  Symbol cls = ClassSymbol(class_key);
  if (cls.def >= 0) {
    for (const std::string& base : ScopeOf(cls.def).bases) {
      Symbol symbol = LookupMember(ResolveBase(cls.def, base, 0), call.name, 0);
      if (symbol) {
        found = {symbol, Resolution::kSelf};
        break;
      }
    }
  }
  return found;
}

Found Resolver::ResolveReceiverCall(int file, int caller, const CallFact& call, const std::string& class_key,
                                    bool* settled) {
  const FileFacts& facts = files_[file];
  Found found;
  std::vector<std::string> segments = SplitOn(call.receiver, ".");
  bool typed_receiver = false;
  int inline_mods = 0;  // Rust: `super` inside an inline `mod` leaves that mod first
  for (int s = caller; s >= 0; s = facts.scopes[s].parent) inline_mods += facts.scopes[s].is_namespace;
  if (facts.language == Language::kRust && call.qualified && segments[0] == "super" && inline_mods > 0) {
    std::size_t consumed = 0;
    while (consumed < segments.size() && segments[consumed] == "super" && inline_mods > 0) {
      ++consumed;
      --inline_mods;
    }
    std::vector<std::string> rest(segments.begin() + static_cast<long>(consumed), segments.end());
    rest.push_back(call.name);
    found = ResolvePath(file, -1, rest, 0);
    if (found.symbol) found.how = Resolution::kImport;
    *settled = true;
  } else if (facts.language == Language::kRust && call.qualified &&
             (segments[0] == "crate" || segments[0] == "super" || segments[0] == "self")) {
    std::string path;
    for (const std::string& segment : segments) path += (path.empty() ? "" : "::") + segment;
    auto resolved = index_.ResolveRustPath(file, path);
    if (resolved) {
      Symbol symbol = ModuleSymbol(resolved->first);
      for (const std::string& segment : resolved->second) symbol = LookupMember(symbol, segment, 0);
      found = {symbol, Resolution::kImport};
    }
  } else if (Found typed = TypedReceiver(file, caller, class_key, segments); typed.symbol) {
    // x = Foo(); x.m()  /  self.x = Foo(); self.x.m()  /  Foo x; x.m(): look
    // in Foo and its bases. A miss (an interface, an inherited library
    // method) still gets the name-based fallback below.
    found = {LookupMember(typed.symbol, call.name, 0), typed.how};
    typed_receiver = true;
  } else {
    found = ResolvePath(file, caller, segments, 0);
    if (!found.symbol && facts.language == Language::kJava) {
      auto split = index_.SplitJavaPath(call.receiver);
      if (split) {
        Symbol symbol = ModuleSymbol(split->first);
        for (const std::string& segment : split->second) symbol = LookupMember(symbol, segment, 0);
        found = {symbol, Resolution::kImport};
      }
    }
  }
  if (found.symbol && !*settled && !typed_receiver) {
    *settled = found.symbol.kind != Symbol::Kind::kFunction;
    found.symbol = LookupMember(found.symbol, call.name, 0);
  }
  if (!found.symbol && call.qualified) {
    std::vector<int> candidates = QualifiedCandidates(file, call);
    if (candidates.size() == 1) {
      found = {DefSymbol(candidates.front()), Resolution::kQualified};
    }
  }
  return found;
}

Found Resolver::ResolveCall(int file, int caller, const CallFact& call, bool* settled) {
  const LanguageRules& rules = RulesFor(files_[file].language);
  const std::string class_key = ClassContext(file, caller);
  Found found;
  if (call.receiver.empty()) {
    found = ResolveBareCall(file, caller, call, class_key);
  } else if (IsSelfReceiver(file, caller, call.receiver, call.qualified)) {
    if (!class_key.empty()) {
      Symbol symbol = LookupMember(ClassSymbol(class_key), call.name, 0);
      if (symbol) found = {symbol, Resolution::kSelf};
    }
  } else if (std::find(rules.super_words.begin(), rules.super_words.end(), call.receiver) != rules.super_words.end()) {
    found = ResolveSuperCall(call, class_key);
    *settled = true;
  } else if (call.receiver != "<expr>") {
    found = ResolveReceiverCall(file, caller, call, class_key, settled);
  }
  if (found.symbol.kind == Symbol::Kind::kClass) found.symbol = Constructor(found.symbol);
  else if (found.symbol.kind == Symbol::Kind::kModule) found.symbol = {};
  return found;
}

void Resolver::AddCallEdges(int file, int caller, const CallFact& call, const std::vector<int>& node_of_def,
                            GraphStats& stats, std::vector<CallEdge>* edges) {
  const FileFacts& facts = files_[file];
  const int caller_def = def_of_scope_[file][caller];
  const auto caller_node = static_cast<std::uint32_t>(node_of_def[caller_def]);
  bool settled = false;  // a definite target is known (even if not in the repo)
  Found found = ResolveCall(file, caller, call, &settled);
  if (found.symbol.kind == Symbol::Kind::kFunction) {
    ++stats.resolved[std::string(ResolutionName(found.how))];
    edges->push_back({caller_node, static_cast<std::uint32_t>(node_of_def[found.symbol.def]), found.how, call.line});
    return;
  }
  if (settled || found.how == Resolution::kImport) {
    ++stats.unresolved;
    return;
  }
  std::vector<int> candidates = UniqueCandidates(facts, call);
  if (!call.receiver.empty()) {
    // x.close() inside close(): far more often a wrapper around a library
    // method of the same name than recursion through another object.
    candidates.erase(std::remove(candidates.begin(), candidates.end(), caller_def), candidates.end());
  }
  if (candidates.size() == 1) {
    ++stats.resolved[std::string(ResolutionName(Resolution::kUnique))];
    edges->push_back(
        {caller_node, static_cast<std::uint32_t>(node_of_def[candidates.front()]), Resolution::kUnique, call.line});
  } else if (candidates.size() > 1) {
    ++stats.ambiguous;
    if (options_.link_ambiguous) {
      for (std::size_t i = 0; i < candidates.size() && i < options_.max_ambiguous_candidates; ++i) {
        edges->push_back(
            {caller_node, static_cast<std::uint32_t>(node_of_def[candidates[i]]), Resolution::kAmbiguous, call.line});
      }
    }
  } else {
    ++stats.unresolved;
  }
}

// One edge per (caller, callee): the most certain label, then the first line.
void AddUniqueEdges(std::vector<CallEdge> edges, CallGraph* graph) {
  std::sort(edges.begin(), edges.end(), [](const CallEdge& a, const CallEdge& b) {
    if (a.caller != b.caller) return a.caller < b.caller;
    if (a.callee != b.callee) return a.callee < b.callee;
    if (a.resolution != b.resolution) return a.resolution < b.resolution;
    return a.line < b.line;
  });
  for (const CallEdge& edge : edges) {
    if (!graph->edges.empty() && graph->edges.back().caller == edge.caller &&
        graph->edges.back().callee == edge.callee) {
      graph->edges.back().line = std::min(graph->edges.back().line, edge.line);
      continue;
    }
    graph->edges.push_back(edge);
  }
}

void Resolver::Run(CallGraph* graph) {
  BuildIndexes();
  const std::vector<int> node_of_def = AddNodes(graph);
  std::vector<CallEdge> edges;
  GraphStats& stats = graph->stats;
  for (std::size_t f = 0; f < files_.size(); ++f) {
    const FileFacts& facts = files_[f];
    for (const CallFact& call : facts.calls) {
      int caller = call.scope;
      while (caller >= 0 && facts.scopes[caller].kind != ScopeFact::Kind::kFunction) {
        caller = facts.scopes[caller].parent;
      }
      if (caller < 0) {
        ++stats.call_sites_outside_functions;
        continue;
      }
      ++stats.call_sites;
      AddCallEdges(static_cast<int>(f), caller, call, node_of_def, stats, &edges);
    }
  }
  AddUniqueEdges(std::move(edges), graph);
  stats.edges = graph->edges.size();
}

}  // namespace

void ResolveGraph(const std::vector<FileFacts>& files, const GraphOptions& options, CallGraph* graph) {
  Resolver resolver(files, options);
  resolver.Run(graph);
}

}  // namespace seragen::callgraph
