// RE2 options shared by the module: patterns and texts are bytes (Latin-1
// mode), so invalid UTF-8 is matched like any other byte sequence rather
// than rejected or skipped; errors are returned, never logged by RE2.
#pragma once

#include <re2/re2.h>

namespace seragen::secrets {

inline RE2::Options ByteOptions() {
  RE2::Options options;
  options.set_encoding(RE2::Options::EncodingLatin1);
  options.set_log_errors(false);
  options.set_max_mem(64 << 20);
  return options;
}

}  // namespace seragen::secrets
