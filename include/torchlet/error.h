// torchlet::Error, the one exception type the library throws, and the checking macros.
// TORCHLET_CHECK is for user errors (bad shapes, dtypes, devices, arguments): its message
// says what was expected and what was found. TORCHLET_CHECK_KIND says which other kind of
// failure it is (an index, memory, the device, a file); TORCHLET_ASSERT is for torchlet's own
// bugs.
#pragma once

#include <sstream>
#include <stdexcept>
#include <string>

namespace torchlet {

// What went wrong, for a caller that reacts differently to each (the CLI's exit status).
enum class ErrorKind {
  InvalidArgument,  // a bad shape, dtype, device, option or value: the caller's to fix
  Index,            // an index outside its range
  OutOfMemory,      // an allocation the host or the GPU could not satisfy
  Device,           // a CUDA or cuBLAS call failed
  IO,               // a file could not be opened, read or written
  Internal,         // a bug in torchlet
};

// "invalid argument", "index", "out of memory", "device", "I/O" or "internal".
const char* to_string(ErrorKind kind) noexcept;

// what() is the message a user reads; kind() what kind of failure it is; file(), line() and
// function() say where in torchlet the error was raised, for bug reports.
class Error : public std::runtime_error {
 public:
  Error(std::string message, const char* file = "", int line = 0, const char* function = "",
        ErrorKind kind = ErrorKind::InvalidArgument)
      : std::runtime_error(std::move(message)),
        file_(file),
        line_(line),
        function_(function),
        kind_(kind) {}

  const char* file() const noexcept { return file_; }
  int line() const noexcept { return line_; }
  const char* function() const noexcept { return function_; }
  ErrorKind kind() const noexcept { return kind_; }

  // The same error (kind and origin) with `context` before its message, for a caller that
  // rethrows it with what it was doing: throw e.with_context(path + ": ").
  Error with_context(const std::string& context) const {
    return Error(context + what(), file_, line_, function_, kind_);
  }

 private:
  const char* file_;
  int line_;
  const char* function_;
  ErrorKind kind_;
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

[[noreturn]] void throw_error(std::string message, const char* file, int line, const char* function,
                              ErrorKind kind = ErrorKind::InvalidArgument);

}  // namespace detail
}  // namespace torchlet

// Throws torchlet::Error of kind `kind` (an ErrorKind's name: Index, IO, ...) with the
// streamed message when cond is false.
#define TORCHLET_CHECK_KIND(kind, cond, ...)                                              \
  do {                                                                                    \
    if (!(cond)) [[unlikely]] {                                                           \
      ::torchlet::detail::throw_error(::torchlet::detail::str_cat(__VA_ARGS__), __FILE__, \
                                      __LINE__, __func__, ::torchlet::ErrorKind::kind);   \
    }                                                                                     \
  } while (false)

// Throws torchlet::Error (an invalid argument) with the streamed message when cond is false.
#define TORCHLET_CHECK(cond, ...) TORCHLET_CHECK_KIND(InvalidArgument, cond, __VA_ARGS__)

// An internal invariant: failing means a bug in torchlet, not in the caller's code.
#define TORCHLET_ASSERT(cond, ...)                                                           \
  do {                                                                                       \
    if (!(cond)) [[unlikely]] {                                                              \
      ::torchlet::detail::throw_error(                                                       \
          ::torchlet::detail::str_cat("torchlet internal error (please report): " #cond " ", \
                                      ##__VA_ARGS__),                                        \
          __FILE__, __LINE__, __func__, ::torchlet::ErrorKind::Internal);                    \
    }                                                                                        \
  } while (false)
