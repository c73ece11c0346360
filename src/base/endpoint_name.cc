#include "seragen/base/endpoint_name.h"

namespace seragen {

std::string EndpointName(std::string_view base_url) {
  std::string url(base_url);
  if (auto q = url.find_first_of("?#"); q != std::string::npos) url.resize(q);
  std::size_t scheme = url.find("://");
  std::size_t host = scheme == std::string::npos ? 0 : scheme + 3;
  std::size_t path = url.find('/', host);
  std::size_t at = url.rfind('@', path == std::string::npos ? url.size() : path);
  if (at != std::string::npos && at >= host) url.erase(host, at + 1 - host);
  return url;
}

}  // namespace seragen
