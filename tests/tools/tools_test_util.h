// Shared fixtures for tools tests: the real tool and message files.
#pragma once

#include <stdexcept>
#include <string>

#include "seragen/tools/tool_box.h"
#include "testing/source_paths.h"

namespace seragen::tools::test {

using seragen::testing::SourcePath;

inline const ToolResources& Resources() {
  static const ToolResources resources = [] {
    auto r = LoadToolResources(SourcePath("configs/tools.yaml"), SourcePath("prompts/tools/messages.yaml"));
    if (!r.ok()) throw std::runtime_error(r.status().ToString());
    return std::move(r).value();
  }();
  return resources;
}

inline const ToolMessages& Messages() { return Resources().messages; }

// Renders a message the way the tools do, for exact comparisons.
inline std::string Expected(std::string_view key, const TemplateValues& values) {
  auto r = Messages().Render(key, values);
  if (!r.ok()) throw std::runtime_error(r.status().ToString());
  return *r;
}

class FakePatchSource final : public PatchSource {
 public:
  Result<std::string> CurrentPatch() override {
    ++calls;
    if (!error.ok()) return error;
    return patch;
  }
  std::string patch;
  Status error;
  int calls = 0;
};

}  // namespace seragen::tools::test
