#include "seragen/journal/ref_list.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

namespace seragen::journal {
namespace {

void PutPiece(std::string_view piece, std::string* out) {
  const auto n = static_cast<std::uint32_t>(piece.size());
  char len[sizeof n];
  std::memcpy(len, &n, sizeof n);
  out->append(len, sizeof n);
  out->append(piece);
}

// The piece at *at, advancing past it; empty when the bytes end early (only
// PutPiece writes them, so that cannot happen short of a bug).
std::string_view TakePiece(std::string_view packed, std::size_t* at) {
  std::uint32_t n = 0;
  if (packed.size() - *at < sizeof n) {
    *at = packed.size();
    return {};
  }
  std::memcpy(&n, packed.data() + *at, sizeof n);
  *at += sizeof n;
  std::string_view piece = packed.substr(*at, std::min<std::size_t>(n, packed.size() - *at));
  *at += piece.size();
  return piece;
}

}  // namespace

RefList::Entry RefList::Iterator::operator*() const {
  std::size_t at = at_;
  std::string_view role = TakePiece(*packed_, &at);
  std::string_view path = TakePiece(*packed_, &at);
  return {role, path};
}

RefList::Iterator& RefList::Iterator::operator++() {
  TakePiece(*packed_, &at_);
  TakePiece(*packed_, &at_);
  return *this;
}

std::vector<RefList::Entry> RefList::Entries() const {
  std::vector<Entry> out;
  for (Entry e : *this) out.push_back(e);
  return out;
}

std::optional<std::string_view> RefList::Find(std::string_view role) const {
  for (const auto& [r, path] : *this) {
    if (r == role) return path;
  }
  return std::nullopt;
}

void RefList::Set(std::string_view role, std::string_view path) {
  std::vector<Entry> entries = Entries();
  auto it = std::lower_bound(entries.begin(), entries.end(), role,
                             [](const Entry& e, std::string_view r) { return e.first < r; });
  if (it != entries.end() && it->first == role) {
    if (it->second == path) return;
    it->second = path;
  } else {
    entries.insert(it, Entry(role, path));
  }
  Assign(entries);
}

void RefList::Erase(std::string_view role) {
  std::vector<Entry> entries = Entries();
  auto kept = std::erase_if(entries, [role](const Entry& e) { return e.first == role; });
  if (kept > 0) Assign(entries);
}

void RefList::Assign(const std::vector<Entry>& entries) {
  std::string packed;
  std::size_t size = 0;
  for (const auto& [role, path] : entries) size += 2 * sizeof(std::uint32_t) + role.size() + path.size();
  packed.reserve(size);  // exactly: one of these is kept per task
  for (const auto& [role, path] : entries) {
    PutPiece(role, &packed);
    PutPiece(path, &packed);
  }
  packed_ = std::move(packed);  // entries view the old bytes until here
}

std::map<std::string, std::string> RefList::ToMap() const {
  std::map<std::string, std::string> out;
  for (const auto& [role, path] : Entries()) out.emplace(role, path);
  return out;
}

}  // namespace seragen::journal
