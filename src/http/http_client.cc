#include "seragen/http/http_client.h"

#include <algorithm>
#include <cctype>

namespace seragen::http {

std::string_view TransportErrorName(TransportError e) {
  switch (e) {
    case TransportError::kNone: return "none";
    case TransportError::kBadUrl: return "bad_url";
    case TransportError::kResolveFailed: return "resolve_failed";
    case TransportError::kConnectFailed: return "connect_failed";
    case TransportError::kTls: return "tls";
    case TransportError::kSendFailed: return "send_failed";
    case TransportError::kConnectionLost: return "connection_lost";
    case TransportError::kTimeout: return "timeout";
    case TransportError::kAborted: return "aborted";
    case TransportError::kCancelled: return "cancelled";
    case TransportError::kBodyTooLarge: return "body_too_large";
    case TransportError::kHeadersTooLarge: return "headers_too_large";
    case TransportError::kBadResponse: return "bad_response";
    case TransportError::kOther: return "other";
  }
  return "unknown";
}

namespace {
bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}
}  // namespace

std::optional<std::string> Response::FindHeader(std::string_view name) const {
  for (auto it = headers.rbegin(); it != headers.rend(); ++it) {
    if (EqualsIgnoreCase(it->first, name)) return it->second;
  }
  return std::nullopt;
}

std::string DescribeForLog(const Request& request) {
  std::string out = request.method + " " + request.url;
  out += " (" + std::to_string(request.body.size()) + " bytes";
  for (const auto& [name, value] : request.headers) {
    std::string shown = value;
    for (const auto& secret : request.secret_values) {
      if (secret.empty()) continue;
      for (std::size_t pos = shown.find(secret); pos != std::string::npos; pos = shown.find(secret, pos + 3)) {
        shown.replace(pos, secret.size(), "***");
      }
    }
    out += ", " + name + ": " + shown;
  }
  out += ")";
  return out;
}

}  // namespace seragen::http
