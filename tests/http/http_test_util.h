// Helpers for tests that drive an http::Client synchronously.
#pragma once

#include <chrono>
#include <future>
#include <thread>

#include "seragen/http/http_client.h"

namespace seragen::testing {

// Sends and waits (at most 5 s) for the response.
inline http::Response SendAndWait(http::Client& client, http::Request request) {
  auto promise = std::make_shared<std::promise<http::Response>>();
  auto future = promise->get_future();
  client.Send(std::move(request), [promise](http::Response r) { promise->set_value(std::move(r)); });
  if (future.wait_for(std::chrono::seconds(5)) != std::future_status::ready) {
    http::Response r;
    r.error = http::TransportError::kOther;
    r.error_message = "test: no response within 5 s";
    return r;
  }
  return future.get();
}

// Polls `predicate` every millisecond for up to `limit`.
template <typename Predicate>
bool WaitUntil(Predicate predicate, std::chrono::milliseconds limit = std::chrono::milliseconds(1000)) {
  auto end = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < end) {
    if (predicate()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return predicate();
}

}  // namespace seragen::testing
