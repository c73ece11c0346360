// A parser of the Prometheus text exposition format (what vLLM, SGLang and
// llama.cpp serve at /metrics), for the few gauges the auto concurrency
// reads. The body comes from a server over the network: hostile input. The
// parser is total (every input gives samples or an error, never a crash or
// a throw), bounded (input bytes, samples, labels, name and value lengths),
// and looks closely only at the metric names asked for: other lines are
// skipped once their name is read.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "seragen/base/result.h"

namespace seragen::llm {

struct PrometheusSample {
  std::string name;
  std::vector<std::pair<std::string, std::string>> labels;  // in the order given, values unescaped
  double value = 0;                                         // may be +-Inf or NaN, as the server wrote
};

struct PrometheusLimits {
  std::size_t max_bytes = std::size_t{8} << 20;
  std::size_t max_samples = 4096;  // of the wanted names
  std::size_t max_labels = 32;     // per sample
  std::size_t max_name_bytes = 256;
  std::size_t max_label_value_bytes = 4096;
};

// The samples whose metric name `want` accepts (all when `want` is empty).
// kInvalidArgument naming the line for a wanted sample that is malformed or
// past a limit, or for input past max_bytes. Comments (#) and blank lines
// are skipped; a trailing timestamp or exemplar is ignored.
Result<std::vector<PrometheusSample>> ParsePrometheusText(std::string_view text,
                                                          const std::function<bool(std::string_view)>& want = {},
                                                          const PrometheusLimits& limits = {});

}  // namespace seragen::llm
