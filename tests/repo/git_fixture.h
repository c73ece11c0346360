// Test helpers for the repo module: build small repositories with the git CLI
// (isolated from host configuration) and compute reference diffs with it.
#pragma once

#include <map>
#include <string>

#include "testing/must.h"
#include "testing/temp_dir.h"

namespace seragen::repo::testing {

// The shared helpers too, so that `using namespace testing;` brings them all.
using seragen::testing::Must;
using seragen::testing::TempDir;

// Shell prefix that runs git in `dir` with no system/global config, fixed
// identity and dates: Git(dir) + " status --porcelain".
std::string Git(const std::string& dir);
// The same without the `cd`: "env ... git -c ...".
std::string GitCommand();

// Runs a shell command, fails the current test (with its output) unless it exits 0.
// Returns stdout+stderr.
std::string MustRun(const std::string& command);

// Creates a repository at `dir` holding `files` (path -> content) and commits
// them; returns the commit id. `attributes`, when non-empty, is committed as
// .gitattributes first so the files are normalised by it.
std::string MakeRepo(const std::string& dir, const std::map<std::string, std::string>& files,
                     const std::string& attributes = "");

// Commits all changes in `dir` (git add -A) and returns the new commit id.
std::string CommitAll(const std::string& dir, const std::string& message);

// What `git add -A && git diff --cached --no-renames <extra> BASE` prints in
// the work tree `copy`, using a throwaway copy of its index.
std::string ReferenceDiff(const std::string& copy, const std::string& base, const std::string& extra_flags = "");

// `git status --porcelain --ignored` in `dir`.
std::string PorcelainStatus(const std::string& dir);

// Shell-quotes a path with single quotes.
std::string Quote(const std::string& text);

}  // namespace seragen::repo::testing
