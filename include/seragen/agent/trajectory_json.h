// Trajectory <-> JSON text (the on-disk trajectory file format, version 1).
#pragma once

#include <string>

#include "seragen/agent/trajectory.h"
#include "seragen/base/result.h"

namespace seragen::agent {

inline constexpr int kTrajectoryFormatVersion = 1;

// Total (never throws): invalid UTF-8 in any string is replaced in the text,
// except the patch, whose exact bytes are kept in "patch_base64" when it is
// not valid UTF-8 ("patch" then holds the repaired text form).
std::string TrajectoryToJson(const Trajectory& trajectory);
// ParseError naming the field when the text is not a version-1 trajectory
// (or nests deeper than kMaxJsonDepth). Files without "patch_base64" (all
// files written before it existed) load their "patch" as is.
Result<Trajectory> TrajectoryFromJson(const std::string& text);

// One model response as a turn of a trajectory file stores it (the "response"
// object of a turn); used by turn logs. Total; invalid UTF-8 is replaced.
std::string ResponseToJson(const llm::ChatResponse& response);
Result<llm::ChatResponse> ResponseFromJson(const std::string& text);

}  // namespace seragen::agent
