// A callgraph::FileSource over a git repository at a commit (no checkout).
// Thread-safe: reads are serialised on the one repository handle.
#pragma once

#include <mutex>

#include "seragen/callgraph/source_set.h"
#include "seragen/repo/repository.h"

namespace seragen::pipeline {

class RepoFileSource final : public callgraph::FileSource {
 public:
  // `repo` must outlive this object.
  RepoFileSource(const repo::Repository* repo, std::string commit, repo::FileFilter filter);
  Result<std::vector<callgraph::SourceEntry>> List() const override;
  Result<std::string> Read(const std::string& path) const override;

 private:
  const repo::Repository* repo_;
  std::string commit_;
  repo::FileFilter filter_;
  mutable std::mutex mu_;
};

}  // namespace seragen::pipeline
