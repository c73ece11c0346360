#include "seragen/export/dataset_card.h"

#include <yaml-cpp/yaml.h>
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace seragen::exporter {
namespace {

DatasetFacts Facts() {
  return {.run_name = "demo \"quoted\": run",
          .run_seed = 7,
          .recipe_hash = "abc",
          .seragen_version = "0.9",
          .teacher_models = {"qwen3-coder"},
          .planned = 10,
          .finished = 9,
          .verified = 8,
          .accepted = 6,
          .prompt_tokens = 1000,
          .completion_tokens = 200,
          .model_calls = 40,
          .files = {{"t1", Format::kHf, "data/t1.hf.jsonl", 5},
                    {"t2", Format::kHf, "data/t2.hf.jsonl", 6},
                    {"t1", Format::kSharegpt, "data/t1.sharegpt.jsonl", 5},
                    {"t2", Format::kSharegpt, "data/t2.sharegpt.jsonl", 6}}};
}

// The YAML between the two `---` lines.
YAML::Node Header(const std::string& card) {
  REQUIRE(card.rfind("---\n", 0) == 0);
  std::size_t end = card.find("\n---\n", 4);
  REQUIRE(end != std::string::npos);
  return YAML::Load(card.substr(4, end - 4));
}

}  // namespace

TEST_CASE("dataset card: the header parses and names every file under a config", "[export]") {
  const std::string card = DatasetCard(Facts());
  YAML::Node h = Header(card);
  CHECK(h["license"].as<std::string>() == "unknown");
  CHECK(h["pretty_name"].as<std::string>() == "seragen: demo \"quoted\": run");
  REQUIRE(h["configs"].size() == 4);
  CHECK(h["configs"][0]["config_name"].as<std::string>() == "t1");
  CHECK(h["configs"][1]["config_name"].as<std::string>() == "t2");
  CHECK(h["configs"][1]["default"].as<bool>());
  CHECK(h["configs"][1]["data_files"][0]["path"].as<std::string>() == "data/t2.hf.jsonl");
  CHECK(h["configs"][3]["config_name"].as<std::string>() == "t2_sharegpt");
  YAML::Node hf = h["dataset_info"][0]["features"];
  CHECK(hf[0]["name"].as<std::string>() == "messages");
  CHECK(hf[0]["list"][3]["list"][2]["struct"][1]["name"].as<std::string>() == "arguments");
  CHECK(hf[0]["list"][3]["list"][2]["struct"][1]["dtype"].as<std::string>() == "string");
  CHECK(h["dataset_info"][2]["features"][0]["name"].as<std::string>() == "conversations");
}

TEST_CASE("dataset card: counts, provenance and the scripted-teacher warning", "[export]") {
  DatasetFacts f = Facts();
  std::string card = DatasetCard(f);
  CHECK(card.find("| accepted | 6 (75.0% of verified) |") != std::string::npos);
  CHECK(card.find("| tasks planned | 10 |") != std::string::npos);
  CHECK(card.find("qwen3\\-coder") != std::string::npos);
  CHECK(card.find("| recipe hash | `abc` |") != std::string::npos);
  CHECK(card.find("Not training data") == std::string::npos);
  f.rollouts = 20;
  f.env_broken = 5;
  CHECK(DatasetCard(f).find(
            "| rollouts that could not import the repository's own code (env_broken) | 5 of 20 (25.0%) |") !=
        std::string::npos);
  f.scripted_teacher = true;
  CHECK(DatasetCard(f).find("Not training data") != std::string::npos);
  CHECK(DatasetCard(f) == DatasetCard(f));
}

TEST_CASE("dataset card: the soft/hard agreement when the run gathered test evidence", "[export][evidence]") {
  DatasetFacts f = Facts();
  CHECK(DatasetCard(f).find("test outcomes") == std::string::npos);  // no evidence: no row
  f.tests_with_evidence = 7;
  f.soft_accepted_decided = 4;
  f.soft_accepted_agree = 3;
  f.tests_agree = 5;
  f.agree_soft_accepted = 3;
  const std::string card = DatasetCard(f);
  CHECK(card.find("| soft-accepted tasks whose P2 also reproduces P1's test outcomes (seragen's own test runs) | 3 of "
                  "4 (75.0%) |") != std::string::npos);
  CHECK(
      card.find("| tasks whose P2 reproduces P1's test outcomes that soft verification accepted | 3 of 5 (60.0%) |") !=
      std::string::npos);
}

namespace {

// The names of a features list (hf's messages, a struct's fields).
std::vector<std::string> Names(const YAML::Node& fields) {
  std::vector<std::string> out;
  for (const YAML::Node& f : fields) out.push_back(f["name"].as<std::string>());
  return out;
}

}  // namespace

TEST_CASE("dataset card: the features declare every key the rows carry, train keys included", "[export]") {
  DatasetFacts f = Facts();
  f.files.push_back({"t1", Format::kSera, "data/t1.sera.jsonl", 5});
  YAML::Node h = Header(DatasetCard(f));
  YAML::Node message = h["dataset_info"][0]["features"][0]["list"];
  CHECK(Names(message) ==
        std::vector<std::string>{"role", "content", "reasoning_content", "tool_calls", "tool_call_id", "name"});
  YAML::Node metadata = h["dataset_info"][0]["features"][2]["struct"];
  CHECK(Names(metadata[Names(metadata).size() - 1]["struct"]) ==
        std::vector<std::string>{"ran", "command", "exit_code", "passed", "source"});
  REQUIRE(h["dataset_info"].size() == 5);
  CHECK(Names(h["dataset_info"][4]["features"][0]["list"]) == std::vector<std::string>{"role", "content", "train"});
  f.train_keys = true;
  h = Header(DatasetCard(f));
  CHECK(Names(h["dataset_info"][0]["features"][0]["list"]).back() == "train");
}

TEST_CASE("dataset card: how many rows the length cut left out", "[export]") {
  DatasetFacts f = Facts();
  CHECK(DatasetCard(f).find("No length cut") != std::string::npos);
  f.max_record_tokens = 32768;
  f.length_cut_t1 = 3;
  f.length_cut_t2 = 1;
  CHECK(
      DatasetCard(f).find("longer than 32768 tokens (estimated as UTF-8 bytes / 4) were left out: 3 of T1, 1 of T2") !=
      std::string::npos);
}

TEST_CASE("dataset_info.json: one LLaMA-Factory entry per sharegpt file", "[export]") {
  auto info = nlohmann::json::parse(LlamaFactoryDatasetInfo(Facts().files));
  REQUIRE(info.size() == 2);
  CHECK(info["seragen_t2"]["file_name"] == "data/t2.sharegpt.jsonl");
  CHECK(info["seragen_t2"]["formatting"] == "sharegpt");
  CHECK(info["seragen_t2"]["columns"]["messages"] == "conversations");
  CHECK(info["seragen_t2"]["tags"]["function_tag"] == "function_call");
  CHECK(nlohmann::json::parse(LlamaFactoryDatasetInfo({})).empty());
}

}  // namespace seragen::exporter

namespace seragen::exporter {

// Issue 36: model ids (an endpoint's words) and the run name went into the
// card verbatim: a newline forged a licence section, Markdown added an image.
TEST_CASE("dataset card: outside text is one inert line of Markdown", "[export]") {
  DatasetFacts f = Facts();
  f.teacher_models = {"m\n\n## Licence\n\nMIT, do anything ![t](https://track.example/p.gif) <img src=x>",
                      std::string(5000, 'x')};
  f.run_name = "run\r\n# Forged heading \xE2\x80\xAE";
  const std::string card = DatasetCard(f);
  CHECK(card.find("## Licence\n\nThe rows quote") != std::string::npos);  // ours, once
  CHECK(card.find("## Licence\n\nMIT") == std::string::npos);
  CHECK(card.find("\n# Forged") == std::string::npos);
  CHECK(card.find("![t](") == std::string::npos);
  CHECK(card.find(" <img") == std::string::npos);  // escaped: "\\<img"
  CHECK(card.find("\xE2\x80\xAE") == std::string::npos);
  CHECK(card.find(std::string(300, 'x')) == std::string::npos);
}

}  // namespace seragen::exporter
