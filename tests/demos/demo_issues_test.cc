#include "seragen/demos/demo_issues.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <vector>

#include "seragen/base/rng.h"
#include "testing/source_paths.h"
#include "testing/temp_dir.h"

namespace seragen::demos {

TEST_CASE("demonstration issues from jsonl, json, text and commits", "[demo]") {
  seragen::testing::TempDir dir;
  dir.Write("a.jsonl",
            "{\"id\":\"x\",\"text\":\"First issue\"}\n\n\"Second issue\"\n{\"title\":\"T\",\"body\":\"B\"}\n");
  auto a = DemoIssuePool::FromFile(dir.Sub("a.jsonl"));
  REQUIRE(a.ok());
  REQUIRE(a->size() == 3);
  CHECK(a->issues()[0].id == "x");
  CHECK(a->issues()[2].text == "T\n\nB");
  dir.Write("b.json", "[\"one\", {\"text\": \"two\"}]");
  CHECK(DemoIssuePool::FromFile(dir.Sub("b.json"))->size() == 2);
  dir.Write("c.txt", "issue one\nline 2\n---\nissue two\n---\n\n");
  auto c = DemoIssuePool::FromFile(dir.Sub("c.txt"));
  REQUIRE(c->size() == 2);
  CHECK(c->issues()[0].text == "issue one\nline 2");
  dir.Write("bad.jsonl", "{\"text\": \"ok\"}\n{\"nope\": 1}\n");
  auto bad = DemoIssuePool::FromFile(dir.Sub("bad.jsonl"));
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.status().message().find("bad.jsonl:2") != std::string::npos);
  dir.Write("empty.txt", "\n\n");
  CHECK_FALSE(DemoIssuePool::FromFile(dir.Sub("empty.txt")).ok());
  auto commits = DemoIssuePool::FromCommitMessages(
      {"Merge branch 'x' into main and also some more words to be long enough", "fix typo",
       "Reject negative quantities in Stock.reserve\n\nCallers passing -1 silently increased stock."});
  REQUIRE(commits.ok());
  CHECK(commits->size() == 1);
  CHECK_FALSE(DemoIssuePool::FromCommitMessages({"wip"}).ok());
  // auto needs enough descriptive messages to prefer commits.
  CHECK_FALSE(DemoIssuePool::FromCommitMessages(
                  {"Reject negative quantities in Stock.reserve\n\nCallers passing -1 silently increased stock."}, 2)
                  .ok());
}

TEST_CASE("the built-in demonstration pool: 100+ user-style bug reports of many kinds, and it loads", "[demo]") {
  const std::string path = seragen::testing::SourcePath("prompts/demo_issues/builtin.jsonl");
  auto pool = DemoIssuePool::FromFile(path);
  REQUIRE(pool.ok());
  CHECK(pool->size() >= 100);
  std::set<std::string> ids, projects, languages;
  std::size_t with_trace = 0, shortest = std::string::npos, longest = 0;
  for (const DemoIssue& issue : pool->issues()) {
    ids.insert(issue.id);
    shortest = std::min(shortest, issue.text.size());
    longest = std::max(longest, issue.text.size());
    // Python tracebacks, Go panics, JVM and JavaScript stack frames, sanitizer reports.
    for (const char* mark :
         {"Traceback (most recent call last)", "goroutine ", "\tat ", "    at ", "AddressSanitizer"}) {
      if (issue.text.find(mark) != std::string::npos) {
        ++with_trace;
        break;
      }
    }
  }
  CHECK(ids.size() == pool->size());
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    auto j = nlohmann::json::parse(line);
    projects.insert(j.at("project").get<std::string>());
    languages.insert(j.at("language").get<std::string>());
  }
  CHECK(projects.size() == pool->size());  // one report per invented project
  CHECK(languages.size() >= 8);
  CHECK(with_trace >= 12);
  CHECK(pool->size() - with_trace >= 60);  // most reports carry no trace
  CHECK(shortest < 200);
  CHECK(longest > 1500);
}

