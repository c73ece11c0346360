// Target for tool-call validation (tools/tool_box, specs from configs/tools.yaml).
#include <stdexcept>
#include <string>

#include "fuzz/fuzz_targets.h"
#include "seragen/base/utf8.h"
#include "seragen/tools/tool_box.h"
#include "testing/fake_command_runner.h"
#include "testing/source_paths.h"

namespace seragen::fuzz {
namespace {

class NoPatches final : public PatchSource {
 public:
  Result<std::string> CurrentPatch() override { return std::string(); }
};

// The shipped tool specs and messages; loaded once (aborts if they do not load).
tools::ToolBox& Box() {
  static const tools::ToolResources resources = [] {
    std::string root = seragen::testing::SourceDir();
    auto r = tools::LoadToolResources(root + "/configs/tools.yaml", root + "/prompts/tools/messages.yaml");
    if (!r.ok()) ContractViolated("the shipped tool specs load", __FILE__, __LINE__);
    return std::move(r).value();
  }();
  static sandbox::FakeCommandRunner runner;
  static NoPatches patches;
  static tools::ToolBox box(&resources, &runner, "/nonexistent/copy", &patches, tools::ToolOptions{});
  return box;
}

}  // namespace

// Input: the tool name, a newline, then the arguments JSON text.
int FuzzToolValidation(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  std::size_t nl = text.find('\n');
  std::string_view name = nl == std::string_view::npos ? std::string_view("bash") : text.substr(0, nl);
  std::string_view args = nl == std::string_view::npos ? text : text.substr(nl + 1);
  tools::ToolBox::Validation v = Box().Validate(name, args);
  SERAGEN_FUZZ_CHECK(v.call.has_value() != v.error.has_value());
  if (v.error) SERAGEN_FUZZ_CHECK(IsValidUtf8(v.error->message));  // shown to the model
  return 0;
}

}  // namespace seragen::fuzz
