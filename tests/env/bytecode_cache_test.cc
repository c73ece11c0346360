#include "seragen/env/bytecode_cache.h"

#include <catch2/catch.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>

#include "seragen/base/file_util.h"
#include "testing/temp_dir.h"

namespace seragen::env {
namespace {

// Stands in for the sandboxed compiler: writes what `write` says into the
// output directory (as a hostile compile could), exits with `exit_code`.
class FakeCompiler final : public SetupRunner {
 public:
  int runs = 0;
  std::string last_command;
  int exit_code = 0;
  std::function<void(const std::string&)> write = [](const std::string& out) {
    std::filesystem::create_directories(out + "/repo/pkg");
    std::ofstream(out + "/repo/pkg/mod.cpython-311.pyc") << "pyc";
  };
  Result<sandbox::CommandResult> Run(const std::string& command, const std::string& out_dir) override {
    ++runs;
    last_command = command;
    CHECK(command.find("pycache_prefix=/tmp/.pycache") != std::string::npos);
    write(out_dir);
    sandbox::CommandResult r;
    r.exit_code = exit_code;
    r.output = "seragen-pyc: compiled 1";
    return r;
  }
};

BytecodeCacheOptions Options(const testing::TempDir& tmp, const std::string& key = "k1") {
  BytecodeCacheOptions o;
  o.cache_dir = tmp.Sub("pycache");
  o.key = key;
  REQUIRE(GuardCacheDir(o.cache_dir, ::getegid()).ok());
  return o;
}

mode_t ModeOf(const std::string& path) {
  struct stat st {};
  REQUIRE(::lstat(path.c_str(), &st) == 0);
  return st.st_mode;
}

TEST_CASE("bytecode cache: the key changes with every part", "[env]") {
  const BytecodeCacheKeyParts base{"demo", "c1", "", "", {{"PATH", "/usr/bin"}}, "/repo"};
  const std::string k = BytecodeCacheKey(base);
  CHECK(k == BytecodeCacheKey(base));
  auto changed = [&](auto edit) {
    BytecodeCacheKeyParts p = base;
    edit(p);
    return BytecodeCacheKey(p) != k;
  };
  CHECK(changed([](BytecodeCacheKeyParts& p) { p.repo = "other"; }));
  CHECK(changed([](BytecodeCacheKeyParts& p) { p.commit = "c2"; }));
  CHECK(changed([](BytecodeCacheKeyParts& p) { p.root_id = "image:sha256:abc"; }));
  CHECK(changed([](BytecodeCacheKeyParts& p) { p.prefix_dir = "/cache/env/abc=/env;"; }));
  CHECK(changed([](BytecodeCacheKeyParts& p) { p.env["PYTHONPATH"] = "/repo/src"; }));
  CHECK(changed([](BytecodeCacheKeyParts& p) { p.mount_point = "/src"; }));
}

TEST_CASE("bytecode cache: an entry is compiled once per key, then reused", "[env]") {
  testing::TempDir tmp;
  FakeCompiler compiler;
  auto first = PrepareBytecodeCache(Options(tmp), compiler);
  REQUIRE(first.ok());
  CHECK_FALSE(first->reused);
  CHECK(first->files == 1);
  CHECK(first->dir == tmp.Sub("pycache/k1"));
  auto second = PrepareBytecodeCache(Options(tmp), compiler);
  REQUIRE(second.ok());
  CHECK(second->reused);
  CHECK(second->files > 0);
  CHECK(compiler.runs == 1);
  BytecodeCacheOptions library = Options(tmp, "k2");
  library.scope = BytecodeScope::kLibrary;
  library.mount_dirs = {"src"};
  compiler.write = [](const std::string&) {};
  auto other = PrepareBytecodeCache(library, compiler);
  REQUIRE(other.ok());
  CHECK(compiler.runs == 2);
  CHECK(compiler.last_command.find("' lib '/repo' 120") != std::string::npos);
  CHECK(std::filesystem::is_directory(other->dir + "/src"));  // where the repository's tree is bound
}

TEST_CASE("bytecode cache: a failed compile leaves no entry and is tried again", "[env]") {
  testing::TempDir tmp;
  FakeCompiler compiler;
  compiler.exit_code = 137;
  auto failed = PrepareBytecodeCache(Options(tmp), compiler);
  REQUIRE_FALSE(failed.ok());
  CHECK(failed.status().message().find("exited 137") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(tmp.Sub("pycache/k1")));
  compiler.exit_code = 0;
  CHECK(PrepareBytecodeCache(Options(tmp), compiler).ok());
  CHECK(compiler.runs == 2);
}

TEST_CASE("bytecode cache: a hostile compile plants no link, program or writable file in the entry", "[env]") {
  testing::TempDir tmp;
  tmp.Write("secret", "host secret");
  FakeCompiler compiler;
  compiler.write = [&](const std::string& out) {
    std::filesystem::create_directories(out + "/usr/lib/python3/json");
    std::ofstream(out + "/usr/lib/python3/json/__init__.cpython-311.pyc") << "pyc";
    ::chmod((out + "/usr/lib/python3/json/__init__.cpython-311.pyc").c_str(), 06777);
    ::chmod((out + "/usr/lib/python3/json").c_str(), 0777);
    std::filesystem::create_symlink(tmp.Sub("secret"), out + "/usr/lib/python3/os.cpython-311.pyc");
    std::filesystem::create_directory_symlink(tmp.path(), out + "/usr/lib/python3/escape");
    std::ofstream(out + "/usr/lib/python3/run.sh") << "#!/bin/sh\n";
    REQUIRE(::mkfifo((out + "/usr/fifo.pyc").c_str(), 0666) == 0);
  };
  auto made = PrepareBytecodeCache(Options(tmp), compiler);
  REQUIRE(made.ok());
  CHECK(made->files == 1);
  const std::string entry = made->dir + "/usr/lib/python3";
  CHECK((ModeOf(entry + "/json/__init__.cpython-311.pyc") & 07777) == 0644);
  CHECK((ModeOf(entry + "/json") & 07777) == 0755);
  CHECK_FALSE(std::filesystem::exists(std::filesystem::symlink_status(entry + "/os.cpython-311.pyc")));
  CHECK_FALSE(std::filesystem::exists(std::filesystem::symlink_status(entry + "/escape")));
  CHECK_FALSE(std::filesystem::exists(entry + "/run.sh"));
  CHECK_FALSE(std::filesystem::exists(std::filesystem::symlink_status(made->dir + "/usr/fifo.pyc")));
  CHECK(tmp.Read("secret") == "host secret");
}

TEST_CASE("bytecode cache: pruning removes the least recently used entries first", "[env]") {
  testing::TempDir tmp;
  const std::string dir = tmp.Sub("pycache");
  for (const char* key : {"old", "recent", "kept"}) {
    tmp.Write(std::string("pycache/") + key + "/repo/m.cpython-311.pyc", std::string(1000, 'x'));
  }
  const struct timespec old_time[2] = {{1000, 0}, {1000, 0}};
  REQUIRE(::utimensat(AT_FDCWD, (dir + "/old").c_str(), old_time, 0) == 0);
  std::filesystem::create_directories(dir + "/abandoned.tmp-1");
  REQUIRE(::utimensat(AT_FDCWD, (dir + "/abandoned.tmp-1").c_str(), old_time, 0) == 0);
  REQUIRE(PruneBytecodeCache(dir, 2500, "kept").ok());
  CHECK_FALSE(std::filesystem::exists(dir + "/old"));
  CHECK(std::filesystem::exists(dir + "/recent"));
  CHECK(std::filesystem::exists(dir + "/kept"));
  CHECK_FALSE(std::filesystem::exists(dir + "/abandoned.tmp-1"));
  REQUIRE(PruneBytecodeCache(dir, 0, "kept").ok());
  CHECK(std::filesystem::exists(dir + "/kept"));
}

}  // namespace
}  // namespace seragen::env
