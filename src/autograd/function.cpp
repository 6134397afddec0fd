// Custom autograd functions (torchlet/autograd/function.h): the node that runs a Function's
// static backward, and its context.
#include <cxxabi.h>

#include <cstdlib>

#include "autograd/node.h"
#include "torchlet/error.h"

namespace torchlet::autograd {

const tensor_list& AutogradContext::get_saved_variables() const {
  TORCHLET_CHECK(!released_,
                 "Trying to backward through the graph a second time (or directly access saved "
                 "tensors after they have already been freed). Specify retain_graph=true if you "
                 "need to backward through the graph a second time or if you need to access "
                 "saved tensors after calling backward.");
  return saved_;
}

void AutogradContext::release() {
  saved_.clear();
  released_ = true;
}

namespace detail {

namespace {

class CustomNode final : public Node {
 public:
  CustomNode(std::string name, std::shared_ptr<AutogradContext> ctx, std::vector<std::size_t> at,
             std::size_t arg_count, CustomBackward backward)
      : name_(std::move(name)),
        ctx_(std::move(ctx)),
        at_(std::move(at)),
        arg_count_(arg_count),
        backward_(std::move(backward)) {}
  const char* name() const override { return name_.c_str(); }
  Grads apply(const Tensor& grad_output) override {
    const tensor_list grads = backward_(ctx_.get(), {grad_output});
    TORCHLET_CHECK(grads.size() == arg_count_, name_,
                   ": Expected backward to return one gradient per forward argument (", arg_count_,
                   "), but got ", grads.size());
    Grads out;
    for (std::size_t k = 0; k < at_.size(); ++k) out[k] = grads[at_[k]];
    for (std::size_t i = 0; i < arg_count_; ++i) {
      bool is_input = false;
      for (std::size_t a : at_) is_input = is_input || a == i;
      TORCHLET_CHECK(is_input || !grads[i].defined(), name_,
                     ": Expected an undefined gradient for forward argument ", i,
                     " (not a Tensor), but got a defined one");
    }
    return out;
  }
  void release() override { ctx_->release(); }

 private:
  std::string name_;
  std::shared_ptr<AutogradContext> ctx_;
  std::vector<std::size_t> at_;  // each input's position among the forward arguments
  std::size_t arg_count_;
  CustomBackward backward_;
};

}  // namespace

std::string demangle(const char* name) {
  int status = 0;
  char* plain = abi::__cxa_demangle(name, nullptr, nullptr, &status);
  std::string out = status == 0 && plain ? plain : name;
  std::free(plain);
  const auto colon = out.rfind("::");
  return colon == std::string::npos ? out : out.substr(colon + 2);
}

Tensor record_custom(std::string name, std::shared_ptr<AutogradContext> ctx,
                     const tensor_list& inputs, const std::vector<std::size_t>& arg_index,
                     std::size_t arg_count, Tensor output, CustomBackward backward) {
  TORCHLET_CHECK(inputs.size() <= static_cast<std::size_t>(kMaxInputs), name, ": Expected at most ",
                 kMaxInputs, " Tensor arguments, but got ", inputs.size());
  TORCHLET_CHECK(output.defined(), name, ": Expected forward to return a defined Tensor");
  for (const Tensor& input : inputs)
    if (input.defined() && output.impl() == input.impl()) output = output.detach();
  bool record = is_grad_enabled();
  bool any = false;
  for (const Tensor& input : inputs) any = any || (input.defined() && input.requires_grad());
  if (!record || !any) return output;
  auto node = std::make_shared<CustomNode>(std::move(name), std::move(ctx), arg_index, arg_count,
                                           std::move(backward));
  const Tensor* in[kMaxInputs] = {};
  const Tensor none;
  for (int k = 0; k < kMaxInputs; ++k)
    in[k] = static_cast<std::size_t>(k) < inputs.size() ? &inputs[k] : &none;
  connect(output, std::move(node), {in[0], in[1], in[2]});
  return output;
}

}  // namespace detail

}  // namespace torchlet::autograd
