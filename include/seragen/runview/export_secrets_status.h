// What `status` and the report show of secrets: the secret counts of the
// latest export of each format, read from the run's data directory
// (RUN_DIR/data/summary.<format>.json). Status does not scan: these are the
// counts the exports wrote.
#pragma once

#include <map>
#include <string>

#include "seragen/secrets/summary.h"

namespace seragen::runview {

// Format name -> the "secrets" object of its summary. A format never
// exported, exported without a scan, or whose summary does not read (too
// large, malformed, too deep) is left out: status reports what it can.
std::map<std::string, secrets::SecretSummary> ReadExportSecrets(const std::string& run_dir);

// The secret lines of `export` and `status`: rows scanned, with hits and
// what happened to them, then hits by rule, each line after `indent`.
std::string FormatSecretSummary(const secrets::SecretSummary& summary, const std::string& indent = "");

}  // namespace seragen::runview
