#include "seragen/llm/endpoint_options.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include "seragen/base/log.h"
#include "seragen/base/strings.h"

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
  std::string host =
      url.substr(host_start, path_start == std::string::npos ? std::string::npos : path_start - host_start);
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

namespace {
bool IsTokenChar(char c) {
  if (std::isalnum(static_cast<unsigned char>(c))) return true;
  return std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}
}  // namespace

Result<std::vector<std::pair<std::string, SecretString>>> ResolveHeaders(const std::vector<HeaderSpec>& specs) {
  std::vector<std::pair<std::string, SecretString>> out;
  for (const HeaderSpec& h : specs) {
    if (h.name.empty() || h.name.size() > 128 || !std::all_of(h.name.begin(), h.name.end(), IsTokenChar)) {
      return InvalidArgumentError("header name '" + h.name.substr(0, 128) + "' is not a valid HTTP header name");
    }
    std::string lower = AsciiLower(h.name);
    for (std::string_view reserved : {"content-type", "authorization", "accept", "host", "content-length",
                                      "transfer-encoding", "connection", "expect"}) {
      if (lower == reserved) {
        return InvalidArgumentError("header '" + h.name + "' is set by seragen itself" +
                                    (lower == "authorization" ? " (use api_key: ${VAR})" : ""));
      }
    }
    std::string value = h.value;
    if (value.size() > 3 && value.rfind("${", 0) == 0 && value.back() == '}') {
      std::string var = value.substr(2, value.size() - 3);
      const char* env = std::getenv(var.c_str());
      if (env == nullptr || *env == '\0') {
        return InvalidArgumentError("header '" + h.name + "': environment variable " + var + " is not set or empty");
      }
      value = env;
    }
    if (value.size() > 8192) return InvalidArgumentError("header '" + h.name + "': value longer than 8192 bytes");
    for (char c : value) {
      if ((static_cast<unsigned char>(c) < 0x20 && c != '\t') || c == 0x7f) {
        return InvalidArgumentError("header '" + h.name + "': value contains a control character");
      }
    }
    if (!value.empty()) log::AddSecret(value);
    out.emplace_back(h.name, SecretString(std::move(value)));
  }
  return out;
}

void AddEndpointHeaders(const EndpointOptions& ep, http::Request& req) {
  if (!ep.api_key.empty()) {
    req.headers.emplace_back("Authorization", "Bearer " + ep.api_key.reveal());
    req.secret_values.push_back(ep.api_key.reveal());
  }
  for (const auto& [name, value] : ep.headers) {
    req.headers.emplace_back(name, value.reveal());
    if (!value.empty()) req.secret_values.push_back(value.reveal());
  }
}

http::Request ProbeRequest(const EndpointOptions& endpoint, std::string url, std::chrono::milliseconds timeout) {
  http::Request req;
  req.url = std::move(url);
  req.timeout = timeout;
  req.connect_timeout = std::min(timeout, std::chrono::milliseconds(5000));
  req.max_body_bytes = kMaxProbeBodyBytes;
  AddEndpointHeaders(endpoint, req);
  return req;
}

std::string ServerRoot(std::string_view base_url) {
  std::size_t scheme_end = base_url.find("://");
  std::size_t host_start = scheme_end == std::string_view::npos ? 0 : scheme_end + 3;
  std::size_t path_start = base_url.find('/', host_start);
  return std::string(base_url.substr(0, path_start));
}

}  // namespace seragen::llm
