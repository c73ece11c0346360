#include "seragen/env/bytecode_layer.h"

#include <catch2/catch.hpp>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "testing/temp_dir.h"

namespace seragen::env {
namespace {

using seragen::testing::RunShell;
using seragen::testing::TempDir;

constexpr uid_t kSlotUid = 20007;

bool Exists(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0;
}

// Two shared entries laid out as the prefix: `top` over `bottom`.
struct Entries {
  TempDir tmp;
  std::string top = tmp.Sub("top");
  std::string bottom = tmp.Sub("bottom");
  Entries() {
    const std::map<std::string, std::string> pycs{
        {"top/repo/pkg/mod.pyc", "top-mod"}, {"bottom/usr/lib/os.pyc", "bottom-os"}, {"bottom/repo/pkg/mod.pyc", "b"}};
    for (const auto& [path, text] : pycs) tmp.Write(path, text);
    (void)RunShell("chmod -R go-w " + tmp.path());
  }
  BytecodeLayerOptions Options() {
    BytecodeLayerOptions o;
    o.dir = tmp.Sub("copy-0.pyc");
    o.lowers = {top, bottom};
    auto top_dirs = EntryDirectories(top, 100);
    auto bottom_dirs = EntryDirectories(bottom, 100);
    REQUIRE(top_dirs.ok());
    REQUIRE(bottom_dirs.ok());
    o.skeleton = *bottom_dirs;
    o.skeleton.insert(o.skeleton.end(), top_dirs->begin(), top_dirs->end());
    o.uid = o.gid = kSlotUid;
    return o;
  }
  std::string Listing() {
    std::string out;
    (void)RunShell("cd " + tmp.path() + " && find top bottom | sort && cat top/repo/pkg/mod.pyc", &out);
    return out;
  }
};

bool Root() {
  if (::geteuid() != 0) WARN("mounting a bytecode layer needs root, skipped");
  return ::geteuid() == 0;
}

TEST_CASE("bytecode layer: the merged tree shows the top entry over the bottom one, writes go to the layer") {
  if (!Root()) return;
  Entries e;
  const std::string before = e.Listing();
  auto layer = BytecodeLayer::Mount(e.Options());
  REQUIRE(layer.ok());
  const std::string merged = (*layer)->merged();
  CHECK(IsMountPoint(merged));
  std::string out;
  (void)RunShell("cat " + merged + "/repo/pkg/mod.pyc " + merged + "/usr/lib/os.pyc", &out);
  CHECK(out == "top-modbottom-os");
  // A directory of the shared entries belongs to the slot uid in the merged tree.
  struct stat st {};
  REQUIRE(::stat((merged + "/repo/pkg").c_str(), &st) == 0);
  CHECK(st.st_uid == kSlotUid);
  REQUIRE(::stat((merged + "/usr/lib").c_str(), &st) == 0);
  CHECK(st.st_uid == kSlotUid);
  // Replacing a shared pyc (as Python's os.replace does) lands in the layer.
  std::ofstream(merged + "/repo/pkg/mod.pyc.tmp") << "mine";
  REQUIRE(::rename((merged + "/repo/pkg/mod.pyc.tmp").c_str(), (merged + "/repo/pkg/mod.pyc").c_str()) == 0);
  CHECK(Exists((*layer)->upper() + "/repo/pkg/mod.pyc"));
  CHECK(e.Listing() == before);
  const std::string dir = e.Options().dir;
  REQUIRE((*layer)->Release().ok());
  CHECK_FALSE(IsMountPoint(merged));
  CHECK_FALSE(Exists(dir));  // what the layer held is gone
  CHECK(e.Listing() == before);
}

TEST_CASE("bytecode layer: a layer a killed process left mounted is taken off and wiped") {
  if (!Root()) return;
  Entries e;
  BytecodeLayerOptions o = e.Options();
  auto layer = BytecodeLayer::Mount(o);
  REQUIRE(layer.ok());
  std::ofstream((*layer)->merged() + "/left-over") << "old";
  // Never released, as by a process killed with SIGKILL (deleted at the end, when there is nothing left to clear).
  BytecodeLayer* killed = layer->release();
  REQUIRE(IsMountPoint(o.dir + "/merged"));
  auto next = BytecodeLayer::Mount(o);  // the next lease of that copy
  REQUIRE(next.ok());
  CHECK_FALSE(Exists((*next)->merged() + "/left-over"));
  std::string mounts;
  (void)RunShell("grep -c ' " + o.dir + "/merged ' /proc/self/mountinfo", &mounts);
  CHECK(mounts == "1\n");
  REQUIRE((*next)->Release().ok());
  CHECK_FALSE(IsMountPoint(o.dir + "/merged"));
  REQUIRE(ClearBytecodeLayer(o.dir).ok());  // nothing there: fine
  delete killed;
}

TEST_CASE("bytecode layer: a killed run's layers on copies nobody holds are cleared, a held copy's kept") {
  if (!Root()) return;
  Entries e;
  BytecodeLayerOptions held = e.Options();
  BytecodeLayerOptions free = e.Options();
  free.dir = e.tmp.Sub("copy-1.pyc");
  auto held_layer = BytecodeLayer::Mount(held);
  auto free_layer = BytecodeLayer::Mount(free);
  REQUIRE(held_layer.ok());
  REQUIRE(free_layer.ok());
  BytecodeLayer* killed = free_layer->release();  // its process died; its copy's lock went with it
  e.tmp.Write("copy-0.lock", "");
  e.tmp.Write("copy-1.lock", "");
  const int lock = ::open(e.tmp.Sub("copy-0.lock").c_str(), O_RDWR | O_CLOEXEC);
  REQUIRE(::flock(lock, LOCK_EX) == 0);  // a live lease of copy-0
  ClearFreeBytecodeLayers(e.tmp.path());
  CHECK(IsMountPoint(held.dir + "/merged"));
  CHECK_FALSE(IsMountPoint(free.dir + "/merged"));
  CHECK_FALSE(Exists(free.dir));
  ::close(lock);
  delete killed;
}

TEST_CASE("bytecode layer: a path overlayfs options cannot carry is refused with nothing mounted") {
  if (!Root()) return;
  Entries e;
  BytecodeLayerOptions o = e.Options();
  o.dir = e.tmp.Sub("copy,0.pyc");
  auto layer = BytecodeLayer::Mount(o);
  REQUIRE_FALSE(layer.ok());
  CHECK(layer.status().message().find("copy,0.pyc") != std::string::npos);
  CHECK_FALSE(IsMountPoint(o.dir + "/merged"));
}

TEST_CASE("bytecode layer: an entry's directories are listed parents first, links not followed") {
  TempDir tmp;
  tmp.Write("entry/b/c/x.pyc", "");
  tmp.Write("entry/a/y.pyc", "");
  std::filesystem::create_directory_symlink("/etc", tmp.Sub("entry/link"));
  auto dirs = EntryDirectories(tmp.Sub("entry"), 100);
  REQUIRE(dirs.ok());
  CHECK(*dirs == std::vector<std::string>{"a", "b", "b/c"});
  CHECK_FALSE(EntryDirectories(tmp.Sub("entry"), 2).ok());
}

}  // namespace
}  // namespace seragen::env
