#include "seragen/base/status.h"
#include "seragen/base/result.h"

#include <catch2/catch.hpp>

#include <memory>

namespace seragen {
namespace {

Result<int> Half(int x) {
  if (x % 2 != 0) return InvalidArgumentError("odd: " + std::to_string(x));
  return x / 2;
}

Result<int> Quarter(int x) {
  SG_ASSIGN_OR_RETURN(int h, Half(x));
  SG_ASSIGN_OR_RETURN(int q, Half(h));
  return q;
}

Status CheckEven(int x) {
  SG_RETURN_IF_ERROR(Half(x));
  return Status::Ok();
}

}  // namespace

TEST_CASE("Status basics", "[status]") {
  Status ok;
  CHECK(ok.ok());
  CHECK(ok.ToString() == "OK");
  Status bad = NotFoundError("no such task abc");
  CHECK_FALSE(bad.ok());
  CHECK(bad.code() == StatusCode::kNotFound);
  CHECK(bad.ToString() == "NOT_FOUND: no such task abc");
  CHECK(bad.WithContext("resume").message() == "resume: no such task abc");
  CHECK(ok.WithContext("x").ok());
}

TEST_CASE("a status detail is typed, kept by WithContext and shown by Text", "[status]") {
  const std::error_code detail = std::make_error_code(std::errc::timed_out);
  Status s(StatusCode::kTimeout, "no answer", detail);
  CHECK(s.message() == "no answer");
  CHECK(s.detail() == detail);
  CHECK(s.Text() == "[generic:" + detail.message() + "] no answer");
  CHECK(s.ToString() == "TIMEOUT: [generic:" + detail.message() + "] no answer");
  CHECK(s.WithContext("probe").detail() == detail);
  CHECK(s.WithContext("probe").message() == "probe: no answer");
  CHECK(s.WithContext("probe").WithContext("run").detail() == detail);
  CHECK_FALSE(s == Status(StatusCode::kTimeout, "no answer"));
  CHECK_FALSE(TimeoutError("plain").detail());
  CHECK(TimeoutError("plain").Text() == "plain");
}

TEST_CASE("a status detail survives copies, moves and Result propagation", "[status]") {
  const std::error_code detail = std::make_error_code(std::errc::connection_refused);
  const Status original(StatusCode::kUnavailable, "refused", detail);
  Status copy = original;
  CHECK(copy.detail() == detail);
  Status moved = std::move(copy);
  CHECK(moved.detail() == detail);
  Status assigned;
  assigned = original;
  CHECK(assigned == original);

  auto fails = [&]() -> Result<int> { return original; };
  auto forwards = [&]() -> Result<std::string> {
    SG_ASSIGN_OR_RETURN(int n, fails());
    return std::to_string(n);
  };
  auto checks = [&]() -> Status {
    SG_RETURN_IF_ERROR(forwards());
    return Status::Ok();
  };
  CHECK(fails().status().detail() == detail);
  CHECK(forwards().status().detail() == detail);
  CHECK(checks().detail() == detail);
  CHECK(checks() == original);
}

TEST_CASE("Result carries values and errors, macros propagate", "[status]") {
  CHECK(Quarter(8).value() == 2);
  Result<int> r = Quarter(6);
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().message() == "odd: 3");
  CHECK(r.value_or(-1) == -1);
  CHECK(CheckEven(4).ok());
  CHECK(CheckEven(5).code() == StatusCode::kInvalidArgument);
  Result<int> from_ok_status(Status::Ok());
  CHECK(from_ok_status.status().code() == StatusCode::kInternal);
}

TEST_CASE("Result holds move-only types", "[status]") {
  Result<std::unique_ptr<int>> r(std::make_unique<int>(7));
  REQUIRE(r.ok());
  std::unique_ptr<int> p = std::move(r).value();
  CHECK(*p == 7);
}

}  // namespace seragen
