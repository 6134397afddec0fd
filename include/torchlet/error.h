// torchlet::Error, the one exception type the library throws, and the checking macros.
// TORCHLET_CHECK is for user errors (bad shapes, dtypes, devices, arguments): its message
// says what was expected and what was found. TORCHLET_ASSERT is for torchlet's own bugs.
#pragma once

#include <sstream>
#include <stdexcept>
#include <string>

namespace torchlet {

// what() is the message a user reads; file(), line() and function() say where in torchlet
// the error was raised, for bug reports.
class Error : public std::runtime_error {
 public:
  Error(std::string message, const char* file = "", int line = 0, const char* function = "")
      : std::runtime_error(std::move(message)), file_(file), line_(line), function_(function) {}

  const char* file() const noexcept { return file_; }
  int line() const noexcept { return line_; }
  const char* function() const noexcept { return function_; }

 private:
  const char* file_;
  int line_;
  const char* function_;
};

namespace detail {

// Joins the pieces of a message with operator<<, so any printable value (a Shape, a Device,
// a DType, a number) can be named in it.
template <typename... Args>
std::string str_cat(const Args&... args) {
  std::ostringstream out;
  (out << ... << args);
  return out.str();
}

[[noreturn]] void throw_error(std::string message, const char* file, int line,
                              const char* function);

}  // namespace detail
}  // namespace torchlet

// Throws torchlet::Error with the streamed message when cond is false.
#define TORCHLET_CHECK(cond, ...)                                                         \
  do {                                                                                    \
    if (!(cond)) [[unlikely]] {                                                           \
      ::torchlet::detail::throw_error(::torchlet::detail::str_cat(__VA_ARGS__), __FILE__, \
                                      __LINE__, __func__);                                \
    }                                                                                     \
  } while (false)

// An internal invariant: failing means a bug in torchlet, not in the caller's code.
#define TORCHLET_ASSERT(cond, ...)                                                           \
  do {                                                                                       \
    if (!(cond)) [[unlikely]] {                                                              \
      ::torchlet::detail::throw_error(                                                       \
          ::torchlet::detail::str_cat("torchlet internal error (please report): " #cond " ", \
                                      ##__VA_ARGS__),                                        \
          __FILE__, __LINE__, __func__);                                                     \
    }                                                                                        \
  } while (false)
