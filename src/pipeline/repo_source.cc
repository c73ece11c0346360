#include "pipeline/repo_source.h"

namespace seragen::pipeline {

RepoFileSource::RepoFileSource(const repo::Repository* repo, std::string commit, repo::FileFilter filter)
    : repo_(repo), commit_(std::move(commit)), filter_(std::move(filter)) {}

Result<std::vector<callgraph::SourceEntry>> RepoFileSource::List() const {
  std::lock_guard<std::mutex> lock(mu_);
  SG_ASSIGN_OR_RETURN(auto files, repo_->ListFiles(commit_, filter_));
  std::vector<callgraph::SourceEntry> out;
  out.reserve(files.size());
  for (const auto& f : files) out.push_back({f.path, f.size});
  return out;
}

Result<std::string> RepoFileSource::Read(const std::string& path) const {
  std::lock_guard<std::mutex> lock(mu_);
  return repo_->ReadFile(commit_, path);
}

}  // namespace seragen::pipeline
