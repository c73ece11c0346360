#include "journal/simd_fields.h"

#include <fmt/format.h>

#include <cmath>
#include <optional>

#include "journal/json_fields.h"
#include "seragen/base/base64.h"
#include "seragen/base/json_depth.h"

namespace seragen::journal::internal {
namespace {

namespace dom = simdjson::dom;

constexpr std::string_view kBase64Suffix = "_base64";
constexpr std::size_t kInitialCapacity = 1 << 16;

// This thread's parser and padded copy of the line being parsed.
struct LineParser {
  dom::parser parser;
  std::string padded;
  bool allocated = false;
};

LineParser& ThreadParser() {
  thread_local LineParser p;
  return p;
}

Status Missing(std::string_view prefix, std::string_view field) {
  return FieldError(fmt::format("{}{}", prefix, field), "is missing");
}

Status Wrong(std::string_view prefix, std::string_view field, std::string_view want) {
  return FieldError(fmt::format("{}{}", prefix, field), want);
}

// The member `field`, or nullopt.
std::optional<dom::element> Find(SimdObject j, std::string_view field) {
  dom::element e;
  if (j.at_key(field).get(e) != simdjson::SUCCESS) return std::nullopt;
  return e;
}

// Reads the present `field` with read(element), which is false when the
// element is not of the wanted kind; absent: Missing when `required`.
template <typename Read>
Status ReadField(SimdObject j, std::string_view field, bool required, std::string_view prefix, std::string_view want,
                 Read read) {
  std::optional<dom::element> v = Find(j, field);
  if (!v) return required ? Missing(prefix, field) : Status::Ok();
  return read(*v) ? Status::Ok() : Wrong(prefix, field, want);
}

}  // namespace

Result<SimdObject> ParseLineObject(std::string_view line) {
  LineParser& p = ThreadParser();
  if (!p.allocated) {
    if (p.parser.allocate(kInitialCapacity, kMaxJsonDepth) != simdjson::SUCCESS) {
      return ResourceExhaustedError("cannot allocate the journal line parser");
    }
    p.allocated = true;
  }
  p.padded.assign(line);
  p.padded.append(simdjson::SIMDJSON_PADDING, '\0');
  dom::element doc;
  // The parser bounds nesting itself; the depth scan only names a failure.
  if (p.parser.parse(p.padded.data(), line.size(), false).get(doc) != simdjson::SUCCESS) {
    if (Status depth = CheckJsonDepth(line, "journal line"); !depth.ok()) return DataLossError(depth.message());
    return DataLossError("not a complete JSON object");
  }
  SimdObject object;
  if (doc.get_object().get(object) != simdjson::SUCCESS) return DataLossError("not a JSON object");
  return object;
}

bool Has(SimdObject j, std::string_view field) { return Find(j, field).has_value(); }

Result<bool> FindObject(SimdObject j, std::string_view field, std::string_view prefix, SimdObject* out) {
  std::optional<dom::element> v = Find(j, field);
  if (!v) return false;
  if (v->get_object().get(*out) != simdjson::SUCCESS) return Wrong(prefix, field, "must be an object");
  return true;
}

// `key` is `field` + "_base64".
bool IsBase64Name(std::string_view key, std::string_view field) {
  return key.size() == field.size() + kBase64Suffix.size() && key.starts_with(field) && key.ends_with(kBase64Suffix);
}

Status ReadText(SimdObject j, std::string_view field, bool required, std::string* out, std::string_view prefix) {
  // One pass for both spellings; the first member of a name counts (as at_key).
  std::optional<dom::element> plain, encoded;
  for (dom::key_value_pair member : j) {
    if (!plain && member.key == field) plain = member.value;
    if (!encoded && IsBase64Name(member.key, field)) encoded = member.value;
  }
  if (encoded) {
    std::optional<std::string> bytes;
    std::string_view text;
    if (encoded->get_string().get(text) == simdjson::SUCCESS) bytes = Base64Decode(text);
    if (!bytes) return Wrong(prefix, std::string(field) + std::string(kBase64Suffix), "must be base64 text");
    *out = std::move(*bytes);
    return Status::Ok();
  }
  if (!plain) return required ? Missing(prefix, field) : Status::Ok();
  std::string_view text;
  if (plain->get_string().get(text) != simdjson::SUCCESS) return Wrong(prefix, field, "must be a string");
  out->assign(text);
  return Status::Ok();
}

Status ReadInt(SimdObject j, std::string_view field, bool required, std::int64_t* out, std::string_view prefix) {
  // An unsigned value above INT64_MAX is not an int64 (get_int64 refuses it).
  return ReadField(j, field, required, prefix, "must be an integer",
                   [out](dom::element e) { return e.get_int64().get(*out) == simdjson::SUCCESS; });
}

Status ReadInt(SimdObject j, std::string_view field, bool required, int* out, std::string_view prefix) {
  std::int64_t v = *out;
  SG_RETURN_IF_ERROR(ReadInt(j, field, required, &v, prefix));
  if (v < INT32_MIN || v > INT32_MAX) return Wrong(prefix, field, "is out of range");
  *out = static_cast<int>(v);
  return Status::Ok();
}

Status ReadCount(SimdObject j, std::string_view field, bool required, std::uint64_t* out, std::string_view prefix) {
  return ReadField(j, field, required, prefix, "must be a non-negative integer",
                   [out](dom::element e) { return e.get_uint64().get(*out) == simdjson::SUCCESS; });
}

Status ReadNumber(SimdObject j, std::string_view field, bool required, double* out, std::string_view prefix) {
  return ReadField(j, field, required, prefix, "must be a finite number", [out](dom::element e) {
    double value = 0;
    if (e.get_double().get(value) != simdjson::SUCCESS || !std::isfinite(value)) return false;
    *out = value;
    return true;
  });
}

Status ReadBool(SimdObject j, std::string_view field, bool required, bool* out, std::string_view prefix) {
  return ReadField(j, field, required, prefix, "must be true or false",
                   [out](dom::element e) { return e.get_bool().get(*out) == simdjson::SUCCESS; });
}

}  // namespace seragen::journal::internal
