// The one output writer (temporary file, fsync, rename, fsync of the folder), the up-front check
// that an output path can be written, the clean-up of temporaries a killed run left, and the
// same-file test, all on POSIX calls so every failure has errno. Errors name the path, the
// system's reason and, when it helps, what is wrong with the folder.
#include "torchlet/io/file.h"

#include <fcntl.h>
#include <linux/fs.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <string_view>

#include "io/file_kind.h"
#include "torchlet/error.h"

namespace torchlet::io {
namespace {

using detail::kind_of_file;
namespace fs = std::filesystem;

constexpr std::string_view kTempInfix = ".tmp-";
constexpr std::size_t kTempSuffixChars = 6;
constexpr std::string_view kTempChars =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

// The folder a path's file lives in, as the user would name it ("." for a bare file name).
std::string folder_of(const std::string& path) {
  const std::string parent = fs::path(path).parent_path().string();
  return parent.empty() ? "." : parent;
}

// ".NAME.tmp-": how the names of `target`'s temporary files begin.
std::string temp_prefix(const std::string& target) {
  std::string prefix(".");
  prefix.append(fs::path(target).filename().string()).append(kTempInfix);
  return prefix;
}

// Why a file cannot be created in `folder`, or "" when the folder looks fine.
std::string folder_problem(const std::string& folder) {
  struct stat info {};
  if (stat(folder.c_str(), &info) != 0) {
    return errno == ENOENT || errno == ENOTDIR ? "the folder '" + folder + "' does not exist" : "";
  }
  if (!S_ISDIR(info.st_mode)) return "'" + folder + "' is not a folder";
  if (access(folder.c_str(), W_OK | X_OK) != 0) {
    return "the folder '" + folder + "' is not writable";
  }
  return "";
}

// "Cannot write 'path': <reason> (<what is wrong with the folder>)" for errno `error`.
std::string write_error(const std::string& path, const std::string& target, int error) {
  const std::string problem = folder_problem(folder_of(target));
  return "Cannot write '" + path + "': " + std::strerror(error) +
         (problem.empty() ? "" : " (" + problem + ")");
}

// The file the data goes to: `path`, or the file a symbolic link at `path` leads to.
std::string resolve_target(const std::string& path) {
  struct stat info {};
  if (lstat(path.c_str(), &info) != 0 || !S_ISLNK(info.st_mode)) return path;
  char* real = realpath(path.c_str(), nullptr);
  TORCHLET_CHECK_KIND(IO, real != nullptr, "Cannot write '", path, "': ", std::strerror(errno),
                      " (it is a symbolic link that leads to no file)");
  std::string target(real);
  std::free(real);
  return target;
}

// Why the existing `target` cannot be replaced ("" when it can, or does not exist).
std::string target_problem(const std::string& target) {
  struct stat info {};
  if (stat(target.c_str(), &info) != 0) return "";
  if (!S_ISREG(info.st_mode))
    return std::string("Expected a regular file or a new file name, but it is ") +
           kind_of_file(info.st_mode);
  const int fd = open(target.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) return "";
  int flags = 0;
  const bool fixed =
      ioctl(fd, FS_IOC_GETFLAGS, &flags) == 0 && (flags & (FS_IMMUTABLE_FL | FS_APPEND_FL)) != 0;
  close(fd);
  return fixed ? "Expected a file that can be replaced, but it is immutable or append-only "
                 "(chattr +i or +a)"
               : "";
}

// The temporary file: created new with the process umask, closed and (unless released)
// removed when it goes out of scope, so every early exit leaves nothing behind.
class TempFile {
 public:
  explicit TempFile(const std::string& target) {
    const std::string stem = folder_of(target) + "/" + temp_prefix(target);
    std::random_device seed;
    std::mt19937 random(seed());
    std::uniform_int_distribution<std::size_t> pick(0, kTempChars.size() - 1);
    for (int attempt = 0; attempt < 100 && fd_ < 0; ++attempt) {
      name_ = stem;
      for (std::size_t i = 0; i < kTempSuffixChars; ++i) name_ += kTempChars[pick(random)];
      fd_ = open(name_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
      if (fd_ < 0 && errno != EEXIST) break;
      if (fd_ >= 0 && !lock()) close(fd_), fd_ = -1;  // another run's cleanup took it: anew
    }
  }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  ~TempFile() {
    if (fd_ >= 0) close(fd_);
    if (!released_ && lock_ >= 0) unlink(name_.c_str());
    if (lock_ >= 0) close(lock_);
  }

  int fd() const noexcept { return fd_; }
  const std::string& name() const noexcept { return name_; }
  // Closes the descriptor; false (with errno set) when the last write-back failed.
  bool close_fd() {
    const int fd = fd_;
    fd_ = -1;
    return close(fd) == 0;
  }
  void release() noexcept { released_ = true; }

 private:
  // Holds an flock on the new file, kept by a duplicate descriptor that stays open until the
  // rename is done, so that remove_stale_temporaries in another run leaves it alone (the lock
  // goes with the process, so a killed run's file is free to remove). False when that cleanup
  // locked or removed the file first.
  bool lock() {
    struct stat info {};
    if (flock(fd_, LOCK_EX | LOCK_NB) != 0 || fstat(fd_, &info) != 0 || info.st_nlink == 0)
      return false;
    lock_ = fcntl(fd_, F_DUPFD_CLOEXEC, 0);
    return lock_ >= 0;
  }

  std::string name_;
  int fd_ = -1, lock_ = -1;
  bool released_ = false;
};

bool write_all(int fd, std::string_view content) {
  while (!content.empty()) {
    const ssize_t written = write(fd, content.data(), content.size());
    if (written < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    content.remove_prefix(static_cast<size_t>(written));
  }
  return true;
}

// A replaced file keeps its permissions; a new one has what the umask left of rw-rw-rw-.
bool keep_mode(int fd, const std::string& target) {
  struct stat info {};
  if (stat(target.c_str(), &info) != 0 || !S_ISREG(info.st_mode)) return true;
  return fchmod(fd, info.st_mode & 07777) == 0;
}

bool is_temp_suffix(std::string_view suffix) {
  if (suffix.size() != kTempSuffixChars) return false;
  for (char c : suffix)
    if (kTempChars.find(c) == std::string_view::npos) return false;
  return true;
}

}  // namespace

void write_file_atomic(const std::string& path, std::string_view content) {
  TORCHLET_CHECK(!path.empty(), "Expected a file path to write, but got an empty one");
  TORCHLET_CHECK(fs::path(path).has_filename(), "Cannot write '", path,
                 "': Expected a file path, but it ends in '/'");
  const std::string target = resolve_target(path);
  const std::string problem = target_problem(target);
  TORCHLET_CHECK_KIND(IO, problem.empty(), "Cannot write '", path, "': ", problem);
  const std::string folder = folder_of(target);
  TempFile temp(target);
  TORCHLET_CHECK_KIND(IO, temp.fd() >= 0, write_error(path, target, errno));
  const bool written =
      write_all(temp.fd(), content) && keep_mode(temp.fd(), target) && fsync(temp.fd()) == 0;
  TORCHLET_CHECK_KIND(IO, written, write_error(path, target, errno));
  TORCHLET_CHECK_KIND(IO, temp.close_fd(), write_error(path, target, errno));
  TORCHLET_CHECK_KIND(IO, rename(temp.name().c_str(), target.c_str()) == 0,
                      write_error(path, target, errno));
  temp.release();
  // The rename is only durable once the folder's entry is; some file systems cannot fsync a
  // folder (EINVAL), and there is nothing more to do on those.
  const int folder_fd = open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (folder_fd >= 0) {
    const bool synced = fsync(folder_fd) == 0 || errno == EINVAL;
    const int error = errno;
    close(folder_fd);
    TORCHLET_CHECK_KIND(IO, synced, "Cannot write '", path, "': ", std::strerror(error),
                        " (while syncing the folder '", folder, "' after replacing the file)");
  }
}

void check_writable_path(const std::string& path, const std::string& what) {
  TORCHLET_CHECK(!path.empty(), what, ": Expected a file path, but got an empty one");
  TORCHLET_CHECK(fs::path(path).has_filename(), what,
                 ": Expected a file path, but got the folder path '", path, "'");
  struct stat info {};
  const bool is_folder = stat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode);
  TORCHLET_CHECK(!is_folder, what, ": Expected a file path, but '", path, "' is a folder");
  std::string target;
  try {
    target = resolve_target(path);
  } catch (const Error& e) {
    throw e.with_context(what + ": ");
  }
  const std::string folder = folder_of(target);
  const bool folder_exists = stat(folder.c_str(), &info) == 0;
  const int folder_error = errno;
  TORCHLET_CHECK_KIND(IO, folder_exists || folder_error == ENOENT || folder_error == ENOTDIR, what,
                      ": Cannot use the folder '", folder, "' of '", path,
                      "': ", std::strerror(folder_error));
  TORCHLET_CHECK_KIND(IO, folder_exists, what,
                      ": Expected a path in an existing folder, but the folder '", folder, "' of '",
                      path, "' does not exist");
  TORCHLET_CHECK_KIND(IO, S_ISDIR(info.st_mode), what,
                      ": Expected a path in an existing folder, but '", folder, "' of '", path,
                      "' is not a folder");
  const std::string problem = target_problem(target);
  TORCHLET_CHECK_KIND(IO, problem.empty(), what, ": ", problem, " ('", path, "')");
  // Creating a file there is the one test that sees everything (permissions, a read-only or
  // immutable folder, quotas on inodes); the probe is removed at once.
  const TempFile probe(target);
  TORCHLET_CHECK_KIND(IO, probe.fd() >= 0, what,
                      ": Expected a path in a writable folder, but the folder '", folder, "' of '",
                      path, "' is not writable (", std::strerror(errno), ")");
}

std::vector<std::string> remove_stale_temporaries(const std::string& path) {
  std::vector<std::string> removed;
  if (path.empty() || !fs::path(path).has_filename()) return removed;
  std::string target;
  try {
    target = resolve_target(path);
  } catch (const Error&) {
    return removed;  // nothing to clean beside a link that leads nowhere
  }
  const std::string prefix = temp_prefix(target);
  std::error_code error;
  for (fs::directory_iterator it(folder_of(target), error), end; !error && it != end;
       it.increment(error)) {
    const std::string name = it->path().filename().string();
    if (name.size() != prefix.size() + kTempSuffixChars || name.rfind(prefix, 0) != 0 ||
        !is_temp_suffix(std::string_view(name).substr(prefix.size())))
      continue;
    std::error_code kind_error;
    if (!fs::is_regular_file(it->symlink_status(kind_error))) continue;
    // A file another run is writing now is locked by it (TempFile); only free ones are stale.
    const int fd = open(it->path().c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) continue;
    if (flock(fd, LOCK_EX | LOCK_NB) == 0 && fs::remove(it->path(), kind_error))
      removed.push_back(it->path().string());
    close(fd);
  }
  return removed;
}

bool same_file(const std::string& a, const std::string& b) {
  struct stat first {
  }, second{};
  if (stat(a.c_str(), &first) == 0 && stat(b.c_str(), &second) == 0)
    return first.st_dev == second.st_dev && first.st_ino == second.st_ino;
  std::error_code error;
  const fs::path left = fs::weakly_canonical(fs::absolute(a, error), error);
  const fs::path right = fs::weakly_canonical(fs::absolute(b, error), error);
  return !error && left == right;
}

}  // namespace torchlet::io
