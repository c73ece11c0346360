#include "seragen/base/file_util.h"
#include "seragen/base/atomic_file.h"

#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "seragen/base/unique_fd.h"

namespace seragen {
namespace {

Status ErrnoStatus(const std::string& what, const std::string& path) {
  return IoError(what + " " + path + ": " + std::strerror(errno));
}

Status WriteAll(int fd, std::string_view data, const std::string& path) {
  while (!data.empty()) {
    ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return ErrnoStatus("cannot write", path);
    }
    data.remove_prefix(static_cast<std::size_t>(n));
  }
  return Status::Ok();
}

std::string_view KindOf(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISLNK(mode)) return "a symbolic link";
  return "not a plain file";
}

Status NotRegular(const std::string& path, std::string_view kind) {
  return DataLossError(path + " is not a regular file (" + std::string(kind) + ")");
}

Status OpenError(const std::string& path) {
  if (errno == ENOENT) return NotFoundError("no such file: " + path);
  if (errno == ELOOP) return NotRegular(path, "a symbolic link");
  if (errno == ENXIO) return NotRegular(path, "a socket or device without a reader");
  return ErrnoStatus("cannot open", path);
}

}  // namespace

Result<UniqueFd> OpenRegularFile(const std::string& path, std::uint64_t max_bytes) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY));
  if (!fd.valid()) return OpenError(path);
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) return ErrnoStatus("cannot stat", path);
  if (!S_ISREG(st.st_mode)) return NotRegular(path, KindOf(st.st_mode));
  if (static_cast<std::uint64_t>(st.st_size) > max_bytes) {
    return ResourceExhaustedError(path + " is larger than " + std::to_string(max_bytes) + " bytes (" +
                                  std::to_string(st.st_size) + ")");
  }
  int flags = ::fcntl(fd.get(), F_GETFL);
  if (flags < 0 || ::fcntl(fd.get(), F_SETFL, flags & ~O_NONBLOCK) != 0) return ErrnoStatus("cannot set up", path);
  return fd;
}

Result<std::string> ReadRegularFile(const std::string& path, std::uint64_t max_bytes) {
  SG_ASSIGN_OR_RETURN(UniqueFd fd, OpenRegularFile(path, max_bytes));
  std::string out;
  struct stat st {};
  // The size it has now (it may still change): no regrowth, no slack.
  if (::fstat(fd.get(), &st) == 0 && st.st_size > 0) out.reserve(static_cast<std::size_t>(st.st_size));
  char buffer[1 << 16];
  while (true) {
    ssize_t n = ::read(fd.get(), buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return ErrnoStatus("cannot read", path);
    if (n == 0) return out;
    if (out.size() + static_cast<std::size_t>(n) > max_bytes) {
      return ResourceExhaustedError(path + " grew past " + std::to_string(max_bytes) + " bytes while being read");
    }
    out.append(buffer, static_cast<std::size_t>(n));
  }
}

namespace {

// The line being read across chunks, kept up to a bound.
class PendingLine {
 public:
  explicit PendingLine(std::size_t max_bytes) : max_(max_bytes) {}

  void Append(std::string_view part) {
    too_long_ = too_long_ || text_.size() + part.size() > max_;
    if (too_long_) text_.clear();  // not held
    else text_.append(part);
  }
  bool empty() const { return text_.empty() && !too_long_; }
  // The line (valid until the next Append) and a fresh start after it.
  FileLine Take(bool terminated) {
    line_ = std::move(text_);
    text_.clear();
    FileLine out{too_long_ ? std::string_view() : std::string_view(line_), terminated, too_long_};
    too_long_ = false;
    return out;
  }

 private:
  std::size_t max_;
  std::string text_, line_;
  bool too_long_ = false;
};

}  // namespace

Status ForEachLine(const std::string& path, std::uint64_t max_bytes,
                   const std::function<Status(const FileLine&)>& visit, std::size_t max_line_bytes) {
  SG_ASSIGN_OR_RETURN(UniqueFd fd, OpenRegularFile(path, max_bytes));
  std::string chunk(1 << 20, '\0');
  PendingLine pending(max_line_bytes);
  std::uint64_t total = 0;
  while (true) {
    ssize_t n = ::read(fd.get(), chunk.data(), chunk.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return ErrnoStatus("cannot read", path);
    total += static_cast<std::uint64_t>(n);
    if (total > max_bytes) {
      return ResourceExhaustedError(path + " grew past " + std::to_string(max_bytes) + " bytes while being read");
    }
    if (n == 0) return pending.empty() ? Status::Ok() : visit(pending.Take(false));
    std::string_view rest(chunk.data(), static_cast<std::size_t>(n));
    for (std::size_t nl = rest.find('\n'); nl != std::string_view::npos; nl = rest.find('\n')) {
      if (pending.empty() && nl <= max_line_bytes) {
        SG_RETURN_IF_ERROR(visit(FileLine{rest.substr(0, nl), true, false}));  // whole in this chunk: no copy
      } else {
        pending.Append(rest.substr(0, nl));
        SG_RETURN_IF_ERROR(visit(pending.Take(true)));
      }
      rest.remove_prefix(nl + 1);
    }
    pending.Append(rest);
  }
}

Result<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    if (!std::filesystem::exists(path)) return NotFoundError("no such file: " + path);
    return ErrnoStatus("cannot open", path);
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return ErrnoStatus("cannot read", path);
  return ss.str();
}

Status MakeDirs(const std::string& path) {
  std::error_code ec;
  std::filesystem::create_directories(path, ec);
  if (ec) return IoError("cannot create directory " + path + ": " + ec.message());
  return Status::Ok();
}

Status SyncDir(const std::string& path) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!fd.valid()) return ErrnoStatus("cannot open directory", path);
  if (::fsync(fd.get()) != 0) return ErrnoStatus("cannot fsync directory", path);
  return Status::Ok();
}

