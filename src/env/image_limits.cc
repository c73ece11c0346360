#include "env/image_limits.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <string_view>

#include "seragen/base/result.h"
#include "seragen/base/unique_fd.h"

namespace seragen::env::internal {
namespace {

namespace fs = std::filesystem;

constexpr std::size_t kBlock = 512;
constexpr std::uint64_t kMaxPaxBytes = 1 << 20;

std::string MiB(std::uint64_t bytes) { return std::to_string(bytes >> 20) + " MiB"; }

// Bytes of one layer blob, inflated when it is gzip.
class LayerStream {
 public:
  static Result<std::unique_ptr<LayerStream>> Open(const std::string& path) {
    UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW));
    if (!fd.valid()) return IoError("cannot open layer " + path + ": " + std::strerror(errno));
    auto s = std::unique_ptr<LayerStream>(new LayerStream(std::move(fd), path));
    SG_RETURN_IF_ERROR(s->Fill());
    const auto* in = s->in_.data() + s->in_pos_;
    const std::size_t avail = s->in_len_ - s->in_pos_;
    if (avail >= 4 && in[0] == 0x28 && in[1] == 0xb5 && in[2] == 0x2f && in[3] == 0xfd) {
      return InvalidArgumentError("layer " + path + " is zstd-compressed; only gzip and uncompressed layers are read");
    }
    s->gzip_ = avail >= 2 && in[0] == 0x1f && in[1] == 0x8b;
    if (s->gzip_ && inflateInit2(&s->z_, 15 + 32) != Z_OK) return IoError("zlib cannot start on " + path);
    return s;
  }
  ~LayerStream() {
    if (gzip_) inflateEnd(&z_);
  }

  // Reads exactly n bytes; false at a clean or truncated end of stream.
  Result<bool> Read(unsigned char* out, std::size_t n) {
    std::size_t got = 0;
    while (got < n) {
      SG_ASSIGN_OR_RETURN(std::size_t k, Some(out + got, n - got));
      if (k == 0) return false;
      got += k;
    }
    return true;
  }
  Result<bool> Skip(std::uint64_t n) {
    std::array<unsigned char, 64 * 1024> scratch;
    while (n > 0) {
      const std::size_t step = n < scratch.size() ? static_cast<std::size_t>(n) : scratch.size();
      SG_ASSIGN_OR_RETURN(bool ok, Read(scratch.data(), step));
      if (!ok) return false;
      n -= step;
    }
    return true;
  }

 private:
  LayerStream(UniqueFd fd, std::string path) : fd_(std::move(fd)), path_(std::move(path)) {}

  Status Fill() {
    if (in_pos_ < in_len_ || eof_) return Status::Ok();
    ssize_t n;
    do n = ::read(fd_.get(), in_.data(), in_.size());
    while (n < 0 && errno == EINTR);
    if (n < 0) return IoError("cannot read layer " + path_ + ": " + std::strerror(errno));
    in_pos_ = 0;
    in_len_ = static_cast<std::size_t>(n);
    eof_ = n == 0;
    return Status::Ok();
  }

  // Up to n bytes; 0 at the end.
  Result<std::size_t> Some(unsigned char* out, std::size_t n) {
    while (true) {
      SG_RETURN_IF_ERROR(Fill());
      if (!gzip_) {
        const std::size_t k = std::min(n, in_len_ - in_pos_);
        std::memcpy(out, in_.data() + in_pos_, k);
        in_pos_ += k;
        return k;
      }
      if (z_done_) return std::size_t{0};
      z_.next_in = in_.data() + in_pos_;
      z_.avail_in = static_cast<uInt>(in_len_ - in_pos_);
      z_.next_out = out;
      z_.avail_out = static_cast<uInt>(n);
      const int rc = inflate(&z_, Z_NO_FLUSH);
      in_pos_ = in_len_ - z_.avail_in;
      const std::size_t k = n - z_.avail_out;
      if (rc == Z_STREAM_END) z_done_ = true;
      if (rc != Z_OK && rc != Z_STREAM_END && rc != Z_BUF_ERROR) {
        return InvalidArgumentError("layer " + path_ + " is not valid gzip");
      }
      if (k > 0 || z_done_) return k;
      if (eof_) return std::size_t{0};
    }
  }

  UniqueFd fd_;
  std::string path_;
  std::array<unsigned char, 64 * 1024> in_{};
  std::size_t in_pos_ = 0, in_len_ = 0;
  bool eof_ = false, gzip_ = false, z_done_ = false;
  z_stream z_{};
};

// A tar number field: octal text, or base-256 when the high bit is set.
std::optional<std::uint64_t> TarNumber(const unsigned char* f, std::size_t len) {
  std::uint64_t v = 0;
  if (f[0] & 0x80) {
    for (std::size_t i = 1; i < len; ++i) {
      if (v >> 56) return std::nullopt;
      v = (v << 8) | f[i];
    }
    return (f[0] & 0x40) ? std::nullopt : std::optional<std::uint64_t>(v);  // negative: refused
  }
  std::size_t i = 0;
  while (i < len && (f[i] == ' ' || f[i] == 0)) ++i;
  for (; i < len && f[i] >= '0' && f[i] <= '7'; ++i) {
    if (v >> 60) return std::nullopt;
    v = v * 8 + (f[i] - '0');
  }
  return v;
}

// Keys of a pax extended header that change the next entry's size.
struct PaxSizes {
  std::optional<std::uint64_t> size, real;
};

