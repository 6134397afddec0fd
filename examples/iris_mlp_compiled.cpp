// The course's program (day 34) with its training step compiled: the same MLP 4-10-3, SGD and
// 20,000 epochs as iris_mlp.cpp, but the step is recorded once by torchlet::compile and replayed
// after that (on the CPU a small MLP's step runs as one fused kernel; on a GPU, a CUDA graph).
#include <torchlet/torchlet.h>

#include <cstdio>

namespace tl = torchlet;
namespace nn = torchlet::nn;

struct MLP : nn::Module {
  nn::Linear fc1{4, 10};  // input layer -> hidden layer
  nn::ReLU relu;
  nn::Linear fc2{10, 3};  // hidden layer -> output layer
  MLP() {
    register_module("fc1", fc1);
    register_module("relu", relu);
    register_module("fc2", fc2);
  }
  tl::Tensor forward(const tl::Tensor& x) override { return fc2(relu(fc1(x))); }
};

int main() {
  tl::Device device = tl::cuda::is_available() ? tl::Device("cuda:0") : tl::Device("cpu");
  tl::manual_seed(0);
  auto iris = tl::data::load_iris();
  auto [X_train, X_test, y_train, y_test] = tl::data::train_test_split(iris.X, iris.y, 0.2, 42);
  tl::data::MinMaxScaler scaler;
  X_train = scaler.fit_transform(X_train).to(device);
  X_test = scaler.transform(X_test).to(device);
  y_train = y_train.to(device);
  y_test = y_test.to(device);
  MLP model;
  model.to(device);
  nn::CrossEntropyLoss criterion;
  tl::optim::SGD optimizer(model.parameters(), /*lr=*/0.01);
  auto step = tl::compile([&] {
    optimizer.zero_grad();
    tl::Tensor loss = criterion(model(X_train), y_train);
    loss.backward();
    optimizer.step();
    return loss;
  });
  std::vector<float> losses;
  for (int epoch = 0; epoch < 20000; ++epoch) {
    tl::Tensor loss = step();  // a new tensor each call: it may be read now or later
    if ((epoch + 1) % 200 == 0) losses.push_back(loss.item());
  }
  tl::NoGradGuard no_grad;
  float acc = (model(X_test).argmax(1) == y_test).to(tl::kFloat32).mean().item();
  std::printf("final loss %.4f, test accuracy %.4f\n", losses.back(), acc);
}
