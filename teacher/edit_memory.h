// EditMemory: what the scripted teacher's rollout-1 edits added, line by
// line, with the function the rollout's task named. The issue writer sees
// only the steps and the diff; when the diff's context shows no definition
// (a change deep inside a long function), it takes the function of the task
// from here rather than guessing from the steps. Thread-safe; bounded.
#pragma once

#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace seragen::teacher {

class EditMemory {
 public:
  // Remembers every line of `new_text` that `old_text` does not have.
  void Remember(std::string_view old_text, std::string_view new_text, const std::string& function);
  // The function of the first of `added_lines` remembered; "" when none is.
  std::string FunctionOf(const std::vector<std::string>& added_lines) const;

 private:
  static constexpr std::size_t kMaxLines = 200000;  // then it starts over
  mutable std::mutex mu_;
  std::unordered_map<std::string, std::string> function_of_line_;
};

}  // namespace seragen::teacher
