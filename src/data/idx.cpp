// read_idx and the MNIST-style loaders. Files are read through zlib's gzread, which reads
// gzipped and plain files alike. IdxStream reads and checks a header, then hands out the data
// in pieces, so images go straight from the file into a float32 tensor without a full-size
// byte copy. Every error names the file.
#include "torchlet/data/idx.h"

#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "torchlet/error.h"
#include "torchlet/io/read.h"

namespace torchlet::data {
namespace {

namespace fs = std::filesystem;

constexpr const char* kFashionMnistDir = "/usr/share/datasets/fashion-mnist";
constexpr std::array<const char*, 4> kMnistFiles = {
    "train-images-idx3-ubyte", "train-labels-idx1-ubyte", "t10k-images-idx3-ubyte",
    "t10k-labels-idx1-ubyte"};

// "[60000, 28, 28]"
std::string dims_text(const std::vector<int64_t>& dims) {
  std::ostringstream out;
  out << '[';
  for (std::size_t i = 0; i < dims.size(); ++i) out << (i ? ", " : "") << dims[i];
  out << ']';
  return out.str();
}

// "0x0d (32-bit float)": an IDX element type code and what the format says it means.
std::string type_text(int code) {
  const char* name = code == 0x08   ? "unsigned byte"
                     : code == 0x09 ? "signed byte"
                     : code == 0x0B ? "16-bit integer"
                     : code == 0x0C ? "32-bit integer"
                     : code == 0x0D ? "32-bit float"
                     : code == 0x0E ? "64-bit float"
                                    : "not an IDX type";
  char hex[8];
  std::snprintf(hex, sizeof hex, "0x%02x", code);
  return std::string(hex) + " (" + name + ")";
}

struct GzClose {
  void operator()(gzFile file) const { gzclose(file); }
};

// One IDX file being read: the constructor reads and checks the header, read() and skip()
// consume the data in order, and finish() checks that nothing follows it.
class IdxStream {
 public:
  explicit IdxStream(std::string path) : path_(std::move(path)) {
    const int fd = io::open_regular_file(path_);
    zlib_name_ = "<fd:" + std::to_string(fd) + ">";
    errno = 0;
    file_.reset(gzdopen(fd, "rb"));
    if (file_ == nullptr) close(fd);
    TORCHLET_CHECK_KIND(IO, file_ != nullptr, path_,
                        ": Cannot open the file: ", errno ? std::strerror(errno) : "out of memory");
    uint8_t magic[4] = {};
    const int64_t got = read_some(magic, 4);
    const int ndims = magic[3];
    if (got < 4 || magic[0] != 0 || magic[1] != 0 || ndims < 1 || ndims > 4) {
      char found[16];
      std::snprintf(found, sizeof found, "0x%02x%02x%02x%02x", magic[0], magic[1], magic[2],
                    magic[3]);
      TORCHLET_CHECK(false, path_,
                     ": Not an IDX file: expected the IDX magic 0x0000 08 0N (N = 1 to 4 "
                     "dimensions), found ",
                     got < 4 ? "only " + std::to_string(got) + " bytes" : std::string(found));
    }
    TORCHLET_CHECK(magic[2] == 0x08, path_, ": Expected the IDX element type ", type_text(0x08),
                   ", the only one supported, but found ", type_text(magic[2]));
    uint8_t sizes[16];
    const int64_t header = 4 + 4 * ndims;
    const int64_t got_sizes = read_some(sizes, 4 * ndims);
    TORCHLET_CHECK(got_sizes == 4 * ndims, path_, ": Truncated header: expected ", header,
                   " bytes (the magic and ", ndims, " dimension sizes), found ", 4 + got_sizes);
    for (int d = 0; d < ndims; ++d) {  // big-endian 32-bit sizes
      const uint8_t* s = sizes + 4 * d;
      dims_.push_back(int64_t{s[0]} << 24 | int64_t{s[1]} << 16 | int64_t{s[2]} << 8 | s[3]);
    }
    numel_ = 1;
    for (std::size_t d = 0; d < dims_.size(); ++d) {
      TORCHLET_CHECK(dims_[d] >= 1, path_, ": Expected every dimension size to be at least 1, ",
                     "but dimension ", d, " of ", dims_text(dims_), " is 0");
      // Checked before multiplying, so the product never overflows.
      TORCHLET_CHECK(numel_ <= kIdxMaxElements / dims_[d], path_, ": The header's dimensions ",
                     dims_text(dims_), " hold more than ", kIdxMaxElements,
                     " elements, the most accepted (the header is probably damaged)");
      numel_ *= dims_[d];
    }
    header_bytes_ = header;
  }

