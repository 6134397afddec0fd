// torchlet::io: write_file_atomic replaces files whole or not at all (a failed write leaves
// the old file and no temporary behind), and check_writable_path's messages, word for word.
// Tests run as root, so failures come from missing folders, files in the way and file size
// limits, not from permissions.
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "testing.h"
#include "torchlet/io/file.h"

namespace torchlet::io {
namespace {

namespace fs = std::filesystem;
using testing::error_of;
using testing::read_text;
using testing::TempFolder;

std::vector<std::string> entries(const std::string& folder) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(folder)) {
    names.push_back(entry.path().filename().string());
  }
  return names;
}

using Names = std::vector<std::string>;

TEST(IoWriteFileAtomic, WritesAndReplacesContentLeavingNoTemporary) {
  TempFolder dir;
  write_file_atomic(dir / "out.txt", "first version, longer than the second\n");
  EXPECT_EQ(read_text(dir / "out.txt"), "first version, longer than the second\n");
  write_file_atomic(dir / "out.txt", "second\n");
  EXPECT_EQ(read_text(dir / "out.txt"), "second\n");
  write_file_atomic(dir / "empty.txt", "");
  EXPECT_EQ(read_text(dir / "empty.txt"), "");
  std::string binary("a\0b\xff", 4);
  write_file_atomic(dir / "binary.bin", binary);
  EXPECT_EQ(read_text(dir / "binary.bin"), binary);
  Names names = entries(dir.path());
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (Names{"binary.bin", "empty.txt", "out.txt"}));
}

