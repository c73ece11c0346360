#include "seragen/secrets/rules.h"

#include <re2/re2.h>
#include <yaml-cpp/yaml.h>

#include <set>

#include "secrets/re2_options.h"
#include "seragen/base/file_util.h"

namespace seragen::secrets {
namespace {

constexpr std::uint64_t kMaxRulesFileBytes = 1 << 20;
// Keeps the keyword prefilter's naive search cheap per byte.
constexpr std::size_t kMaxKeywordBytes = 64;

bool IsRuleName(const std::string& name) {
  if (name.empty() || name.size() > 64) return false;
  for (char c : name) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
    if (!ok) return false;
  }
  return true;
}

// "source: rule 3 (name): what".
Status RuleError(std::string_view source, std::size_t index, const std::string& name, const std::string& what) {
  std::string where = std::string(source) + ": rule " + std::to_string(index);
  if (!name.empty()) where += " (" + name + ")";
  return InvalidArgumentError(where + ": " + what);
}

Status CheckPattern(SecretRule& rule) {
  RE2 re(rule.pattern, ByteOptions());
  if (!re.ok()) return InvalidArgumentError("pattern does not compile: " + re.error());
  if (rule.secret_group < 0 || rule.secret_group > re.NumberOfCapturingGroups()) {
    return InvalidArgumentError("group " + std::to_string(rule.secret_group) + " but the pattern has " +
                                std::to_string(re.NumberOfCapturingGroups()) + " capture groups");
  }
  return Status::Ok();
}

// Reads one entry; yaml-cpp conversion errors surface as exceptions caught by the caller.
Result<SecretRule> ReadRule(const YAML::Node& entry) {
  if (!entry.IsMap()) return InvalidArgumentError("expected a mapping");
  static const std::set<std::string> kKeys = {"name",     "family",      "pattern", "group",
                                              "keywords", "min_entropy", "mixed",   "min_length"};
  SecretRule rule;
  for (const auto& kv : entry) {
    auto key = kv.first.as<std::string>();
    if (!kKeys.count(key)) return InvalidArgumentError("unknown key '" + key + "'");
  }
  if (entry["name"]) rule.name = entry["name"].as<std::string>();
  if (!IsRuleName(rule.name)) return InvalidArgumentError("name must be 1-64 of [a-z0-9-]");
  if (entry["family"]) rule.family = entry["family"].as<std::string>();
  if (!IsRuleName(rule.family)) return InvalidArgumentError("family must be 1-64 of [a-z0-9-]");
  if (entry["pattern"]) rule.pattern = entry["pattern"].as<std::string>();
  if (rule.pattern.empty()) return InvalidArgumentError("pattern is missing or empty");
  if (entry["group"]) rule.secret_group = entry["group"].as<int>();
  if (entry["keywords"]) rule.keywords = entry["keywords"].as<std::vector<std::string>>();
  for (const std::string& k : rule.keywords) {
    if (k.empty() || k.size() > kMaxKeywordBytes) return InvalidArgumentError("keywords must be 1-64 bytes each");
  }
  if (entry["min_entropy"]) rule.min_entropy = entry["min_entropy"].as<double>();
  if (entry["mixed"]) rule.mixed = entry["mixed"].as<bool>();
  if (entry["min_length"]) rule.min_length = entry["min_length"].as<int>();
  if (rule.min_length < 0) return InvalidArgumentError("min_length must not be negative");
  if (rule.min_entropy < 0 || rule.min_entropy > 8) return InvalidArgumentError("min_entropy must be in [0, 8]");
  SG_RETURN_IF_ERROR(CheckPattern(rule));
  return rule;
}

Result<std::vector<SecretRule>> ReadRules(const YAML::Node& list, std::string_view source) {
  std::vector<SecretRule> rules;
  std::set<std::string> names;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const YAML::Node& entry = list[i];
    std::string name = entry.IsMap() && entry["name"] && entry["name"].IsScalar() ? entry["name"].Scalar() : "";
    Result<SecretRule> rule = [&]() -> Result<SecretRule> {
      try {
        return ReadRule(entry);
      } catch (const YAML::Exception& e) {
        return InvalidArgumentError(std::string("wrong type: ") + e.what());
      }
    }();
    if (!rule.ok()) return RuleError(source, i, name, rule.status().message());
    if (!names.insert(rule->name).second) return RuleError(source, i, name, "duplicate name");
    rules.push_back(std::move(rule).value());
  }
  return rules;
}

}  // namespace

Result<std::vector<SecretRule>> ParseSecretRules(std::string_view yaml_text, std::string_view source) {
  YAML::Node root;
  try {
    root = YAML::Load(std::string(yaml_text));
  } catch (const YAML::Exception& e) {
    return ParseError(std::string(source) + ": " + e.what());
  }
  if (!root.IsMap() || !root["rules"] || !root["rules"].IsSequence()) {
    return InvalidArgumentError(std::string(source) + ": expected a mapping with a list 'rules'");
  }
  return ReadRules(root["rules"], source);
}

Result<std::vector<SecretRule>> LoadSecretRulesFile(const std::string& path) {
  SG_ASSIGN_OR_RETURN(std::string text, ReadRegularFile(path, kMaxRulesFileBytes));
  return ParseSecretRules(text, path);
}

}  // namespace seragen::secrets
