// Trajectory <-> JSON text (the on-disk trajectory file format, version 1).
#pragma once

#include <string>

#include "seragen/agent/trajectory.h"
#include "seragen/base/result.h"

namespace seragen::agent {

inline constexpr int kTrajectoryFormatVersion = 1;

std::string TrajectoryToJson(const Trajectory& trajectory);
// ParseError naming the field when the text is not a version-1 trajectory.
Result<Trajectory> TrajectoryFromJson(const std::string& text);

}  // namespace seragen::agent
