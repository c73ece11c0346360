#include "seragen/llm/request_seed.h"

#include <catch2/catch.hpp>

#include <set>
#include <string>

#include "seragen/llm/wire_codec.h"

namespace seragen::llm {

TEST_CASE("seeds stay within 0..2^31-1 for a million task ids, deterministic and spread", "[llm][seed]") {
  std::uint64_t max_seen = 0;
  std::uint64_t above_half = 0;
  std::set<std::uint64_t> first_thousand;
  for (int i = 0; i < 1000000; ++i) {
    std::string task = "t" + std::to_string(i);
    std::uint64_t s = PortableSeed(0xfeedULL + static_cast<std::uint64_t>(i % 7), task, "rollout1");
    REQUIRE(s <= kMaxPortableSeed);
    max_seen = std::max(max_seen, s);
    above_half += s > kMaxPortableSeed / 2;
    if (i < 1000) first_thousand.insert(s);
  }
  // The whole range is used, not a corner of it.
  CHECK(max_seen > kMaxPortableSeed - (kMaxPortableSeed >> 10));
  CHECK(above_half > 490000);
  CHECK(above_half < 510000);
  CHECK(first_thousand.size() == 1000);
  CHECK(PortableSeed(1, "abc", "issue") == PortableSeed(1, "abc", "issue"));
  CHECK(PortableSeed(1, "abc", "issue") != PortableSeed(1, "abc", "judge"));
  CHECK(PortableSeed(1, "abc", "issue") != PortableSeed(2, "abc", "issue"));
}

TEST_CASE("the encoder refuses a seed outside the portable range", "[llm][seed][codec]") {
  ChatRequest req;
  req.model = "m";
  req.messages.push_back({Role::kUser, "hi"});
  req.seed = kMaxPortableSeed;
  CHECK(EncodeChatRequest(req, {}).ok());
  // A full 64-bit value (what the old per-task seed was) is rejected by vLLM
  // above 2^63-1 and truncated by llama.cpp: never sent.
  req.seed = 13390331474070314677ULL;
  auto bad = EncodeChatRequest(req, {});
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.status().message().find("seed") != std::string::npos);
}

}  // namespace seragen::llm
