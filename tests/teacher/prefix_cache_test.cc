#include "teacher/prefix_cache.h"

#include <catch2/catch.hpp>

#include <string>

namespace seragen::teacher {
namespace {

ChatRequest Conversation(int turns) {
  ChatRequest r;
  r.tools.push_back({"bash", {"command"}, {}, R"({"name":"bash","parameters":{}})"});
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
  b.messages[0].content[0] = 'X';  // a different system prompt: only the blocks before it are served
  std::string rb = RenderPromptForCache(b);
  CHECK(cache.LookupAndInsert(rb, Tokens(rb)) == static_cast<int>(rb.find('X') / 64) * 16);
  ChatRequest c = a;
  c.messages[3].content = std::string(300, 'p');  // a rewritten old observation
  std::string rc = RenderPromptForCache(c);
  int cached = cache.LookupAndInsert(rc, Tokens(rc));
  CHECK(cached > 0);
  CHECK(cached < static_cast<int>(ra.size() / 64) * 16);
  ChatRequest d = a;
  d.tools.push_back({"submit", {}, {}, R"({"name":"submit"})"});  // tools come first: a new tool changes everything
  std::string rd = RenderPromptForCache(d);
  CHECK(cache.LookupAndInsert(rd, Tokens(rd)) == 0);
}

TEST_CASE("the rendering covers every byte counted as prompt tokens, tool descriptions included", "[teacher][cache]") {
  const std::string description(2000, 'd');
  const std::string body = R"({"model":"m","messages":[{"role":"system","content":"be brief"},)"
                           R"({"role":"user","content":"fix it"}],"tools":[{"type":"function","function":)"
                           R"({"name":"bash","description":")" +
                           description +
                           R"(","parameters":{"type":"object","properties":{"command":)"
                           R"({"type":"string"}}}}}]})";
  auto parsed = ParseChatRequest(body);
  REQUIRE(parsed.ok());
  const std::string rendered = RenderPromptForCache(*parsed);
  CHECK(rendered.size() >= parsed->text_bytes);
  CHECK(rendered.find(description) != std::string::npos);
  // Two requests that differ only in a tool's description share no prefix.
  auto other = ParseChatRequest(std::string(body).replace(body.find("ddd"), 1, "e"));
  REQUIRE(other.ok());
  PrefixCache cache(1000);
  cache.LookupAndInsert(rendered, EstimateTokens(parsed->text_bytes));
  CHECK(cache.LookupAndInsert(RenderPromptForCache(*other), EstimateTokens(other->text_bytes)) == 0);
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
