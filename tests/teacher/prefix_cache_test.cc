#include "seragen/teacher/prefix_cache.h"

#include <catch2/catch.hpp>

#include <string>

namespace seragen::teacher {
namespace {

ChatRequest Conversation(int turns) {
  ChatRequest r;
  r.tools.push_back({"bash", {"command"}, {}});
  r.messages.push_back({"system", std::string(600, 's'), {}, ""});
  r.messages.push_back({"user", std::string(900, 'u'), {}, ""});
  for (int t = 0; t < turns; ++t) {
    r.messages.push_back({"assistant", "step " + std::to_string(t), {{"c" + std::to_string(t), "bash", "{}"}}, ""});
    r.messages.push_back({"tool", std::string(300, 'o'), {}, "c" + std::to_string(t)});
  }
  return r;
}

int Tokens(const std::string& rendered) { return static_cast<int>(rendered.size() / 4) + 1; }

}  // namespace

TEST_CASE("a growing conversation is served from the cache up to its last full block", "[teacher][cache]") {
  PrefixCache cache(1000);
  std::string first = RenderPromptForCache(Conversation(0));
  CHECK(cache.LookupAndInsert(first, Tokens(first)) == 0);  // cold
  std::string second = RenderPromptForCache(Conversation(1));
  REQUIRE(second.compare(0, first.size(), first) == 0);  // append-only rendering
  int cached = cache.LookupAndInsert(second, Tokens(second));
  CHECK(cached == static_cast<int>(first.size() / 64) * 16);
  CHECK(cached % 16 == 0);
  CHECK(cached < Tokens(second));
  // The same prompt again: every full block, but never the whole prompt.
  int again = cache.LookupAndInsert(second, Tokens(second));
  CHECK(again == static_cast<int>(second.size() / 64) * 16);
  CHECK(again < Tokens(second));
}

TEST_CASE("a change early in the prompt breaks the prefix", "[teacher][cache]") {
  PrefixCache cache(1000);
  ChatRequest a = Conversation(2);
  std::string ra = RenderPromptForCache(a);
  cache.LookupAndInsert(ra, Tokens(ra));
  ChatRequest b = a;
  b.messages[0].content[0] = 'X';  // a different system prompt, within the first block
  std::string rb = RenderPromptForCache(b);
  CHECK(cache.LookupAndInsert(rb, Tokens(rb)) == 0);
  ChatRequest c = a;
  c.messages[3].content = std::string(300, 'p');  // a rewritten old observation
  std::string rc = RenderPromptForCache(c);
  int cached = cache.LookupAndInsert(rc, Tokens(rc));
  CHECK(cached > 0);
  CHECK(cached < static_cast<int>(ra.size() / 64) * 16);
  ChatRequest d = a;
  d.tools.push_back({"submit", {}, {}});  // tools come first: a new tool changes everything
  std::string rd = RenderPromptForCache(d);
  CHECK(cache.LookupAndInsert(rd, Tokens(rd)) == 0);
}

TEST_CASE("the cache is bounded and least recently used blocks go first", "[teacher][cache]") {
  PrefixCache cache(10);
  std::string a(64 * 8, 'a'), b(64 * 8, 'b');
  cache.LookupAndInsert(a, Tokens(a) + 10);
  CHECK(cache.size() == 8);
  cache.LookupAndInsert(b, Tokens(b) + 10);
  CHECK(cache.size() == 10);
  CHECK(cache.LookupAndInsert(b, Tokens(b) + 10) == 8 * 16);  // recent: all there
  CHECK(cache.LookupAndInsert(a, Tokens(a) + 10) == 0);       // its first blocks were dropped
  PrefixCache off(0);
  off.LookupAndInsert(a, Tokens(a));
  CHECK(off.LookupAndInsert(a, Tokens(a)) == 0);
  CHECK(off.size() == 0);
}

}  // namespace seragen::teacher
