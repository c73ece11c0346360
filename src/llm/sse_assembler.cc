#include "seragen/llm/sse_assembler.h"

#include "llm/codec_internal.h"
#include "llm/json_util.h"
#include "seragen/llm/failure.h"
#include "seragen/llm/wire_codec.h"

namespace seragen::llm {

using internal::Json;
using internal::StringOr;

SseAssembler::SseAssembler(std::size_t max_bytes) : max_bytes_(max_bytes) {}
SseAssembler::~SseAssembler() = default;
SseAssembler::SseAssembler(SseAssembler&&) noexcept = default;
SseAssembler& SseAssembler::operator=(SseAssembler&&) noexcept = default;

bool SseAssembler::Feed(std::string_view bytes) {
  if (failed()) return false;
  fed_bytes_ += bytes.size();
  if (max_bytes_ > 0 && fed_bytes_ > max_bytes_) {
    failure_ = MakeFailure(FailureClass::kTransientServer,
                           "the event stream passed the cap of " + std::to_string(max_bytes_) + " bytes");
    return false;
  }
  response_.raw_body.append(bytes);
  std::size_t i = 0;
  while (i < bytes.size()) {
    if (last_was_cr_) {  // "\r\n" may be split across pieces
      last_was_cr_ = false;
      if (bytes[i] == '\n') {
        ++i;
        continue;
      }
    }
    std::size_t end = bytes.find_first_of("\r\n", i);
    if (end == std::string_view::npos) {
      pending_.append(bytes.substr(i));
      break;
    }
    pending_.append(bytes.substr(i, end - i));
    ProcessLine(pending_);
    pending_.clear();
    if (failed()) return false;
    last_was_cr_ = bytes[end] == '\r';
    i = end + 1;
  }
  return !failed();
}

void SseAssembler::ProcessLine(std::string_view line) {
  if (line.empty()) {
    Dispatch();
    return;
  }
  if (line.front() == ':') return;  // comment / keep-alive (": OPENROUTER PROCESSING")
  std::size_t colon = line.find(':');
  std::string_view field = line.substr(0, colon);
  std::string_view value = colon == std::string_view::npos ? std::string_view() : line.substr(colon + 1);
  if (!value.empty() && value.front() == ' ') value.remove_prefix(1);
  if (field != "data") return;  // event:, id:, retry: carry nothing we need
  if (event_has_data_) event_data_ += '\n';
  event_data_.append(value);
  event_has_data_ = true;
}

void SseAssembler::Dispatch() {
  if (!event_has_data_) return;
  std::string data = std::move(event_data_);
  event_data_.clear();
  event_has_data_ = false;
  HandleData(data);
}

void SseAssembler::HandleData(std::string_view data) {
  if (data == "[DONE]") {
    saw_done_ = true;
    return;
  }
  std::string parse_error;
  auto parsed = internal::TryParse(data, kMaxJsonDepth, &parse_error);
  if (!parsed || !parsed->is_object()) {
    failure_ = MakeFailure(FailureClass::kTransientServer, "malformed stream event (not a JSON object" +
                                                               (parse_error.empty() ? "" : ": " + parse_error) +
                                                               "): " + std::string(data.substr(0, 200)));
    return;
  }
  const Json& j = *parsed;
  if (auto err = internal::InBandError(j)) {
    failure_ = Status(err->code(), err->message() + " (error event inside a 200 stream)", err->detail());
    return;
  }
  if (response_.id.empty()) response_.id = StringOr(j, "id");
  if (response_.model.empty()) response_.model = StringOr(j, "model");
  if (auto u = j.find("usage"); u != j.end() && u->is_object()) {
    if (Status usage = internal::ReadUsage(*u, response_.usage); !usage.ok()) {
      failure_ = usage;
      return;
    }
  }
  auto choices = j.find("choices");
  if (choices == j.end() || !choices->is_array()) return;
  for (const auto& choice : *choices) {
    if (!choice.is_object()) continue;
    if (auto idx = internal::IntField(choice, "index"); idx && *idx != 0) continue;  // n == 1
    std::string finish = StringOr(choice, "finish_reason");
    if (finish == "error") {
      failure_ = MakeFailure(FailureClass::kTransientServer,
                             "finish_reason \"error\" inside a 200 stream (provider failed mid-answer)");
      return;
    }
    auto delta_it = choice.find("delta");
    if (delta_it != choice.end() && delta_it->is_object()) {
      const Json& delta = *delta_it;
      if (auto c = delta.find("content"); c != delta.end() && c->is_string()) {
        response_.content += c->get<std::string>();
      }
      if (auto r = delta.find("reasoning"); r != delta.end() && r->is_string()) {
        response_.reasoning += r->get<std::string>();
        saw_reasoning_field_ = true;
      } else if (auto rc = delta.find("reasoning_content"); rc != delta.end() && rc->is_string()) {
        response_.reasoning += rc->get<std::string>();
        saw_reasoning_content_field_ = true;
      }
      if (auto calls = delta.find("tool_calls"); calls != delta.end() && calls->is_array()) {
        long long position = 0;
        for (const auto& tc : *calls) {
          if (!tc.is_object()) continue;
          long long key = internal::IntField(tc, "index").value_or(position);
          ++position;
          PartialCall& slot = calls_[key];
          if (std::string id = StringOr(tc, "id"); !id.empty() && slot.id.empty()) slot.id = id;
          if (auto f = tc.find("function"); f != tc.end() && f->is_object()) {
            if (std::string name = StringOr(*f, "name"); !name.empty() && slot.name.empty()) slot.name = name;
            if (auto a = f->find("arguments"); a != f->end()) {
              if (a->is_string()) slot.arguments += a->get<std::string>();
              else if (!a->is_null()) slot.arguments += internal::Dump(*a);
            }
          }
        }
      }
    }
    if (!finish.empty()) response_.finish_reason = finish;
  }
}

Result<ChatResponse> SseAssembler::Finish() {
  if (!failed()) {
    if (!pending_.empty()) {  // last line without a newline
      ProcessLine(pending_);
      pending_.clear();
    }
    Dispatch();  // last event without a blank line
  }
  if (failed()) return failure_;
  if (response_.finish_reason.empty()) {
    failure_ = MakeFailure(FailureClass::kTransientServer,
                           saw_done_ ? "stream ended with [DONE] but no finish_reason"
                                     : "stream ended without a finish_reason (connection cut mid-answer)");
    return failure_;
  }
  ChatResponse r = std::move(response_);
  response_ = ChatResponse();
  if (!r.reasoning.empty()) {
    r.reasoning_source =
        saw_reasoning_field_ ? ReasoningSource::kReasoningField : ReasoningSource::kReasoningContentField;
  }
  for (auto& [index, partial] : calls_) {
    ToolCall call;
    call.id = std::move(partial.id);
    call.name = std::move(partial.name);
    call.arguments_raw = std::move(partial.arguments);
    r.tool_calls.push_back(std::move(call));
  }
  calls_.clear();
  FinalizeResponse(r);  // arguments parsed once, here
  return r;
}

}  // namespace seragen::llm
