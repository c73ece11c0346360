#include "journal/durable_append.h"

#include <catch2/catch.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

#include "seragen/base/file_util.h"
#include "testing/temp_dir.h"

namespace seragen::journal {

TEST_CASE("durable append: the whole line lands and is synced", "[journal][append]") {
  testing::TempDir dir;
  const std::string path = dir.Sub("log");
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  REQUIRE(fd >= 0);
  CHECK(AppendDurably(fd, 0, "one\n").kind == DurableAppend::kOk);
  CHECK(AppendDurably(fd, 4, "two\n").kind == DurableAppend::kOk);
  ::close(fd);
  CHECK(ReadFile(path).value() == "one\ntwo\n");
}

TEST_CASE("durable append: a full disk fails the line and names the error", "[journal][append]") {
  int fd = ::open("/dev/full", O_WRONLY | O_CLOEXEC);
  REQUIRE(fd >= 0);  // Linux always has /dev/full
  DurableAppend out = AppendDurably(fd, 0, "line\n");
  ::close(fd);
  CHECK(out.kind == DurableAppend::kWriteFailed);
  CHECK(out.write_errno == ENOSPC);
}

}  // namespace seragen::journal
