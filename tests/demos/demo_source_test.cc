#include "seragen/demos/demo_source.h"

#include <catch2/catch.hpp>

#include "testing/temp_dir.h"

namespace seragen::demos {
namespace {

const std::string kDescriptive =
    "Reject negative quantities in Stock.reserve\n\nCallers passing -1 silently grew stock.";

// A prompts directory whose built-in pool holds one issue with id "b1".
struct DemoDirs {
  seragen::testing::TempDir dir;
  DemoDirs() {
    dir.Write("prompts/demo_issues/builtin.jsonl", "{\"id\":\"b1\",\"text\":\"The built-in example.\"}\n");
    dir.Write("mine.jsonl",
              "{\"id\":\"f1\",\"repo\":\"a/b\",\"text\":\"Mine.\"}\n{\"id\":\"f2\",\"text\":\"Other.\"}\n");
  }
  std::string prompts() const { return dir.Sub("prompts"); }
};

CommitMessageReader Messages(std::vector<std::string> messages, int* calls = nullptr) {
  return [messages, calls]() -> Result<std::vector<std::string>> {
    if (calls != nullptr) ++*calls;
    return messages;
  };
}

}  // namespace

TEST_CASE("demo source: builtin and file never read the commits", "[demo]") {
  DemoDirs d;
  int calls = 0;
  DemoSourceOptions o;
  auto builtin = LoadDemoPool(o, d.prompts(), Messages({kDescriptive}, &calls));
  REQUIRE(builtin.ok());
  CHECK(builtin->source() == "builtin");
  CHECK(builtin->issues().at(0).id == "b1");
  o.source = "file";
  o.file = d.dir.Sub("mine.jsonl");
  o.repo_filter = "a/b";
  auto file = LoadDemoPool(o, d.prompts(), Messages({kDescriptive}, &calls));
  REQUIRE(file.ok());
  CHECK(file->source() == "file");
  REQUIRE(file->size() == 1);
  CHECK(file->issues()[0].id == "f1");
  CHECK(calls == 0);
  o.file = d.dir.Sub("missing.jsonl");
  CHECK_FALSE(LoadDemoPool(o, d.prompts(), Messages({})).ok());
}

TEST_CASE("demo source: commits must be usable, auto falls back to the built-in issues", "[demo]") {
  DemoDirs d;
  DemoSourceOptions o;
  o.source = "commits";
  auto commits = LoadDemoPool(o, d.prompts(), Messages({kDescriptive, "wip"}));
  REQUIRE(commits.ok());
  CHECK(commits->source() == "commits");
  CHECK(commits->size() == 1);
  CHECK(LoadDemoPool(o, d.prompts(), Messages({"wip"})).status().code() == StatusCode::kNotFound);
  o.source = "auto";
  o.min_commits = 2;
  auto few = LoadDemoPool(o, d.prompts(), Messages({kDescriptive}));
  REQUIRE(few.ok());
  CHECK(few->source() == "builtin");
  auto enough = LoadDemoPool(o, d.prompts(), Messages({kDescriptive, kDescriptive + " again"}));
  REQUIRE(enough.ok());
  CHECK(enough->source() == "commits");
  // A failure to read the messages is not hidden by the fallback.
  CommitMessageReader broken = [] { return Result<std::vector<std::string>>(InternalError("git broke")); };
  CHECK(LoadDemoPool(o, d.prompts(), broken).status().message() == "git broke");
}

TEST_CASE("demo source: a report reads the recorded builtin or file pool again, nothing else", "[demo]") {
  DemoDirs d;
  DemoSourceOptions run;  // as the run was configured
  run.source = "auto";
  run.file = d.dir.Sub("mine.jsonl");
  auto builtin = ReloadDemoPool("builtin", run, d.prompts());
  REQUIRE(builtin.ok());
  CHECK(builtin->issues().at(0).id == "b1");
  auto file = ReloadDemoPool("file", run, d.prompts());
  REQUIRE(file.ok());
  CHECK(file->size() == 2);
  CHECK(ReloadDemoPool("commits", run, d.prompts()).status().code() == StatusCode::kNotFound);
  CHECK(ReloadDemoPool("", run, d.prompts()).status().code() == StatusCode::kNotFound);
}

}  // namespace seragen::demos
