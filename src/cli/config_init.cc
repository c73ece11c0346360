#include "cli/config_init.h"

#include <filesystem>
#include <iostream>
#include <optional>

#include "cli/exit_codes.h"
#include "seragen/base/atomic_file.h"
#include "seragen/base/file_util.h"
#include "seragen/base/template.h"
#include "seragen/config/data_dir.h"
#include "seragen/config/loader.h"
#include "seragen/config/shipped_data.h"
#include "seragen/env/profile.h"
#include "seragen/repo/repository.h"

namespace seragen::cli {
namespace {

namespace fs = std::filesystem;

// A YAML single-quoted scalar: any text, quotes doubled.
std::string Quoted(std::string_view text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("''") : std::string(1, c);
  return out + "'";
}

// A run and repository name from the repository's last path component.
std::string NameFor(const std::string& repo) {
  std::string base = fs::path(repo).filename().string();
  if (base.empty()) base = fs::path(repo).parent_path().filename().string();
  if (base.size() > 4 && base.ends_with(".git")) base.resize(base.size() - 4);
  std::string name;
  for (char c : base) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
    name += ok ? c : '-';
  }
  return name.empty() ? "repo" : name.substr(0, 64);
}

Status CheckArgs(const ConfigInitArgs& a) {
  if (a.repo.empty()) return InvalidArgumentError("--repo is required: the repository to mine (path or URL)");
  if (a.base_url.empty()) return InvalidArgumentError("--base-url is required, e.g. http://gpu01:8000/v1");
  if (a.model.empty()) return InvalidArgumentError("--model is required: the model id the endpoint serves");
  // The loader expands ${NAME} in every string and has no escape for it: a
  // value holding one would be read as (and replaced by) an environment
  // variable, so it is refused rather than written.
  for (const auto& [flag, value] :
       {std::pair{"--repo", &a.repo}, std::pair{"--base-url", &a.base_url}, std::pair{"--model", &a.model}}) {
    if (value->find("${") != std::string::npos) {
      return InvalidArgumentError(std::string(flag) +
                                  " holds '${', which the config loader would expand as an environment variable; "
                                  "config init does not write it (edit the file by hand if it is meant)");
    }
  }
  std::error_code ec;
  if (!repo::LooksLikeUrl(a.repo) && !fs::is_directory(a.repo, ec)) {
    return InvalidArgumentError("--repo " + a.repo + ": no such directory");
  }
  if (!a.out.empty() && !a.force && fs::exists(a.out, ec)) {
    return InvalidArgumentError(a.out + " exists already (pass --force to overwrite it)");
  }
  return Status::Ok();
}

// The environment section for `repo`: the detected profile written out, or
// `environment: none` saying why there is none.
std::string EnvironmentBlock(const std::string& repo) {
  std::optional<env::Profile> p = repo::LooksLikeUrl(repo) ? std::nullopt : env::DetectProfile(repo);
  if (!p) {
    return std::string("# No environment: ") +
           (repo::LooksLikeUrl(repo) ? "config init does not look inside a remote repository"
                                     : "no profile (python, node, go, rust) matched the repository's files") +
           ", so the agent's\n# commands run over the host system as it is. To install the repository, replace this "
           "line by an\n# environment section (docs/ENVIRONMENTS.md) and try it with `seragen env check`.\n"
           "environment: none\n";
  }
  std::string out = "# The environment the agent's commands run in: profile " + p->name + ", detected from " +
                    p->detected_from +
                    ".\n# What it installs and where it stops: docs/ENVIRONMENTS.md. "
                    "`seragen env check -c THIS_FILE` builds it and\n# runs the check; a run does so before "
                    "its first model call. `environment: none` turns it off.\nenvironment:\n  profile: " +
                    p->name + "\n  setup_network: " + (p->setup_network ? "true" : "false") + "\n  setup:\n";
  for (const std::string& c : p->setup) out += "    - " + Quoted(c) + "\n";
  out += "  env:\n";
  for (const auto& [k, v] : p->env) out += "    " + k + ": " + Quoted(v) + "\n";
  out += "  check: " + Quoted(p->check) + "\n";
  if (!p->test_command.empty()) out += "  test_command: " + Quoted(p->test_command) + "\n";
  return out;
}

}  // namespace

Result<std::string> RenderInitConfig(const ConfigInitArgs& args, const std::string& template_path) {
  SG_RETURN_IF_ERROR(CheckArgs(args));
  std::error_code ec;
  const std::string repo =
      repo::LooksLikeUrl(args.repo) ? args.repo : fs::absolute(args.repo, ec).lexically_normal().string();
  const std::string name = NameFor(repo);
  SG_ASSIGN_OR_RETURN(std::string text, ReadFile(template_path));
  SG_ASSIGN_OR_RETURN(std::string config, RenderTemplate(text,
                                                         {{"name", name},
                                                          {"run_dir", Quoted("runs/" + name)},
                                                          {"repo", Quoted(repo)},
                                                          {"base_url", Quoted(args.base_url)},
                                                          {"model", Quoted(args.model)},
                                                          {"environment", EnvironmentBlock(repo)}},
                                                         template_path));
  // What we write must load: check it where it will live (or in the temp
  // directory for stdout: nothing in it depends on where it is).
  const std::string dir =
      args.out.empty() ? fs::temp_directory_path(ec).string() : fs::absolute(args.out, ec).parent_path().string();
  // A fresh name (O_EXCL|O_NOFOLLOW), removed when `probe` goes: a link
  // planted in a shared directory is never written through.
  SG_ASSIGN_OR_RETURN(AtomicFile probe, AtomicFile::Open(dir + "/.seragen-init.yaml", /*durable=*/false));
  SG_RETURN_IF_ERROR(probe.Append(config));
  auto loaded = config::LoadConfigFile(probe.temp_path());
  if (!loaded.ok()) return InvalidArgumentError("the generated config does not validate: " + loaded.status().message());
  return config;
}

int RunConfigInit(const ConfigInitArgs& args) {
  auto config = RenderInitConfig(args, config::ShippedPath(config::Shipped::kInitTemplate));
  if (!config.ok()) {
    std::cerr << "seragen config init: " << config.status().message() << "\n";
    return kExitUsage;
  }
  if (args.out.empty()) {
    std::cout << *config;
    return kExitOk;
  }
  if (Status written = WriteFileAtomic(args.out, *config); !written.ok()) {
    std::cerr << "seragen config init: " << written.message() << "\n";
    return kExitRuntimeFailure;
  }
  std::cout << "wrote " << args.out << "; next: seragen config show -c " << args.out << ", seragen plan -c " << args.out
            << ", seragen run -c " << args.out << "\n";
  return kExitOk;
}

}  // namespace seragen::cli
