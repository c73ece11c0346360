#include "seragen/env/import_failure.h"

#include <algorithm>

namespace seragen::env {
namespace {

// The quoted name after `marker` at `pos` ('...' or "..."); "" when not quoted.
std::string_view QuotedAfter(std::string_view text, std::size_t pos) {
  if (pos >= text.size() || (text[pos] != '\'' && text[pos] != '"')) return {};
  const char quote = text[pos];
  std::size_t end = text.find(quote, pos + 1);
  if (end == std::string_view::npos || end - pos > 512) return {};
  return text.substr(pos + 1, end - pos - 1);
}

// `name` is one of `own` or below one of them ("pkg.sub", "pkg/sub").
bool IsOwn(std::string_view name, const std::vector<std::string>& own, char separator) {
  return std::any_of(own.begin(), own.end(), [&](const std::string& m) {
    return !m.empty() && name.substr(0, m.size()) == m && (name.size() == m.size() || name[m.size()] == separator);
  });
}

// The file of the last `File "..."` frame before `pos` (a Python traceback).
std::string_view InnermostFrameFile(std::string_view text, std::size_t pos) {
  const std::size_t window = pos > 8192 ? pos - 8192 : 0;
  std::size_t frame = text.rfind("File \"", pos);
  if (frame == std::string_view::npos || frame < window) return {};
  return QuotedAfter(text, frame + 5);
}

bool FrameInOwnPackage(std::string_view file, const std::vector<std::string>& own, std::string_view mount) {
  for (std::string_view root : {std::string_view("/"), std::string_view("/src/")}) {
    std::string prefix = std::string(mount) + std::string(root);
    if (file.substr(0, prefix.size()) != prefix) continue;
    std::string_view rest = file.substr(prefix.size());
    if (IsOwn(rest, own, '/') || IsOwn(rest.substr(0, rest.rfind(".py")), own, '/')) return true;
  }
  return false;
}

bool PythonFailure(std::string_view out, const std::vector<std::string>& own, std::string_view mount) {
  static constexpr std::string_view kMarker = "ModuleNotFoundError: No module named ";
  for (std::size_t pos = out.find(kMarker); pos != std::string_view::npos; pos = out.find(kMarker, pos + 1)) {
    std::string_view name = QuotedAfter(out, pos + kMarker.size());
    if (IsOwn(name, own, '.')) return true;
    if (FrameInOwnPackage(InnermostFrameFile(out, pos), own, mount)) return true;
  }
  return false;
}

bool NamedFailure(std::string_view out, std::string_view marker, const std::vector<std::string>& own, bool quoted) {
  for (std::size_t pos = out.find(marker); pos != std::string_view::npos; pos = out.find(marker, pos + 1)) {
    std::size_t start = pos + marker.size();
    std::string_view name;
    if (quoted) {
      name = QuotedAfter(out, start);
    } else {
      std::size_t end = out.find_first_of(" \t\r\n;:", start);
      name = out.substr(start, (end == std::string_view::npos ? out.size() : end) - start);
    }
    if (IsOwn(name, own, '/')) return true;
  }
  return false;
}

}  // namespace

bool FailsToImportOwnCode(std::string_view output, const std::vector<std::string>& own_modules,
                          std::string_view mount_point) {
  if (own_modules.empty()) return false;
  return PythonFailure(output, own_modules, mount_point) ||
         NamedFailure(output, "Cannot find module ", own_modules, true) ||
         NamedFailure(output, "no required module provides package ", own_modules, false) ||
         NamedFailure(output, "cannot find module providing package ", own_modules, false);
}

}  // namespace seragen::env
