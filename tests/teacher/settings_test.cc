#include "teacher/settings.h"
#include "testing/source_paths.h"

#include <catch2/catch.hpp>

#include <utility>

namespace seragen::teacher {

TEST_CASE("the shipped configs/teacher.yaml loads with every key present", "[teacher]") {
  auto s = LoadTeacherSettingsFile(seragen::testing::SourcePath("configs/teacher.yaml"));
  REQUIRE(s.ok());
  CHECK(s->port == std::optional<std::int64_t>(8765));
  CHECK(s->tools.editor == std::optional<std::string>("editor"));
  CHECK(s->policy.reasoning == std::optional<std::string>("reasoning"));
  CHECK(s->latency == std::optional<std::string>("zero"));
  CHECK_FALSE(s->listen_backlog.has_value());  // not in the file: the teacher's default stays
}

TEST_CASE("teacher settings errors name the file position and the key path", "[teacher]") {
  auto unknown = LoadTeacherSettingsText("policy:\n  judge_yes: 0.5\n", "t.yaml");
  REQUIRE_FALSE(unknown.ok());
  CHECK(unknown.status().code() == StatusCode::kInvalidArgument);
  CHECK(unknown.status().message().find("t.yaml:2:3: policy.judge_yes: unknown key") != std::string::npos);
  // Each file (YAML text) and a part of its error message.
  const std::pair<const char*, const char*> cases[] = {
      {"port: [1, 2]\n", "t.yaml:1:7: port: expected an integer"},
      {"tools:\n  pager: less\n", "tools.pager: unknown key"},
      {"policy:\n  reasoning: thinking\n", "policy.reasoning: expected one of none | reasoning"},
      {"policy:\n  judge_yes_rate: 2\n", "policy.judge_yes_rate: must be <= 1"},
      {"- 1\n", "(top level): expected a mapping"},
      {"port: [1\n", "malformed YAML"},
  };
  for (const auto& [yaml, error] : cases) {
    INFO(yaml);
    CHECK(LoadTeacherSettingsText(yaml, "t.yaml").status().message().find(error) != std::string::npos);
  }
  auto missing = LoadTeacherSettingsFile("/nonexistent/teacher.yaml");
  CHECK(missing.status().message().find("/nonexistent/teacher.yaml: (file): cannot read") != std::string::npos);
}

TEST_CASE("teacher settings keep only the keys that are present", "[teacher]") {
  auto s = LoadTeacherSettingsText("faults: \"503=0.5\"\npolicy:\n  raw_markup_style: glm\n", "t.yaml");
  REQUIRE(s.ok());
  CHECK(s->faults == std::optional<std::string>("503=0.5"));
  CHECK(s->policy.raw_markup_style == std::optional<std::string>("glm"));
  CHECK_FALSE(s->port.has_value());
  CHECK_FALSE(s->policy.reasoning.has_value());
  CHECK_FALSE(s->tools.shell.has_value());
  auto empty = LoadTeacherSettingsText("", "t.yaml");
  REQUIRE(empty.ok());
  CHECK_FALSE(empty->bind_address.has_value());
}

TEST_CASE("the shipped configs/teacher.yaml matches the teacher's built-in defaults", "[teacher]") {
  const std::string file = seragen::testing::SourcePath("configs/teacher.yaml");
  auto settings = LoadTeacherSettingsFile(file);
  REQUIRE(settings.ok());
  TeacherOptions o;
  REQUIRE(ApplyTeacherSettings(*settings, file, &o).ok());
  TeacherOptions defaults;
  CHECK(o.port == 8765);
  CHECK(o.model_id == defaults.model_id);
  CHECK(o.tools.editor == "editor");
  CHECK(o.knobs.judge_yes_rate == Approx(defaults.knobs.judge_yes_rate));
  CHECK(o.knobs.stream_piece_bytes == defaults.knobs.stream_piece_bytes);
  CHECK(o.listen_backlog == defaults.listen_backlog);  // absent from the file
  CHECK(o.latency.IsZero());
  CHECK(o.faults.Total() == 0);
}

TEST_CASE("teacher settings overlay only the keys present, and bad specs name the file and key", "[teacher]") {
  auto settings = LoadTeacherSettingsText(
      "faults: \"503=0.5\"\nport: 9000\npolicy:\n  reasoning: think\n  raw_markup_style: glm\n", "t.yaml");
  REQUIRE(settings.ok());
  TeacherOptions o;
  o.threads = 3;
  REQUIRE(ApplyTeacherSettings(*settings, "t.yaml", &o).ok());
  CHECK(o.port == 9000);
  CHECK(o.threads == 3);
  CHECK(o.faults.http503 == Approx(0.5));
  CHECK(o.knobs.reasoning == ReasoningMode::kThinkTag);
  CHECK(o.knobs.raw_markup_style == RawMarkupStyle::kGlm);

  auto latency = LoadTeacherSettingsText("latency: \"fixed:x\"\n", "t.yaml");
  REQUIRE(latency.ok());
  Status s = ApplyTeacherSettings(*latency, "t.yaml", &o);
  CHECK(s.code() == StatusCode::kInvalidArgument);
  CHECK(s.message().rfind("t.yaml: latency: ", 0) == 0);
}

}  // namespace seragen::teacher
