#include "seragen/config/loader.h"

#include <yaml-cpp/yaml.h>

#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "config/schema_def.h"
#include "config/schema_fields.h"
#include "seragen/base/file_util.h"
#include "seragen/base/hash.h"
#include "seragen/base/log.h"

namespace seragen::config {
namespace {

using internal::ParseContext;

bool ValidComponent(const std::string& c) {
  if (c.empty()) return false;
  for (char ch : c) {
    if (!(std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == '-')) return false;
  }
  return true;
}

// Applies "a.b.c=value" to the YAML tree. Returns the problem, or "" on success.
std::string ApplyOverride(YAML::Node& root, const std::string& spec, std::string* key_out) {
  auto eq = spec.find('=');
  if (eq == std::string::npos) return "expected KEY=VALUE (e.g. --set agent.max_steps=50)";
  std::string key = spec.substr(0, eq);
  std::string value = spec.substr(eq + 1);
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (true) {
    auto dot = key.find('.', start);
    parts.push_back(key.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  for (const std::string& p : parts) {
    if (!ValidComponent(p))
      return "malformed key '" + key + "' (dotted names like llm.max_tokens, list items by index: repos.0.ref)";
  }
  *key_out = key;
  YAML::Node parsed;
  if (value.empty()) {
    parsed = YAML::Node(std::string());
  } else {
    try {
      parsed = YAML::Load(value);
    } catch (const YAML::Exception& e) {
      return "value is not valid YAML: " + std::string(e.msg);
    }
  }
  if (!root.IsDefined() || root.IsNull()) root = YAML::Node(YAML::NodeType::Map);
  YAML::Node cur;
  cur.reset(root);
  std::string walked;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const std::string& part = parts[i];
    bool last = i + 1 == parts.size();
    if (cur.IsSequence()) {
      auto idx = internal::ParseInt(part);
      if (!idx || *idx < 0 || static_cast<std::size_t>(*idx) >= cur.size()) {
        return "'" + walked + "' is a list of " + std::to_string(cur.size()) + " entries; '" + part +
               "' is not a valid index";
      }
      if (last) {
        cur[static_cast<std::size_t>(*idx)] = parsed;
        return "";
      }
      YAML::Node next = cur[static_cast<std::size_t>(*idx)];
      cur.reset(next);
    } else if (cur.IsMap()) {
      if (last) {
        cur[part] = parsed;
        return "";
      }
      if (!cur[part] || cur[part].IsNull()) cur[part] = YAML::Node(YAML::NodeType::Map);
      YAML::Node next = cur[part];
      cur.reset(next);
    } else {
      return "'" + walked + "' is a single value, so it has no key '" + part + "'";
    }
    walked = walked.empty() ? part : walked + "." + part;
  }
  return "";
}

Result<LoadedConfig> LoadFromNode(YAML::Node root, const std::string& name, const LoadOptions& options,
                                  std::vector<ConfigIssue>* issues_out) {
  std::vector<ConfigIssue> issues;
  ParseContext ctx{&issues, name, "", options.override_base_dir, {}, options.env};
  std::filesystem::path file_path(name);
  ctx.file_dir = file_path.has_parent_path() ? file_path.parent_path().string() : ".";
  if (!root.IsDefined() || root.IsNull()) root = YAML::Node(YAML::NodeType::Map);
  for (const std::string& spec : options.overrides) {
    std::string key;
    std::string problem = ApplyOverride(root, spec, &key);
    if (!problem.empty()) {
      issues.push_back({key.empty() ? spec : key, problem, "--set " + spec});
    } else {
      ctx.overridden.insert(key);
    }
  }
  LoadedConfig loaded;
  loaded.source_path = name;
  if (issues.empty()) {
    internal::RootSchema().Parse(root, loaded.config, "", ctx);
    if (issues.empty()) internal::Finalize(loaded.config, ctx, root);
  }
  if (issues_out) *issues_out = issues;
  if (!issues.empty()) return InvalidArgumentError(FormatIssues(issues));
  loaded.config_hash = Sha256Hex(CanonicalJson(loaded.config));
  loaded.recipe_hash = Sha256Hex(RecipeJson(loaded.config));
  return loaded;
}

void EmitJson(YAML::Emitter& out, const nlohmann::ordered_json& j) {
  if (j.is_object()) {
    if (j.empty()) {
      out << YAML::Flow << YAML::BeginMap << YAML::EndMap;
      return;
    }
    out << YAML::BeginMap;
    for (auto it = j.begin(); it != j.end(); ++it) {
      out << YAML::Key << it.key() << YAML::Value;
      EmitJson(out, it.value());
    }
    out << YAML::EndMap;
  } else if (j.is_array()) {
    bool scalars = std::all_of(j.begin(), j.end(), [](const auto& e) { return e.is_primitive(); });
    if (j.empty() || scalars) out << YAML::Flow;
    out << YAML::BeginSeq;
    for (const auto& e : j) EmitJson(out, e);
    out << YAML::EndSeq;
  } else if (j.is_string()) {
    std::string s = j.get<std::string>();
    // Keep strings that look like other types quoted, so they read back as strings.
    bool quote = s.empty() || internal::ParseBool(s) || internal::ParseDouble(s) || s == "null" || s == "~";
    if (quote) out << YAML::DoubleQuoted;
    out << s;
  } else if (j.is_boolean()) {
    out << (j.get<bool>() ? "true" : "false");
  } else if (j.is_number_integer()) {
    out << j.get<std::int64_t>();
  } else if (j.is_number()) {
    out << internal::FormatDouble(j.get<double>());
  } else {
    out << YAML::Null;
  }
}

}  // namespace

std::string FormatIssues(const std::vector<ConfigIssue>& issues) {
  std::string out;
  for (const ConfigIssue& i : issues) {
    if (!out.empty()) out += '\n';
    out += i.where + ": " + i.path + ": " + i.message;
  }
  return out;
}

Result<LoadedConfig> LoadConfigText(const std::string& yaml_text, const std::string& name, const LoadOptions& options,
                                    std::vector<ConfigIssue>* issues) {
  YAML::Node root;
  if (std::optional<ConfigIssue> syntax = internal::ParseYamlText(yaml_text, name, &root)) {
    std::vector<ConfigIssue> list{*syntax};
    if (issues) *issues = list;
    return InvalidArgumentError(FormatIssues(list));
  }
  return LoadFromNode(root, name, options, issues);
}

Result<LoadedConfig> LoadConfigFile(const std::string& path, const LoadOptions& options,
                                    std::vector<ConfigIssue>* issues) {
  Result<std::string> text = ReadFile(path);
  if (!text.ok()) {
    std::vector<ConfigIssue> list{{"(file)", "cannot read config: " + text.status().message(), path}};
    if (issues) *issues = list;
    return InvalidArgumentError(FormatIssues(list));
  }
  return LoadConfigText(*text, path, options, issues);
}

std::string CanonicalJson(const Config& config) {
  nlohmann::json sorted = internal::RootSchema().ToJson(config, false, false);
  return sorted.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string RecipeJson(const Config& config) {
  nlohmann::json sorted = internal::RootSchema().ToJson(config, false, true);
  return sorted.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string RenderResolvedYaml(const LoadedConfig& loaded) {
  YAML::Emitter out;
  out.SetIndent(2);
  EmitJson(out, internal::RootSchema().ToJson(loaded.config, true, false));
  std::string text = "# seragen resolved configuration (secrets appear only as ${VAR} references)\n";
  text += "# source: " + loaded.source_path + "\n";
  text += "# config_hash: " + loaded.config_hash + "\n";
  text += "# recipe_hash: " + loaded.recipe_hash + "\n";
  text += out.c_str();
  text += "\n";
  return text;
}

std::string RenderReferenceMarkdown() {
  std::vector<internal::DocRow> rows;
  Config defaults;
  internal::RootSchema().Document("", defaults, rows);
  std::string md =
      "# Configuration reference\n\n"
      "Generated from the schema in `src/config/schema_def.cc` by `seragen config docs`;\n"
      "a test fails when this file is out of date. See `configs/demo.yaml` for a working example;\n"
      "`seragen config init --repo PATH --base-url URL --model ID -o FILE` writes a commented starting\n"
      "config for one repository (template: `configs/init.yaml`). `seragen config show -c FILE` prints a\n"
      "config resolved, each repository with its effective `environment` (the top-level one when it\n"
      "sets none).\n\n"
      "Rules: unknown keys are errors (with a suggestion), and so is a key given twice in one\n"
      "mapping; values are type-checked; relative\n"
      "paths resolve against the config file's directory (against the current directory when\n"
      "given with `--set`). `config_hash` covers every non-secret value; `recipe_hash` covers only\n"
      "values that change generated data (operational keys such as concurrency, endpoints, retries,\n"
      "budgets and output defaults are excluded).\n\n"
      "Environment variables: every string value (paths, names, URLs, list items, `--set` values)\n"
      "may contain `${VAR}` and `${VAR:-default}`, expanded when the config is loaded. A variable that\n"
      "is unset or empty takes the default; without one it is an error naming the key\n"
      "(`run.dir: environment variable SCRATCH is not set ...`). A relative result resolves like any\n"
      "relative path. Secret fields (`llm.api_key`, `llm.endpoints[].api_key`) are different: they\n"
      "hold only a `${VAR}` reference (no default, no literal), read when a request is made and never\n"
      "saved; header values are secrets too. Do not put secrets in other fields: the run directory's\n"
      "`config.yaml` records the expanded values (so `export` and `status` need no environment), and\n"
      "both hashes are computed over the expanded values. `run.dir` and `workcopies.dir` are\n"
      "operational, so a rerun with a different `${SCRATCH}` in them resumes the same run; an\n"
      "expanded path inside the recipe (`repos[].source`, `prompts.dir`, `tools.file`,\n"
      "`sandbox.rootfs`, `demo_issues.file`) that changes is listed as a data-affecting change on\n"
      "resume (`--allow-config-change` continues). Values of type `seconds` are numbers of seconds\n"
      "(`0.5`), kept to the nearest millisecond.\n";
  std::string current_section;
  for (const auto& row : rows) {
    std::string top = row.key.substr(0, row.key.find_first_of(".["));
    if (top != current_section) {
      current_section = top;
      md += "\n## `" + top + "`\n\n| key | type | default | meaning |\n|---|---|---|---|\n";
    }
    if (row.type == "section" && row.key == top) {
      md.insert(md.rfind("\n| key |"), "\n" + row.description + "\n");
      continue;
    }
    std::string def = row.default_value;
    for (char& c : def)
      if (c == '|') c = '/';
    md += "| `" + row.key + "` | " + row.type + " | " + (def.empty() ? "" : "`" + def + "`") + " | " + row.description +
          " |\n";
  }
  return md;
}

Result<std::string> ResolveSecret(const SecretRef& ref, const std::string& key_path) {
  if (ref.empty()) return NotFoundError(key_path + ": no secret configured");
  const char* value = std::getenv(ref.env_var.c_str());
  if (value == nullptr || *value == '\0') {
    return NotFoundError(key_path + ": environment variable " + ref.env_var + " is not set");
  }
  log::AddSecret(value);
  return std::string(value);
}

}  // namespace seragen::config
