// The `sharegpt` layout (internal): LLaMA-Factory's tool format.
//
//   {"conversations": [{"from": "human", "value": instance prompt},
//                      {"from": "function_call", "value": "<think>\n…\n</think>\n\n{\"name\": …, \"arguments\": {…}}"},
//                      {"from": "observation", "value": tool result}, …,
//                      {"from": "function_call", "value": the submit call}],
//    "system": system prompt, "tools": "[{\"name\": …, \"description\": …, \"parameters\": {…}}, …]"}
//
// human/observation turns stand at odd positions and function_call turns at
// even ones (1-based), the count is even, as LLaMA-Factory's converter
// requires. The reasoning of a turn (or, without reasoning, its visible text)
// goes in a <think> block before the call's JSON: LLaMA-Factory's function
// formatter cuts that block out, parses the rest as the call and renders the
// block in front of the template's call markup. Pure; thread-safe.
#pragma once

#include <nlohmann/json.hpp>
#include <vector>

#include "seragen/base/result.h"
#include "seragen/export/record.h"
#include "seragen/llm/types.h"

namespace seragen::exporter::internal {

// The record without `metadata`. `history` obeys ValidateConversation and
// ends on the submit call (its result left out by the caller).
Result<nlohmann::ordered_json> SharegptRecord(const std::vector<llm::Message>& history,
                                              const std::vector<llm::ToolSpec>& tools, ThinkMode think);

}  // namespace seragen::exporter::internal
