// Recognising a command whose output says the repository's own code could
// not be imported: the environment is broken for that rollout (the agent's
// commands cannot run the code it changes), not the agent's fault. Pure
// text functions over bounded command output; thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace seragen::env {

// True when `output` holds
//  - Python: `ModuleNotFoundError: No module named 'M'` (or `M.sub`) with M
//    one of `own_modules`, or with the traceback's innermost frame in a file
//    of the working copy's own packages (a dependency of the repository's
//    code is missing, e.g. `No module named 'werkzeug'` raised inside
//    /repo/src/flask/app.py);
//  - Node: `Cannot find module 'M'` with M an own module (or M/...);
//  - Go: `no required module provides package P` / `cannot find module
//    providing package P` with P the own module path or below it.
// `mount_point` is where the working copy appears inside ("/repo").
bool FailsToImportOwnCode(std::string_view output, const std::vector<std::string>& own_modules,
                          std::string_view mount_point);

}  // namespace seragen::env
