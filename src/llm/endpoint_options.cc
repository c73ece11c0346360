#include "seragen/llm/endpoint_options.h"

#include <cstdlib>

#include "seragen/base/log.h"

namespace seragen::llm {

Result<std::string> NormalizeBaseUrl(std::string_view base_url) {
  std::string url(base_url);
  while (!url.empty() && (url.back() == ' ' || url.back() == '\n')) url.pop_back();
  std::size_t scheme_end = url.find("://");
  if (scheme_end == std::string::npos) {
    return InvalidArgumentError("base URL '" + url + "' has no scheme (expected http:// or https://)");
  }
  std::string scheme = url.substr(0, scheme_end);
  if (scheme != "http" && scheme != "https") {
    return InvalidArgumentError("base URL '" + url + "' has scheme '" + scheme + "' (expected http or https)");
  }
  std::size_t host_start = scheme_end + 3;
  std::size_t path_start = url.find('/', host_start);
  std::string host = url.substr(host_start, path_start == std::string::npos ? std::string::npos : path_start - host_start);
  if (host.empty()) return InvalidArgumentError("base URL '" + url + "' has no host");
  while (url.size() > host_start + host.size() && url.back() == '/') url.pop_back();
  if (url.size() == host_start + host.size()) url += "/v1";
  return url;
}

Result<EndpointOptions> MakeEndpointOptions(std::string_view base_url, std::string_view api_key_env) {
  EndpointOptions options;
  SG_ASSIGN_OR_RETURN(options.base_url, NormalizeBaseUrl(base_url));
  if (!api_key_env.empty()) {
    std::string name(api_key_env);
    const char* value = std::getenv(name.c_str());
    if (value == nullptr || *value == '\0') {
      return InvalidArgumentError("API key environment variable " + name + " is not set or empty (endpoint " +
                                  options.base_url + ")");
    }
    log::AddSecret(value);
    options.api_key = SecretString(value);
  }
  return options;
}

std::string ServerRoot(std::string_view base_url) {
  std::size_t scheme_end = base_url.find("://");
  std::size_t host_start = scheme_end == std::string_view::npos ? 0 : scheme_end + 3;
  std::size_t path_start = base_url.find('/', host_start);
  return std::string(base_url.substr(0, path_start));
}

}  // namespace seragen::llm
