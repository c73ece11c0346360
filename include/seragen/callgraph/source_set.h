// Where the call graph reads source files from: a small interface so the
// graph can be built from a directory on disk, from memory (tests, benchmark)
// or from a git commit (the `repo` module adapts to FileSource).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "seragen/base/result.h"

namespace seragen::callgraph {

// True when `path` names a place inside a repository: not empty, not
// absolute, and no ".." component.
bool IsRepositoryRelative(std::string_view path);

struct SourceEntry {
  std::string path;        // repository-relative, '/'-separated, no leading "./"
  std::uint64_t size = 0;  // bytes, so huge files can be skipped unread
};

class FileSource {
 public:
  virtual ~FileSource() = default;
  // Every regular file, sorted by path. Called once per graph build.
  virtual Result<std::vector<SourceEntry>> List() const = 0;
  // The bytes of one listed file. Must be safe to call from several threads
  // at once. NotFound for paths that are not listed.
  virtual Result<std::string> Read(const std::string& path) const = 0;
};

// Files under a directory. Skips hidden directories (".git", ".venv", ...)
// and symbolic links (so a link cannot leave the tree or loop).
class DirectoryFileSource final : public FileSource {
 public:
  explicit DirectoryFileSource(std::string root);
  Result<std::vector<SourceEntry>> List() const override;
  Result<std::string> Read(const std::string& path) const override;

 private:
  std::string root_;
};

// Files held in memory. Not thread-safe while Add() is being called; reads
// afterwards are.
class InMemoryFileSource final : public FileSource {
 public:
  void Add(std::string path, std::string content);
  Result<std::vector<SourceEntry>> List() const override;
  Result<std::string> Read(const std::string& path) const override;
  std::size_t size() const { return files_.size(); }

 private:
  std::map<std::string, std::string> files_;
};

}  // namespace seragen::callgraph
