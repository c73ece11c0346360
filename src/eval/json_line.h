// The JSON conventions eval's line files share (eval.jsonl, results.jsonl):
// key order kept, one line per record, and reads that treat a null value as
// an absent key.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace seragen::eval::detail {

using Json = nlohmann::ordered_json;

// `j` as one line; invalid UTF-8 in a string is replaced, never thrown on.
inline std::string DumpLine(const Json& j) { return j.dump(-1, ' ', false, Json::error_handler_t::replace); }

// The value of `key` in object `j`, or nullptr when absent or null.
inline const Json* Present(const Json& j, const char* key) {
  auto it = j.find(key);
  return it == j.end() || it->is_null() ? nullptr : &*it;
}

}  // namespace seragen::eval::detail
