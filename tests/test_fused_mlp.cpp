// FusedMlp (one backend call for forward, loss and backward) against the eager ops and
// autograd on the same model: loss and every gradient, on awkward batch sizes and widths,
// full batches and gathered rows.
#include "conformance.h"
#include "testing.h"

namespace torchlet {
namespace {

std::unique_ptr<nn::Sequential> make(const std::vector<int64_t>& widths) {
  auto model = std::make_unique<nn::Sequential>();
  for (std::size_t i = 0; i + 1 < widths.size(); ++i) {
    if (i) model->add<nn::ReLU>();
    model->add<nn::Linear>(widths[i], widths[i + 1]);
  }
  return model;
}

// Against eager autograd, not PyTorch: not a row of the conformance table.
#if !defined(TORCHLET_CONFORMANCE_BODIES_ONLY)
struct FusedCase {
  int64_t rows;
  std::vector<int64_t> widths;
};

class FusedMlpTest : public ::testing::TestWithParam<FusedCase> {};

INSTANTIATE_TEST_SUITE_P(Shapes, FusedMlpTest,
                         ::testing::Values(FusedCase{120, {4, 10, 3}}, FusedCase{1, {4, 10, 3}},
                                           FusedCase{7, {5, 16, 8, 2}}, FusedCase{129, {3, 33, 7}},
                                           FusedCase{40, {6, 4}},
                                           // each lane's product of 250 softmax sums (of
                                           // 40 classes) is far outside a float's range
                                           FusedCase{2000, {3, 6, 40}}));

TEST_P(FusedMlpTest, MatchesEagerLossAndGradients) {
  const auto& [rows, widths] = GetParam();
  manual_seed(11);
  auto owner = make(widths);
  nn::Sequential& model = *owner;
  ASSERT_TRUE(nn::FusedMlp::supports(model));
  Tensor X = testing::random_tensor({rows, widths.front()}, 4);
  std::vector<int64_t> labels(static_cast<std::size_t>(rows));
  for (int64_t i = 0; i < rows; ++i) labels[i] = (i * 5 + 2) % widths.back();
  Tensor y = tensor(labels);
  for (bool gathered : {false, true}) {
    Tensor batch;  // every other row, backwards, when gathered
    if (gathered) {
      std::vector<int64_t> pick;
      for (int64_t i = rows - 1; i >= 0; i -= 2) pick.push_back(i);
      batch = tensor(pick);
    }
    model.zero_grad();
    Tensor eager = cross_entropy(model(gathered ? index_select(X, batch) : X),
                                 gathered ? index_select(y, batch) : y);
    eager.backward();
    std::vector<std::vector<float>> want;
    for (const Tensor& p : model.parameters()) want.push_back(p.grad().to_vector<float>());
    model.zero_grad();
    nn::FusedMlp fused(model);
    Tensor loss = fused.loss_and_grads(X, y, batch);
    EXPECT_EQ(loss.dim(), 0);
    EXPECT_NEAR(loss.item(), eager.item(), 1e-5 * std::max(1.0f, eager.item()));
    const auto params = model.parameters();
    for (std::size_t i = 0; i < params.size(); ++i)
      EXPECT_TRUE(testing::all_close(params[i].grad().to_vector<float>(), want[i], 1e-5, 1e-4))
          << "parameter " << i << (gathered ? " (gathered rows)" : "");
  }
}

#endif

NON_TABLE_TEST(FusedMlp, RefusesOtherModelsAndBadData) {
  nn::Sequential two_relus;
  two_relus.add<nn::Linear>(2, 2);
  two_relus.add<nn::ReLU>();
  EXPECT_FALSE(nn::FusedMlp::supports(two_relus));  // ends with ReLU
  nn::Sequential no_bias;
  no_bias.add<nn::Linear>(2, 2, false);
  EXPECT_FALSE(nn::FusedMlp::supports(no_bias));
  EXPECT_THROW(nn::FusedMlp{no_bias}, Error);
  nn::Sequential ok;
  ok.add<nn::Linear>(2, 3);
  nn::FusedMlp fused(ok);
  EXPECT_THROW(fused.loss_and_grads(ones({4, 3}), tensor({0, 1, 2, 0})), Error);         // features
  EXPECT_THROW(fused.loss_and_grads(ones({2, 2}), tensor({0, 3})), Error);               // class 3
  EXPECT_THROW(fused.loss_and_grads(ones({2, 2}), tensor({0, 1}), tensor({2})), Error);  // row
}

// The CPU keeps its last full batch laid out between calls: the same tensors with new values
// are laid out and checked again, and a gathered batch is never taken for the full one.
NON_TABLE_TEST(FusedMlp, SeesABatchChangedInPlace) {
  manual_seed(3);
  auto owner = make({4, 10, 3});
  nn::Sequential& model = *owner;
  Tensor X = testing::random_tensor({24, 4}, 5);
  std::vector<int64_t> labels(24);
  for (int64_t i = 0; i < 24; ++i) labels[i] = i % 3;
  Tensor y = tensor(labels);
  nn::FusedMlp fused(model);
  auto expect_eager_loss = [&](const Tensor& rows) {
    const Tensor batch_x = rows.defined() ? index_select(X, rows) : X;
    const Tensor batch_y = rows.defined() ? index_select(y, rows) : y;
    EXPECT_NEAR(fused.loss_and_grads(X, y, rows).item(),
                cross_entropy(model(batch_x), batch_y).item(), 1e-5);
  };
  expect_eager_loss(Tensor());
  X.data_ptr<float>()[5] += 2.0f;
  expect_eager_loss(Tensor());
  y.data_ptr<int64_t>()[7] = 0;
  expect_eager_loss(Tensor());
  std::vector<int64_t> all(24);
  for (int64_t i = 0; i < 24; ++i) all[i] = 23 - i;
  expect_eager_loss(tensor(all));
  expect_eager_loss(Tensor());
  y.data_ptr<int64_t>()[3] = 3;
  EXPECT_THROW(fused.loss_and_grads(X, y), Error);
}

NON_TABLE_TEST(FusedMlp, TrainsIrisLikeTheEagerLoop) {
  // 200 SGD steps each way from the same start: the loss curves agree to float rounding.
  auto run = [](bool use_fused) {
    manual_seed(0);
    auto owner = make({4, 10, 3});
    nn::Sequential& model = *owner;
    auto iris = data::load_iris();
    optim::SGD sgd(model.parameters(), 0.05);
    nn::FusedMlp fused(model);
    std::vector<float> losses;
    for (int step = 0; step < 200; ++step) {
      sgd.zero_grad();
      Tensor loss;
      if (use_fused) {
        loss = fused.loss_and_grads(iris.X, iris.y);
      } else {
        loss = cross_entropy(model(iris.X), iris.y);
        loss.backward();
      }
      sgd.step();
      losses.push_back(loss.item());
    }
    return losses;
  };
  EXPECT_TRUE(testing::all_close(run(true), run(false), 1e-5, 1e-4));
}

}  // namespace
}  // namespace torchlet

