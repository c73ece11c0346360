#include "llm/error_classifier.h"

#include <catch2/catch.hpp>

#include "llm/error_table.h"
#include "llm/llm_fixtures.h"

namespace seragen::llm {

using testing::LoadHttpFixture;

TEST_CASE("every error fixture gets its class", "[llm][classify][fixture]") {
  for (const auto& e : kErrorTable) {
    auto f = LoadHttpFixture(e.fixture);
    Classification c = ClassifyHttpError(f.status, f.body);
    INFO(e.fixture << " -> " << FailureClassName(c.failure_class) << ": " << c.message);
    CHECK(c.failure_class == e.failure_class);
    CHECK(c.message.find("HTTP " + std::to_string(f.status)) == 0);
    CHECK(c.message.find('\n') == std::string::npos);
  }
}

TEST_CASE("error envelopes: nested, flat, anthropic, detail, plain text", "[llm][classify]") {
  auto nested = ParseErrorBody(LoadHttpFixture("f5b_vllm_nested_overflow").body);
  CHECK(nested.type == "BadRequestError");
  CHECK(nested.code == "400");  // integer code as text
  auto flat = ParseErrorBody(LoadHttpFixture("f5a_vllm_flat_overflow").body);
  CHECK(flat.message.find("This model's maximum context length is 2048") == 0);
  auto anthropic = ParseErrorBody(LoadHttpFixture("f6e_anthropic_rate_limit").body);
  CHECK(anthropic.type == "rate_limit_error");
  auto detail = ParseErrorBody(LoadHttpFixture("f5c_decoder_prompt_500").body);
  CHECK(detail.message.find("decoder prompt") != std::string::npos);
  auto html = ParseErrorBody("<html>\n<h1>502</h1>\n</html>");
  CHECK(html.message.find("502") != std::string::npos);
  CHECK(html.message.find('\n') == std::string::npos);
}

TEST_CASE("output budget: the acceptable max_tokens is read from the message", "[llm][classify]") {
  auto f = LoadHttpFixture("f5c_vllm_max_tokens_too_large");
  auto info = ParseErrorBody(f.body);
  CHECK(SuggestedMaxTokens(info.message, 256) == std::optional<long long>(65536 - 52189 - 256));
  auto variant = ParseErrorBody(LoadHttpFixture("f5c_vllm_output_tokens_variant").body);
  CHECK(SuggestedMaxTokens(variant.message, 0) == std::optional<long long>(16384 - 8193));
  CHECK_FALSE(SuggestedMaxTokens("no numbers here", 0).has_value());
  CHECK_FALSE(SuggestedMaxTokens("maximum context length is 100 tokens and 200 input tokens", 0).has_value());
}

TEST_CASE("in-band errors (200 bodies, stream events)", "[llm][classify]") {
  CHECK(ClassifyInBandError({"Provider disconnected unexpectedly", "", "server_error"}).failure_class ==
        FailureClass::kTransientServer);
  CHECK(ClassifyInBandError({"This model's maximum context length is 10 tokens", "", ""}).failure_class ==
        FailureClass::kContextOverflow);
  CHECK(ClassifyInBandError({"Rate limit exceeded", "", "429"}).failure_class == FailureClass::kRateLimited);
}

TEST_CASE("transport failures", "[llm][classify]") {
  using http::TransportError;
  CHECK(ClassifyTransport(TransportError::kTimeout, "x").failure_class == FailureClass::kTransientNetwork);
  CHECK(ClassifyTransport(TransportError::kConnectionLost, "").failure_class == FailureClass::kTransientNetwork);
  CHECK(ClassifyTransport(TransportError::kConnectFailed, "").failure_class == FailureClass::kTransientNetwork);
  CHECK(ClassifyTransport(TransportError::kTls, "").failure_class == FailureClass::kTransientNetwork);
  CHECK(ClassifyTransport(TransportError::kCancelled, "").failure_class == FailureClass::kCancelled);
  CHECK(ClassifyTransport(TransportError::kBadUrl, "").failure_class == FailureClass::kConfig);
}

}  // namespace seragen::llm
