#include "seragen/report/task_refs.h"

#include <cstring>

namespace seragen::report {
namespace {

void AppendSized(std::string& out, std::string_view text) {
  const std::size_t size = text.size();
  out.append(reinterpret_cast<const char*>(&size), sizeof size);
  out.append(text);
}

// The text at `*at`, moving `*at` past it.
std::string_view ReadSized(const std::string& packed, std::size_t* at) {
  std::size_t size = 0;
  std::memcpy(&size, packed.data() + *at, sizeof size);
  std::string_view text(packed.data() + *at + sizeof size, size);
  *at += sizeof size + size;
  return text;
}

}  // namespace

TaskRefs::TaskRefs(const std::map<std::string, std::string>& refs) {
  std::size_t size = 0;
  for (const auto& [role, path] : refs) size += 2 * sizeof(std::size_t) + role.size() + path.size();
  packed_.reserve(size);
  for (const auto& [role, path] : refs) {
    AppendSized(packed_, role);
    AppendSized(packed_, path);
  }
}

std::optional<std::string_view> TaskRefs::Find(std::string_view role) const {
  for (const auto& [r, path] : *this) {
    if (r == role) return path;
  }
  return std::nullopt;
}

TaskRefs::Iterator::value_type TaskRefs::Iterator::operator*() const {
  std::size_t at = at_;
  std::string_view role = ReadSized(*packed_, &at);
  return {role, ReadSized(*packed_, &at)};
}

TaskRefs::Iterator& TaskRefs::Iterator::operator++() {
  ReadSized(*packed_, &at_);
  ReadSized(*packed_, &at_);
  return *this;
}

}  // namespace seragen::report
