#include "seragen/env/profile.h"

#include <nlohmann/json.hpp>

#include "profiles.h"
#include "repo_files.h"
#include "seragen/base/strings.h"

namespace seragen::env {
namespace detail {
namespace {

const char* const kSystemPath = "/usr/local/bin:/usr/bin:/bin";

// The first line of `text` starting with `word` followed by a blank: the rest, trimmed.
std::string LineAfter(const std::string& text, const std::string& word) {
  for (const std::string& line : SplitOn(text, "\n")) {
    if (line.size() > word.size() && line.starts_with(word) &&
        (line[word.size()] == ' ' || line[word.size()] == '\t')) {
      return std::string(TrimRight(TrimLeft(std::string_view(line).substr(word.size()), " \t"), " \t\r"));
    }
  }
  return "";
}

std::string JsonString(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

// A profile named `name`, found from `marker` and, when present, `companion` (a lockfile).
Profile Named(const char* name, const std::string& dir, const std::string& marker, const std::string& companion) {
  Profile p;
  p.name = name;
  p.detected_from = IsFile(dir, companion) ? marker + ", " + companion : marker;
  return p;
}

}  // namespace

std::optional<Profile> DetectGo(const std::string& dir, const ProfileOptions& o) {
  std::optional<std::string> mod = ReadMarker(dir, "go.mod");
  if (!mod) return std::nullopt;
  Profile p = Named("go", dir, "go.mod", "go.sum");
  p.setup = {"go mod download"};
  p.env = {{"GOPATH", o.prefix + "/go"}, {"GOMODCACHE", o.prefix + "/go/mod"},
           {"GOCACHE", "/tmp/go-build"}, {"GOTOOLCHAIN", "local"},
           {"GOFLAGS", "-modcacherw"},   {"PATH", "/usr/local/go/bin:/usr/lib/go/bin:" + std::string(kSystemPath)}};
  p.check = "go vet ./... && go test -count=1 -run '^$' ./... >/dev/null && echo 'packages and tests compile'";
  p.test_command = "go test ./...";
  p.test_report = TestReport::kGoJson;
  if (std::string module = LineAfter(*mod, "module"); !module.empty()) p.own_modules = {module};
  return p;
}

std::optional<Profile> DetectRust(const std::string& dir, const ProfileOptions& o) {
  std::optional<std::string> manifest = ReadMarker(dir, "Cargo.toml");
  if (!manifest) return std::nullopt;
  Profile p = Named("rust", dir, "Cargo.toml", "Cargo.lock");
  p.setup = {"mkdir -p " + o.prefix + "/cargo && CARGO_NET_OFFLINE=false cargo fetch"};
  p.env = {{"CARGO_HOME", o.prefix + "/cargo"},
           {"CARGO_NET_OFFLINE", "true"},
           {"CARGO_TARGET_DIR", "/tmp/target"},
           {"PATH", "/usr/local/cargo/bin:" + std::string(kSystemPath)}};
  p.check = "cargo metadata --offline --format-version 1 >/dev/null && echo 'dependencies resolve offline'";
  p.test_command = "cargo test";
  if (std::string name = SectionValue(*manifest, "package", "name"); !name.empty()) p.own_modules = {name};
  return p;
}

std::optional<Profile> DetectNode(const std::string& dir, const ProfileOptions& o) {
  std::optional<std::string> text = ReadMarker(dir, "package.json");
  if (!text) return std::nullopt;
  nlohmann::json pkg = nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (!pkg.is_object()) pkg = nlohmann::json::object();
  const char* lock = IsFile(dir, "package-lock.json")     ? "package-lock.json"
                     : IsFile(dir, "npm-shrinkwrap.json") ? "npm-shrinkwrap.json"
                                                          : nullptr;
  Profile p;
  p.name = "node";
  p.detected_from = lock != nullptr ? "package.json, " + std::string(lock) : "package.json";
  const std::string flags = " --ignore-scripts --no-audit --no-fund";
  p.setup = {lock != nullptr ? "cp package.json " + std::string(lock) + " " + o.prefix + "/ && cd " + o.prefix +
                                   " && npm ci" + flags
                             : "cp package.json " + o.prefix + "/ && cd " + o.prefix + " && npm install" + flags};
  p.env = {{"PATH", o.prefix + "/node_modules/.bin:" + std::string(kSystemPath)},
           {"NODE_PATH", o.prefix + "/node_modules"}};
  const bool commonjs = JsonString(pkg, "type") != "module";
  const std::string main = JsonString(pkg, "main");
  if (commonjs && (IsFile(dir, main.empty() ? "index.js" : main) || IsFile(dir, main + ".js"))) {
    p.check = "node -e \"require('" + o.mount_point + "'); console.log('" + o.mount_point + " loads')\"";
  } else {
    p.check = "npm ls --prefix " + o.prefix + " --depth=0";
  }
  auto scripts = pkg.find("scripts");
  if (scripts != pkg.end() && scripts->is_object()) {
    const std::string test = JsonString(*scripts, "test");
    if (!test.empty() && test.find("no test specified") == std::string::npos) p.test_command = "npm test";
    if (test.find("tap") != std::string::npos || test.find("node --test") != std::string::npos) {
      p.test_report = TestReport::kTap;
    }
  }
  if (std::string name = JsonString(pkg, "name"); !name.empty()) p.own_modules = {name};
  return p;
}

}  // namespace detail

std::optional<Profile> DetectProfile(const std::string& repo_dir, const ProfileOptions& options) {
  for (auto detect : {detail::DetectPython, detail::DetectGo, detail::DetectRust, detail::DetectNode}) {
    if (std::optional<Profile> p = detect(repo_dir, options)) return p;
  }
  return std::nullopt;
}

}  // namespace seragen::env