namespace torchlet {
namespace {

CONFORMANCE_TEST(FusedMlp, ReplayedSgdStepsMatchOneStepAtATime) {
  auto run = [](bool replay) {
    manual_seed(2);
    nn::Sequential model;
    model.add<nn::Linear>(4, 10);
    model.add<nn::ReLU>();
    model.add<nn::Linear>(10, 3);
    auto iris = data::load_iris();
    optim::SGD sgd(model.parameters(), 0.1, 0.0, 0.01);
    nn::FusedMlp fused(model);
    std::vector<float> losses;
    if (replay) {
      for (int chunk = 0; chunk < 3; ++chunk)
        for (float l : fused.train_sgd(iris.X, iris.y, sgd, 40).to_vector<float>())
          losses.push_back(l);
    } else {
      for (int step = 0; step < 120; ++step) {
        sgd.zero_grad();
        losses.push_back(fused.loss_and_grads(iris.X, iris.y).item());
        sgd.step();
      }
    }
    losses.push_back(model.parameters()[0].sum().item());  // the weights end up the same too
    return losses;
  };
  EXPECT_TRUE(testing::all_close(run(true), run(false), 1e-6, 1e-5));
}

NON_TABLE_TEST(FusedMlp, ReplayRefusesMomentumAndForeignOptimizers) {
  nn::Sequential model;
  model.add<nn::Linear>(2, 2);
  nn::FusedMlp fused(model);
  optim::SGD momentum(model.parameters(), 0.1, 0.9);
  EXPECT_THROW(fused.train_sgd(ones({2, 2}), tensor({0, 1}), momentum, 5), Error);
  nn::Linear other(2, 2);
  optim::SGD foreign(other.parameters(), 0.1);
  EXPECT_THROW(fused.train_sgd(ones({2, 2}), tensor({0, 1}), foreign, 5), Error);
}

}  // namespace
}  // namespace torchlet
