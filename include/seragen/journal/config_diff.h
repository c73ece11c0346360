// Config change detection for resume: which keys differ between the config a
// run was started with and the one of the current invocation.
//
// Both configs are JSON objects (the config module's canonical JSON of the
// resolved config). They are flattened to leaf paths and compared:
//   objects -> "agent.max_steps", arrays -> "tools[0].name",
//   keys that are not plain identifiers are quoted: models."gpt-4.1".temperature
//   empty objects/arrays are leaves ({} / []).
// Values are compared as JSON (1 and 1.0 are equal; key order is irrelevant).
//
// Pure functions; thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "seragen/base/result.h"

namespace seragen::journal {

struct ConfigDifference {
  enum class Kind { kAdded, kRemoved, kChanged };
  Kind kind = Kind::kChanged;
  std::string path;
  std::string old_value;  // compact JSON; empty for kAdded
  std::string new_value;  // compact JSON; empty for kRemoved
  bool ignored = false;   // under one of ConfigCheckOptions::ignored_prefixes

  friend bool operator==(const ConfigDifference&, const ConfigDifference&) = default;
};

// Differences sorted by path. kParseError naming which side ("stored" or
// "current") is not a JSON object.
Result<std::vector<ConfigDifference>> DiffConfigJson(std::string_view stored_json, std::string_view current_json);

struct ConfigCheckOptions {
  // Paths whose changes do not affect the data (e.g. "pipeline.concurrency",
  // "endpoints"): a prefix matches the path itself and everything below it.
  std::vector<std::string> ignored_prefixes;
  // The flag the user passes to accept a change, quoted in the error message.
  std::string override_flag = "--allow-config-change";
  // What the stored config is, completing "the configuration differs from ...".
  std::string stored_description = "the one this run was started with";
};

// OK when the configs are equal apart from ignored paths. Otherwise
// kFailedPrecondition whose message lists every non-ignored difference, one
// per line ("changed agent.max_steps: 100 -> 50", "added x: 1",
// "removed y (was \"z\")"; long values are shortened), then says how to
// proceed (the override flag or a new run directory).
Status CheckConfigCompatible(std::string_view stored_json, std::string_view current_json,
                             const ConfigCheckOptions& options = {});

}  // namespace seragen::journal
