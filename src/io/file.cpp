// Atomic file writes (temporary file, fsync, rename, fsync of the folder) and the up-front
// check that an output path can be written, both on POSIX calls so every failure has errno.
// Errors name the path, the system's reason and, when it helps, what is wrong with the folder.
#include "torchlet/io/file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string>
#include <string_view>

#include "torchlet/error.h"

namespace torchlet::io {
namespace {

namespace fs = std::filesystem;

// The folder a path's file lives in, as the user would name it ("." for a bare file name).
std::string folder_of(const std::string& path) {
  const std::string parent = fs::path(path).parent_path().string();
  return parent.empty() ? "." : parent;
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
std::string write_error(const std::string& path, int error) {
  const std::string problem = folder_problem(folder_of(path));
  return "Cannot write '" + path + "': " + std::strerror(error) +
         (problem.empty() ? "" : " (" + problem + ")");
}

// The temporary file: closed and (unless released) removed when it goes out of scope, so
// every early exit leaves nothing behind.
class TempFile {
 public:
  explicit TempFile(std::string name) : name_(std::move(name)) { fd_ = mkstemp(name_.data()); }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  ~TempFile() {
    if (fd_ >= 0) close(fd_);
    if (!released_) unlink(name_.c_str());
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
  std::string name_;
  int fd_ = -1;
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

// A new file gets rw-r--r-- (mkstemp's is rw-------); a replaced one keeps its permissions.
mode_t mode_for(const std::string& path) {
  struct stat info {};
  if (stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode)) return info.st_mode & 07777;
  return 0644;
}

}  // namespace

void write_file_atomic(const std::string& path, std::string_view content) {
  TORCHLET_CHECK(!path.empty(), "Expected a file path to write, but got an empty one");
  TORCHLET_CHECK(fs::path(path).has_filename(), "Cannot write '", path,
                 "': Expected a file path, but it ends in '/'");
  const std::string folder = folder_of(path);
  TempFile temp(folder + "/." + fs::path(path).filename().string() + ".tmp-XXXXXX");
  TORCHLET_CHECK(temp.fd() >= 0, write_error(path, errno));
  const bool written = write_all(temp.fd(), content) && fchmod(temp.fd(), mode_for(path)) == 0 &&
                       fsync(temp.fd()) == 0;
  TORCHLET_CHECK(written, write_error(path, errno));
  TORCHLET_CHECK(temp.close_fd(), write_error(path, errno));
  TORCHLET_CHECK(rename(temp.name().c_str(), path.c_str()) == 0, write_error(path, errno));
  temp.release();
  // The rename is only durable once the folder's entry is; some file systems cannot fsync a
  // folder (EINVAL), and there is nothing more to do on those.
  const int folder_fd = open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (folder_fd >= 0) {
    const bool synced = fsync(folder_fd) == 0 || errno == EINVAL;
    const int error = errno;
    close(folder_fd);
    TORCHLET_CHECK(synced, "Cannot write '", path, "': ", std::strerror(error),
                   " (while syncing the folder '", folder, "' after replacing the file)");
  }
}

void check_writable_path(const std::string& path, const std::string& what) {
  TORCHLET_CHECK(!path.empty(), what, ": Expected a file path, but got an empty one");
  TORCHLET_CHECK(fs::path(path).has_filename(), what,
                 ": Expected a file path, but got the folder path '", path, "'");
  const std::string folder = folder_of(path);
  struct stat info {};
  const bool folder_exists = stat(folder.c_str(), &info) == 0;
  TORCHLET_CHECK(folder_exists, what, ": Expected a path in an existing folder, but the folder '",
                 folder, "' of '", path, "' does not exist");
  TORCHLET_CHECK(S_ISDIR(info.st_mode), what, ": Expected a path in an existing folder, but '",
                 folder, "' of '", path, "' is not a folder");
  TORCHLET_CHECK(access(folder.c_str(), W_OK | X_OK) == 0, what,
                 ": Expected a path in a writable folder, but the folder '", folder, "' of '", path,
                 "' is not writable");
  const bool is_folder = stat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode);
  TORCHLET_CHECK(!is_folder, what, ": Expected a file path, but '", path, "' is a folder");
}

}  // namespace torchlet::io
