// One detector per profile (private to the env module; profile.h is the
// interface). Each returns nullopt when its marker files are absent.
#pragma once

#include <optional>
#include <string>

#include "seragen/env/profile.h"

namespace seragen::env::detail {

std::optional<Profile> DetectPython(const std::string& dir, const ProfileOptions& options);
std::optional<Profile> DetectGo(const std::string& dir, const ProfileOptions& options);
std::optional<Profile> DetectRust(const std::string& dir, const ProfileOptions& options);
std::optional<Profile> DetectNode(const std::string& dir, const ProfileOptions& options);

}  // namespace seragen::env::detail
