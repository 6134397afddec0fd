// torchlet::train against hand-written eager loops (tensors and a DataLoader, every execution
// mode), its stops (early stopping, NaN, the stop flag, callbacks), its checkpoint hook with the
// SavedModel schema, and scalers made from fitted parameters.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "testing.h"
#include "torchlet/train.h"
#include "torchlet/train/models.h"
#include "torchlet/train/saved_model.h"

namespace torchlet {
namespace {

using testing::all_close;

// The course's data: Iris, 80/20 with random_state 42, MinMax scaled (120 training rows).
struct Course {
  Tensor X, y, X_test, y_test;
};

Course course() {
  const data::Dataset ds = data::load_iris();
  data::Split s = data::train_test_split(ds.X, ds.y, 0.2, 42);
  data::MinMaxScaler scaler;
  return {scaler.fit_transform(s.X_train), s.y_train, scaler.transform(s.X_test), s.y_test};
}

// The course's loop, written out: the loss of every epoch.
std::vector<float> eager_losses(nn::Module& model, optim::Optimizer& opt, const Tensor& X,
                                const Tensor& y, int64_t epochs) {
  std::vector<float> losses;
  for (int64_t e = 0; e < epochs; ++e) {
    opt.zero_grad();
    Tensor loss = cross_entropy(model(X), y);
    loss.backward();
    opt.step();
    losses.push_back(loss.item());
  }
  return losses;
}

// A module FusedMlp cannot take (not an nn::Sequential): the course's struct MLP.
using MLP = testing::CourseMlp;

TEST(Train, OnTensorsEveryExecutionGivesTheHandWrittenLoopsLosses) {
  const Course d = course();
  constexpr int64_t kEpochs = 30;
  manual_seed(0);
  auto reference = nn::make_mlp({4, 10, 3});
  optim::SGD ref_opt(reference->parameters(), 0.1);
  const std::vector<float> want = eager_losses(*reference, ref_opt, d.X, d.y, kEpochs);
  for (Execution mode :
       {Execution::Eager, Execution::Fused, Execution::Compiled, Execution::Auto}) {
    manual_seed(0);
    auto model = nn::make_mlp({4, 10, 3});
    optim::SGD sgd(model->parameters(), 0.1);
    const TrainResult r =
        train(*model, sgd, d.X, d.y, {.epochs = kEpochs, .record_every = 1, .execution = mode});
    EXPECT_EQ(r.stop, StopReason::Completed);
    EXPECT_EQ(r.epochs_done, kEpochs);
    ASSERT_EQ(r.losses.size(), want.size());
    EXPECT_TRUE(all_close(r.losses, want, 1e-6f, 1e-5f)) << static_cast<int>(mode);
    EXPECT_EQ(r.fused, mode == Execution::Fused || mode == Execution::Auto);
    EXPECT_EQ(r.compiled, mode == Execution::Compiled);
    EXPECT_EQ(r.loss_epochs.front(), 1);
    EXPECT_EQ(r.loss_epochs.back(), kEpochs);
    EXPECT_FLOAT_EQ(r.final_loss, r.losses.back());
    EXPECT_TRUE(all_close(testing::parameter_values(*model)[0],
                          testing::parameter_values(*reference)[0], 1e-6f, 1e-5f));
  }
}

TEST(Train, AnyModuleTrainsEagerOrCompiledButOnlyASequentialFuses) {
  const Course d = course();
  manual_seed(1);
  MLP reference;
  optim::Adam ref_opt(reference.parameters(), 0.01);
  const std::vector<float> want = eager_losses(reference, ref_opt, d.X, d.y, 10);
  for (Execution mode : {Execution::Auto, Execution::Compiled}) {
    manual_seed(1);
    MLP model;
    optim::Adam adam(model.parameters(), 0.01);
    const TrainResult r =
        train(model, adam, d.X, d.y, {.epochs = 10, .record_every = 1, .execution = mode});
    EXPECT_TRUE(all_close(r.losses, want, 1e-6f, 1e-5f));
    EXPECT_FALSE(r.fused);
  }
  MLP model;
  optim::SGD sgd(model.parameters(), 0.1);
  EXPECT_EQ(testing::error_of(
                [&] { train(model, sgd, d.X, d.y, {.epochs = 1, .graph = CudaGraph::On}); }),
            "train: Expected a run a CUDA graph can replay, but CUDA graphs need a CUDA device "
            "(--device cuda)");
  EXPECT_NE(testing::error_of([&] {
              train(model, sgd, d.X, d.y, {.epochs = 1, .execution = Execution::Fused});
            }).find("train: Expected for Execution::Fused an nn::Sequential"),
            std::string::npos);
}

TEST(Train, OnALoaderGivesTheHandWrittenLoopsEpochMeansAndWindows) {
  const Course d = course();
  const data::LoaderOptions batches{.batch_size = 32, .shuffle = true, .seed = 3};
  manual_seed(2);
  auto reference = nn::make_mlp({4, 10, 3});
  optim::Adam ref_opt(reference->parameters(), 0.01);
  data::DataLoader ref_loader(d.X, d.y, batches);
  std::vector<float> want, want_windows;
  for (int e = 0; e < 3; ++e) {
    double sum = 0.0, window = 0.0;
    int64_t b = 0;
    for (const data::Batch& batch : ref_loader) {
      ref_opt.zero_grad();
      Tensor loss = cross_entropy((*reference)(batch.input), batch.target);
      loss.backward();
      ref_opt.step();
      sum += loss.item(), window += loss.item();
      if (++b % 3 == 0 || b == ref_loader.size()) {  // windows of 3 batches: 3, then 1
        want_windows.push_back(static_cast<float>(window / (b % 3 == 0 ? 3 : b % 3)));
        window = 0.0;
      }
    }
    want.push_back(static_cast<float>(sum / static_cast<double>(ref_loader.size())));
  }
  manual_seed(2);
  auto model = nn::make_mlp({4, 10, 3});
  optim::Adam adam(model->parameters(), 0.01);
  data::DataLoader loader(d.X, d.y, batches);
  int64_t batch_calls = 0;
  TrainOptions options{.epochs = 3, .record_every = 1, .record_every_batches = 3};
  options.on_batch = [&](int64_t, int64_t, const Tensor&) { return ++batch_calls > 0; };
  const TrainResult r = train(*model, adam, loader, options);
  EXPECT_EQ(batch_calls, 3 * 4);  // 120 rows in batches of 32
  EXPECT_TRUE(all_close(r.losses, want, 1e-6f, 1e-5f));
  EXPECT_TRUE(all_close(r.window_losses, want_windows, 1e-6f, 1e-5f));
  ASSERT_EQ(r.window_at.size(), 6u);
  EXPECT_DOUBLE_EQ(r.window_at[0], 0.75);
  EXPECT_DOUBLE_EQ(r.window_at[1], 1.0);
  EXPECT_DOUBLE_EQ(r.window_at[5], 3.0);
  EXPECT_TRUE(r.fused);  // a narrow Sequential MLP: fused steps on each gathered batch
}

TEST(Train, EarlyStoppingStopsWhenTheValidationLossStopsImproving) {
  const Course d = course();
  manual_seed(0);
  auto model = nn::make_mlp({4, 10, 3});
  // A step too small to move any weight: the validation loss never improves on the first one.
  optim::SGD frozen(model->parameters(), 1e-30);
  TrainOptions options{.epochs = 50, .val_input = d.X_test, .val_target = d.y_test, .patience = 3};
  int64_t validations = 0;
  options.on_epoch = [&](const EpochInfo& info) {
    validations += info.val_loss().defined();
    return true;
  };
  TrainResult r = train(*model, frozen, d.X, d.y, options);
  EXPECT_EQ(r.stop, StopReason::EarlyStopping);
  EXPECT_EQ(r.epochs_done, 4);  // the best at epoch 1, then 3 validations without improvement
  EXPECT_EQ(r.best_epoch, 1);
  EXPECT_EQ(validations, 4);
  // A real step improves it for a while: training goes on past epoch 4.
  optim::SGD sgd(model->parameters(), 0.5);
  options.epochs = 20;
  r = train(*model, sgd, d.X, d.y, options);
  EXPECT_GT(r.best_epoch, 4);
  NoGradGuard no_grad;
  EXPECT_LE(r.best_val_loss, cross_entropy((*model)(d.X_test), d.y_test).item() + 1e-6f);
}

// min_delta: a validation loss is better only below the best by more than min_delta. The stop
// and the best epoch follow that rule on the losses a run without early stopping reads.
TEST(Train, AMinDeltaCountsOnlyDecreasesLargerThanItAsBetter) {
  const Course d = course();
  TrainOptions options{.epochs = 60, .val_input = d.X_test, .val_target = d.y_test};
  std::vector<float> val;
  options.on_epoch = [&](const EpochInfo& info) {
    val.push_back(info.val_loss().item());
    return true;
  };
  const auto run = [&] {
    val.clear();
    manual_seed(0);
    auto model = nn::make_mlp({4, 10, 3});
    optim::SGD sgd(model->parameters(), 0.1);
    return train(*model, sgd, d.X, d.y, options);
  };
  run();
  const std::vector<float> all = val;
  ASSERT_EQ(all.size(), 60u);
  options.patience = 3, options.min_delta = 0.02;
  const TrainResult r = run();
  int64_t best = 1, stop = 60;  // the rule, on the losses of the run without early stopping
  for (int64_t e = 2, bad = 0; e <= 60; ++e) {
    const auto i = static_cast<std::size_t>(e - 1);
    if (all[i] < all[static_cast<std::size_t>(best - 1)] - 0.02) {
      best = e, bad = 0;
    } else if (++bad >= 3) {
      stop = e;
      break;
    }
  }
  ASSERT_LT(stop, 60);  // so the test sees an early stop
  EXPECT_EQ(r.stop, StopReason::EarlyStopping);
  EXPECT_EQ(r.epochs_done, stop);
  EXPECT_EQ(r.best_epoch, best);
  EXPECT_EQ(r.best_val_loss, all[static_cast<std::size_t>(best - 1)]);
  options.min_delta = -1;
  EXPECT_THROW(run(), Error);
}

TEST(Train, RestoreBestPutsTheBestValidationEpochsWeightsBack) {
  const Course d = course();
  for (Execution mode : {Execution::Eager, Execution::Fused}) {
    manual_seed(0);
    auto model = nn::make_mlp({4, 10, 3});
    // Validation labels shifted by one class: fitting the true ones soon makes its loss worse.
    std::vector<int64_t> shifted = d.y_test.to_vector<int64_t>();
    for (int64_t& k : shifted) k = (k + 1) % 3;
    optim::SGD sgd(model->parameters(), 0.5);
    TrainOptions options{
        .epochs = 30, .execution = mode, .val_input = d.X_test, .val_target = tensor(shifted)};
    options.restore_best = true;
    std::vector<std::vector<std::vector<float>>> weights;  // after each epoch
    std::vector<float> val;
    options.on_epoch = [&](const EpochInfo& info) {
      weights.push_back(testing::parameter_values(*model));
      val.push_back(info.val_loss().item());
      return true;
    };
    const TrainResult r = train(*model, sgd, d.X, d.y, options);
    ASSERT_EQ(r.epochs_done, 30);
    const auto best = std::min_element(val.begin(), val.end()) - val.begin();
    ASSERT_LT(best + 1, 30) << "the last epoch was the best: nothing to restore";
    EXPECT_EQ(r.best_epoch, best + 1);
    EXPECT_TRUE(r.restored);
    EXPECT_EQ(testing::parameter_values(*model), weights[static_cast<std::size_t>(best)]);
  }
}

TEST(Train, ANanLossStopsWithTheNonFiniteReason) {
  const Course d = course();
  for (Execution mode : {Execution::Eager, Execution::Fused}) {
    manual_seed(0);
    auto model = nn::make_mlp({4, 10, 3});
    optim::SGD sgd(model->parameters(), 1e30);
    int64_t callbacks = 0;
    TrainOptions options{.epochs = 1000, .execution = mode};
    options.on_epoch = [&](const EpochInfo&) { return ++callbacks > 0; };
    const TrainResult r = train(*model, sgd, d.X, d.y, options);
    EXPECT_EQ(r.stop, StopReason::NonFinite);
    EXPECT_TRUE(std::isnan(r.nonfinite_loss));
    EXPECT_EQ(r.epochs_done, r.nonfinite_epoch);
    if (mode == Execution::Eager) {  // read every epoch on the CPU: seen where it happens
      EXPECT_EQ(r.nonfinite_epoch, 2);
      EXPECT_EQ(r.last_finite_epoch, 1);
      EXPECT_EQ(callbacks, 1);  // not called with the NaN
    } else {                    // the chunked replay is read at its end
      EXPECT_EQ(r.nonfinite_epoch, 100);
      EXPECT_EQ(r.last_finite_epoch, 0);
    }
  }
  // The same kind on a loader; turned off, training runs to the end.
  manual_seed(0);
  auto model = nn::make_mlp({4, 10, 3});
  optim::SGD sgd(model->parameters(), 1e30);
  data::DataLoader loader(d.X, d.y, {.batch_size = 40});
  EXPECT_EQ(train(*model, sgd, loader, {.epochs = 5}).stop, StopReason::NonFinite);
  const TrainResult all = train(*model, sgd, loader, {.epochs = 5, .stop_on_nonfinite = false});
  EXPECT_EQ(all.stop, StopReason::Completed);
  EXPECT_EQ(all.epochs_done, 5);
}

TEST(Train, TheStopFlagStopsAfterTheCurrentEpoch) {
  const Course d = course();
  manual_seed(0);
  auto model = nn::make_mlp({4, 10, 3});
  optim::SGD sgd(model->parameters(), 0.1);
  bool flag = false;
  TrainOptions options{.epochs = 10, .record_every = 1};
  options.should_stop = [&] { return flag; };
  options.on_epoch = [&](const EpochInfo& info) {
    flag = info.epoch() == 3;  // as a signal handler would set it during epoch 3
    return true;
  };
  TrainResult r = train(*model, sgd, d.X, d.y, options);
  EXPECT_EQ(r.stop, StopReason::StopFlag);
  EXPECT_EQ(r.epochs_done, 3);
  EXPECT_EQ(r.losses.size(), 3u);
  // Within an epoch: asked after every batch, and the epoch in progress does not count.
  data::DataLoader loader(d.X, d.y, {.batch_size = 30});
  int64_t steps = 0;
  TrainOptions inside{.epochs = 10, .stop_within_epoch = true};
  inside.on_batch = [&](int64_t, int64_t, const Tensor&) { return ++steps > 0; };
  inside.should_stop = [&] { return steps == 6; };
  r = train(*model, sgd, loader, inside);
  EXPECT_EQ(r.stop, StopReason::StopFlag);
  EXPECT_EQ(steps, 6);
  EXPECT_EQ(r.epochs_done, 1);
  // A callback returning false stops too.
  options.should_stop = nullptr;
  options.on_epoch = [](const EpochInfo& info) { return info.epoch() < 5; };
  r = train(*model, sgd, d.X, d.y, options);
  EXPECT_EQ(r.stop, StopReason::Callback);
  EXPECT_EQ(r.epochs_done, 5);
}

TEST(Train, ACheckpointWrittenByTheHookRoundTrips) {
  testing::TempFolder dir;
  const data::Dataset ds = data::load_iris();
  const data::ScalerParams scaler = data::ScalerParams::fit("standard", ds.X);
  const Tensor X = scaler.transform(ds.X);
  manual_seed(0);
  auto model = nn::make_mlp({4, 6, 3});
  optim::SGD sgd(model->parameters(), 0.1, 0.9);
  const SavedModel card{.layers = {4, 6, 3},
                        .features = ds.feature_names,
                        .classes = ds.class_names,
                        .scaler = scaler,
                        .epochs = 0,
                        .optimizer = "sgd",
                        .lr = 0.1,
                        .momentum = 0.9,
                        .torchlet_version = "test",
                        .optimizer_state = {}};
  std::vector<int64_t> saved_at;
  TrainOptions options{.epochs = 10, .checkpoint_every = 5};
  options.checkpoint = [&](int64_t epoch) {
    SavedModel at = card;
    at.epochs = epoch;
    nn::save(*model, sgd, dir / "m.safetensors", to_metadata(at));
    saved_at.push_back(epoch);
  };
  train(*model, sgd, X, ds.y, options);
  EXPECT_EQ(saved_at, (std::vector<int64_t>{5, 10}));
  const SavedModel back = read_saved_model(dir / "m.safetensors");
  EXPECT_EQ(back.layers, card.layers);
  EXPECT_EQ(back.features, card.features);
  EXPECT_EQ(back.classes, card.classes);
  EXPECT_EQ(back.scaler.kind, "standard");
  EXPECT_EQ(back.scaler.scale, scaler.scale);  // all 17 digits
  EXPECT_EQ(back.scaler.mean, scaler.mean);
  EXPECT_EQ(back.epochs, 10);
  EXPECT_EQ(back.optimizer, "sgd");
  EXPECT_EQ(back.momentum, 0.9);
  EXPECT_EQ(back.optimizer_state, "SGD");
  auto loaded = nn::make_mlp(back.layers);
  nn::load(*loaded, dir / "m.safetensors");
  EXPECT_EQ(testing::parameter_values(*loaded), testing::parameter_values(*model));
}

TEST(Train, ScalersFromFittedParametersTransformLikeTheFittedOnes) {
  const data::Dataset ds = data::load_iris();
  const Tensor fit_rows = ds.X.narrow(0, 0, 100), other = ds.X.narrow(0, 100, 50);
  data::MinMaxScaler minmax;
  minmax.fit(fit_rows);
  data::StandardScaler standard;
  standard.fit(fit_rows);
  const data::MinMaxScaler minmax_again(minmax.scale(), minmax.min());
  const data::StandardScaler standard_again(standard.mean(), standard.scale());
  EXPECT_EQ(minmax_again.transform(other).to_vector<float>(),
            minmax.transform(other).to_vector<float>());
  EXPECT_EQ(standard_again.transform(other).to_vector<float>(),
            standard.transform(other).to_vector<float>());
  const data::ScalerParams params = data::ScalerParams::fit("minmax", fit_rows);
  EXPECT_EQ(params.transform(other).to_vector<float>(), minmax.transform(other).to_vector<float>());
  EXPECT_EQ(data::ScalerParams::fit("none", fit_rows).transform(other).to_vector<float>(),
            other.to_vector<float>());
  EXPECT_EQ(testing::error_of([] {
              data::MinMaxScaler({1.0, 2.0}, {0.0});
            }),
            "Expected MinMaxScaler's scale and min with the same number (>= 1) of values, but "
            "got 2 and 1");
  EXPECT_NE(testing::error_of([] {
              data::StandardScaler({0.0}, {0.0});
            }).find("Expected StandardScaler's parameters finite with scale != 0"),
            std::string::npos);
  EXPECT_EQ(testing::error_of([&] { data::ScalerParams::fit("robust", fit_rows); }),
            "Expected a scaler minmax, standard or none, but got 'robust'");
}

TEST(Train, ImageModelsAreBuiltAsDescribed) {
  const nn::ImageModel mlp = nn::make_image_model("mlp", nn::kImageMlpHidden, 1, 28, 28, 10);
  EXPECT_EQ(mlp.description, "MLP 784-256-128-10");
  const nn::ImageModel cnn = nn::make_image_model("cnn", {}, 1, 28, 28, 10);
  EXPECT_EQ(cnn.description, "CNN conv 1-32-64 3x3 + 2x2 max-pool, Linear 3136-128-10");
  NoGradGuard no_grad;
  EXPECT_EQ((*cnn.net)(zeros({2, 1, 28, 28})).shape(), Shape({2, 10}));
  EXPECT_EQ(testing::error_of([] { nn::make_image_model("cnn", {}, 1, 3, 3, 10); }),
            "make_image_model: Expected for the CNN images of at least 4x4 pixels (two 2x2 "
            "poolings), but got 3x3");
}

}  // namespace
}  // namespace torchlet
