// A damaged run directory: a FIFO, a symbolic link or a directory where a
// journal, a turn log or a result file should be is an error naming it, and
// no reader waits on a FIFO.
#include <catch2/catch.hpp>

#include <filesystem>

#include "seragen/journal/journal_reader.h"
#include "seragen/journal/result_files.h"
#include "seragen/journal/turn_log.h"
#include "testing/fifo_read.h"
#include "testing/temp_dir.h"

namespace seragen::journal {
namespace {

struct Reader {
  const char* what;
  std::function<Status(const std::string& dir, const std::string& name)> read;
};

const Reader kReaders[] = {
    {"journal", [](const std::string& d, const std::string& n) { return LoadJournal(d + "/" + n).status(); }},
    {"turn log", [](const std::string& d, const std::string& n) { return LoadTurnLog(d + "/" + n).status(); }},
    {"result file", [](const std::string& d, const std::string& n) { return ReadResultFile(d, n).status(); }},
};

}  // namespace

TEST_CASE("run-directory readers do not wait on a FIFO and name it", "[journal][files]") {
  for (const Reader& r : kReaders) {
    INFO(r.what);
    testing::TempDir dir;
    testing::MakeFifo(dir.Sub("damaged.jsonl"));
    Status s;
    CHECK(testing::ReturnsWithoutWriter(dir.Sub("damaged.jsonl"), [&] { s = r.read(dir.path(), "damaged.jsonl"); }));
    CHECK(s.code() == StatusCode::kDataLoss);
    CHECK(s.message().find(dir.Sub("damaged.jsonl")) != std::string::npos);
    CHECK(s.message().find("FIFO") != std::string::npos);
  }
}

TEST_CASE("run-directory readers do not follow a symbolic link or read a directory", "[journal][files]") {
  for (const Reader& r : kReaders) {
    INFO(r.what);
    testing::TempDir dir;
    dir.Write("elsewhere.json", "{}\n");
    std::filesystem::create_symlink(dir.Sub("elsewhere.json"), dir.Sub("link.json"));
    std::filesystem::create_directories(dir.Sub("dir.json"));
    for (const char* name : {"link.json", "dir.json"}) {
      Status s = r.read(dir.path(), name);
      INFO(name << ": " << s.ToString());
      CHECK(s.code() == StatusCode::kDataLoss);
      CHECK(s.message().find(dir.Sub(name)) != std::string::npos);
    }
  }
}

}  // namespace seragen::journal