PaxSizes ParsePax(std::string_view text) {
  PaxSizes out;
  while (!text.empty()) {
    const std::size_t sp = text.find(' ');
    if (sp == std::string_view::npos) break;
    std::uint64_t len = 0;
    for (char c : text.substr(0, sp)) len = (c >= '0' && c <= '9' && len < (1u << 30)) ? len * 10 + (c - '0') : 0;
    if (len <= sp + 1 || len > text.size()) break;
    const std::string_view record = text.substr(sp + 1, len - sp - 2);  // without the newline
    const std::size_t eq = record.find('=');
    if (eq != std::string_view::npos) {
      const std::string_view key = record.substr(0, eq), value = record.substr(eq + 1);
      std::uint64_t n = 0;
      bool digits = !value.empty() && value.size() < 20;
      for (char c : value) digits = digits && c >= '0' && c <= '9', n = n * 10 + (c - '0');
      if (digits && key == "size") out.size = n;
      if (digits && (key == "GNU.sparse.realsize" || key == "GNU.sparse.size")) out.real = n;
    }
    text.remove_prefix(len);
  }
  return out;
}

struct Totals {
  std::uint64_t files = 0, bytes = 0;
};

Status OverLimit(const Totals& t, const ImageLimits& limits, const std::string& where) {
  if (t.files > limits.max_files) {
    return ResourceExhaustedError("the image has more than " + std::to_string(limits.max_files) +
                                  " entries (sandbox.image_max_files) " + where);
  }
  if (t.bytes > limits.max_bytes) {
    return ResourceExhaustedError("the image unpacks to more than " + MiB(limits.max_bytes) +
                                  " (sandbox.image_max_mb) " + where);
  }
  return Status::Ok();
}

// Adds one layer's declared entries and file bytes to `t`.
Status CountLayer(const std::string& path, const ImageLimits& limits, Totals& t) {
  SG_ASSIGN_OR_RETURN(std::unique_ptr<LayerStream> in, LayerStream::Open(path));
  const std::string where = "(counted in layer " + fs::path(path).filename().string() + " before unpacking)";
  std::array<unsigned char, kBlock> h;
  PaxSizes pax;
  while (true) {
    SG_ASSIGN_OR_RETURN(bool more, in->Read(h.data(), h.size()));
    if (!more || std::all_of(h.begin(), h.end(), [](unsigned char c) { return c == 0; })) return Status::Ok();
    const char type = static_cast<char>(h[156]);
    std::optional<std::uint64_t> size = TarNumber(h.data() + 124, 12);
    if (!size) return InvalidArgumentError("layer " + path + " has a tar header with an unreadable size");
    if (pax.size) size = pax.size;
    const std::uint64_t padded = (*size + kBlock - 1) / kBlock * kBlock;
    if (type == 'x' || type == 'g') {
      if (*size > kMaxPaxBytes) return InvalidArgumentError("layer " + path + " has a pax header over 1 MiB");
      std::string text(static_cast<std::size_t>(padded), '\0');
      SG_ASSIGN_OR_RETURN(bool ok, in->Read(reinterpret_cast<unsigned char*>(text.data()), text.size()));
      if (!ok) return Status::Ok();
      if (type == 'x') pax = ParsePax(std::string_view(text).substr(0, static_cast<std::size_t>(*size)));
      continue;
    }
    if (type != 'L' && type != 'K') {
      ++t.files;
      std::uint64_t data = (type == '0' || type == '\0' || type == '7') ? *size : 0;
      if (type == 'S') data = TarNumber(h.data() + 483, 12).value_or(UINT64_MAX);
      if (pax.real) data = *pax.real;
      t.bytes = data > UINT64_MAX - t.bytes ? UINT64_MAX : t.bytes + data;
      SG_RETURN_IF_ERROR(OverLimit(t, limits, where));
      pax = PaxSizes{};
    }
    SG_ASSIGN_OR_RETURN(bool skipped, in->Skip(padded));
    if (!skipped) return Status::Ok();
  }
}

}  // namespace

Status CheckLayerLimits(const std::vector<std::string>& layers, const ImageLimits& limits) {
  Totals t;
  for (const std::string& layer : layers) SG_RETURN_IF_ERROR(CountLayer(layer, limits, t));
  return Status::Ok();
}

Status SanitizeUnpackedRoot(const std::string& rootfs, const ImageLimits& limits) {
  Totals t;
  const bool root = ::geteuid() == 0;
  std::error_code ec;
  fs::recursive_directory_iterator it(rootfs, fs::directory_options::none, ec), end;
  if (ec) return IoError("cannot walk the unpacked image " + rootfs + ": " + ec.message());
  for (; it != end; it.increment(ec)) {
    if (ec) return IoError("cannot walk the unpacked image " + rootfs + ": " + ec.message());
    const std::string path = it->path().string();
    struct stat st;
    if (::lstat(path.c_str(), &st) != 0) return IoError("cannot stat " + path + ": " + std::strerror(errno));
    ++t.files;
    if (S_ISREG(st.st_mode)) t.bytes += static_cast<std::uint64_t>(st.st_size);
    SG_RETURN_IF_ERROR(OverLimit(t, limits, "(counted on disk after unpacking)"));
    if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)) {
      if (::unlink(path.c_str()) != 0)
        return IoError("cannot remove device node " + path + ": " + std::strerror(errno));
      continue;
    }
    if (root && (st.st_uid != 0 || st.st_gid != 0) && ::lchown(path.c_str(), 0, 0) != 0) {
      return IoError("cannot give " + path + " to root: " + std::strerror(errno));
    }
    const mode_t keep = st.st_mode & ~static_cast<mode_t>(S_IFMT | S_ISUID | S_ISGID | S_IWGRP | S_IWOTH);
    if (!S_ISLNK(st.st_mode) && keep != (st.st_mode & ~S_IFMT) && ::chmod(path.c_str(), keep) != 0) {
      return IoError("cannot change the mode of " + path + ": " + std::strerror(errno));
    }
  }
  return Status::Ok();
}

}  // namespace seragen::env::internal