TEST(IoWriteFileAtomic, StaleTemporariesAreRemovedButNotOnesARunIsWriting) {
  TempFolder dir;
  std::ofstream(dir / ".out.txt.tmp-Ab3xY9") << "left by kill -9";
  std::ofstream(dir / ".out.txt.tmp-Cd4zW0") << "being written by another run";
  const int writer = open((dir / ".out.txt.tmp-Cd4zW0").c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(writer, 0);
  ASSERT_EQ(flock(writer, LOCK_EX), 0);  // as TempFile holds it while writing
  EXPECT_EQ(remove_stale_temporaries(dir / "out.txt"), (Names{dir / ".out.txt.tmp-Ab3xY9"}));
  EXPECT_EQ(entries(dir.path()), (Names{".out.txt.tmp-Cd4zW0"}));
  close(writer);  // the writer is gone (killed): now its file is stale too
  EXPECT_EQ(remove_stale_temporaries(dir / "out.txt"), (Names{dir / ".out.txt.tmp-Cd4zW0"}));
  EXPECT_TRUE(entries(dir.path()).empty());
}

TEST(IoWriteFileAtomic, NewFilesFollowTheUmaskAndReplacedFilesKeepTheirMode) {
  TempFolder dir;
  struct stat info {};
  const mode_t saved = umask(077);
  write_file_atomic(dir / "private.txt", "x");
  umask(022);
  write_file_atomic(dir / "new.txt", "x");
  umask(saved);
  ASSERT_EQ(stat((dir / "private.txt").c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 07777, 0600u);
  ASSERT_EQ(stat((dir / "new.txt").c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 07777, 0644u);
  chmod((dir / "new.txt").c_str(), 0600);
  write_file_atomic(dir / "new.txt", "y");
  ASSERT_EQ(stat((dir / "new.txt").c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 07777, 0600u);
}

TEST(IoWriteFileAtomic, MissingFolderNamesPathReasonAndFolder) {
  TempFolder dir;
  const std::string path = dir / "nope/loss.svg";
  EXPECT_EQ(error_of([&] { write_file_atomic(path, "data"); }),
            "Cannot write '" + path + "': No such file or directory (the folder '" +
                (dir / "nope") + "' does not exist)");
  EXPECT_TRUE(entries(dir.path()).empty());
}

TEST(IoWriteFileAtomic, FileInPlaceOfTheFolderIsUntouched) {
  TempFolder dir;
  write_file_atomic(dir / "notes.txt", "keep me");
  const std::string path = dir / "notes.txt/loss.svg";
  EXPECT_EQ(error_of([&] { write_file_atomic(path, "data"); }),
            "Cannot write '" + path + "': Not a directory ('" + (dir / "notes.txt") +
                "' is not a folder)");
  EXPECT_EQ(read_text(dir / "notes.txt"), "keep me");
  EXPECT_EQ(entries(dir.path()), Names{"notes.txt"});
}

TEST(IoWriteFileAtomic, FolderAtTheTargetIsUntouchedAndNoTemporaryRemains) {
  TempFolder dir;
  fs::create_directory(dir / "out");
  write_file_atomic(dir / "out/inside.txt", "inside");
  EXPECT_EQ(error_of([&] { write_file_atomic(dir / "out", "data"); }),
            "Cannot write '" + (dir / "out") +
                "': Expected a regular file or a new file name, but it is a folder");
  EXPECT_TRUE(fs::is_directory(dir / "out"));
  EXPECT_EQ(read_text(dir / "out/inside.txt"), "inside");
  EXPECT_EQ(entries(dir.path()), Names{"out"});
}

// Lowers the file size limit (and ignores SIGXFSZ, so write() fails with EFBIG instead of
// killing the process) for the scope: a failure halfway through writing, even as root.
class FileSizeLimit {
 public:
  explicit FileSizeLimit(rlim_t bytes) {
    getrlimit(RLIMIT_FSIZE, &saved_);
    previous_handler_ = signal(SIGXFSZ, SIG_IGN);
    rlimit limit = saved_;
    limit.rlim_cur = bytes;
    setrlimit(RLIMIT_FSIZE, &limit);
  }
  ~FileSizeLimit() {
    setrlimit(RLIMIT_FSIZE, &saved_);
    signal(SIGXFSZ, previous_handler_);
  }

 private:
  rlimit saved_{};
  void (*previous_handler_)(int) = nullptr;
};

TEST(IoWriteFileAtomic, FailedWriteKeepsTheOldFileAndRemovesTheTemporary) {
  TempFolder dir;
  write_file_atomic(dir / "model.json", "old content");
  std::string message;
  {
    FileSizeLimit limit(1024);
    message = error_of([&] { write_file_atomic(dir / "model.json", std::string(8192, 'x')); });
  }
  EXPECT_EQ(message, "Cannot write '" + (dir / "model.json") + "': File too large");
  EXPECT_EQ(read_text(dir / "model.json"), "old content");
  EXPECT_EQ(entries(dir.path()), Names{"model.json"});
}

TEST(IoWriteFileAtomic, RejectsPathsThatNameNoFile) {
  EXPECT_EQ(error_of([] { write_file_atomic("", "x"); }),
            "Expected a file path to write, but got an empty one");
  TempFolder dir;
  EXPECT_EQ(error_of([&] { write_file_atomic(dir.path() + "/", "x"); }),
            "Cannot write '" + dir.path() + "/': Expected a file path, but it ends in '/'");
}

TEST(IoCheckWritablePath, AcceptsNewAndExistingFilesInExistingFolders) {
  TempFolder dir;
  EXPECT_NO_THROW(check_writable_path(dir / "loss.svg", "--plot"));
  EXPECT_TRUE(entries(dir.path()).empty());  // checking creates nothing
  write_file_atomic(dir / "loss.svg", "old");
  EXPECT_NO_THROW(check_writable_path(dir / "loss.svg", "--plot"));
  EXPECT_NO_THROW(check_writable_path("loss.svg", "--plot"));  // in the working folder
}

TEST(IoCheckWritablePath, MessagesNameTheOptionThePathAndTheFolder) {
  EXPECT_EQ(error_of([] { check_writable_path("torchlet-no-such-folder/loss.svg", "--plot"); }),
            "--plot: Expected a path in an existing folder, but the folder "
            "'torchlet-no-such-folder' of 'torchlet-no-such-folder/loss.svg' does not exist");
  TempFolder dir;
  write_file_atomic(dir / "notes.txt", "x");
  EXPECT_EQ(error_of([&] { check_writable_path(dir / "notes.txt/loss.svg", "--plot"); }),
            "--plot: Expected a path in an existing folder, but '" + (dir / "notes.txt") +
                "' of '" + (dir / "notes.txt/loss.svg") + "' is not a folder");
  EXPECT_EQ(error_of([&] { check_writable_path(dir.path(), "--save"); }),
            "--save: Expected a file path, but '" + dir.path() + "' is a folder");
  EXPECT_EQ(error_of([&] { check_writable_path(dir.path() + "/", "--save"); }),
            "--save: Expected a file path, but got the folder path '" + dir.path() + "/'");
  EXPECT_EQ(error_of([] { check_writable_path("", "--save"); }),
            "--save: Expected a file path, but got an empty one");
}

TEST(IoWriteFileAtomic, NotARegularFileIsRefusedAndALinkIsWrittenThrough) {
  TempFolder dir;
  ASSERT_EQ(mkfifo((dir / "fifo").c_str(), 0644), 0);
  EXPECT_EQ(error_of([&] { write_file_atomic(dir / "fifo", "x"); }),
            "Cannot write '" + (dir / "fifo") +
                "': Expected a regular file or a new file name, but it is a FIFO");
  EXPECT_TRUE(fs::is_fifo(dir / "fifo"));
  write_file_atomic(dir / "real.txt", "old");
  fs::create_symlink("real.txt", dir / "link.txt");
  write_file_atomic(dir / "link.txt", "new");
  EXPECT_TRUE(fs::is_symlink(dir / "link.txt"));
  EXPECT_EQ(read_text(dir / "real.txt"), "new");
  Names names = entries(dir.path());
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (Names{"fifo", "link.txt", "real.txt"}));
}

TEST(IoRemoveStaleTemporaries, RemovesOnlyTheTargetsPattern) {
  TempFolder dir;
  for (const char* name : {".m.bin.tmp-a1B2c3", ".m.bin.tmp-a1B2c", ".m.bin.tmp-a1B2c3d",
                           ".n.bin.tmp-a1B2c3", ".m.bin.tmp-a1_2c3"})
    write_file_atomic(dir / name, "x");
  fs::create_directory(dir / ".m.bin.tmp-Folder");
  EXPECT_EQ(remove_stale_temporaries(dir / "m.bin"), (Names{dir / ".m.bin.tmp-a1B2c3"}));
  Names names = entries(dir.path());
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (Names{".m.bin.tmp-Folder", ".m.bin.tmp-a1B2c", ".m.bin.tmp-a1B2c3d",
                          ".m.bin.tmp-a1_2c3", ".n.bin.tmp-a1B2c3"}));
}

TEST(IoSameFile, SameInodeOrSameResolvedPath) {
  TempFolder dir;
  write_file_atomic(dir / "a.txt", "x");
  fs::create_symlink("a.txt", dir / "link.txt");
  fs::create_directory(dir / "sub");
  EXPECT_TRUE(same_file(dir / "a.txt", dir / "link.txt"));
  EXPECT_TRUE(same_file(dir / "a.txt", dir / "sub/../a.txt"));
  EXPECT_TRUE(same_file(dir / "new.txt", dir / "sub/../new.txt"));  // neither exists yet
  EXPECT_FALSE(same_file(dir / "a.txt", dir / "new.txt"));
}

}  // namespace
}  // namespace torchlet::io
