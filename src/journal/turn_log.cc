#include "seragen/journal/turn_log.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>

#include "journal/durable_append.h"
#include "journal/json_fields.h"
#include "seragen/base/file_util.h"
#include "seragen/base/json_depth.h"
#include "seragen/journal/result_files.h"
#include "seragen/journal/run_paths.h"

namespace seragen::journal {
namespace {

using internal::Json;

Status Errno(std::string_view what, const std::string& path) {
  return IoError(fmt::format("{} {}: {}", what, path, std::strerror(errno)));
}

// One line as a JSON object; kDataLoss when it is not one (a torn write).
Result<Json> ParseLine(std::string_view line) {
  if (Status depth = CheckJsonDepth(line, "turn log line"); !depth.ok()) return DataLossError(depth.message());
  Json j = Json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return DataLossError("not a complete JSON object");
  return j;
}

Result<TurnLogHeader> DecodeHeader(const Json& j) {
  std::string format;
  SG_RETURN_IF_ERROR(internal::ReadText(j, "format", true, &format));
  if (format != kTurnLogFormat) return ParseError("not a seragen turn log");
  int version = 0;
  SG_RETURN_IF_ERROR(internal::ReadInt(j, "version", true, &version));
  if (version != kTurnLogVersion) {
    return FailedPreconditionError(
        fmt::format("turn log version {} is not supported (expected {})", version, kTurnLogVersion));
  }
  TurnLogHeader h;
  SG_RETURN_IF_ERROR(internal::ReadText(j, "task_id", true, &h.task_id));
  SG_RETURN_IF_ERROR(internal::ReadInt(j, "rollout", true, &h.rollout));
  SG_RETURN_IF_ERROR(internal::ReadInt(j, "attempt", true, &h.attempt));
  SG_RETURN_IF_ERROR(internal::ReadCount(j, "restarts", false, &h.restarts));
  SG_RETURN_IF_ERROR(internal::ReadInt(j, "discarded_tokens", false, &h.discarded_tokens));
  return h;
}

Status DecodeAnswer(const Json& j, TurnLogAnswer* a) {
  SG_RETURN_IF_ERROR(internal::ReadInt(j, "call", true, &a->call));
  SG_RETURN_IF_ERROR(internal::ReadText(j, "request_sha256", true, &a->request_sha256));
  SG_RETURN_IF_ERROR(internal::ReadNumber(j, "llm_seconds", false, &a->llm_seconds));
  auto it = j.find("response");
  if (it == j.end() || !it->is_object()) return internal::FieldError("response", "must be an object");
  a->response_json = internal::Dump(*it);
  return Status::Ok();
}

Status DecodeOutcome(const Json& j, TurnLogOutcome* o) {
  SG_RETURN_IF_ERROR(internal::ReadInt(j, "call", true, &o->call));
  SG_RETURN_IF_ERROR(internal::ReadText(j, "kind", true, &o->kind));
  SG_RETURN_IF_ERROR(internal::ReadText(j, "text", true, &o->text));
  SG_RETURN_IF_ERROR(internal::ReadBool(j, "timed_out", false, &o->timed_out));
  return Status::Ok();
}

// Adds one turn line to `out`; kDataLoss when it is out of sequence.
Status AddLine(const Json& j, LoadedTurnLog* out) {
  std::string type;
  SG_RETURN_IF_ERROR(internal::ReadText(j, "type", true, &type));
  if (type == "answer") {
    TurnLogTurn turn;
    SG_RETURN_IF_ERROR(DecodeAnswer(j, &turn.answer));
    if (turn.answer.call != static_cast<int>(out->turns.size())) {
      return DataLossError(fmt::format("answer to call {} where call {} was due", turn.answer.call, out->turns.size()));
    }
    out->turns.push_back(std::move(turn));
    return Status::Ok();
  }
  if (type == "outcome") {
    TurnLogOutcome outcome;
    SG_RETURN_IF_ERROR(DecodeOutcome(j, &outcome));
    if (out->turns.empty() || out->turns.back().outcome || outcome.call != out->turns.back().answer.call) {
      return DataLossError(fmt::format("outcome of call {} does not follow its answer", outcome.call));
    }
    out->turns.back().outcome = std::move(outcome);
    return Status::Ok();
  }
  return ParseError("unknown line type '" + type + "'");
}

}  // namespace

std::string EncodeTurnLogHeader(const TurnLogHeader& h) {
  Json j;
  j["format"] = kTurnLogFormat;
  j["version"] = kTurnLogVersion;
  internal::PutText(j, "task_id", h.task_id);
  j["rollout"] = h.rollout;
  j["attempt"] = h.attempt;
  j["restarts"] = h.restarts;
  j["discarded_tokens"] = h.discarded_tokens;
  return internal::Dump(j);
}

Result<std::string> EncodeTurnLogAnswer(const TurnLogAnswer& a) {
  Json response = Json::parse(a.response_json, nullptr, /*allow_exceptions=*/false);
  if (response.is_discarded() || !response.is_object()) {
    return InvalidArgumentError("turn log answer: the response is not a JSON object");
  }
  Json j;
  j["type"] = "answer";
  j["call"] = a.call;
  internal::PutText(j, "request_sha256", a.request_sha256);
  j["llm_seconds"] = std::isfinite(a.llm_seconds) ? a.llm_seconds : 0.0;
  j["response"] = std::move(response);
  return internal::Dump(j);
}

std::string EncodeTurnLogOutcome(const TurnLogOutcome& o) {
  Json j;
  j["type"] = "outcome";
  j["call"] = o.call;
  internal::PutText(j, "kind", o.kind);
  internal::PutText(j, "text", o.text);
  j["timed_out"] = o.timed_out;
  return internal::Dump(j);
}

Result<LoadedTurnLog> ParseTurnLog(std::string_view bytes, const std::string& name) {
  LoadedTurnLog out;
  std::uint64_t offset = 0;
  std::size_t number = 0;
  while (offset < bytes.size()) {
    ++number;
    std::size_t nl = bytes.find('\n', offset);
    if (nl == std::string_view::npos) break;  // unterminated: a torn last line
    const bool last = nl + 1 == bytes.size();
    Result<Json> j = ParseLine(bytes.substr(offset, nl - offset));
    Status status = j.status();
    if (j.ok() && number == 1) {
      Result<TurnLogHeader> header = DecodeHeader(*j);
      status = header.status();
      if (header.ok()) out.header = std::move(*header);
      out.has_header = header.ok();
    } else if (j.ok()) {
      status = AddLine(*j, &out);
    }
    if (!status.ok()) {
      if (!j.ok() && last) break;  // torn last line
      return Status(status.code(), fmt::format("turn log {} line {}: {}", name, number, status.message()));
    }
    offset = nl + 1;
    out.valid_bytes = offset;
  }
  out.dropped_tail_bytes = bytes.size() - out.valid_bytes;
  return out;
}

Result<LoadedTurnLog> LoadTurnLog(const std::string& path) {
  SG_ASSIGN_OR_RETURN(std::string bytes, ReadRegularFile(path, kMaxTurnLogBytes));
  return ParseTurnLog(bytes, path);
}

Status RemoveTurnLog(const std::string& path) {
  if (::unlink(path.c_str()) != 0 && errno != ENOENT) return Errno("cannot remove turn log", path);
  return Status::Ok();
}

Result<std::size_t> RemoveFinishedTurnLogs(const std::string& shard_dir, const ResumeState& state) {
  namespace fs = std::filesystem;
  fs::path root = fs::path(shard_dir) / std::string(kTurnsDir);
  std::error_code ec;
  if (!fs::exists(root, ec)) return std::size_t{0};
  std::size_t removed = 0;
  for (fs::directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
    std::string ref = std::string(kTurnsDir) + "/" + it->path().filename().string();
    std::optional<TurnLogName> name = ParseTurnLogRef(ref);
    if (!name) continue;
    const TaskProgress* p = state.Find(name->task_id);
    bool stale = p != nullptr &&
                 (p->finished || (name->rollout == 2 && p->Done(Stage::kRollout2Done)) ||
                  (name->rollout == 1 && (p->Done(Stage::kRollout1Done) || name->attempt != 1 + p->judge_rejections)));
    if (!stale) continue;
    if (fs::remove(it->path(), ec)) ++removed;
    if (ec) break;
  }
  if (ec) return IoError(fmt::format("cannot clean turn logs under {}: {}", root.string(), ec.message()));
  return removed;
}

Result<std::unique_ptr<TurnLogWriter>> TurnLogWriter::Create(const std::string& path, const TurnLogHeader& header) {
  SG_RETURN_IF_ERROR(MakeDirsDurable(std::filesystem::path(path).parent_path().string()));
  std::string text = EncodeTurnLogHeader(header) + "\n";
  SG_RETURN_IF_ERROR(WriteFileAtomic(path, text));
  std::unique_ptr<TurnLogWriter> w(new TurnLogWriter());
  w->path_ = path;
  w->fd_.reset(::open(path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC));
  if (!w->fd_.valid()) return Errno("cannot open turn log", path);
  w->size_ = text.size();
  return w;
}

Result<std::unique_ptr<TurnLogWriter>> TurnLogWriter::Continue(const std::string& path, const LoadedTurnLog& loaded) {
  if (!loaded.has_header) return FailedPreconditionError("turn log " + path + " has no header to continue");
  std::unique_ptr<TurnLogWriter> w(new TurnLogWriter());
  w->path_ = path;
  w->fd_.reset(::open(path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC));
  if (!w->fd_.valid()) return Errno("cannot open turn log", path);
  struct stat st {};
  if (::fstat(w->fd_.get(), &st) != 0) return Errno("cannot stat turn log", path);
  if (static_cast<std::uint64_t>(st.st_size) != loaded.valid_bytes) {
    // Cut the torn last line so the next line starts on a fresh one.
    if (::ftruncate(w->fd_.get(), static_cast<off_t>(loaded.valid_bytes)) != 0 || ::fdatasync(w->fd_.get()) != 0) {
      return Errno("cannot cut the torn last line of turn log", path);
    }
  }
  w->size_ = loaded.valid_bytes;
  return w;
}

Status TurnLogWriter::AppendAnswer(const TurnLogAnswer& answer) {
  SG_ASSIGN_OR_RETURN(std::string line, EncodeTurnLogAnswer(answer));
  return AppendLine(std::move(line) + "\n");
}

Status TurnLogWriter::AppendOutcome(const TurnLogOutcome& outcome) {
  return AppendLine(EncodeTurnLogOutcome(outcome) + "\n");
}

Status TurnLogWriter::AppendLine(std::string line) {
  std::lock_guard<std::mutex> guard(mu_);
  if (!broken_.ok()) return broken_;
  const DurableAppend out = AppendDurably(fd_.get(), size_, line);
  const char* write_error = std::strerror(out.write_errno);
  switch (out.kind) {
    case DurableAppend::kOk: break;
    case DurableAppend::kWriteFailed:
      return IoError(fmt::format("cannot append to turn log {}: {}", path_, write_error));
    case DurableAppend::kTruncateFailed:
      // The file's end is unknown: stop.
      broken_ = IoError(fmt::format("turn log {} may end in a partial line (write failed: {}); no further lines", path_,
                                    write_error));
      return broken_;
    case DurableAppend::kSyncFailed:
      errno = out.sync_errno;
      broken_ = Errno("cannot fdatasync turn log (no further lines are written)", path_);
      return broken_;
  }
  size_ += line.size();
  return Status::Ok();
}

}  // namespace seragen::journal
