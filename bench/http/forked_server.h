// A ReplayServer in a child process, so the benchmark's own CPU and memory
// figures (getrusage RUSAGE_SELF) cover the client only. Create it before the
// parent starts any thread (fork copies only the calling thread).
#pragma once

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <functional>

#include "http/replay_server.h"

namespace seragen::bench {

class ForkedServer {
 public:
  using Handler = std::function<testing::ScriptedReply(const testing::ReceivedRequest&)>;

  explicit ForkedServer(Handler handler) {
    int port_pipe[2], stop_pipe[2];
    if (pipe(port_pipe) != 0 || pipe(stop_pipe) != 0) std::abort();
    pid_ = fork();
    if (pid_ < 0) std::abort();
    if (pid_ == 0) {
      close(port_pipe[0]);
      close(stop_pipe[1]);
      {
        testing::ReplayServer server;
        server.SetHandler(std::move(handler));
        int port = server.port();
        if (write(port_pipe[1], &port, sizeof port) != sizeof port) _exit(2);
        char c;
        while (read(stop_pipe[0], &c, 1) > 0) {
        }  // parent closed the pipe: stop
      }
      _exit(0);
    }
    close(port_pipe[1]);
    close(stop_pipe[0]);
    stop_fd_ = stop_pipe[1];
    if (read(port_pipe[0], &port_, sizeof port_) != sizeof port_) {
      std::fprintf(stderr, "server child failed to start\n");
      std::exit(1);
    }
    close(port_pipe[0]);
  }

  ~ForkedServer() {
    close(stop_fd_);
    int status = 0;
    waitpid(pid_, &status, 0);
  }

  int port() const { return port_; }

 private:
  pid_t pid_ = -1;
  int stop_fd_ = -1;
  int port_ = 0;
};

}  // namespace seragen::bench
