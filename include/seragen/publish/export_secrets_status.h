// What `status` and the report show of secrets: the secret counts of the
// latest export of each format, read from the run's data directory
// (RUN_DIR/data/summary.<format>.json). Status does not scan: these are the
// counts the exports wrote.
#pragma once

#include <map>
#include <string>

#include "seragen/secrets/summary.h"

namespace seragen::publish {

// Format name -> the "secrets" object of its summary. A format never
// exported, exported without a scan, or whose summary does not read (too
// large, malformed, too deep) is left out: status reports what it can.
std::map<std::string, secrets::SecretSummary> ReadExportSecrets(const std::string& run_dir);

}  // namespace seragen::publish
