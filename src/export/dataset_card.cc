#include "seragen/export/dataset_card.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>

#include "seragen/base/utf8.h"

namespace seragen::exporter {
namespace {

using nlohmann::ordered_json;
using Fields = std::vector<ordered_json>;

ordered_json Scalar(const char* name, const char* dtype) { return {{"name", name}, {"dtype", dtype}}; }
ordered_json Struct(const char* name, Fields fields) { return {{"name", name}, {"struct", std::move(fields)}}; }
ordered_json List(const char* name, Fields fields) { return {{"name", name}, {"list", std::move(fields)}}; }

// The metadata column, the same in every format (record_builder.cc MetadataJson).
ordered_json MetadataFeature() {
  Fields f;
  for (const char* s : {"task_id", "run", "repo", "commit", "start_function", "file"}) f.push_back(Scalar(s, "string"));
  f.push_back(Scalar("category_index", "int64"));
  f.push_back(Scalar("category", "string"));
  f.push_back(Scalar("planned_category_index", "int64"));
  f.push_back(Scalar("seed", "uint64"));
  f.push_back(Scalar("rollout", "int64"));
  f.push_back(Scalar("exit_status", "string"));
  f.push_back(Scalar("model", "string"));
  Fields usage;
  for (const char* s : {"prompt_tokens", "completion_tokens", "cached_prompt_tokens", "model_calls", "steps"})
    usage.push_back(Scalar(s, "int64"));
  f.push_back(Struct("usage", std::move(usage)));
  for (const char* s : {"recipe_hash", "prompts_hash", "format"}) f.push_back(Scalar(s, "string"));
  f.push_back(Struct(
      "soft_verification",
      {Scalar("recall", "float64"), Scalar("precision", "float64"), Scalar("f1", "float64"), Scalar("scorable", "bool"),
       Scalar("accepted", "bool"), Scalar("threshold", "float64"), Scalar("rule", "string")}));
  f.push_back(Scalar("scripted_teacher", "bool"));
  f.push_back(Struct("tests", {Scalar("ran", "bool"), Scalar("command", "string"), Scalar("exit_code", "int64"),
                               Scalar("passed", "bool"), Scalar("source", "string")}));
  return Struct("metadata", std::move(f));
}

ordered_json HfFeatures(bool train_keys) {
  Fields call = {Scalar("id", "string"), Scalar("type", "string"),
                 Struct("function", {Scalar("name", "string"), Scalar("arguments", "string")})};
  Fields message = {Scalar("role", "string"),
                    Scalar("content", "string"),
                    Scalar("reasoning_content", "string"),
                    List("tool_calls", std::move(call)),
                    Scalar("tool_call_id", "string"),
                    Scalar("name", "string")};
  if (train_keys) message.push_back(Scalar("train", "bool"));
  Fields tool = {
      Scalar("type", "string"),
      Struct("function", {Scalar("name", "string"), Scalar("description", "string"), Scalar("parameters", "string")})};
  return ordered_json::array({List("messages", std::move(message)), List("tools", std::move(tool)), MetadataFeature()});
}

ordered_json SharegptFeatures();

// sera, hermes and xml rows: text turns; `train` on each (sera always);
// hermes and xml keep reasoning_content on turns that have reasoning (a
// declared field a file lacks is read as null).
ordered_json TextFeatures(bool train_keys, bool reasoning) {
  Fields message = {Scalar("role", "string"), Scalar("content", "string")};
  if (reasoning) message.push_back(Scalar("reasoning_content", "string"));
  if (train_keys) message.push_back(Scalar("train", "bool"));
  return ordered_json::array({List("messages", std::move(message)), MetadataFeature()});
}

// The declared features of a file, null for openai (its keys vary by turn).
ordered_json FeaturesOf(Format format, bool train_keys) {
  switch (format) {
    case Format::kHf: return HfFeatures(train_keys);
    case Format::kSharegpt: return SharegptFeatures();
    case Format::kSera: return TextFeatures(true, false);
    case Format::kHermes:
    case Format::kXml: return TextFeatures(train_keys, true);
    case Format::kOpenAI: return nullptr;
  }
  return nullptr;
}

ordered_json SharegptFeatures() {
  return ordered_json::array({List("conversations", {Scalar("from", "string"), Scalar("value", "string")}),
                              Scalar("system", "string"), Scalar("tools", "string"), MetadataFeature()});
}

// "t2" for the first file of a split, "t2_sharegpt" for the others.
std::string ConfigName(const DatasetFile& f, const std::vector<DatasetFile>& all) {
  for (const DatasetFile& g : all) {
    if (g.split == f.split) return &g == &f ? f.split : f.split + "_" + std::string(FormatName(f.format));
  }
  return f.split;
}

// Block-style YAML of a JSON value. Scalars are written as JSON, which YAML
// reads as the same scalar (JSON strings are valid double-quoted YAML), so no
// text needs YAML escaping rules of its own.
void Yaml(const ordered_json& v, int indent, std::string* out);

void YamlEntry(const std::string& key, const ordered_json& v, int indent, std::string* out) {
  *out += std::string(static_cast<std::size_t>(indent), ' ') + key + ":";
  if (v.is_structured() && !v.empty()) {
    *out += "\n";
    Yaml(v, indent + (v.is_array() ? 0 : 2), out);
  } else {
    *out += " " + v.dump(-1, ' ', false, ordered_json::error_handler_t::replace) + "\n";
  }
}

void Yaml(const ordered_json& v, int indent, std::string* out) {
  const std::string pad(static_cast<std::size_t>(indent), ' ');
  if (v.is_object()) {
    for (auto it = v.begin(); it != v.end(); ++it) YamlEntry(it.key(), it.value(), indent, out);
    return;
  }
  for (const ordered_json& item : v) {  // an array: "- " then the item at indent + 2
    std::string nested;
    if (item.is_object() && !item.empty()) {
      Yaml(item, indent + 2, &nested);
      nested.replace(static_cast<std::size_t>(indent), 2, "- ");
    } else {
      nested = pad + "- " + item.dump(-1, ' ', false, ordered_json::error_handler_t::replace) + "\n";
    }
    *out += nested;
  }
}

// Text from outside (the run's name, the model ids an endpoint reported) on
// one line: controls and bidirectional controls to spaces, at most
// kMaxCardTextBytes.
std::string OneLine(std::string_view text) {
  constexpr std::size_t kMaxCardTextBytes = 200;
  const std::string in = RepairUtf8(text.substr(0, std::min(text.size(), kMaxCardTextBytes)));
  std::string out;
  for (std::size_t i = 0; i < in.size(); ++i) {
    const auto c = static_cast<unsigned char>(in[i]);
    auto at = [&](std::size_t k) { return i + k < in.size() ? static_cast<unsigned char>(in[i + k]) : 0; };
    // U+0080-U+009F (C2 80-9F); U+200E/F and U+202A-E (E2 80 xx); U+2066-9 (E2 81 A6-A9); U+061C (D8 9C).
    const std::size_t skip = c == 0xC2 && at(1) < 0xA0                                        ? 1
                             : c == 0xE2 && at(1) == 0x80 && (at(2) == 0x8E || at(2) == 0x8F) ? 2
                             : c == 0xE2 && at(1) == 0x80 && at(2) >= 0xAA && at(2) <= 0xAE   ? 2
                             : c == 0xE2 && at(1) == 0x81 && at(2) >= 0xA6 && at(2) <= 0xA9   ? 2
                             : c == 0xD8 && at(1) == 0x9C                                     ? 1
                             : c < 0x20 || c == 0x7f                                          ? 0
                                                                                              : SIZE_MAX;
    if (skip == SIZE_MAX) {
      out += static_cast<char>(c);
      continue;
    }
    out += ' ';
    i += skip;
  }
  if (text.size() > kMaxCardTextBytes) out += "...";
  return out;
}

// OneLine as inert Markdown inline text: every ASCII punctuation character
// backslash-escaped, so that it can open no heading, link, image, table
// cell or HTML.
std::string CardText(std::string_view text) {
  std::string out;
  for (char c : OneLine(text)) {
    if (static_cast<unsigned char>(c) < 0x80 && std::ispunct(static_cast<unsigned char>(c))) out += '\\';
    out += c;
  }
  return out;
}

ordered_json Header(const DatasetFacts& facts) {
  ordered_json configs = ordered_json::array(), info = ordered_json::array();
  for (const DatasetFile& f : facts.files) {
    std::string name = ConfigName(f, facts.files);
    ordered_json c = {{"config_name", name},
                      {"data_files", ordered_json::array({{{"split", "train"}, {"path", f.path}}})}};
    if (name == "t2") c["default"] = true;
    configs.push_back(std::move(c));
    ordered_json features = FeaturesOf(f.format, facts.train_keys);
    if (!features.is_null()) info.push_back({{"config_name", name}, {"features", std::move(features)}});
  }
  return {{"license", "unknown"},
          {"pretty_name", "seragen: " + OneLine(facts.run_name)},
          {"tags", {"seragen", "code", "agent-trajectories", "sft"}},
          {"configs", std::move(configs)},
          {"dataset_info", std::move(info)}};
}

std::string Percent(std::size_t part, std::size_t whole) {
  return whole == 0 ? "n/a" : fmt::format("{:.1f}%", 100.0 * static_cast<double>(part) / static_cast<double>(whole));
}

// "## Cost": the run's cost ledger as `seragen status` shows it, byte for
// byte (seragen's own labels and figures, no outside text); nothing without
// prices (no figure is made up).
std::string CostSection(const DatasetFacts& f) {
  if (f.cost_basis.empty()) return "";
  if (f.cost.empty()) return "\n## Cost\n\nCost " + f.cost_basis + ".\n";  // "unknown: ..."
  std::string out = "\n## Cost\n\nFrom " + f.cost_basis + ":\n\n| | |\n|---|---|\n";
  for (const auto& [label, value] : f.cost) out += fmt::format("| {} | {} |\n", label, value);
  return out;
}

std::string Body(const DatasetFacts& f) {
  std::string out = fmt::format("# seragen: {}\n\n", CardText(f.run_name));
  if (f.scripted_teacher) {
    out +=
        "> **Not training data.** These trajectories come from seragen's built-in scripted teacher, a stand-in "
        "for a model used for demonstrations and tests. They show the format only.\n\n";
  }
  out +=
      "Agent trajectories for supervised fine-tuning, generated with seragen the way SERA does: rollout 1 "
      "(T1) from a planted-problem prompt near a function, rollout 2 (T2) from a synthetic issue on a clean "
      "copy, kept when its patch overlaps rollout 1's (soft verification).\n\n## Files\n\n| config | file | rows |\n"
      "|---|---|---|\n";
  for (const DatasetFile& file : f.files)
    out += fmt::format("| {} | {} | {} |\n", ConfigName(file, f.files), file.path, file.rows);
  if (f.max_record_tokens == 0) {
    out +=
        "\nNo length cut: rows of any length were written (`output.max_record_tokens` 0); a trainer's "
        "sequence length may truncate or drop the longest.\n";
  } else {
    out += fmt::format(
        "\nLength cut: rows longer than {} tokens (estimated as UTF-8 bytes / 4) were left out: {} of T1, {} of "
        "T2.\n",
        f.max_record_tokens, f.length_cut_t1, f.length_cut_t2);
  }
  out += fmt::format(
      "\n## Run\n\n| | |\n|---|---|\n| tasks planned | {} |\n| tasks finished | {} |\n| verified | {} |\n"
      "| accepted | {} ({} of verified) |\n| prompt tokens | {} |\n| completion tokens | {} |\n| model calls | {} |\n",
      f.planned, f.finished, f.verified, f.accepted, Percent(f.accepted, f.verified), f.prompt_tokens,
      f.completion_tokens, f.model_calls);
  out += fmt::format("| rollouts that could not import the repository's own code (env_broken) | {} of {} ({}) |\n",
                     f.env_broken, f.rollouts, Percent(f.env_broken, f.rollouts));
  out += CostSection(f);
  if (!f.heldout_summary.empty()) {
    out += "\n## Held out for evaluation\n\n" + f.heldout_summary +
           ". No row above comes from these tasks or changes these files; `seragen export RUN --eval DIR` writes "
           "them as evaluation tasks:\n\n";
    for (const std::string& file : f.heldout_files) out += "- " + CardText(file) + "\n";
  }
  std::string models;
  for (const std::string& m : f.teacher_models) models += (models.empty() ? "" : ", ") + CardText(m);
  out += fmt::format(
      "\n## Provenance\n\n| | |\n|---|---|\n| teacher model(s) | {} |\n| recipe hash | `{}` |\n| run seed | {} |\n"
      "| seragen | {} |\n",
      models.empty() ? "none recorded" : models, CardText(f.recipe_hash), f.run_seed, CardText(f.seragen_version));
  out +=
      "\n## Training\n\nRecipes that take these files unchanged are in seragen's `configs/train/` (axolotl for "
      "`hf` and `sera`, LLaMA-Factory for `sharegpt` with the `dataset_info.json` beside this card, TRL for "
      "`hf`). Tool-call `arguments` and tool `parameters` in `hf` rows are JSON strings: decode them where a row "
      "is templated.\n\n## Licence\n\nThe rows quote the source repository (file contents, patches, test output) "
      "and the teacher model's output. Set `license:` in the header to what the repository's licence and the "
      "teacher's terms allow before sharing.\n";
  return out;
}

}  // namespace

std::string DatasetCard(const DatasetFacts& facts) {
  std::string yaml;
  Yaml(Header(facts), 0, &yaml);
  return "---\n" + yaml + "---\n\n" + Body(facts);
}

std::string LlamaFactoryDatasetInfo(const std::vector<DatasetFile>& files) {
  ordered_json info = ordered_json::object();
  for (const DatasetFile& f : files) {
    if (f.format != Format::kSharegpt) continue;
    info["seragen_" + f.split] = {
        {"file_name", f.path},
        {"formatting", "sharegpt"},
        {"columns", {{"messages", "conversations"}, {"system", "system"}, {"tools", "tools"}}},
        {"tags",
         {{"role_tag", "from"},
          {"content_tag", "value"},
          {"user_tag", "human"},
          {"assistant_tag", "gpt"},
          {"observation_tag", "observation"},
          {"function_tag", "function_call"},
          {"system_tag", "system"}}}};
  }
  return info.dump(2, ' ', false, ordered_json::error_handler_t::replace) + "\n";
}

}  // namespace seragen::exporter
