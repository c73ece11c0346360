#include "seragen/sandbox/reaper_spec.h"

#include <cstring>

namespace seragen::sandbox {
namespace {

// Little-endian fixed-width integers, strings as u64 length + bytes.
void PutU64(std::string* out, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}
void PutStr(std::string* out, const std::string& s) {
  PutU64(out, s.size());
  out->append(s);
}
void PutStrs(std::string* out, const std::vector<std::string>& v) {
  PutU64(out, v.size());
  for (const auto& s : v) PutStr(out, s);
}

class Reader {
 public:
  explicit Reader(std::string_view b) : b_(b) {}
  bool U64(std::uint64_t* v) {
    if (b_.size() - pos_ < 8) return false;
    *v = 0;
    for (int i = 0; i < 8; ++i) *v |= static_cast<std::uint64_t>(static_cast<unsigned char>(b_[pos_ + i])) << (8 * i);
    pos_ += 8;
    return true;
  }
  bool I64(std::int64_t* v) {
    std::uint64_t u;
    if (!U64(&u)) return false;
    std::memcpy(v, &u, sizeof u);
    return true;
  }
  bool Int(int* v) {
    std::int64_t w;
    if (!I64(&w) || w < INT32_MIN || w > INT32_MAX) return false;
    *v = static_cast<int>(w);
    return true;
  }
  bool Str(std::string* s) {
    std::uint64_t n;
    if (!U64(&n) || n > b_.size() - pos_) return false;
    s->assign(b_.substr(pos_, n));
    pos_ += n;
    return true;
  }
  // A count of items each at least `min_item` bytes long, bounded by what is left.
  bool Count(std::uint64_t* n, std::size_t min_item) { return U64(n) && *n <= (b_.size() - pos_) / min_item; }
  bool Strs(std::vector<std::string>* v) {
    std::uint64_t n;
    if (!Count(&n, 8)) return false;
    v->resize(n);
    for (auto& s : *v) {
      if (!Str(&s)) return false;
    }
    return true;
  }
  bool AtEnd() const { return pos_ == b_.size(); }

 private:
  std::string_view b_;
  std::size_t pos_ = 0;
};

bool DecodeLimits(Reader* r, std::optional<ResourceLimits>* limits) {
  std::uint64_t has;
  if (!r->U64(&has) || has > 1) return false;
  if (has == 0) return true;
  ResourceLimits l;
  if (!r->Int(&l.cpu_seconds) || !r->I64(&l.memory_mb) || !r->Int(&l.max_processes) || !r->I64(&l.max_file_mb)) {
    return false;
  }
  *limits = l;
  return true;
}

bool DecodeIds(Reader* r, ReaperSpec* spec) {
  std::uint64_t has, uid, gid, n;
  if (!r->U64(&has) || has > 1) return false;
  if (has == 1) {
    if (!r->U64(&uid) || !r->U64(&gid) || uid > UINT32_MAX || gid > UINT32_MAX) return false;
    spec->credentials = std::make_pair(static_cast<uid_t>(uid), static_cast<gid_t>(gid));
  }
  if (!r->Count(&n, 8)) return false;
  spec->groups.resize(n);
  for (auto& g : spec->groups) {
    std::uint64_t v;
    if (!r->U64(&v) || v > UINT32_MAX) return false;
    g = static_cast<gid_t>(v);
  }
  return true;
}

}  // namespace

std::string EncodeReaperSpec(const ReaperSpec& spec) {
  std::string out;
  PutStr(&out, spec.executable);
  PutStrs(&out, spec.argv);
  PutStrs(&out, spec.env);
  PutStr(&out, spec.cwd);
  PutU64(&out, spec.limits ? 1 : 0);
  if (spec.limits) {
    PutU64(&out, static_cast<std::uint64_t>(static_cast<std::int64_t>(spec.limits->cpu_seconds)));
    PutU64(&out, static_cast<std::uint64_t>(spec.limits->memory_mb));
    PutU64(&out, static_cast<std::uint64_t>(static_cast<std::int64_t>(spec.limits->max_processes)));
    PutU64(&out, static_cast<std::uint64_t>(spec.limits->max_file_mb));
  }
  PutU64(&out, spec.credentials ? 1 : 0);
  if (spec.credentials) {
    PutU64(&out, spec.credentials->first);
    PutU64(&out, spec.credentials->second);
  }
  PutU64(&out, spec.groups.size());
  for (gid_t g : spec.groups) PutU64(&out, g);
  PutStr(&out, spec.cgroup_procs);
  return out;
}

std::optional<ReaperSpec> DecodeReaperSpec(std::string_view bytes) {
  if (bytes.size() > kMaxReaperSpecBytes) return std::nullopt;
  Reader r(bytes);
  ReaperSpec spec;
  if (!r.Str(&spec.executable) || !r.Strs(&spec.argv) || !r.Strs(&spec.env) || !r.Str(&spec.cwd) ||
      !DecodeLimits(&r, &spec.limits) || !DecodeIds(&r, &spec) || !r.Str(&spec.cgroup_procs) || !r.AtEnd()) {
    return std::nullopt;
  }
  if (spec.executable.empty() || spec.argv.empty()) return std::nullopt;
  return spec;
}

}  // namespace seragen::sandbox