  const std::vector<int64_t>& dims() const noexcept { return dims_; }
  int64_t numel() const noexcept { return numel_; }

  // The next n data bytes into out; throws when the file ends first.
  void read(uint8_t* out, int64_t n) {
    const int64_t got = read_some(out, n);
    consumed_ += got;
    TORCHLET_CHECK(got == n, path_, ": Truncated: expected ", numel_, " data bytes ",
                   dims_text(dims_), " after the ", header_bytes_, "-byte header, found ",
                   consumed_);
  }

  // Reads and drops n data bytes (they are still checked to be there).
  void skip(int64_t n) {
    uint8_t buffer[1 << 16];
    while (n > 0) {
      const int64_t step = std::min<int64_t>(n, sizeof buffer);
      read(buffer, step);
      n -= step;
    }
  }

  // Checks that the data ends the file; call after all numel() bytes were read or skipped.
  void finish() {
    uint8_t buffer[1 << 16];
    int64_t extra = 0;
    for (int64_t got; (got = read_some(buffer, sizeof buffer)) > 0;) extra += got;
    TORCHLET_CHECK(extra == 0, path_, ": Expected the file to end after its ", numel_,
                   " data bytes ", dims_text(dims_), ", but found ", extra, " more bytes");
  }

 private:
  // Up to n bytes into out: fewer only at the end of the file. Throws on a read error or a
  // damaged gzip stream, with zlib's message.
  int64_t read_some(uint8_t* out, int64_t n) {
    int64_t total = 0;
    while (total < n) {
      const unsigned step = static_cast<unsigned>(std::min<int64_t>(n - total, 1 << 30));
      const int got = gzread(file_.get(), out + total, step);
      if (got <= 0) break;
      total += got;
    }
    if (total < n) {
      int code = Z_OK;
      const char* message = gzerror(file_.get(), &code);
      std::string text = message != nullptr ? message : "";
      // zlib puts the name it knows the file by in front of its own messages; we say the path.
      if (text.starts_with(zlib_name_ + ": ")) text.erase(0, zlib_name_.size() + 2);
      TORCHLET_CHECK(code == Z_OK, path_, ": Cannot read the file (damaged gzip stream?): ", text);
    }
    return total;
  }

