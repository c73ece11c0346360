// RefList: a task's refs (role -> path relative to the shard directory) packed
// into one string, the form the fold keeps per task (a std::map of strings
// costs several allocations per task). Roles are kept in std::map order; any
// bytes are allowed in roles and paths (lengths are stored, not separators).
//
// Plain value type; not thread-safe for concurrent mutation.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace seragen::journal {

class RefList {
 public:
  using Entry = std::pair<std::string_view, std::string_view>;  // role, path

  // The path of `role`, or nullopt. The view lives until the next change.
  std::optional<std::string_view> Find(std::string_view role) const;
  // Adds `role`, or replaces its path.
  void Set(std::string_view role, std::string_view path);
  void Erase(std::string_view role);

  bool empty() const { return packed_.empty(); }
  std::size_t size() const { return Entries().size(); }
  // (role, path) in role order; views live until the next change.
  std::vector<Entry> Entries() const;
  std::map<std::string, std::string> ToMap() const;

  // Iterates the (role, path) entries in role order without allocating.
  class Iterator {
   public:
    using value_type = Entry;
    Entry operator*() const;
    Iterator& operator++();
    bool operator==(const Iterator& other) const { return at_ == other.at_; }

   private:
    friend class RefList;
    Iterator(const std::string* packed, std::size_t at) : packed_(packed), at_(at) {}
    const std::string* packed_;
    std::size_t at_;
  };
  Iterator begin() const { return {&packed_, 0}; }
  Iterator end() const { return {&packed_, packed_.size()}; }

  friend bool operator==(const RefList&, const RefList&) = default;

 private:
  void Assign(const std::vector<Entry>& entries);

  std::string packed_;  // per entry: role length, role, path length, path (lengths as 4 bytes)
};

}  // namespace seragen::journal
