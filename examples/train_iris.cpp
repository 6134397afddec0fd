// The course's experiment with torchlet::train instead of a hand-written loop: the MLP 4-10-3,
// SGD lr 0.01 and 20,000 full-batch epochs, the loss recorded every 200 on the device and
// printed every 5,000 by the callback. torchlet::train picks the fused step on the CPU.
#include <torchlet/torchlet.h>

#include <cstdio>

namespace tl = torchlet;

int main() {
  tl::manual_seed(0);
  auto iris = tl::data::load_iris();
  auto [X_train, X_test, y_train, y_test] = tl::data::train_test_split(iris.X, iris.y, 0.2, 42);
  tl::data::MinMaxScaler scaler;
  X_train = scaler.fit_transform(X_train);
  X_test = scaler.transform(X_test);
  auto model = tl::nn::make_mlp({4, 10, 3});
  tl::optim::SGD optimizer(model->parameters(), /*lr=*/0.01);
  tl::TrainOptions options{.epochs = 20000, .record_every = 200, .print_every = 5000};
  options.on_epoch = [](const tl::EpochInfo& info) {
    if (info.epoch() % 5000 == 0)
      std::printf("epoch %lld: loss %.4f\n", (long long)info.epoch(), info.value());
    return true;
  };
  tl::TrainResult result = tl::train(*model, optimizer, X_train, y_train, options);
  tl::NoGradGuard no_grad;
  float acc = ((*model)(X_test).argmax(1) == y_test).to(tl::kFloat32).mean().item();
  std::printf("%lld epochs in %.3f s, %zu losses recorded, final loss %.4f, test accuracy %.4f\n",
              (long long)result.epochs_done, result.train_s, result.losses.size(),
              result.final_loss, acc);
}
