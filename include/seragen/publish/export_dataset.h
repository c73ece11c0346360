// `seragen export RUN_DIR --dataset DIR`: a directory a dataset hub can host
// as it is: DIR/data/ with T1 and T2 of each requested format (plus sharegpt
// for LLaMA-Factory), DIR/dataset_info.json naming the sharegpt files, and
// DIR/README.md, the dataset card (exporter/dataset_card.h) whose counts are
// those of `seragen status`. Rerunning on the same run writes the same bytes.
#pragma once

#include <string>
#include <vector>

#include "seragen/base/result.h"
#include "seragen/publish/export_run.h"

namespace seragen::publish {

struct DatasetReport {
  std::vector<std::pair<std::string, ExportReport>> exports;  // format name -> its export
  std::string card_path, info_path;
};

// `requests`: one per format (ExportRequestsFor), all of one run; their
// out_dir is replaced by DIR/data. A sharegpt request is added when none is
// given. `seragen_version` goes into the card.
Result<DatasetReport> ExportDataset(std::vector<ExportRequest> requests, const std::string& dir,
                                    const std::string& seragen_version);

}  // namespace seragen::publish
