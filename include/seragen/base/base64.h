// Standard base64 (RFC 4648, with padding) for storing exact bytes inside
// JSON text, e.g. a patch that is not valid UTF-8.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace seragen {

// Total: any bytes encode.
std::string Base64Encode(std::string_view bytes);

// std::nullopt unless `text` is canonical padded base64 (length a multiple of
// 4, alphabet A-Z a-z 0-9 + /, '=' only as trailing padding). No whitespace.
std::optional<std::string> Base64Decode(std::string_view text);

}  // namespace seragen
