// PrefixCache: the scripted teacher's imitation of vLLM's automatic prefix
// caching, so runs can measure how much of each prompt a real server would
// serve from its KV cache.
//
// The rendered prompt is cut into tokens the way the teacher estimates them
// (four bytes each) and grouped into blocks of `block_tokens`; a block's key
// hashes its bytes together with the key of the block before it, so a block
// is found only behind the very same prefix. Only full blocks are cached, and
// at least one prompt token is always computed, as in vLLM. Least recently
// used blocks are dropped beyond `max_blocks`. Thread-safe.
#pragma once

#include <cstdint>
#include <list>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

#include "teacher/chat_request.h"

namespace seragen::teacher {

class PrefixCache {
 public:
  PrefixCache(std::size_t max_blocks, int block_tokens = 16);

  // Tokens of `rendered` (a prompt of `prompt_tokens` tokens) served from the
  // cache: a multiple of block_tokens, below prompt_tokens. Then caches every
  // full block of `rendered`. max_blocks 0: always 0, nothing cached.
  int LookupAndInsert(std::string_view rendered, int prompt_tokens);

  std::size_t size() const;

 private:
  void Touch(std::list<std::uint64_t>::iterator it);

  std::size_t max_blocks_;
  std::size_t block_bytes_;
  int block_tokens_;
  mutable std::mutex mu_;
  std::list<std::uint64_t> lru_;  // most recent first
  std::unordered_map<std::uint64_t, std::list<std::uint64_t>::iterator> blocks_;
};

// The prompt as a chat template would lay it out, for the cache: the tools in
// order, then every message's role, content, tool calls and tool call id,
// each field delimited so that no two different requests render the same.
std::string RenderPromptForCache(const ChatRequest& request);

}  // namespace seragen::teacher
