// `seragen config init`: a commented starting config for one repository and
// one endpoint, from the template configs/init.yaml; asks nothing.
#pragma once

#include <string>

#include "seragen/base/result.h"

namespace seragen::cli {

struct ConfigInitArgs {
  std::string repo;      // path (made absolute) or URL
  std::string base_url;  // OpenAI-compatible endpoint, e.g. http://gpu01:8000/v1
  std::string model;     // model id the endpoint serves
  std::string out;       // file to write; empty: stdout
  bool force = false;    // overwrite `out`
};

// The config text for `args` (template `template_path`), checked to load
// through the config validator. kInvalidArgument naming the problem.
Result<std::string> RenderInitConfig(const ConfigInitArgs& args, const std::string& template_path);

// Writes the config (to args.out, atomically, or stdout); returns an exit code.
int RunConfigInit(const ConfigInitArgs& args);

}  // namespace seragen::cli
