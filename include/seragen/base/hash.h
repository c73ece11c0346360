// Stable content hashes: the same bytes give the same hash everywhere, forever.
// Used for task ids, recipe/config hashes and cache keys. SHA-256 throughout.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>

namespace seragen {

// Lowercase hex SHA-256 of `data` (64 characters).
std::string Sha256Hex(std::string_view data);

// First 8 bytes of SHA-256, big-endian. For seeds and partitioning.
std::uint64_t StableHash64(std::string_view data);

// Incremental SHA-256. Not thread-safe; move-only (the state is owned).
class Sha256 {
 public:
  Sha256();
  ~Sha256();
  void Update(std::string_view data);
  // Appends a length-prefixed field so that ("ab","c") and ("a","bc") differ.
  void UpdateField(std::string_view field);
  std::string FinalHex();  // may be called once

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// Hex SHA-256 over length-prefixed fields; `length` hex characters (<= 64).
std::string ContentId(std::initializer_list<std::string_view> fields, std::size_t length = 20);

}  // namespace seragen
