// Loading of tests/llm/fixtures/ files (test-only).
#pragma once

#include <catch2/catch.hpp>

#include <string>
#include <utility>
#include <vector>

#include "http/replay_server.h"
#include "seragen/base/file_util.h"
#include "seragen/http/http_client.h"
#include "testing/source_paths.h"

namespace seragen::testing {

inline std::string FixturePath(const std::string& relative) { return SourcePath("tests/llm/fixtures/") + relative; }

inline std::string Fixture(const std::string& relative) {
  auto text = ReadFile(FixturePath(relative));
  REQUIRE(text.ok());
  return *text;
}

struct HttpFixture {
  int status = 0;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
};

// errors/<name>.http: status line, header lines, blank line, body.
inline HttpFixture LoadHttpFixture(const std::string& name) {
  std::string text = Fixture("errors/" + name + ".http");
  HttpFixture f;
  std::size_t pos = text.find('\n');
  f.status = std::stoi(text.substr(0, pos));
  ++pos;
  while (pos < text.size() && text[pos] != '\n') {
    std::size_t end = text.find('\n', pos);
    std::string line = text.substr(pos, end - pos);
    std::size_t colon = line.find(':');
    std::string name = line.substr(0, colon);
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    f.headers.emplace_back(name, line.substr(colon + 2));
    pos = end + 1;
  }
  f.body = text.substr(pos + 1);
  return f;
}

inline http::Response AsResponse(const HttpFixture& f) {
  http::Response r;
  r.status = f.status;
  r.headers = f.headers;
  r.body = f.body;
  return r;
}

inline ScriptedReply AsReply(const HttpFixture& f) {
  ScriptedReply r = ScriptedReply::Json(f.status, f.body);
  for (const auto& h : f.headers) r.headers.push_back(h);
  return r;
}

}  // namespace seragen::testing
