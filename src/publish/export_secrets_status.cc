#include "seragen/publish/export_secrets_status.h"

#include <nlohmann/json.hpp>
#include <optional>

#include "seragen/base/file_util.h"
#include "seragen/base/json_depth.h"
#include "seragen/export/record.h"
#include "seragen/journal/run_paths.h"

namespace seragen::publish {
namespace {

// A summary is a few hundred bytes; a rule table of a few hundred entries
// stays far below this.
constexpr std::uint64_t kMaxSummaryBytes = 1 << 20;

std::optional<secrets::SecretSummary> ReadOne(const std::string& path) {
  auto text = ReadRegularFile(path, kMaxSummaryBytes);
  if (!text.ok() || !CheckJsonDepth(*text, path).ok()) return std::nullopt;
  auto json = nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (!json.is_object() || !json.contains("secrets")) return std::nullopt;
  auto summary = secrets::DecodeSecretSummary(json["secrets"].dump(), path);
  if (!summary.ok()) return std::nullopt;
  return *summary;
}

}  // namespace

std::map<std::string, secrets::SecretSummary> ReadExportSecrets(const std::string& run_dir) {
  std::map<std::string, secrets::SecretSummary> out;
  const std::string dir = journal::DataDir(run_dir);
  for (const std::string& format : exporter::FormatNames()) {
    if (auto summary = ReadOne(dir + "/" + journal::ExportSummaryName(format))) out[format] = *summary;
  }
  return out;
}

}  // namespace seragen::publish
