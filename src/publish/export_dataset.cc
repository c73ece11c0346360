#include "seragen/publish/export_dataset.h"

#include "seragen/callgraph/holdout.h"

#include <algorithm>
#include <set>
#include <span>
#include <string_view>

#include "publish/dataset_dir.h"
#include "seragen/base/file_util.h"
#include "seragen/export/dataset_card.h"
#include "seragen/export/export_rules.h"
#include "seragen/journal/run_paths.h"
#include "seragen/runview/run_state.h"
#include "seragen/runview/status_report.h"

namespace seragen::publish {
namespace {

// The card's facts: the counts of `seragen status`, the run's saved name and
// seed, the recipe hash of its first journal.
exporter::DatasetFacts FactsOf(const runview::RunState& run) {
  runview::StatusReport st = runview::StatusOf(run);
  exporter::DatasetFacts f;
  if (run.settings.saved) {
    f.run_name = run.settings.saved->run.name;
    f.run_seed = run.settings.saved->run.seed;
  }
  if (!run.shards.empty()) f.recipe_hash = run.shards.front().journal.effective_config_hash;
  f.planned = st.planned;
  f.finished = st.finished;
  for (const auto& [verdict, n] : st.verified) f.verified += n;
  f.accepted = st.breakdown.accepted;
  f.prompt_tokens = st.prompt_tokens;
  f.completion_tokens = st.completion_tokens;
  f.model_calls = st.model_calls;
  f.rollouts = st.rollouts;
  for (const runview::CostLine& line : runview::CostLines(st.cost)) f.cost.emplace_back(line.label, line.value);
  f.cost_basis = runview::CostBasis(st.cost);
  f.env_broken = st.env_broken;
  f.tests_with_evidence = st.test_agreement.with_evidence;
  f.soft_accepted_decided = st.test_agreement.soft_accepted_decided;
  f.soft_accepted_agree = st.test_agreement.soft_accepted_agree;
  f.tests_agree = st.test_agreement.Count(verify::TestVerdict::kAgree);
  f.agree_soft_accepted = st.test_agreement.agree_soft_accepted;
  if (st.split.heldout_tasks > 0) {
    f.heldout_summary = callgraph::FormatSplit(st.split);
    for (const auto& [repo, files] : callgraph::HeldOutFiles(run.plan)) {
      for (const std::string& file : files) f.heldout_files.push_back(repo + "/" + file);
    }
  }
  return f;
}

// "data/t1.hf.jsonl" and its row count, for each split of one export.
void AddFiles(exporter::Format format, const ExportReport& r, std::vector<exporter::DatasetFile>* files) {
  const std::string name(exporter::FormatName(format));
  files->push_back({"t1", format, "data/" + journal::ExportDataName("t1", name), r.t1_written});
  files->push_back({"t2", format, "data/" + journal::ExportDataName("t2", name), r.t2_written});
}

// Every file ExportDataset writes, relative to DIR.
std::set<std::string> FilesOf(const std::vector<ExportRequest>& requests) {
  std::set<std::string> files = {"README.md", std::string(journal::kDatasetInfoName),
                                 "data/" + std::string(journal::kDatasetInfoName)};
  for (const ExportRequest& req : requests) {
    const std::string name(exporter::FormatName(req.options.format));
    files.insert("data/" + journal::ExportDataName("t1", name));
    files.insert("data/" + journal::ExportDataName("t2", name));
    files.insert("data/" + journal::ExportSummaryName(name));
  }
  return files;
}

// The card with every secret the scanner finds in it (the run name and the
// model ids are the user's and the server's words) replaced by its
// placeholder, whatever export.secrets.action says: a card is never dropped.
std::string ScrubbedCard(const std::string& card, const ExportRequest& req) {
  if (!req.secret_scanner) return card;
  std::string_view field = card;
  secrets::RowScan scan = req.secret_scanner->ScanRow(std::span<const std::string_view>(&field, 1));
  return scan.clean() ? card : scan.redacted.front();
}

}  // namespace

Result<DatasetReport> ExportDataset(std::vector<ExportRequest> requests, const std::string& dir,
                                    const std::string& seragen_version) {
  if (requests.empty()) return InvalidArgumentError("no export format to write into " + dir);
  auto has_sharegpt = [](const ExportRequest& r) { return r.options.format == exporter::Format::kSharegpt; };
  if (std::none_of(requests.begin(), requests.end(), has_sharegpt)) {
    requests.push_back(requests.front());
    requests.back().options.format = exporter::Format::kSharegpt;
  }
  const std::set<std::string> files = FilesOf(requests);
  SG_ASSIGN_OR_RETURN(std::set<std::string> listed, ClaimDatasetDir(dir, files));
  runview::FoldOptions fold;  // one reading of the run serves the card and every format
  fold.prompts_dir = requests.front().prompts_dir;
  SG_ASSIGN_OR_RETURN(runview::RunState run, runview::FoldRun(requests.front().run_dir, fold));
  exporter::DatasetFacts facts = FactsOf(run);
  facts.seragen_version = seragen_version;
  DatasetReport out;
  std::set<std::string> models;
  for (ExportRequest& req : requests) {
    req.out_dir = dir + "/data";
    SG_ASSIGN_OR_RETURN(ExportReport r, ExportFolded(req, run));
    facts.scripted_teacher = facts.scripted_teacher || r.scripted_teacher;
    models.insert(r.models.begin(), r.models.end());
    AddFiles(req.options.format, r, &facts.files);
    out.exports.emplace_back(std::string(exporter::FormatName(req.options.format)), std::move(r));
  }
  facts.teacher_models.assign(models.begin(), models.end());
  // Every format shares the rules: the first export's length cut is the card's.
  const ExportReport& first = out.exports.front().second;
  auto cut = [&](const char* why) { return first.excluded.contains(why) ? first.excluded.at(why) : 0; };
  facts.train_keys = requests.front().options.train_keys;
  facts.max_record_tokens = requests.front().rules.max_record_tokens;
  facts.length_cut_t1 = cut(exporter::kT1FilterTokens);
  facts.length_cut_t2 = cut(exporter::kT2FilterTokens);
  out.card_path = dir + "/README.md";
  out.info_path = dir + "/" + std::string(journal::kDatasetInfoName);
  SG_RETURN_IF_ERROR(WriteFileAtomic(out.card_path, ScrubbedCard(exporter::DatasetCard(facts), requests.front())));
  SG_RETURN_IF_ERROR(WriteFileAtomic(out.info_path, exporter::LlamaFactoryDatasetInfo(facts.files)));
  SG_RETURN_IF_ERROR(RecordDatasetDir(dir, listed, files));
  return out;
}

}  // namespace seragen::publish
