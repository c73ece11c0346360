// Per-language facts the resolver needs beyond the query captures: the
// grammar, the words meaning "this object", constructor names, and how
// modules are named. Internal to the callgraph module.
#pragma once

#include <string_view>
#include <vector>

#include "seragen/callgraph/language.h"

struct TSLanguage;

namespace seragen::callgraph {

enum class ModuleSystem {
  kPython,      // dotted modules = files/packages, relative imports with dots
  kJavaScript,  // import specifiers = relative file paths
  kGo,          // import paths end in a package directory; package = directory
  kRust,        // crate::/super::/self:: paths over src/ files and inline mods
  kJava,        // package.Class paths, package = package declaration
  kInclude,     // C/C++ #include of headers
};

struct LanguageRules {
  Language language;
  const TSLanguage* (*grammar)();
  ModuleSystem module_system;
  std::vector<std::string_view> self_words;   // receivers meaning "this object"
  std::vector<std::string_view> super_words;  // receivers meaning "the base class"
  // Method names that construct an instance; "" stands for the class's own name.
  std::vector<std::string_view> constructor_names;
  // Unqualified calls inside a class body see the class's members (Java, C++).
  bool members_in_scope = false;
};

const LanguageRules& RulesFor(Language language);

}  // namespace seragen::callgraph
