#include "seragen/tools/tool_spec.h"

#include <yaml-cpp/yaml.h>

#include <cstdlib>
#include <nlohmann/json.hpp>
#include <set>

#include "seragen/base/enum_names.h"
#include "seragen/base/file_util.h"
#include "seragen/base/template.h"

namespace seragen::tools {
namespace {

// Ordered: schemas keep the order of the tools file (the model reads the
// parameters in that order, and exports write them so).
using json = nlohmann::ordered_json;

// YAML → JSON. Quoted scalars stay strings; plain scalars become numbers or
// booleans when they read as such.
json YamlToJson(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Map: {
      json obj = json::object();
      for (const auto& kv : node) obj[kv.first.as<std::string>()] = YamlToJson(kv.second);
      return obj;
    }
    case YAML::NodeType::Sequence: {
      json arr = json::array();
      for (const auto& item : node) arr.push_back(YamlToJson(item));
      return arr;
    }
    case YAML::NodeType::Scalar: {
      const std::string s = node.Scalar();
      if (node.Tag() == "!") return s;  // quoted
      if (s == "true") return true;
      if (s == "false") return false;
      if (!s.empty()) {
        char* end = nullptr;
        long long v = std::strtoll(s.c_str(), &end, 10);
        if (end && *end == '\0') return v;
        double d = std::strtod(s.c_str(), &end);
        if (end && *end == '\0') return d;
      }
      return s;
    }
    default: return nullptr;
  }
}

Result<ParamType> ParseParamType(const json& schema, const std::string& where) {
  if (!schema.is_object() || !schema.contains("type") || !schema["type"].is_string()) {
    return ParseError(where + ": needs a string \"type\"");
  }
  const std::string type = schema["type"];
  if (type == "string") return ParamType::kString;
  if (type == "integer") return ParamType::kInteger;
  if (type == "boolean") return ParamType::kBoolean;
  if (type == "array") {
    if (schema.contains("items") && schema["items"].is_object() && schema["items"].value("type", "") == "integer") {
      return ParamType::kIntegerArray;
    }
    return ParseError(where + ": only arrays of integers are supported");
  }
  return ParseError(where + ": unsupported type \"" + type + "\"");
}

}  // namespace

namespace {
constexpr std::pair<ToolRole, std::string_view> kToolRoleNames[] = {
    {ToolRole::kBash, "bash"}, {ToolRole::kEditor, "editor"}, {ToolRole::kSubmit, "submit"}};
}  // namespace

std::string_view ToolRoleName(ToolRole role) { return NameOf<ToolRole>(kToolRoleNames, role, "?"); }

const ParamSpec* ToolSpec::FindParam(std::string_view param_name) const {
  for (const auto& p : params) {
    if (p.name == param_name) return &p;
  }
  return nullptr;
}

