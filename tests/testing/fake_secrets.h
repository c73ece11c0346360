// Fake but well-formed credentials, one or more per rule of
// configs/secret_rules.yaml, each inside text where the rule should find it.
// Assembled at run time from a seeded generator, so the sources hold no
// string that looks like a credential (and push protection has nothing to
// object to). Used by the secrets tests, the fuzz target and bench_secrets.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace seragen::testing {

struct FakeSecret {
  std::string rule;    // the rule expected to find it
  std::string secret;  // the bytes a hit should cover
  std::string text;    // the secret in context (a config line, a log line, ...)
};

// The same seed gives the same secrets.
std::vector<FakeSecret> FakeSecrets(std::uint64_t seed = 1);

// `n` random characters from `alphabet`, deterministic for `seed`.
std::string RandomChars(std::uint64_t seed, std::size_t n, const std::string& alphabet);

}  // namespace seragen::testing
