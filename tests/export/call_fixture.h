// A valid tool call for the export tests' trajectories.
#pragma once

#include <string>
#include <utility>

#include "seragen/llm/types.h"

namespace seragen::exporter::fixture {

inline llm::ToolCall Call(std::string id, std::string name, std::string args) {
  llm::ToolCall c;
  c.id = std::move(id);
  c.name = std::move(name);
  c.arguments_raw = args;
  c.arguments_json = std::move(args);
  c.arguments_valid = true;
  return c;
}

}  // namespace seragen::exporter::fixture
