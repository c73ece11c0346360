// Private to the journal module: decoding journal lines with simdjson's DOM
// parser (a status of a 100,000-task run decodes millions of them). The typed
// readers mirror json_fields.h (same names, same rules, same messages) over a
// parsed simdjson object; simdjson stays inside journal's .cc files and this
// private header.
//
// Total: the parser validates UTF-8 and bounds nesting (kMaxJsonDepth) before
// any field is read; accessors return error codes (no simdjson exception is
// ever thrown). Thread-safe: each thread parses with its own parser, and a
// parsed object stays valid until the same thread parses the next line.
#pragma once

#include <simdjson.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "seragen/base/result.h"

namespace seragen::journal::internal {

using SimdObject = simdjson::dom::object;

// Parses one line into a JSON object with this thread's parser; kDataLoss when
// it is not one (torn, damaged, not an object, nested too deep). The object
// refers to the parser's buffers: read it before this thread parses again.
Result<SimdObject> ParseLineObject(std::string_view line);

// True when `j` has a member `field`.
bool Has(SimdObject j, std::string_view field);
// The member `field` as an object: false when absent; a FieldError (prefix +
// field, "must be an object") when present and not an object.
Result<bool> FindObject(SimdObject j, std::string_view field, std::string_view prefix, SimdObject* out);

// As the readers of json_fields.h: a `required` field must be present; an
// optional one leaves *out unchanged when absent; a present field of the wrong
// type is a FieldError naming it. ReadText prefers `field`_base64.
Status ReadText(SimdObject j, std::string_view field, bool required, std::string* out, std::string_view prefix = "");
Status ReadInt(SimdObject j, std::string_view field, bool required, std::int64_t* out, std::string_view prefix = "");
Status ReadInt(SimdObject j, std::string_view field, bool required, int* out, std::string_view prefix = "");
Status ReadCount(SimdObject j, std::string_view field, bool required, std::uint64_t* out, std::string_view prefix = "");
Status ReadNumber(SimdObject j, std::string_view field, bool required, double* out, std::string_view prefix = "");
Status ReadBool(SimdObject j, std::string_view field, bool required, bool* out, std::string_view prefix = "");

}  // namespace seragen::journal::internal
