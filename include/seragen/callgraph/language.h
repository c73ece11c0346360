// Languages the call-graph extractor understands, and how files map to them.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace seragen::callgraph {

enum class Language : std::uint8_t {
  kPython,
  kJavaScript,
  kTypeScript,
  kTsx,
  kGo,
  kRust,
  kJava,
  kC,
  kCpp,
};

inline constexpr int kLanguageCount = 9;

// Lowercase stable name used in JSON and configs: "python", "javascript",
// "typescript", "tsx", "go", "rust", "java", "c", "cpp".
std::string_view LanguageName(Language language);
std::optional<Language> LanguageFromName(std::string_view name);

// The language a repository-relative path is parsed as, from its extension;
// nullopt for files that are not source code we parse. `.h` headers are C
// unless `headers_are_cpp` (BuildGraph decides from the repository's mix).
std::optional<Language> LanguageForPath(std::string_view path, bool headers_are_cpp = true);

// True when the path has a C++-only extension (.cc, .cpp, .cxx, .hpp, .hh, ...).
bool IsCppOnlyExtension(std::string_view path);

// Languages whose names can call each other (JS/TS/TSX share one family, C and C++ another).
int LanguageFamily(Language language);

}  // namespace seragen::callgraph
