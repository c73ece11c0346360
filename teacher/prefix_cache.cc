#include "teacher/prefix_cache.h"

#include <algorithm>

#include "seragen/base/hash.h"

namespace seragen::teacher {
namespace {

constexpr std::size_t kBytesPerToken = 4;  // as EstimateTokens

void Field(std::string& out, std::string_view tag, std::string_view value) {
  out += '<';
  out += tag;
  out += ':';
  out += std::to_string(value.size());
  out += '>';
  out += value;
}

}  // namespace

PrefixCache::PrefixCache(std::size_t max_blocks, int block_tokens)
    : max_blocks_(max_blocks),
      block_bytes_(static_cast<std::size_t>(std::max(block_tokens, 1)) * kBytesPerToken),
      block_tokens_(std::max(block_tokens, 1)) {}

void PrefixCache::Touch(std::list<std::uint64_t>::iterator it) { lru_.splice(lru_.begin(), lru_, it); }

int PrefixCache::LookupAndInsert(std::string_view rendered, int prompt_tokens) {
  if (max_blocks_ == 0) return 0;
  std::lock_guard<std::mutex> lock(mu_);
  const std::size_t full = rendered.size() / block_bytes_;
  std::uint64_t key = 0;
  std::size_t hits = 0;
  bool hitting = true;
  for (std::size_t b = 0; b < full; ++b) {
    std::string chained = std::to_string(key) + ':';
    chained.append(rendered.substr(b * block_bytes_, block_bytes_));
    key = StableHash64(chained);
    auto found = blocks_.find(key);
    if (hitting && found != blocks_.end()) {
      ++hits;
      Touch(found->second);
      continue;
    }
    hitting = false;
    if (found != blocks_.end()) {
      Touch(found->second);
      continue;
    }
    lru_.push_front(key);
    blocks_[key] = lru_.begin();
    if (blocks_.size() > max_blocks_) {
      blocks_.erase(lru_.back());
      lru_.pop_back();
    }
  }
  // At least one token is computed; whole blocks only.
  long long cached = static_cast<long long>(hits) * block_tokens_;
  const long long limit = std::max(0, prompt_tokens - 1);
  if (cached > limit) cached = limit / block_tokens_ * block_tokens_;
  return static_cast<int>(cached);
}

std::size_t PrefixCache::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return blocks_.size();
}

std::string RenderPromptForCache(const ChatRequest& request) {
  std::string out;
  for (const ToolSpecIn& t : request.tools) {
    // The whole schema, descriptions included: a chat template renders it
    // all, and it is counted in prompt_tokens.
    Field(out, "tool", t.schema);
  }
  for (const MessageIn& m : request.messages) {
    Field(out, "role", m.role);
    Field(out, "content", m.content);
    for (const ToolCallIn& c : m.tool_calls) {
      Field(out, "call", c.name);
      Field(out, "args", c.arguments);
      Field(out, "id", c.id);
    }
    Field(out, "call_id", m.tool_call_id);
  }
  return out;
}

}  // namespace seragen::teacher
