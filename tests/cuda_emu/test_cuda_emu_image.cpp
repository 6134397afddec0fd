// The image kernels (image.cu) and the optimizer updates (optim.cu) in the emulator against the
// CPU backend: im2col and col2im, max pooling both ways (padding, overlapping windows, ties),
// dropout's mask, and SGD (momentum, Nesterov, weight decay; first and later steps) and Adam
// over several parameters in one launch; the four updates again in float64.
#include "cuda_emu/emu_testing.h"

namespace torchlet::emu::testing {
namespace {

using backend::Window2d;

// A window over [batch, channels, height, width], its output size derived.
Window2d window(int64_t b, int64_t c, int64_t h, int64_t w, int64_t kh, int64_t kw, int64_t s,
                int64_t p) {
  return {b, c, h, w, kh, kw, s, s, p, p, (h + 2 * p - kh) / s + 1, (w + 2 * p - kw) / s + 1};
}
const Window2d kWindows[] = {window(1, 1, 5, 5, 3, 3, 1, 0), window(2, 3, 7, 6, 3, 2, 2, 1),
                             window(1, 2, 9, 9, 3, 3, 2, 1), window(3, 1, 4, 5, 2, 2, 2, 0)};

std::string str(const Window2d& w) {
  return "image [" + std::to_string(w.batch) + ", " + std::to_string(w.channels) + ", " +
         std::to_string(w.height) + ", " + std::to_string(w.width) + "] kernel " +
         std::to_string(w.kernel_h) + "x" + std::to_string(w.kernel_w) + " stride " +
         std::to_string(w.stride_h) + " pad " + std::to_string(w.pad_h);
}

std::size_t image_size(const Window2d& w) {
  return static_cast<std::size_t>(w.batch * w.channels * w.height * w.width);
}
std::size_t col_size(const Window2d& w) {
  return static_cast<std::size_t>(w.channels * w.kernel_h * w.kernel_w * w.batch * w.out_h *
                                  w.out_w);
}
std::size_t out_size(const Window2d& w) {
  return static_cast<std::size_t>(w.batch * w.channels * w.out_h * w.out_w);
}

TEST(CudaEmuImage, Im2colAndCol2im) {
  for_each_order([] {
    for (const Window2d& w : kWindows) {
      const std::vector<float> image = uniform(image_size(w), 40);
      std::vector<float> col(col_size(w)), col_ref(col_size(w));
      kernels::im2col(image.data(), col.data(), w, nullptr);
      cpu().im2col(image.data(), col_ref.data(), w);
      expect_close(col, col_ref, 0.0, "im2col " + str(w));
      std::vector<float> back(image_size(w)), back_ref(image_size(w));
      kernels::col2im(col_ref.data(), back.data(), w, nullptr);
      cpu().col2im(col_ref.data(), back_ref.data(), w);
      expect_close(back, back_ref, 0.0, "col2im " + str(w));  // the same sums, bit for bit
    }
  });
}

TEST(CudaEmuImage, MaxPoolForwardAndBackwardWithTies) {
  for_each_order([] {
    for (const Window2d& w : kWindows) {
      std::vector<float> x = uniform(image_size(w), 41);
      for (std::size_t i = 0; i < x.size(); i += 3) x[i] = 1.0f;  // ties
      std::vector<float> y(out_size(w)), y_ref(out_size(w));
      std::vector<int64_t> arg(out_size(w)), arg_ref(out_size(w));
      kernels::max_pool2d_forward(x.data(), y.data(), arg.data(), w, nullptr);
      cpu().max_pool2d_forward(x.data(), y_ref.data(), arg_ref.data(), w);
      expect_close(y, y_ref, 0.0, "max_pool2d " + str(w));
      EXPECT_EQ(arg, arg_ref) << "max_pool2d argmax " << str(w);
      const std::vector<float> dy = uniform(out_size(w), 42);
      std::vector<float> dx(image_size(w)), dx_ref(image_size(w));
      kernels::max_pool2d_backward(dy.data(), arg_ref.data(), dx.data(), w, nullptr);
      cpu().max_pool2d_backward(dy.data(), arg_ref.data(), dx_ref.data(), w);
      expect_close(dx, dx_ref, 0.0, "max_pool2d backward " + str(w));
    }
  });
}

TEST(CudaEmuImage, DropoutDrawsTheCpuMask) {
  const int64_t n = 1000;
  const std::vector<float> x = uniform(n, 43);
  for_each_order([&] {
    std::vector<float> y(n), mask(n), y_ref(n), mask_ref(n);
    kernels::dropout_forward(x.data(), y.data(), mask.data(), n, 0.3f, 99, nullptr);
    cpu().dropout_forward(x.data(), y_ref.data(), mask_ref.data(), n, 0.3f, 99);
    expect_close(mask, mask_ref, 0.0, "dropout mask");
    expect_close(y, y_ref, 0.0, "dropout");
  });
}

// Three parameters of awkward sizes, with state, as one launch updates them; of element type T.
template <typename T = float>
struct Params {
  std::vector<std::vector<T>> param, grad, state1, state2, state3;
  std::vector<int64_t> steps;  // Adam's step count per parameter (the kernel adds one)
  explicit Params(uint64_t seed) {
    for (std::size_t n : {1u, 300u, 7u}) {
      param.push_back(widened(uniform(n, seed++)));
      grad.push_back(widened(uniform(n, seed++)));
      state1.push_back(widened(uniform(n, seed++)));
      state2.push_back(widened(uniform(n, seed++, 0.0f, 1.0f)));
      state3.push_back(widened(uniform(n, seed++, -0.1f, 0.1f)));
    }
  }
  // The updates of a step after `done` earlier ones.
  std::vector<backend::ParamUpdate> updates(int64_t done) {
    steps.assign(param.size(), done);
    std::vector<backend::ParamUpdate> u;
    for (std::size_t k = 0; k < param.size(); ++k)
      u.push_back({param[k].data(), grad[k].data(), state1[k].data(), state2[k].data(), &steps[k],
                   static_cast<int64_t>(param[k].size()), state3[k].data(), dtype_of<T>()});
    return u;
  }
  static std::vector<T> widened(const std::vector<float>& v) { return {v.begin(), v.end()}; }
};

kernels::Updates pack(const std::vector<backend::ParamUpdate>& u) {
  kernels::Updates out{};
  for (const backend::ParamUpdate& p : u) out.u[out.count++] = p;
  return out;
}

template <typename T>
void expect_same(const Params<T>& got, const Params<T>& want, const std::string& what,
                 double rtol = 1e-6) {
  for (std::size_t k = 0; k < got.param.size(); ++k) {
    expect_close(got.param[k], want.param[k], rtol, what + " param " + std::to_string(k));
    expect_close(got.state1[k], want.state1[k], rtol, what + " state1 " + std::to_string(k));
    expect_close(got.state2[k], want.state2[k], rtol, what + " state2 " + std::to_string(k));
    expect_close(got.state3[k], want.state3[k], rtol, what + " state3 " + std::to_string(k));
  }
}

TEST(CudaEmuOptim, SgdFirstAndLaterStepsWithEveryOption) {
  const backend::SgdOptions options[] = {{0.1f, 0.0f, 0.0f, false},
                                         {0.1f, 0.9f, 0.01f, false},
                                         {0.05f, 0.8f, 0.0f, true},
                                         {0.1f, 0.0f, 0.01f, false, true}};
  for_each_order([&] {
    for (const backend::SgdOptions& o : options)
      for (int64_t step : {1, 2}) {
        Params emu(50), ref(50);
        kernels::sgd_step(pack(emu.updates(step)), o, nullptr);
        const auto u = ref.updates(step);
        cpu().sgd_step(u.data(), static_cast<int>(u.size()), o);
        expect_same(emu, ref, "SGD step " + std::to_string(step));
      }
  });
}

TEST(CudaEmuOptim, AdamFirstAndLaterSteps) {
  const backend::AdamOptions all[] = {{0.01f, 0.9f, 0.999f, 1e-8f, 0.02f},
                                      {0.01f, 0.9f, 0.999f, 1e-8f, 0.02f, true, true}};
  for_each_order([&] {
    for (const backend::AdamOptions& options : all)
      for (int64_t done : {0, 4}) {
        Params emu(60), ref(60);
        kernels::adam_step(pack(emu.updates(done)), options, nullptr);
        const auto u = ref.updates(done);
        cpu().adam_step(u.data(), static_cast<int>(u.size()), options);
        expect_same(emu, ref, "Adam step " + std::to_string(done + 1));
        EXPECT_EQ(emu.steps, ref.steps);
        EXPECT_EQ(emu.steps[0], done + 1);
      }
  });
}

TEST(CudaEmuOptim, RmspropWithEveryOption) {
  const backend::RmspropOptions options[] = {{0.01f, 0.99f, 1e-8f, 0.0f, 0.0f, false, false},
                                             {0.01f, 0.9f, 1e-6f, 0.1f, 0.8f, true, true}};
  for_each_order([&] {
    for (const backend::RmspropOptions& o : options) {
      Params emu(70), ref(70);
      kernels::rmsprop_step(pack(emu.updates(0)), o, nullptr);
      const auto u = ref.updates(0);
      cpu().rmsprop_step(u.data(), static_cast<int>(u.size()), o);
      expect_same(emu, ref, "RMSprop step");
    }
  });
}

TEST(CudaEmuOptim, AdagradFirstAndLaterSteps) {
  const backend::AdagradOptions options{0.1f, 0.05f, 0.01f, 1e-10f, true};
  for_each_order([&] {
    for (int64_t done : {0, 3}) {
      Params emu(80), ref(80);
      kernels::adagrad_step(pack(emu.updates(done)), options, nullptr);
      const auto u = ref.updates(done);
      cpu().adagrad_step(u.data(), static_cast<int>(u.size()), options);
      expect_same(emu, ref, "Adagrad step " + std::to_string(done + 1));
      EXPECT_EQ(emu.steps, ref.steps);
    }
  });
}

// The float64 instantiations of the four updates (every option on), in one launch each.
TEST(CudaEmuOptim, EveryOptimizerInFloat64) {
  const auto check = [](const char* what, auto&& step_emu, auto&& step_cpu) {
    Params<double> emu(90), ref(90);
    step_emu(pack(emu.updates(2)));
    const auto u = ref.updates(2);
    step_cpu(u);
    expect_same(emu, ref, what, 1e-14);
    EXPECT_EQ(emu.steps, ref.steps) << what;
  };
  const backend::SgdOptions sgd{0.1, 0.9, 0.01, true, true};
  const backend::AdamOptions adam{0.01, 0.9, 0.999, 1e-8, 0.02, true, true};
  const backend::RmspropOptions rmsprop{0.01, 0.9, 1e-6, 0.1, 0.8, true, true};
  const backend::AdagradOptions adagrad{0.1, 0.05, 0.01, 1e-10, true};
  const auto n = [](const auto& u) { return static_cast<int>(u.size()); };
  for_each_order([&] {
    check(
        "SGD", [&](const kernels::Updates& k) { kernels::sgd_step(k, sgd, nullptr); },
        [&](const auto& u) { cpu().sgd_step(u.data(), n(u), sgd); });
    check(
        "Adam", [&](const kernels::Updates& k) { kernels::adam_step(k, adam, nullptr); },
        [&](const auto& u) { cpu().adam_step(u.data(), n(u), adam); });
    check(
        "RMSprop", [&](const kernels::Updates& k) { kernels::rmsprop_step(k, rmsprop, nullptr); },
        [&](const auto& u) { cpu().rmsprop_step(u.data(), n(u), rmsprop); });
    check(
        "Adagrad", [&](const kernels::Updates& k) { kernels::adagrad_step(k, adagrad, nullptr); },
        [&](const auto& u) { cpu().adagrad_step(u.data(), n(u), adagrad); });
  });
}

}  // namespace
}  // namespace torchlet::emu::testing
