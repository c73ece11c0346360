// The files a task's journal records refer to (role -> path relative to the
// shard directory), kept in one allocation: the report holds a row per task,
// and a std::map costs a node and up to two more allocations per ref.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace seragen::report {

class TaskRefs {
 public:
  TaskRefs() = default;
  explicit TaskRefs(const std::map<std::string, std::string>& refs);

  // The path of `role`, or nullopt.
  std::optional<std::string_view> Find(std::string_view role) const;
  bool empty() const { return packed_.empty(); }

  // (role, path) pairs in role order.
  class Iterator {
   public:
    using value_type = std::pair<std::string_view, std::string_view>;
    value_type operator*() const;
    Iterator& operator++();
    bool operator==(const Iterator& other) const { return at_ == other.at_; }

   private:
    friend class TaskRefs;
    Iterator(const std::string* packed, std::size_t at) : packed_(packed), at_(at) {}
    const std::string* packed_;
    std::size_t at_;
  };
  Iterator begin() const { return {&packed_, 0}; }
  Iterator end() const { return {&packed_, packed_.size()}; }

 private:
  // Per ref: the role's size, the role, the path's size, the path (sizes as
  // a std::size_t's bytes; only this class reads them).
  std::string packed_;
};

}  // namespace seragen::report
