// IDX files, the format of MNIST and Fashion-MNIST, and loading such a data set as tensors.
// A reader for unsigned-byte IDX files (gzipped or plain) that checks everything a damaged or
// wrong file can get wrong, and loaders that turn the four MNIST-style files into float32
// images and int64 labels. Mini-batching is in loader.h.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "torchlet/tensor.h"

namespace torchlet::data {

// The content of one IDX file: its dimension sizes (1 to 4 of them, each >= 1) and its
// elements in row-major order (data.size() is the product of dims).
struct IdxArray {
  std::vector<int64_t> dims;
  std::vector<uint8_t> data;
};

// The largest element count read_idx accepts (2^31 bytes); a header asking for more is
// treated as damaged rather than allocated.
inline constexpr int64_t kIdxMaxElements = int64_t{1} << 31;

// Reads `path`, gzipped or plain. Only the element type 0x08 (unsigned byte) is supported.
// Throws torchlet::Error naming the file when it is missing or unreadable, does not start
// with the IDX magic 0x0000 08 0N (N = 1..4 dimensions), has another element type, a
// dimension of size 0 or more than kIdxMaxElements elements, ends before its data does, has
// bytes after its data, or is a damaged gzip stream (zlib's message).
IdxArray read_idx(const std::string& path);

// A set of gray images and their class labels, on the CPU.
struct ImageData {
  Tensor images;  // [N, 1, rows, cols] float32, pixel / 255, so in [0, 1]
  Tensor labels;  // [N] int64, in [0, 10)
};

// A data set's training and test parts, the names of its ten classes, and the directory it
// was read from.
struct ImageSplit {
  ImageData train, test;
  std::vector<std::string> class_names;
  std::string dir;
};

// Reads the four MNIST-style files in `dir`: train-images-idx3-ubyte,
// train-labels-idx1-ubyte, t10k-images-idx3-ubyte and t10k-labels-idx1-ubyte, each with or
// without a .gz suffix. limit_train and limit_test keep only the first that many samples
// of each part (-1 keeps all; a limit above the count keeps all), for quick runs and tests;
// the files are still read and checked to their end. class_names are "0" to "9".
// Beyond read_idx's checks, throws torchlet::Error when a file is missing (naming the
// directory and the file), images are not 3-D or labels not 1-D, the image and label counts
// differ, or a label is outside [0, 10) (naming the file, the index and the value).
// Memory: the images exist once, as float32 (converted while reading, in small chunks).
ImageSplit load_mnist_dir(const std::string& dir, int64_t limit_train = -1,
                          int64_t limit_test = -1);

// Fashion-MNIST's class names, in label order: "T-shirt/top", "Trouser", ... "Ankle boot".
const std::vector<std::string>& fashion_mnist_class_names();

// The directory holding Fashion-MNIST: $TORCHLET_FASHION_MNIST_DIR when that is set and not
// empty, else /usr/share/datasets/fashion-mnist (Debian's package dataset-fashion-mnist).
// Throws torchlet::Error, saying how to install it, unless the four files are there.
std::string fashion_mnist_dir();

// load_mnist_dir(fashion_mnist_dir(), ...) with Fashion-MNIST's class names.
ImageSplit load_fashion_mnist(int64_t limit_train = -1, int64_t limit_test = -1);

}  // namespace torchlet::data
