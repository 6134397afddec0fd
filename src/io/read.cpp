// Bounded reads of regular files. The file is opened without blocking (a FIFO with no writer
// would otherwise hang the open) and checked with fstat on the open descriptor, so what is
// checked is what is read.
#include "torchlet/io/read.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>

#include "io/file_kind.h"
#include "torchlet/error.h"

namespace torchlet::io {
namespace {

using detail::kind_of_file;
class Descriptor {
 public:
  explicit Descriptor(int fd) : fd_(fd) {}
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;
  ~Descriptor() {
    if (fd_ >= 0) close(fd_);
  }
  int get() const noexcept { return fd_; }
  int release() noexcept { return std::exchange(fd_, -1); }

 private:
  int fd_;
};

}  // namespace

uint64_t max_input_bytes() {
  constexpr uint64_t kMiB = uint64_t{1} << 20;
  const char* env = std::getenv(kMaxInputEnv);
  if (env == nullptr || *env == '\0') return kDefaultMaxInputMiB * kMiB;
  const std::string_view text(env);
  uint64_t mib = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), mib);
  TORCHLET_CHECK(error == std::errc() && end == text.data() + text.size() && mib >= 1 &&
                     mib <= UINT64_MAX / kMiB,
                 kMaxInputEnv, ": Expected a whole number of MiB >= 1, but got '", text, "'");
  return mib * kMiB;
}

int open_regular_file(const std::string& path) {
  Descriptor fd(open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY));
  TORCHLET_CHECK_KIND(IO, fd.get() >= 0, path, ": Cannot open the file: ", std::strerror(errno));
  struct stat info {};
  TORCHLET_CHECK_KIND(IO, fstat(fd.get(), &info) == 0, path,
                      ": Cannot read the file: ", std::strerror(errno));
  TORCHLET_CHECK_KIND(IO, S_ISREG(info.st_mode), path, ": Expected a regular file, but it is ",
                      kind_of_file(info.st_mode));
  const int flags = fcntl(fd.get(), F_GETFL);
  TORCHLET_CHECK_KIND(IO, flags >= 0 && fcntl(fd.get(), F_SETFL, flags & ~O_NONBLOCK) == 0, path,
                      ": Cannot read the file: ", std::strerror(errno));
  return fd.release();
}

namespace {

// Standard input, read to its end but no further than `limit` bytes.
std::string read_stdin(uint64_t limit) {
  std::string content;
  char buffer[1 << 16];
  for (;;) {
    const ssize_t n = read(STDIN_FILENO, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    TORCHLET_CHECK_KIND(IO, n >= 0, "-: Cannot read standard input: ", std::strerror(errno));
    if (n == 0) return content;
    content.append(buffer, static_cast<std::size_t>(n));
    TORCHLET_CHECK_KIND(IO, content.size() <= limit, "-: Expected standard input of at most ",
                        limit, " bytes (set ", kMaxInputEnv,
                        " to a number of MiB to read more), but it holds more");
  }
}

}  // namespace

std::string read_file(const std::string& path) {
  const uint64_t limit = max_input_bytes();
  if (path == "-") return read_stdin(limit);
  const Descriptor fd(open_regular_file(path));
  struct stat info {};
  TORCHLET_CHECK_KIND(IO, fstat(fd.get(), &info) == 0, path,
                      ": Cannot read the file: ", std::strerror(errno));
  const auto size = static_cast<uint64_t>(info.st_size);
  TORCHLET_CHECK_KIND(IO, size <= limit, path, ": Expected a file of at most ", limit,
                      " bytes (set ", kMaxInputEnv, " to a number of MiB to read larger ones), ",
                      "but it has ", size, " bytes");
  std::string content(static_cast<std::size_t>(size), '\0');
  std::size_t got = 0;
  // Read one byte past the size seen, to notice a file that grows while it is read.
  char probe = 0;
  for (;;) {
    char* into = got < content.size() ? content.data() + got : &probe;
    const std::size_t want = got < content.size() ? content.size() - got : 1;
    const ssize_t n = read(fd.get(), into, want);
    if (n < 0 && errno == EINTR) continue;
    TORCHLET_CHECK_KIND(IO, n >= 0, path, ": Cannot read the file: ", std::strerror(errno));
    if (n == 0) break;
    TORCHLET_CHECK_KIND(IO, got < content.size(), path, ": Expected a file of ", size,
                        " bytes, but it grew while it was read");
    got += static_cast<std::size_t>(n);
  }
  content.resize(got);
  return content;
}

}  // namespace torchlet::io
