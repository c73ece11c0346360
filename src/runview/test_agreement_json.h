// Private to the runview module: the soft/hard agreement as the JSON object
// `status --json` carries under "test_agreement". Pure.
#pragma once

#include <nlohmann/json.hpp>

#include "seragen/runview/test_agreement.h"

namespace seragen::runview {

// {"with_evidence":N,"agree":..,"disagree":..,"no_signal":..,"unavailable":..,
//  "soft_accepted_decided":..,"soft_accepted_agree":..,"soft_to_hard":x|null,
//  "agree_soft_accepted":..,"hard_to_soft":x|null}
nlohmann::ordered_json TestAgreementJson(const TestAgreementSummary& s);

}  // namespace seragen::runview
