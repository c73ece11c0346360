// stderr made terminal-safe for the whole process: every line written to
// std::cerr (start-up errors quoting an endpoint's answer, a path of the run
// directory, an image's output) goes out through TerminalSafe, so no byte of
// outside text reaches the terminal raw. Installed once in main.
#pragma once

#include <iostream>
#include <streambuf>
#include <string>

namespace seragen::cli {

class TerminalSafeErr {
 public:
  TerminalSafeErr();   // replaces std::cerr's buffer
  ~TerminalSafeErr();  // puts it back, after writing what is left
  TerminalSafeErr(const TerminalSafeErr&) = delete;
  TerminalSafeErr& operator=(const TerminalSafeErr&) = delete;

 private:
  class Buffer : public std::streambuf {
   public:
    explicit Buffer(std::streambuf* out) : out_(out) {}
    void Drain(bool all);

   protected:
    int_type overflow(int_type c) override;
    std::streamsize xsputn(const char* s, std::streamsize n) override;
    int sync() override;

   private:
    std::streambuf* out_;
    std::string pending_;
  };
  std::streambuf* original_;
  Buffer buffer_;
};

}  // namespace seragen::cli
