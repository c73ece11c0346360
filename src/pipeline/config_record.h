// The run directory's record of its configuration: RUN_DIR/config.yaml (the
// resolved config, no secrets) and config.json (the part that shapes data),
// plus their history: config.<n>.yaml/.json hold the configuration replaced
// by the n-th change accepted with --allow-config-change.
//
// A run directory is claimed (its config recorded) only once a plan exists,
// so an invocation that fails before planning (a mistyped repository path)
// leaves nothing that would refuse the corrected config as a "change".
#pragma once

#include <string>

#include "seragen/base/result.h"
#include "seragen/config/loader.h"

namespace seragen::pipeline {

struct ConfigClaim {
  std::string run_dir;
  std::string current_json;   // this invocation's data-shaping config
  std::string resolved_yaml;  // this invocation's resolved config
  bool stored = false;        // the run directory already records a config
  bool changed = false;       // ... and this one differs from it (allowed by the caller)
  std::string change_list;    // with `changed`: the differences, as the refusal lists them
  int history = 0;            // changes accepted so far (config.1.* .. config.<history>.* exist)
};

// Compares this invocation's config with the recorded one and writes
// nothing. kFailedPrecondition listing the changes when they differ and
// `allow_change` is false; the message says what the stored config is (the
// one the run started with, or the one since its last accepted change).
Result<ConfigClaim> CheckRecordedConfig(const config::LoadedConfig& loaded, const std::string& run_dir,
                                        bool allow_change);

// Records the config of `claim`. For an accepted change it first copies the
// replaced pair to config.<history+1>.yaml/.json and returns that yaml's
// RUN_DIR-relative name; otherwise the newest copy's name ("" when none), so
// a shard journal that still has the old hash names the copy too.
Result<std::string> RecordConfig(const ConfigClaim& claim);

}  // namespace seragen::pipeline
