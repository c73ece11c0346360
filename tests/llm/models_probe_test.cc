#include "seragen/llm/models_probe.h"

#include <catch2/catch.hpp>

#include "llm/llm_fixtures.h"

namespace seragen::llm {

using testing::Fixture;

TEST_CASE("/v1/models shapes: ids, server kind, context window", "[llm][models][fixture]") {
  auto openai = ParseModelsResponse(Fixture("models/f9a_openai.json"));
  REQUIRE(openai.ok());
  CHECK(openai->server_kind == "openai");
  CHECK(openai->models[0].id == "gpt-4.1-2025-04-14");
  CHECK_FALSE(openai->models[0].context_window.has_value());

  auto vllm = ParseModelsResponse(Fixture("models/f9b_vllm.json"));
  REQUIRE(vllm.ok());
  CHECK(vllm->server_kind == "vllm");
  CHECK(vllm->models[0].context_window == std::optional<std::int64_t>(131072));
  CHECK(vllm->models[0].context_source == "max_model_len");
  REQUIRE(vllm->models.size() == 2);
  CHECK(vllm->models[1].parent == "zai-org/GLM-4.5-Air");  // LoRA adapter

  auto sglang = ParseModelsResponse(Fixture("models/f9c_sglang.json"));
  REQUIRE(sglang.ok());
  CHECK(sglang->server_kind == "sglang");
  CHECK(sglang->models[0].context_window == std::optional<std::int64_t>(65536));

  auto llama = ParseModelsResponse(Fixture("models/f9d_llamacpp.json"));
  REQUIRE(llama.ok());
  CHECK(llama->server_kind == "llamacpp");
  CHECK(llama->models[0].context_source == "meta.n_ctx_train");
  CHECK(ParseLlamaCppPropsContext(Fixture("models/llamacpp_props.json")).value() == 8192);

  auto openrouter = ParseModelsResponse(Fixture("models/f9e_openrouter.json"));
  REQUIRE(openrouter.ok());
  CHECK(openrouter->server_kind == "openrouter");
  CHECK(openrouter->models[0].context_window == std::optional<std::int64_t>(131072));  // the smaller one
  CHECK(openrouter->models[0].context_source == "top_provider.context_length");
}

TEST_CASE("bad /v1/models bodies are clear errors", "[llm][models]") {
  CHECK_FALSE(ParseModelsResponse(Fixture("models/empty_list.json")).ok());
  auto r = ParseModelsResponse("{\"object\":\"list\"}");
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().message().find("data") != std::string::npos);
  CHECK_FALSE(ParseModelsResponse("<html>").ok());
  CHECK_FALSE(ParseLlamaCppPropsContext("{}").ok());
}

}  // namespace seragen::llm

namespace seragen::llm {

// Issue 36: with llm.model empty, the first listed id is sent in every
// request; an endpoint listing a 1 MB id (or one with terminal escapes) must
// not have it copied anywhere.
TEST_CASE("/v1/models: ids over the bound or with control characters are left out", "[llm][models]") {
  const std::string huge(1 << 20, 'm');
  auto report = ParseModelsResponse(R"({"data": [{"id": ")" + huge + R"("}, {"id": "bad\u001b]0;x\u0007"},)" +
                                    R"( {"id": "served/model", "owned_by": ")" + std::string(4096, 'o') + R"("}]})");
  REQUIRE(report.ok());
  REQUIRE(report->models.size() == 1);
  CHECK(report->models[0].id == "served/model");
  CHECK(report->models[0].owned_by.size() <= kMaxServedModelIdBytes);
  CHECK(report->unusable_ids == 2);
  auto none = ParseModelsResponse(R"({"data": [{"id": ")" + huge + R"("}]})");
  REQUIRE_FALSE(none.ok());
  CHECK(none.status().message().find("no usable model id") != std::string::npos);
}

}  // namespace seragen::llm
