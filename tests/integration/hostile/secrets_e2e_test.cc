// Credentials of the input repository, seen and edited by the agent, leave in
// no export format (docs/SECRETS.md): the real binary, the scripted teacher
// made to `cat` a settings file and a deploy key and edit the settings file,
// then every format exported under redact and under drop.
#include <catch2/catch.hpp>

#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "integration/hostile/hostile_fixture.h"
#include "integration/pipeline/harness.h"
#include "seragen/base/file_util.h"
#include "seragen/export/record.h"
#include "testing/fake_secrets.h"

namespace seragen::hostile {
namespace {

using nlohmann::json;

// One fake secret per rule (every family), the private key in deploy/, the
// AWS key id last in settings.py so that the patch's context holds it too.
struct SeededRepo {
  std::vector<testing::FakeSecret> seeded;
  std::string allowed = "AKIA" + std::string("IOSFODNN7") + "EXAMPLE";  // a documented example key id
  std::string aws_key;

  explicit SeededRepo(HostileFixture& f) {
    std::set<std::string> rules;
    std::string settings = "EXAMPLE_KEY = '" + allowed + "'\n", key_file, aws_line;
    for (const testing::FakeSecret& s : testing::FakeSecrets()) {
      if (s.secret == allowed || !rules.insert(s.rule).second) continue;
      seeded.push_back(s);
      if (s.rule == "private-key-block") key_file += s.text + "\n";
      else if (s.rule == "aws-access-key-id") aws_line = s.text + "\n", aws_key = s.secret;
      else settings += s.text + "\n";
    }
    REQUIRE(!aws_key.empty());
    REQUIRE(MakeDirs(f.input_repository() + "/deploy").ok());
    REQUIRE(WriteFileAtomic(f.input_repository() + "/settings.py", settings + aws_line).ok());
    REQUIRE(WriteFileAtomic(f.input_repository() + "/deploy/id_rsa", key_file).ok());
    f.CommitToInputRepo("true");
  }
};

std::string Export(const std::string& run_dir, const std::string& args) {
  std::string out;
  int rc = testing::RunShell(e2e::Binary() + " export " + run_dir + " " + args, &out);
  INFO(out);
  REQUIRE(rc == 0);
  return out;
}

// Every seeded secret absent from the T1 and T2 files of `format` in `dir`;
// returns the T1 text.
std::string CheckNoSecrets(const SeededRepo& repo, const std::string& dir, const std::string& format) {
  std::string t1;
  for (const char* which : {"t1", "t2"}) {
    Result<std::string> text = ReadFile(dir + "/" + which + "." + format + ".jsonl");
    REQUIRE(text.ok());
    for (const testing::FakeSecret& s : repo.seeded) {
      INFO(format << " " << which << ": " << s.rule);
      CHECK(text->find(s.secret) == std::string::npos);
    }
    if (std::string(which) == "t1") t1 = *text;
  }
  return t1;
}

}  // namespace

TEST_CASE("secrets: the repository's credentials leave in no export format, under redact and drop", "[hostile]") {
  HostileFixture f(27100);
  SeededRepo repo(f);
  const std::string allow = "export: {secrets: {allow: ['" + repo.allowed + "']}}\n";
  RunOutcome o = f.Run(Bash("cat /repo/settings.py") + Bash("cat /repo/deploy/id_rsa") +
                           Bash("echo '# reviewed' >> /repo/settings.py") + Submit() + Submit(),
                       allow);
  f.CheckInvariants(o);
  const std::string run = f.run_dir(), data = run + "/data";
  for (const std::string& format : exporter::FormatNames()) {
    Export(run, "--format " + format);
    std::string t1 = CheckNoSecrets(repo, data, format);
    INFO(format);
    REQUIRE(!t1.empty());
    CHECK(t1.find(repo.allowed) != std::string::npos);  // allow-listed: passes
    // The AWS key id, in the observation and the patch: one placeholder.
    std::regex placeholder("<REDACTED:aws-access-key-id:([0-9a-f]{8})>");
    std::set<std::string> hashes;
    std::size_t n = 0;
    for (std::sregex_iterator it(t1.begin(), t1.end(), placeholder), end; it != end; ++it, ++n) {
      hashes.insert((*it)[1]);
    }
    CHECK(n >= 2);
    CHECK(hashes.size() == 1);
  }
  json status;
  {
    std::string out;
    REQUIRE(testing::RunShell(e2e::Binary() + " status " + run + " --json", &out) == 0);
    status = json::parse(out);
  }
  CHECK(status["export_secrets"]["hf"]["rows_redacted"].get<int>() >= 1);
  CHECK(status["export_secrets"]["sharegpt"]["hits_by_rule"].contains("private-key-block"));

  const std::string report = f.dir().Sub("secrets.jsonl");
  std::string out =
      Export(run, "--format hf --secrets drop --out " + f.dir().Sub("drop") + " --secrets-report " + report);
  CHECK(out.find("dropped") != std::string::npos);
  CheckNoSecrets(repo, f.dir().Sub("drop"), "hf");
  Result<std::string> summary = ReadFile(f.dir().Sub("drop/summary.hf.json"));
  REQUIRE(summary.ok());
  CHECK(json::parse(*summary)["secrets"]["rows_dropped"].get<int>() >= 1);
  Result<std::string> listed = ReadFile(report);
  REQUIRE(listed.ok());
  CHECK(listed->find("aws-access-key-id") != std::string::npos);
  for (const testing::FakeSecret& s : repo.seeded) CHECK(listed->find(s.secret) == std::string::npos);
}

}  // namespace seragen::hostile