  std::string path_;
  std::string zlib_name_;  // "<fd:N>": gzdopen's name for the file
  std::unique_ptr<gzFile_s, GzClose> file_;
  std::vector<int64_t> dims_;
  int64_t numel_ = 0, header_bytes_ = 0, consumed_ = 0;
};

// `name` or `name`.gz in dir, or "" when neither exists.
std::string find_in(const std::string& dir, const std::string& name) {
  for (const char* suffix : {"", ".gz"}) {
    const fs::path path = fs::path(dir) / (name + suffix);
    std::error_code ignored;
    if (fs::exists(path, ignored)) return path.string();
  }
  return "";
}

int64_t kept_count(int64_t count, int64_t limit) {
  return limit < 0 ? count : std::min(count, limit);
}

// One part (training or test) of an MNIST-style data set, the first `limit` samples of it.
ImageData load_part(const std::string& images_path, const std::string& labels_path, int64_t limit) {
  const IdxArray labels = read_idx(labels_path);
  TORCHLET_CHECK(labels.dims.size() == 1, labels_path,
                 ": Expected labels with 1 dimension [count], but found ", labels.dims.size(), ": ",
                 dims_text(labels.dims));
  for (std::size_t i = 0; i < labels.data.size(); ++i)
    TORCHLET_CHECK(labels.data[i] < 10, labels_path, ": Expected labels in [0, 10), but label ", i,
                   " (counting from 0) is ", int{labels.data[i]});

  IdxStream images(images_path);
  const std::vector<int64_t>& dims = images.dims();
  TORCHLET_CHECK(dims.size() == 3, images_path,
                 ": Expected images with 3 dimensions [count, rows, cols], but found ", dims.size(),
                 ": ", dims_text(dims));
  TORCHLET_CHECK(dims[0] == labels.dims[0], "Expected as many images as labels, but ", images_path,
                 " has ", dims[0], " images and ", labels_path, " has ", labels.dims[0], " labels");

  const int64_t n = kept_count(dims[0], limit);
  const int64_t pixels = dims[1] * dims[2];
  ImageData part;
  part.images = empty({n, 1, dims[1], dims[2]}, kFloat32);
  // Converted a chunk at a time, straight into the tensor: the only full-size copy is float32.
  std::array<float, 256> scale{};
  for (int v = 0; v < 256; ++v) scale[v] = static_cast<float>(v) / 255.0f;  // as torchvision
  float* out = n > 0 ? part.images.data_ptr<float>() : nullptr;
  uint8_t buffer[1 << 16];
  for (int64_t left = n * pixels; left > 0;) {
    const int64_t step = std::min<int64_t>(left, sizeof buffer);
    images.read(buffer, step);
    for (int64_t i = 0; i < step; ++i) *out++ = scale[buffer[i]];
    left -= step;
  }
  images.skip((dims[0] - n) * pixels);
  images.finish();

  part.labels = empty({n}, kInt64);
  int64_t* label_out = n > 0 ? part.labels.data_ptr<int64_t>() : nullptr;
  for (int64_t i = 0; i < n; ++i) label_out[i] = labels.data[static_cast<std::size_t>(i)];
  return part;
}

}  // namespace

IdxArray read_idx(const std::string& path) {
  IdxStream stream(path);
  IdxArray array;
  array.dims = stream.dims();
  // Grown as the data arrives, so a damaged header that claims 2 GiB in a small file fails
  // as truncated without allocating 2 GiB first.
  constexpr int64_t kChunk = int64_t{1} << 24;
  for (int64_t done = 0; done < stream.numel();) {
    const int64_t step = std::min(kChunk, stream.numel() - done);
    array.data.resize(static_cast<std::size_t>(done + step));
    stream.read(array.data.data() + done, step);
    done += step;
  }
  stream.finish();
  return array;
}

ImageSplit load_mnist_dir(const std::string& dir, int64_t limit_train, int64_t limit_test) {
  TORCHLET_CHECK(limit_train >= -1, "load_mnist_dir: Expected limit_train >= 0, or -1 for all, ",
                 "but got ", limit_train);
  TORCHLET_CHECK(limit_test >= -1, "load_mnist_dir: Expected limit_test >= 0, or -1 for all, ",
                 "but got ", limit_test);
  std::error_code ignored;
  TORCHLET_CHECK(fs::is_directory(dir, ignored), dir,
                 ": No such directory; expected a directory holding the four MNIST-style IDX "
                 "files");
  std::array<std::string, 4> paths;
  for (std::size_t i = 0; i < kMnistFiles.size(); ++i) {
    paths[i] = find_in(dir, kMnistFiles[i]);
    TORCHLET_CHECK(!paths[i].empty(), dir, ": Missing ", kMnistFiles[i], " (or ", kMnistFiles[i],
                   ".gz); an MNIST-style directory holds train-images-idx3-ubyte, "
                   "train-labels-idx1-ubyte, t10k-images-idx3-ubyte and t10k-labels-idx1-ubyte, "
                   "each plain or gzipped");
  }
  ImageSplit split;
  split.train = load_part(paths[0], paths[1], limit_train);
  split.test = load_part(paths[2], paths[3], limit_test);
  for (int c = 0; c < 10; ++c) split.class_names.push_back(std::to_string(c));
  split.dir = dir;
  return split;
}

const std::vector<std::string>& fashion_mnist_class_names() {
  static const std::vector<std::string> names = {"T-shirt/top", "Trouser",   "Pullover", "Dress",
                                                 "Coat",        "Sandal",    "Shirt",    "Sneaker",
                                                 "Bag",         "Ankle boot"};
  return names;
}

std::string fashion_mnist_dir() {
  const char* env = std::getenv("TORCHLET_FASHION_MNIST_DIR");
  const bool from_env = env != nullptr && *env != '\0';
  const std::string dir = from_env ? env : kFashionMnistDir;
  const bool complete = std::all_of(kMnistFiles.begin(), kMnistFiles.end(),
                                    [&](const char* name) { return !find_in(dir, name).empty(); });
  TORCHLET_CHECK(complete, "Fashion-MNIST is not installed: expected it in ", dir,
                 from_env ? " (from TORCHLET_FASHION_MNIST_DIR)" : "",
                 "; install it with `apt install dataset-fashion-mnist`, or pass --data DIR with "
                 "the four MNIST-style IDX files");
  return dir;
}

ImageSplit load_fashion_mnist(int64_t limit_train, int64_t limit_test) {
  ImageSplit split = load_mnist_dir(fashion_mnist_dir(), limit_train, limit_test);
  split.class_names = fashion_mnist_class_names();
  return split;
}

}  // namespace torchlet::data
