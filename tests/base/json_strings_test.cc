#include "seragen/base/json_strings.h"

#include <catch2/catch.hpp>

namespace seragen {

TEST_CASE("json strings: every key and value token, in order, quotes included", "[json_strings]") {
  const std::string json = R"({"a": "x\"y", "b": [1, "z"], "c\\": {"d": ""}})";
  std::vector<std::string> tokens;
  for (const JsonStringToken& t : JsonStringTokens(json)) tokens.push_back(json.substr(t.begin, t.end - t.begin));
  CHECK(tokens == std::vector<std::string>{R"("a")", R"("x\"y")", R"("b")", R"("z")", R"("c\\")", R"("d")", R"("")"});
  // Not JSON: an unterminated string runs to the end; nothing throws.
  CHECK(JsonStringTokens("\"abc\\").size() == 1);
  CHECK(JsonStringTokens("").empty());
}

TEST_CASE("json strings: decoding gives the text the token stands for, totally", "[json_strings]") {
  CHECK(DecodeJsonString(R"("line one\nline two\t\"q\" \\ \/")") == "line one\nline two\t\"q\" \\ /");
  CHECK(DecodeJsonString(R"("\u00e9\ud83d\ude00")") == "\xC3\xA9\xF0\x9F\x98\x80");
  CHECK(DecodeJsonString(R"("\ud800x")") == "\xEF\xBF\xBDx");  // lone surrogate
  CHECK(DecodeJsonString(R"("\q\u12")") ==
        "\xEF\xBF\xBD\xEF\xBF\xBD"
        "12");
  CHECK(DecodeJsonString("\"\xff raw\"") == "\xff raw");  // other bytes as they are
  CHECK(DecodeJsonString(R"("c\\")") == "c\\");           // an escaped backslash before the closing quote
  // A key written into a JSON string keeps its escaped newlines as two characters.
  CHECK(DecodeJsonString(R"("-----BEGIN\\nAAAA")") == "-----BEGIN\\nAAAA");
}

TEST_CASE("json strings: encoding round-trips and repairs invalid UTF-8", "[json_strings]") {
  for (const std::string text : {"plain", "two\nlines \"quoted\" \\ tab\t", "\xC3\xA9"}) {
    CHECK(DecodeJsonString(EncodeJsonString(text)) == text);
  }
  CHECK(EncodeJsonString("\xff") == "\"\xEF\xBF\xBD\"");
}

}  // namespace seragen
