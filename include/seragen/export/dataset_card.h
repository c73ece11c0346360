// The files of `seragen export --dataset DIR` that describe the data: the
// dataset card (README.md with a YAML header a dataset hub reads) and
// LLaMA-Factory's dataset_info.json. Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "seragen/export/record.h"

namespace seragen::exporter {

// One exported data file, its path relative to the dataset directory.
struct DatasetFile {
  std::string split;  // "t1" or "t2"
  Format format = Format::kHf;
  std::string path;  // e.g. "data/t2.hf.jsonl"
  std::size_t rows = 0;
};

// What the card states about the run; counts are those of `seragen status`.
struct DatasetFacts {
  std::string run_name;
  std::int64_t run_seed = 0;
  std::string recipe_hash;
  std::string seragen_version;
  std::vector<std::string> teacher_models;  // as the trajectories record them
  bool scripted_teacher = false;
  std::size_t planned = 0, finished = 0, verified = 0, accepted = 0;
  std::int64_t prompt_tokens = 0, completion_tokens = 0, model_calls = 0;
  // What the run cost, as `seragen status` shows it (runview's cost ledger):
  // its figures as (label, value), e.g. ("per accepted row", "$0.41"), and
  // where they come from; both empty for a run without prices.
  std::vector<std::pair<std::string, std::string>> cost;
  std::string cost_basis;
  // Rollouts, and those where a command could not import the repository's
  // own code (env_broken; docs/ENVIRONMENTS.md).
  std::size_t rollouts = 0, env_broken = 0;
  std::vector<DatasetFile> files;  // the first file of each split is the hub's default config
  bool train_keys = false;         // rows carry messages[].train (--train-keys), declared in the features
  // The length filter (output.max_record_tokens, 0 = off) and the rows it left out.
  std::size_t max_record_tokens = 0;
  std::size_t length_cut_t1 = 0, length_cut_t2 = 0;
  // The held-out evaluation split (eval.holdout): its one-line summary and
  // the files it holds out, "repo/path"; empty when the run has none.
  std::string heldout_summary;
  std::vector<std::string> heldout_files;
};

// README.md: a YAML header (`configs` with each file's `data_files`, the
// features of every file but openai's, train keys included when written,
// `license: unknown` for the user to set, tags) between `---` lines, then the
// row counts and the length cut, the run's counts, provenance, recipes and
// the scripted-teacher warning when it applies. Same facts, same bytes.
std::string DatasetCard(const DatasetFacts& facts);

// dataset_info.json for LLaMA-Factory: one entry `seragen_<split>` per
// sharegpt file ({} when there is none). Paths relative to its directory.
std::string LlamaFactoryDatasetInfo(const std::vector<DatasetFile>& files);

}  // namespace seragen::exporter
