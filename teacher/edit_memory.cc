#include "teacher/edit_memory.h"

#include <set>
#include <sstream>

namespace seragen::teacher {
namespace {

// The non-empty lines of `text`, without their "\r".
std::vector<std::string> Lines(std::string_view text) {
  std::vector<std::string> out;
  std::istringstream in{std::string(text)};
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (!line.empty()) out.push_back(std::move(line));
  }
  return out;
}

}  // namespace

void EditMemory::Remember(std::string_view old_text, std::string_view new_text, const std::string& function) {
  if (function.empty()) return;
  std::vector<std::string> old_lines = Lines(old_text);
  std::set<std::string> before(old_lines.begin(), old_lines.end());
  std::lock_guard<std::mutex> lock(mu_);
  for (std::string& line : Lines(new_text)) {
    if (before.count(line) > 0) continue;
    if (function_of_line_.size() >= kMaxLines) function_of_line_.clear();
    function_of_line_[std::move(line)] = function;
  }
}

std::string EditMemory::FunctionOf(const std::vector<std::string>& added_lines) const {
  std::lock_guard<std::mutex> lock(mu_);
  for (const std::string& line : added_lines) {
    std::string_view l = line;
    if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
    auto it = function_of_line_.find(std::string(l));
    if (it != function_of_line_.end()) return it->second;
  }
  return "";
}

}  // namespace seragen::teacher
