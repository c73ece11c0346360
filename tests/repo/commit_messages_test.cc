// ReadCommitMessages: libgit2's walk in place of `git log`, its
// bounds, and that nothing of the repository's configuration is run.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "repo/git_fixture.h"
#include "seragen/repo/commit_messages.h"
#include "seragen/repo/repository.h"
#include "testing/temp_dir.h"

namespace seragen::repo {
namespace {

using seragen::testing::TempDir;

std::vector<std::string> Messages(const std::string& dir, const std::string& commit, const CommitMessageLimits& limits,
                                  CommitMessageStats* stats = nullptr) {
  auto repo = Repository::Open(dir);
  REQUIRE(repo.ok());
  auto messages = ReadCommitMessages(repo->git_dir(), commit, limits, stats);
  INFO(messages.status().message());
  REQUIRE(messages.ok());
  return *messages;
}

TEST_CASE("commit messages: from the given commit back, each whole, merges left out", "[repo][commit_messages]") {
  TempDir tmp;
  const std::string dir = tmp.Sub("r");
  testing::MakeRepo(dir, {{"a.txt", "a\n"}});
  // Text that a NUL-separated `git log -z` reader or a header parser could
  // take for a boundary stays inside its message.
  const std::string second = "Fix the parser\n\nIt failed on empty input.\n\ncommit 0123456789\nAuthor: x\n";
  testing::CommitAll(dir, second);
  testing::MustRun(testing::Git(dir) + " checkout -q -b side && echo s > " + testing::Quote(dir + "/s.txt") + " && " +
                   testing::Git(dir) + " add -A && " + testing::Git(dir) + " commit -q -m 'Side work'");
  testing::MustRun(testing::Git(dir) + " checkout -q main && " + testing::Git(dir) +
                   " merge -q --no-ff -m 'Merge branch side' side");
  const std::string head = testing::CommitAll(dir, "Last change");

  std::vector<std::string> got = Messages(dir, head, CommitMessageLimits{});
  REQUIRE(got.size() == 4);
  CHECK(got.front() == "Last change\n");
  for (const std::string& m : got) CHECK(m.find("Merge branch") == std::string::npos);
  CHECK(std::count(got.begin(), got.end(), second) == 1);
  CHECK(got.back() == "base\n");

  CommitMessageLimits two;
  two.max_commits = 2;
  CHECK(Messages(dir, head, two).size() == 2);
  CommitMessageLimits walk_one;
  walk_one.max_walked = 2;  // the head, then the merge: one message
  CommitMessageStats stats;
  CHECK(Messages(dir, head, walk_one, &stats).size() == 1);
  CHECK(stats.walked == 2);
}

TEST_CASE("commit messages: a message over the cap is skipped, not cut, and the total stops reading",
          "[repo][commit_messages]") {
  TempDir tmp;
  const std::string dir = tmp.Sub("r");
  testing::MakeRepo(dir, {{"a.txt", "a\n"}});
  tmp.Write("long.txt", std::string(3000, 'x') + "\n");
  testing::MustRun(testing::Git(dir) + " commit -q --allow-empty -F " + testing::Quote(tmp.Sub("long.txt")));
  const std::string head = testing::CommitAll(dir, std::string(200, 'y'));

  CommitMessageLimits limits;
  limits.max_message_bytes = 1000;
  CommitMessageStats stats;
  std::vector<std::string> got = Messages(dir, head, limits, &stats);
  REQUIRE(got.size() == 2);
  CHECK(got[0] == std::string(200, 'y') + "\n");
  CHECK(got[1] == "base\n");
  CHECK(stats.skipped_long == 1);
  CHECK_FALSE(stats.total_reached);

  limits.max_message_bytes = 4000;
  limits.max_total_bytes = 201 + 3001;  // the newest two fit exactly, the third does not
  stats = {};
  got = Messages(dir, head, limits, &stats);
  REQUIRE(got.size() == 2);
  CHECK(got[1].size() == 3001);
  CHECK(stats.total_reached);

  CHECK(kMaxCommitMessageBytes <= kMaxCommitMessagesTotalBytes);
}

TEST_CASE("commit messages: the repository's configuration runs nothing", "[repo][commit_messages][security]") {
  TempDir tmp;
  const std::string dir = tmp.Sub("r");
  testing::MakeRepo(dir, {{"a.txt", "a\n"}});
  // A commit carrying a signature header, and a config that asks git log to
  // verify it with a program of the repository's choosing.
  const std::string marker = tmp.Sub("ran");
  tmp.Write("evil.sh", "#!/bin/sh\ntouch " + testing::Quote(marker) + "\n");
  std::filesystem::permissions(tmp.Sub("evil.sh"), std::filesystem::perms::owner_all);
  tmp.Write("commit.txt", "tree " + testing::MustRun(testing::Git(dir) + " rev-parse HEAD^{tree}").substr(0, 40) +
                              "\nauthor t <t@e> 1700000000 +0000\ncommitter t <t@e> 1700000000 +0000\n"
                              "gpgsig -----BEGIN PGP SIGNATURE-----\n \n -----END PGP SIGNATURE-----\n\nSigned\n");
  const std::string signed_commit =
      testing::MustRun(testing::Git(dir) + " hash-object -t commit -w " + testing::Quote(tmp.Sub("commit.txt")))
          .substr(0, 40);
  for (const char* key : {"gpg.program", "gpg.ssh.program", "gpg.x509.program"}) {
    testing::MustRun(testing::Git(dir) + " config " + key + " " + testing::Quote(tmp.Sub("evil.sh")));
  }
  testing::MustRun(testing::Git(dir) + " config log.showSignature true");

  std::vector<std::string> got = Messages(dir, signed_commit, CommitMessageLimits{});
  REQUIRE(got.size() == 1);
  CHECK(got[0] == "Signed\n");
  CHECK_FALSE(std::filesystem::exists(marker));
}

}  // namespace
}  // namespace seragen::repo
