// Structured prompt data files (YAML) under prompts/: parsed here because
// this module owns the YAML library.
#pragma once

#include <string>
#include <vector>

#include "seragen/base/result.h"

namespace seragen::config {

struct CategoryPrompt {
  std::string topic;   // short name, recorded in metadata
  std::string prompt;  // text substituted for {{category_prompt}}
};

// Reads "categories: [{topic: ..., prompt: ...}, ...]". Errors name the file
// and the entry index.
Result<std::vector<CategoryPrompt>> LoadCategoryPrompts(const std::string& path);

}  // namespace seragen::config