namespace {

// Characters as SERA's Python counts them: UTF-8 code points.
std::size_t CodePoints(const std::string& text) {
  return static_cast<std::size_t>(
      std::count_if(text.begin(), text.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

}  // namespace

// SERA's demonstrations are SWE-bench problem statements (median about 1,185
// characters): user reports with context, steps and expected/actual behaviour.
// The issue writer imitates the demonstration's length and includes code only
// when it has some, so the shipped pool's shape is the synthetic issues' shape.
TEST_CASE("the built-in pool has SERA's length distribution, every supported language, with and without code",
          "[demo]") {
  auto pool = DemoIssuePool::FromFile(seragen::testing::SourcePath("prompts/demo_issues/builtin.jsonl"));
  REQUIRE(pool.ok());
  std::vector<std::size_t> lengths;
  std::map<std::string, std::size_t> per_language;
  std::size_t with_code = 0;
  for (const DemoIssue& issue : pool->issues()) {
    lengths.push_back(CodePoints(issue.text));
    ++per_language[issue.language];
    // The teacher's notion of code in a demonstration: a fenced block or an interactive prompt.
    if (issue.text.find("```") != std::string::npos || issue.text.find(">>> ") != std::string::npos) ++with_code;
  }
  std::sort(lengths.begin(), lengths.end());
  const std::size_t n = lengths.size();
  const std::size_t median = n % 2 == 1 ? lengths[n / 2] : (lengths[n / 2 - 1] + lengths[n / 2]) / 2;
  INFO("median " << median << ", shortest " << lengths.front() << ", longest " << lengths.back());
  CHECK(median >= 1000);
  CHECK(median <= 1400);
  CHECK(lengths.front() <= 400);                  // short reports stay in the mix
  CHECK(lengths.back() >= 2500);                  // and long ones
  CHECK(per_language["python"] * 100 >= n * 35);  // SERA's pool is all Python
  for (const char* language : {"javascript", "typescript", "go", "rust", "java", "c", "cpp"}) {
    INFO(language);
    CHECK(per_language[language] >= 5);
  }
  CHECK(with_code * 3 >= n);
  CHECK((n - with_code) * 3 >= n);
}

TEST_CASE("Pick is deterministic for a given RNG state", "[demo]") {
  auto pool = DemoIssuePool::FromIssues({{"a", "A"}, {"b", "B"}, {"c", "C"}});
  Rng r1 = Rng::Derive(1, "task", "demo_issue"), r2 = Rng::Derive(1, "task", "demo_issue");
  CHECK(pool.Pick(r1).id == pool.Pick(r2).id);
}

TEST_CASE("a demonstration in the repository's language is chosen where the pool has one", "[demo]") {
  auto pool = DemoIssuePool::FromFile(seragen::testing::SourcePath("prompts/demo_issues/builtin.jsonl"));
  REQUIRE(pool.ok());
  for (const char* language : {"python", "go", "rust", "java", "c", "cpp", "javascript", "typescript", "tsx"}) {
    INFO(language);
    const std::string want = std::string(language) == "tsx" ? "typescript" : language;
    std::set<std::string> drawn;
    for (int task = 0; task < 40; ++task) {
      Rng rng = Rng::Derive(7, "task" + std::to_string(task), "demo_issue");
      const DemoIssue& demo = pool->Pick(rng, language);
      CHECK(demo.language == want);
      drawn.insert(demo.id);
    }
    CHECK(drawn.size() > 1);  // a draw among them, not one fixed report
  }
  // A language the pool lacks, or none: the whole pool.
  std::set<std::string> languages;
  for (int task = 0; task < 60; ++task) {
    Rng rng = Rng::Derive(7, "task" + std::to_string(task), "demo_issue");
    languages.insert(pool->Pick(rng, "zig").language);
  }
  CHECK(languages.size() > 2);
}

TEST_CASE("demonstration issues from a SWE-bench JSONL file, filtered by repo", "[demo]") {
  seragen::testing::TempDir dir;
  dir.Write("swe.jsonl",
            "{\"repo\":\"pallets/flask\",\"instance_id\":\"pallets__flask-1\",\"problem_statement\":\"A crashes\\n\"}\n"
            "{\"repo\":\"psf/requests\",\"instance_id\":\"psf__requests-2\",\"problem_statement\":\"B hangs\"}\n"
            "{\"repo\":\"pallets/flask\",\"problem_statement\":\"C leaks\"}\n");
  auto all = DemoIssuePool::FromFile(dir.Sub("swe.jsonl"));
  REQUIRE((all.ok() && all->size() == 3));
  CHECK(all->issues()[0].id == "pallets__flask-1");
  CHECK(all->issues()[0].text == "A crashes");
  auto flask = DemoIssuePool::FromFile(dir.Sub("swe.jsonl"), "pallets/flask");
  REQUIRE(flask.ok());
  REQUIRE(flask->size() == 2);
  CHECK(flask->issues()[1].text == "C leaks");
  auto none = DemoIssuePool::FromFile(dir.Sub("swe.jsonl"), "django/django");
  REQUIRE_FALSE(none.ok());
  CHECK(none.status().message().find("django/django") != std::string::npos);
  // A problem_statement that is not a string is an error naming the line.
  dir.Write("bad.jsonl",
            "{\"repo\":\"a/b\",\"problem_statement\":\"ok\"}\n{\"repo\":\"a/b\",\"problem_statement\":7}\n");
  auto bad = DemoIssuePool::FromFile(dir.Sub("bad.jsonl"), "a/b");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.status().message().find("bad.jsonl:2") != std::string::npos);
}

}  // namespace seragen::demos
