// Private to the journal module: the "extra" object of task records <-> the
// typed RecordExtra (record_extra.h). Pure; thread-safe; never throws.
#pragma once

#include "journal/json_fields.h"
#include "journal/simd_fields.h"
#include "seragen/base/result.h"
#include "seragen/journal/record.h"

namespace seragen::journal::internal {

// True when `extra` is the struct `stage` carries, or std::monostate.
bool ExtraFitsStage(const RecordExtra& extra, Stage stage);

// The "extra" object of `extra`; an empty object for std::monostate.
Json ExtraToJson(const RecordExtra& extra);

// Decodes the "extra" object (`extra` is an object) of a record of `stage`
// into the stage's struct; std::monostate for stages without one. Unknown
// members are ignored (a newer writer may add some); a known member of the
// wrong type is a kParseError naming "extra.<member>".
Result<RecordExtra> ExtraFromJson(Stage stage, SimdObject extra);

}  // namespace seragen::journal::internal