Status WriteFileInPlace(const std::string& path, std::string_view content) {
  UniqueFd fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644));
  if (!fd.valid()) return ErrnoStatus("cannot create", path);
  SG_RETURN_IF_ERROR(WriteAll(fd.get(), content, path));
  if (fd.Close() != 0) return ErrnoStatus("cannot close", path);
  return Status::Ok();
}

namespace {

// Random digits for a temporary name (the name must not be guessable: a
// name planted in advance would make every attempt fail).
std::string RandomDigits() {
  std::uint64_t v = 0;
  if (::getrandom(&v, sizeof v, 0) != static_cast<ssize_t>(sizeof v)) {
    static std::atomic<std::uint64_t> counter{0};
    v = (static_cast<std::uint64_t>(::getpid()) << 32) ^ counter++ ^
        static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
  }
  return std::to_string(v);
}

constexpr int kTempNameAttempts = 32;

}  // namespace

Result<AtomicFile> AtomicFile::Open(const std::string& path, bool durable) {
  std::filesystem::path target(path);
  std::string dir = target.parent_path().empty() ? "." : target.parent_path().string();
  SG_RETURN_IF_ERROR(MakeDirs(dir));
  AtomicFile f;
  f.path_ = path;
  f.durable_ = durable;
  for (int attempt = 0; attempt < kTempNameAttempts && !f.fd_.valid(); ++attempt) {
    f.tmp_ = path + ".tmp." + std::to_string(::getpid()) + "." + RandomDigits();
    f.fd_.reset(::open(f.tmp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644));
    if (!f.fd_.valid() && errno != EEXIST && errno != ELOOP) return ErrnoStatus("cannot create", f.tmp_);
  }
  if (!f.fd_.valid()) return ErrnoStatus("cannot create a temporary file for", path);
  return f;
}

AtomicFile::~AtomicFile() {
  if (fd_.valid()) {
    fd_.reset();
    ::unlink(tmp_.c_str());
  }
}

Status AtomicFile::Append(std::string_view bytes) {
  if (status_.ok() && fd_.valid()) status_ = WriteAll(fd_.get(), bytes, tmp_);
  return status_;
}

Status AtomicFile::Commit() {
  if (!fd_.valid()) return FailedPreconditionError("temporary file of " + path_ + " is not open");
  Status s = status_;
  if (s.ok() && durable_ && ::fsync(fd_.get()) != 0) s = ErrnoStatus("cannot fsync", tmp_);
  if (fd_.Close() != 0 && s.ok()) s = ErrnoStatus("cannot close", tmp_);
  if (s.ok() && ::rename(tmp_.c_str(), path_.c_str()) != 0) s = ErrnoStatus("cannot rename to", path_);
  if (!s.ok()) {
    ::unlink(tmp_.c_str());
    return s;
  }
  if (!durable_) return Status::Ok();
  std::filesystem::path target(path_);
  return SyncDir(target.parent_path().empty() ? "." : target.parent_path().string());
}

Status WriteFileAtomic(const std::string& path, std::string_view content) {
  SG_ASSIGN_OR_RETURN(AtomicFile f, AtomicFile::Open(path));
  SG_RETURN_IF_ERROR(f.Append(content));
  return f.Commit();
}

}  // namespace seragen
