// Environment profiles: how a repository of one language is installed so
// that its code runs inside the sandbox, detected from the files at its root
// (docs/ENVIRONMENTS.md, "Profiles").
//
//   python  pyproject.toml, setup.py, setup.cfg or requirements*.txt:
//           a venv in the prefix (system site packages visible), the project
//           installed editable with its test extras and test requirements when
//           a package index answers, else without dependency resolution
//           (offline: --no-index --no-deps, finally a .pth to the source)
//   node    package.json: npm ci (with a lockfile) or npm install, into the
//           prefix, found through NODE_PATH
//   go      go.mod: go mod download into a module cache in the prefix
//   rust    Cargo.toml: cargo fetch into a CARGO_HOME in the prefix
//
// Detection reads only small files at the root (and one level below for the
// Python package), bounded; it never runs anything. Thread-safe.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace seragen::env {

// How seragen reads a test command's per-test outcomes (the evidence step).
enum class TestReport { kExitStatus, kJUnitXml, kGoJson, kTap };

struct Profile {
  std::string name;           // "python", "node", "go", "rust"
  std::string detected_from;  // the marker files found, e.g. "pyproject.toml, tests/"
  std::vector<std::string> setup;
  bool setup_network = true;               // setup downloads (the python profile also works without)
  std::map<std::string, std::string> env;  // variables for setup and rollouts
  std::string check;                       // imports the repository's code / collects its tests
  std::string test_command;                // "" when the repository has no tests seragen recognises
  TestReport test_report = TestReport::kExitStatus;
  // The repository's own top-level modules (Python packages, the Go module
  // path, the npm package name): an import of one of them failing is an
  // environment failure, not a bug of the agent's.
  std::vector<std::string> own_modules;
};

struct ProfileOptions {
  std::string mount_point = "/repo";  // where the working copy appears inside
  std::string prefix = "/env";        // where the prepared prefix appears inside
};

// The profile of the repository checked out at `repo_dir`, or nullopt when no
// profile's marker file is there. When several languages match, the first of
// python, go, rust, node wins (a Python project with a package.json for its
// docs is a Python project).
std::optional<Profile> DetectProfile(const std::string& repo_dir, const ProfileOptions& options = {});

}  // namespace seragen::env
