// PyTorch's "Quickstart" tutorial (pytorch/tutorials beginner_source/basics/
// quickstart_tutorial.py) ported to torchlet: Fashion-MNIST, a Flatten + 784-512-512-10 MLP
// with ReLU, CrossEntropyLoss and SGD (lr 1e-3), train and test loops, the state dict saved
// and loaded into a new model, and one prediction. It reads Debian's Fashion-MNIST (exits 77,
// skipped in ctest, without it) instead of downloading. `quickstart --quick` trains one epoch
// of kQuickBatches batches for ctest and exits 1 unless the loss fell, the accuracy is above
// chance (0.1) and the reloaded model predicts exactly as the trained one. What differs from
// the original is listed in README.md ("Porting from LibTorch / PyTorch").
#include <torchlet/torchlet.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

namespace torch = torchlet;
namespace nn = torch::nn;
using torch::data::datasets::MNIST;

// --quick: batches per training epoch (0: all).
int64_t kMaxBatches = 0;
const int64_t kQuickBatches = 200;

// Define model
struct NeuralNetwork : nn::Module {
  NeuralNetwork() {
    register_module("flatten", flatten);
    register_module("linear_relu_stack", linear_relu_stack);
  }

  torch::Tensor forward(const torch::Tensor& x) override {
    auto logits = linear_relu_stack(flatten(x));
    return logits;
  }

  nn::Flatten flatten;
  nn::Sequential linear_relu_stack{
      std::make_shared<nn::Linear>(28 * 28, 512), std::make_shared<nn::ReLU>(),
      std::make_shared<nn::Linear>(512, 512), std::make_shared<nn::ReLU>(),
      std::make_shared<nn::Linear>(512, 10)};
};

// The first and the last loss printed, for --quick's check.
std::vector<float> printed_losses;

template <typename DataLoader>
void train(DataLoader& dataloader, size_t size, torch::Device device, nn::Module& model,
           nn::CrossEntropyLoss& loss_fn, torch::optim::Optimizer& optimizer) {
  model.train();
  int64_t batch = 0;
  for (const auto& [X_, y_] : dataloader) {
    auto X = X_.to(device), y = y_.to(device);

    // Compute prediction error
    auto pred = model(X);
    auto loss = loss_fn(pred, y);

    // Backpropagation
    optimizer.zero_grad();
    loss.backward();
    optimizer.step();

    if (batch % 100 == 0) {
      auto current = batch * X.size(0);
      std::printf("loss: %7f  [%5ld/%5zu]\n", loss.item(), current, size);
      printed_losses.push_back(loss.item());
    }
    if (++batch == kMaxBatches) break;
  }
}

template <typename DataLoader>
double test(DataLoader& dataloader, size_t size, torch::Device device, nn::Module& model,
            nn::CrossEntropyLoss& loss_fn) {
  auto num_batches = dataloader.size();
  model.eval();
  double test_loss = 0, correct = 0;
  {
    torch::NoGradGuard no_grad;
    for (const auto& [X_, y_] : dataloader) {
      auto X = X_.to(device), y = y_.to(device);
      auto pred = model(X);
      test_loss += loss_fn(pred, y).item();
      correct += (pred.argmax(1) == y).to(torch::kFloat32).sum().item();
    }
  }
  test_loss /= num_batches;
  correct /= size;
  std::printf("Test Error: \n Accuracy: %0.1f%%, Avg loss: %8f \n\n", 100 * correct, test_loss);
  return correct;
}

int main(int argc, char** argv) {
  const bool quick = argc > 1 && std::strcmp(argv[1], "--quick") == 0;
  if (quick) kMaxBatches = kQuickBatches;
  const std::string root = "/usr/share/datasets/fashion-mnist";
  if (!std::filesystem::exists(root)) {
    std::cout << "No data set in " << root << ": install dataset-fashion-mnist" << std::endl;
    return 77;
  }

  // Training and test data from Debian's Fashion-MNIST, pixels in [0, 1] (ToTensor()).
  auto training_data = MNIST(root, MNIST::Mode::kTrain);
  auto test_data = MNIST(root, MNIST::Mode::kTest);

  size_t batch_size = 64;

  // Create data loaders.
  using torch::data::samplers::SequentialSampler;
  auto train_dataloader =
      torch::data::make_data_loader<SequentialSampler>(training_data, batch_size);
  auto test_dataloader = torch::data::make_data_loader<SequentialSampler>(test_data, batch_size);

  for (const auto& [X, y] : *test_dataloader) {
    std::cout << "Shape of X [N, C, H, W]: " << X.shape() << std::endl;
    std::cout << "Shape of y: " << y.shape() << " " << y.dtype() << std::endl;
    break;
  }

  // Get cpu or gpu device for training.
  torch::Device device = torch::cuda::is_available() ? torch::Device("cuda") : torch::kCPU;
  std::cout << "Using " << device << " device" << std::endl;

  NeuralNetwork model;
  model.to(device);
  std::cout << model << std::endl;

  nn::CrossEntropyLoss loss_fn;
  torch::optim::SGD optimizer(model.parameters(), /*lr=*/1e-3);

  int epochs = quick ? 1 : 5;
  double accuracy = 0;
  for (int t = 0; t < epochs; ++t) {
    std::printf("Epoch %d\n-------------------------------\n", t + 1);
    train(*train_dataloader, training_data.size().value(), device, model, loss_fn, optimizer);
    accuracy = test(*test_dataloader, test_data.size().value(), device, model, loss_fn);
  }
  std::cout << "Done!" << std::endl;

  nn::save(model, "model.safetensors");
  std::cout << "Saved torchlet Model State to model.safetensors" << std::endl;

  NeuralNetwork loaded;
  nn::load(loaded, "model.safetensors");
  loaded.to(device);

  const std::vector<std::string>& classes = torch::data::fashion_mnist_class_names();

  model.eval();
  loaded.eval();
  auto [x, y] = test_data.get(0);
  torch::NoGradGuard no_grad;
  auto pred = loaded(x.to(device));
  auto predicted = classes[pred[0].argmax(0).item<int64_t>()];
  auto actual = classes[y.item<int64_t>()];
  std::cout << "Predicted: \"" << predicted << "\", Actual: \"" << actual << "\"" << std::endl;

  // --quick's checks: learning, and the reloaded model is the trained one.
  auto batch = test_data.data().narrow(0, 0, 256).to(device);
  const bool same = (model(batch) == loaded(batch)).all().item<bool>();
  std::printf("first loss %.4f, last loss %.4f, accuracy %.3f, reloaded model %s\n",
              printed_losses.front(), printed_losses.back(), accuracy,
              same ? "identical" : "DIFFERENT");
  if (!quick) return 0;
  return printed_losses.back() < printed_losses.front() && accuracy > 0.1 && same ? 0 : 1;
}
