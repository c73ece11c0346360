// Target for the config loader (YAML -> typed Config).
#include <string>
#include <vector>

#include "fuzz/fuzz_targets.h"
#include "seragen/base/utf8.h"
#include "seragen/config/loader.h"

namespace seragen::fuzz {

int FuzzConfigLoader(const std::uint8_t* data, std::size_t size) {
  std::vector<config::ConfigIssue> issues;
  std::string text(reinterpret_cast<const char*>(data), size);
  auto c = config::LoadConfigText(text, "/nonexistent/fuzz.yaml", {}, &issues);
  if (c.ok()) {
    SERAGEN_FUZZ_CHECK(IsValidUtf8(config::CanonicalJson(c->config)));
    (void)config::RenderResolvedYaml(*c);
  } else {
    SERAGEN_FUZZ_CHECK(!c.status().message().empty());
  }
  return 0;
}

}  // namespace seragen::fuzz
