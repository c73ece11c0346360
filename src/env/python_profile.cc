// The python profile (profile.h): detection and the commands it writes.
#include <algorithm>
#include <array>

#include "profiles.h"
#include "repo_files.h"

namespace seragen::env::detail {
namespace {

// Directories at the root that hold no importable package of the project.
bool NotAPackageDir(const std::string& name) {
  static const std::array<const char*, 12> kSkip = {"tests",   "test",    "testing",    "docs",  "doc",  "examples",
                                                    "example", "scripts", "benchmarks", "build", "dist", "tools"};
  return name.empty() || name[0] == '.' || name[0] == '_' ||
         std::any_of(kSkip.begin(), kSkip.end(), [&](const char* s) { return name == s; });
}

bool IsIdentifier(const std::string& name) {
  if (name.empty() || (name[0] >= '0' && name[0] <= '9')) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  });
}

// Packages (directories with __init__.py) directly in `dir`.
std::vector<std::string> PackagesIn(const std::string& dir) {
  std::vector<std::string> out;
  for (const std::string& name : ListNames(dir)) {
    if (IsIdentifier(name) && !NotAPackageDir(name) && IsDirectory(dir, name) &&
        IsFile(dir + "/" + name, "__init__.py")) {
      out.push_back(name);
    }
  }
  return out;
}

// Single-module projects: *.py at the root that are not tooling.
std::vector<std::string> ModulesAtRoot(const std::string& dir) {
  static const std::array<const char*, 7> kTooling = {"setup",  "conftest", "noxfile", "fabfile",
                                                      "manage", "tasks",    "dodo"};
  std::vector<std::string> out;
  for (const std::string& name : ListNames(dir)) {
    if (name.size() <= 3 || !name.ends_with(".py") || !IsFile(dir, name)) continue;
    std::string stem = name.substr(0, name.size() - 3);
    bool tooling = std::any_of(kTooling.begin(), kTooling.end(), [&](const char* t) { return stem == t; });
    if (IsIdentifier(stem) && !tooling && !stem.starts_with("test")) out.push_back(stem);
  }
  return out;
}