const ToolSpec* ToolSpecs::FindByName(std::string_view name) const {
  for (const auto& t : tools) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

const ToolSpec* ToolSpecs::FindByRole(ToolRole role) const {
  for (const auto& t : tools) {
    if (t.role == role) return &t;
  }
  return nullptr;
}

std::string ToolSpecs::NameList() const {
  std::string out;
  for (const auto& t : tools) {
    if (!out.empty()) out += ", ";
    out += t.name;
  }
  return out;
}

namespace {
Result<ToolSpecs> ParseToolSpecsUnchecked(std::string_view yaml_text, std::string_view source_name,
                                          std::string_view repo_dir) {
  const std::string src(source_name);
  SG_ASSIGN_OR_RETURN(std::string rendered, RenderTemplate(yaml_text, {{"repo", std::string(repo_dir)}}, source_name));
  YAML::Node root;
  try {
    root = YAML::Load(rendered);
  } catch (const YAML::Exception& e) {
    return ParseError(src + ": invalid YAML: " + e.what());
  }
  if (!root.IsMap() || !root["tools"] || !root["tools"].IsSequence()) {
    return ParseError(src + ": expected a top-level \"tools\" list");
  }
  ToolSpecs specs;
  if (root["observation_prefix"]) {
    if (!root["observation_prefix"].IsScalar()) return ParseError(src + ": observation_prefix must be a string");
    specs.observation_prefix = root["observation_prefix"].as<std::string>();
    if (specs.observation_prefix.size() > ToolSpecs::kMaxObservationPrefix) {
      return ParseError(src + ": observation_prefix is longer than " +
                        std::to_string(ToolSpecs::kMaxObservationPrefix) + " bytes");
    }
  }
  std::set<std::string> names;
  std::set<ToolRole> roles;
  int index = 0;
  for (const auto& node : root["tools"]) {
    const std::string where = src + ": tools[" + std::to_string(index++) + "]";
    if (!node.IsMap()) return ParseError(where + ": expected a mapping");
    ToolSpec spec;
    try {
      const std::string role = node["role"] ? node["role"].as<std::string>() : "";
      std::optional<ToolRole> known = ValueNamed<ToolRole>(kToolRoleNames, role);
      if (!known) return ParseError(where + ": role must be bash, editor or submit, got \"" + role + "\"");
      spec.role = *known;
      spec.name = node["name"] ? node["name"].as<std::string>() : "";
      spec.description = node["description"] ? node["description"].as<std::string>() : "";
    } catch (const YAML::Exception& e) {
      return ParseError(where + ": " + e.what());
    }
    if (spec.name.empty()) return ParseError(where + ": missing name");
    if (spec.description.empty()) return ParseError(where + " (" + spec.name + "): missing description");
    if (!names.insert(spec.name).second) return ParseError(where + ": duplicate tool name " + spec.name);
    if (!roles.insert(spec.role).second) {
      return ParseError(where + ": a second tool with role " + std::string(ToolRoleName(spec.role)));
    }
    json params = node["parameters"] ? YamlToJson(node["parameters"]) : json::object();
    if (params.is_null()) params = json::object();
    if (params.empty()) params = {{"type", "object"}, {"properties", json::object()}};
    if (params.value("type", "") != "object") {
      return ParseError(where + " (" + spec.name + "): parameters must have type: object");
    }
    if (!params.contains("properties")) params["properties"] = json::object();
    if (!params["properties"].is_object()) {
      return ParseError(where + " (" + spec.name + "): parameters.properties must be a mapping");
    }
    std::set<std::string> required;
    if (params.contains("required")) {
      if (!params["required"].is_array()) {
        return ParseError(where + " (" + spec.name + "): parameters.required must be a list");
      }
      for (const auto& r : params["required"]) required.insert(r.get<std::string>());
    }
    for (const auto& [pname, pschema] : params["properties"].items()) {
      ParamSpec p;
      p.name = pname;
      SG_ASSIGN_OR_RETURN(p.type, ParseParamType(pschema, where + " (" + spec.name + ") parameter " + pname));
      p.required = required.count(pname) > 0;
      if (pschema.contains("enum")) {
        for (const auto& v : pschema["enum"]) p.enum_values.push_back(v.get<std::string>());
      }
      spec.params.push_back(std::move(p));
    }
    for (const auto& r : required) {
      if (!spec.FindParam(r)) {
        return ParseError(where + " (" + spec.name + "): required parameter " + r + " is not defined");
      }
    }
    spec.parameters_schema_json = params.dump();
    specs.tools.push_back(std::move(spec));
  }
  for (ToolRole role : {ToolRole::kBash, ToolRole::kEditor, ToolRole::kSubmit}) {
    if (!roles.count(role)) {
      return ParseError(src + ": no tool with role " + std::string(ToolRoleName(role)));
    }
  }
  return specs;
}

}  // namespace

Result<ToolSpecs> ParseToolSpecs(std::string_view yaml_text, std::string_view source_name, std::string_view repo_dir) {
  try {
    return ParseToolSpecsUnchecked(yaml_text, source_name, repo_dir);
  } catch (const std::exception& e) {
    return ParseError(std::string(source_name) + ": " + e.what());
  }
}

Result<ToolSpecs> LoadToolSpecs(const std::string& path, std::string_view repo_dir) {
  SG_ASSIGN_OR_RETURN(std::string text, ReadFile(path));
  return ParseToolSpecs(text, path, repo_dir);
}

std::string OpenAiToolsJson(const ToolSpecs& specs) {
  json tools = json::array();
  for (const auto& t : specs.tools) {
    tools.push_back(
        {{"type", "function"},
         {"function",
          {{"name", t.name}, {"description", t.description}, {"parameters", json::parse(t.parameters_schema_json)}}}});
  }
  return tools.dump();
}

}  // namespace seragen::tools
