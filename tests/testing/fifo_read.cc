#include "testing/fifo_read.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <thread>

namespace seragen::testing {

void MakeFifo(const std::string& path) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  if (::mkfifo(path.c_str(), 0644) != 0) {
    std::cerr << "cannot make FIFO " << path << "\n";
    std::abort();
  }
}

bool ReturnsWithoutWriter(const std::string& fifo, const std::function<void()>& read,
                          std::chrono::milliseconds patience) {
  std::atomic<bool> done{false};
  std::thread reader([&] {
    read();
    done = true;
  });
  const auto deadline = std::chrono::steady_clock::now() + patience;
  while (!done && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  const bool by_itself = done;
  while (!done) {  // stuck: give it a writer that closes at once, so it reads end of file
    int fd = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd >= 0) ::close(fd);
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  reader.join();
  return by_itself;
}

}  // namespace seragen::testing