std::string Normalized(std::string name) {
  for (char& c : name) {
    if (c == '-' || c == '.') c = '_';
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return name;
}

// The project's distribution name from pyproject.toml or setup.cfg.
std::string ProjectName(const std::string& dir) {
  if (auto t = ReadMarker(dir, "pyproject.toml")) {
    if (std::string n = SectionValue(*t, "project", "name"); !n.empty()) return n;
    if (std::string n = SectionValue(*t, "tool.poetry", "name"); !n.empty()) return n;
  }
  if (auto t = ReadMarker(dir, "setup.cfg")) return SectionValue(*t, "metadata", "name");
  return "";
}

// The declared extra that installs test dependencies ("" when none).
std::string TestExtra(const std::string& dir) {
  static const std::array<const char*, 3> kNames = {"test", "tests", "testing"};
  auto pyproject = ReadMarker(dir, "pyproject.toml");
  auto setup_cfg = ReadMarker(dir, "setup.cfg");
  auto setup_py = ReadMarker(dir, "setup.py");
  for (const char* extra : kNames) {
    if (pyproject && SectionHasKey(*pyproject, "project.optional-dependencies", extra)) return extra;
    if (setup_cfg && SectionHasKey(*setup_cfg, "options.extras_require", extra)) return extra;
    if (setup_py && setup_py->find("extras_require") != std::string::npos &&
        (setup_py->find("\"" + std::string(extra) + "\":") != std::string::npos ||
         setup_py->find("'" + std::string(extra) + "':") != std::string::npos)) {
      return extra;
    }
  }
  return "";
}

// The requirements file that installs what the tests need ("" when none).
std::string TestRequirements(const std::string& dir, bool installable) {
  static const std::array<const char*, 10> kFiles = {
      "requirements/tests.txt", "requirements/test.txt", "requirements-test.txt", "requirements-tests.txt",
      "requirements_test.txt",  "test-requirements.txt", "requirements-dev.txt",  "requirements/dev.txt",
      "requirements_dev.txt",   "dev-requirements.txt"};
  for (const char* f : kFiles) {
    if (IsFile(dir, f)) return f;
  }
  return !installable && IsFile(dir, "requirements.txt") ? "requirements.txt" : "";
}

bool HasPythonTests(const std::string& dir) {
  if (IsDirectory(dir, "tests") || IsDirectory(dir, "test") || IsFile(dir, "conftest.py") ||
      IsFile(dir, "pytest.ini")) {
    return true;
  }
  auto pyproject = ReadMarker(dir, "pyproject.toml");
  auto setup_cfg = ReadMarker(dir, "setup.cfg");
  auto tox = ReadMarker(dir, "tox.ini");
  return (pyproject && pyproject->find("[tool.pytest") != std::string::npos) ||
         (setup_cfg && setup_cfg->find("[tool:pytest]") != std::string::npos) ||
         (tox && tox->find("[pytest]") != std::string::npos);
}

struct PythonFacts {
  std::vector<std::string> markers;
  bool installable = false;  // pyproject.toml, setup.py or setup.cfg
  bool src_layout = false;
  std::vector<std::string> modules;  // the main one first
  std::string extra;
  std::string requirements;
  bool tests = false;
};

std::vector<std::string> MarkersOf(const std::string& dir) {
  std::vector<std::string> markers;
  for (const char* m : {"pyproject.toml", "setup.py", "setup.cfg"}) {
    if (IsFile(dir, m)) markers.push_back(m);
  }
  for (const std::string& name : ListNames(dir)) {
    if (name.starts_with("requirements") && name.ends_with(".txt") && IsFile(dir, name)) markers.push_back(name);
  }
  return markers;
}

PythonFacts FactsOf(const std::string& dir) {
  PythonFacts f;
  f.markers = MarkersOf(dir);
  f.installable = IsFile(dir, "pyproject.toml") || IsFile(dir, "setup.py") || IsFile(dir, "setup.cfg");
  f.modules = PackagesIn(dir + "/src");
  f.src_layout = !f.modules.empty();
  if (!f.src_layout) f.modules = PackagesIn(dir);
  if (f.modules.empty()) f.modules = ModulesAtRoot(dir);
  const std::string wanted = Normalized(ProjectName(dir));
  auto main =
      std::find_if(f.modules.begin(), f.modules.end(), [&](const std::string& m) { return Normalized(m) == wanted; });
  if (main != f.modules.end()) std::rotate(f.modules.begin(), main, main + 1);
  f.extra = TestExtra(dir);
  f.requirements = TestRequirements(dir, f.installable);
  f.tests = HasPythonTests(dir);
  return f;
}

std::string InstallCommand(const PythonFacts& f, const ProfileOptions& o) {
  const std::string pip = o.prefix + "/bin/pip";
  const std::string pth = o.prefix + "/bin/python -c \"import sysconfig; open(sysconfig.get_paths()['purelib'] + " +
                          "'/seragen-repo.pth', 'w').write('" + o.mount_point + (f.src_layout ? "/src" : "") +
                          "\\n')\"";
  std::string online = pip + " install --retries 1 --timeout 15";
  if (f.installable) online += " -e '." + (f.extra.empty() ? std::string() : "[" + f.extra + "]") + "'";
  if (!f.requirements.empty()) online += " -r " + f.requirements;
  const std::string notice =
      "echo 'seragen: no package index answered or the install failed; going on without "
      "dependency resolution, with what the system has'";
  if (!f.installable) return f.requirements.empty() ? pth : pth + " && { " + online + " || " + notice + "; }";
  return online + " || { " + notice + "; " + pip + " install --no-index --no-deps --no-build-isolation -e . || " + pth +
         "; }";
}

std::string CheckCommand(const PythonFacts& f, const ProfileOptions& o) {
  std::string check;
  if (!f.modules.empty()) {
    const std::string& m = f.modules.front();
    check = "python -c \"import sys, " + m + "; f = " + m + ".__file__ or '?'; print('" + m +
            " imported from', f); sys.exit(0 if f.startswith('" + o.mount_point + "/') else '" + m +
            " is not imported from the working copy " + o.mount_point + "')\"";
  }
  if (f.tests)
    check += std::string(check.empty() ? "" : " && ") + "python -m pytest --collect-only -qq -p no:cacheprovider";
  return check.empty() ? "python --version" : check;
}

}  // namespace

std::optional<Profile> DetectPython(const std::string& dir, const ProfileOptions& o) {
  PythonFacts f = FactsOf(dir);
  if (f.markers.empty()) return std::nullopt;
  Profile p;
  p.name = "python";
  for (const std::string& m : f.markers) p.detected_from += (p.detected_from.empty() ? "" : ", ") + m;
  p.setup = {"python3 -m venv --system-site-packages " + o.prefix, InstallCommand(f, o)};
  p.env = {{"PATH", o.prefix + "/bin:/usr/local/bin:/usr/bin:/bin"}, {"VIRTUAL_ENV", o.prefix}};
  p.check = CheckCommand(f, o);
  if (f.tests) {
    p.test_command = "python -m pytest -q -p no:cacheprovider";
    p.test_report = TestReport::kJUnitXml;
  }
  p.own_modules = f.modules;
  return p;
}

}  // namespace seragen::env::detail
