#include "export/sera_rules.h"

#include <string_view>
#include <vector>

#include "seragen/verify/sera_lines.h"

namespace seragen::exporter::internal {
namespace {

constexpr std::string_view kOpen = "<think>", kClose = "</think>";

struct Block {
  std::size_t begin = std::string::npos;  // at "<think>"
  std::size_t end = std::string::npos;    // after "</think>"
};

// The blocks Python's re.findall(r"<think>(.*?)</think>", text, re.S) finds.
std::vector<Block> ThinkBlocks(const std::string& text) {
  std::vector<Block> out;
  std::size_t at = 0;
  while ((at = text.find(kOpen, at)) != std::string::npos) {
    std::size_t close = text.find(kClose, at + kOpen.size());
    if (close == std::string::npos) break;
    out.push_back({at, close + kClose.size()});
    at = close + kClose.size();
  }
  return out;
}

std::string_view Body(const std::string& text, const Block& b) {
  return std::string_view(text).substr(b.begin + kOpen.size(), b.end - kClose.size() - b.begin - kOpen.size());
}

}  // namespace

Result<std::string> SeraOneThinkBlock(const std::string& text) {
  if (text.find(kOpen) == std::string::npos) return text;
  std::vector<Block> blocks = ThinkBlocks(text);
  if (blocks.size() != 1) {
    return FailedPreconditionError("a message holds " + std::to_string(blocks.size()) +
                                   " <think>...</think> blocks; SERA's post-processing drops such rows");
  }
  const Block& b = blocks.front();
  return text.substr(0, b.begin) + "<think>\n" + std::string(verify::PythonStrip(Body(text, b))) + "\n</think>" +
         text.substr(b.end);
}

Result<std::string> SeraKeepOnlyThink(const std::string& text, const std::string& call) {
  const std::string stripped(verify::PythonStrip(text));
  std::size_t rest = 0;
  std::string think;
  if (stripped.starts_with(kOpen)) {
    if (std::size_t close = stripped.find(kClose); close != std::string::npos) {
      rest = close + kClose.size();
      Block b{0, rest};
      if (!verify::PythonStrip(Body(stripped, b)).empty()) think = stripped.substr(0, rest);
    }
  }
  const std::size_t calls = stripped.find("<tool_call>", rest);
  if (calls == std::string::npos || std::string_view(stripped).substr(calls) != call) {
    return FailedPreconditionError(
        "an assistant turn writes <tool_call> or </think> in its text; SERA's split would train that text as "
        "part of the call");
  }
  if (think.empty()) {
    think = "<think>\n" + std::string(verify::PythonStrip(std::string_view(stripped).substr(rest, calls - rest))) +
            "\n</think>";
  }
  return think + "\n\n" + call;
}

}  // namespace seragen::exporter::internal
