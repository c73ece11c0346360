// EndpointOptions: where one OpenAI-compatible server is and how to
// authenticate. The API key is read from an environment variable named in
// the config, registered with log::AddSecret, and kept in a type that never
// prints it.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "seragen/base/result.h"
#include "seragen/http/http_client.h"
#include "seragen/llm/wire_codec.h"

namespace seragen::llm {

// Holds a secret value; has no stream/format support on purpose.
class SecretString {
 public:
  SecretString() = default;
  explicit SecretString(std::string value) : value_(std::move(value)) {}
  const std::string& reveal() const { return value_; }  // for the Authorization header only
  bool empty() const { return value_.empty(); }

 private:
  std::string value_;
};

struct EndpointOptions {
  // Base URL as OpenAI clients take it, e.g. "http://host:8000/v1" or
  // "https://openrouter.ai/api/v1". A URL with no path gets "/v1".
  std::string base_url;
  SecretString api_key;     // empty = no Authorization header
  int max_concurrency = 0;  // in-flight requests to this endpoint; 0 = unlimited
  // Extra HTTP headers sent with every request to this endpoint (values are
  // treated as secrets: never logged).
  std::vector<std::pair<std::string, SecretString>> headers;
  // Request encoding for this endpoint (its server profile); nullopt = the
  // client's default WireOptions.
  std::optional<WireOptions> wire;
};

// A configured header: its value is either a literal or "${VAR}".
struct HeaderSpec {
  std::string name;
  std::string value;
};

// Resolves header specs: names must be HTTP tokens and not ones seragen
// sets itself (Content-Type, Authorization, Accept, Host, Content-Length);
// "${VAR}" values are read from the environment (unset or empty is an error
// naming the variable); values with control characters are refused. Every
// value is registered with log::AddSecret. Errors never contain a value.
Result<std::vector<std::pair<std::string, SecretString>>> ResolveHeaders(const std::vector<HeaderSpec>& specs);

// Adds the Authorization header (when there is a key) and the extra headers
// to `request`, listing every value in request.secret_values.
void AddEndpointHeaders(const EndpointOptions& endpoint, http::Request& request);

// Bodies of GET /models, /props, /version and the like are small (a few KB;
// OpenRouter's full model list about 1 MB): a probe stops reading at this cap.
inline constexpr std::size_t kMaxProbeBodyBytes = std::size_t{8} << 20;

// A GET of `url` for a health, identity or detection probe: the endpoint's
// headers, `timeout` for the whole exchange (connect at most 5 s of it) and
// kMaxProbeBodyBytes.
http::Request ProbeRequest(const EndpointOptions& endpoint, std::string url, std::chrono::milliseconds timeout);

// Normalises and checks a base URL (http/https scheme, host present; trailing
// '/' removed; "/v1" added when there is no path). kInvalidArgument names it.
Result<std::string> NormalizeBaseUrl(std::string_view base_url);

// Builds options from a base URL and the *name* of the environment variable
// holding the key. An empty name means no key. A named variable that is unset
// or empty is an error naming the variable (never its value). The key is
// registered with log::AddSecret.
Result<EndpointOptions> MakeEndpointOptions(std::string_view base_url, std::string_view api_key_env);

// Scheme + host + port of a base URL ("http://h:8000/v1" -> "http://h:8000"),
// for server-root paths such as llama.cpp's /props and /health.
std::string ServerRoot(std::string_view base_url);

}  // namespace seragen::llm
