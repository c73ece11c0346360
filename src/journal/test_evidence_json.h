// Private to the journal module: the "tests" member of a verified record's
// extra <-> journal::TestEvidence (test_evidence.h). Pure; never throws.
#pragma once

#include "journal/json_fields.h"
#include "journal/simd_fields.h"
#include "seragen/base/result.h"
#include "seragen/journal/test_evidence.h"

namespace seragen::journal::internal {

Json TestEvidenceToJson(const TestEvidence& evidence);
// Unknown members are ignored; a known member of the wrong type or an unknown
// enum name is a kParseError naming "extra.tests.<member>". At most
// kMaxRecordedChanges changes are read.
Result<TestEvidence> TestEvidenceFromJson(SimdObject tests);

}  // namespace seragen::journal::internal
