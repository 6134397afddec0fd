// The ops under PyTorch's Python names and keywords, grouped by area; each is bound once as a
// module function (torchlet.exp(x)) and, where PyTorch has it, as a method (x.exp()). A new op
// is one line in its group.
#include <string>

#include "bindings.h"
#include "torchlet/error.h"
#include "torchlet/functional.h"

namespace torchlet::python {
namespace {

using Cls = py::class_<Tensor>;
using Unary = Tensor (*)(const Tensor&);

// Binds f as torchlet.name(input, ...) and Tensor.name(...).
template <typename F, typename... Extra>
void def_both(py::module_& m, Cls& cls, const char* name, F f, const Extra&... extra) {
  m.def(name, f, py::arg("input"), extra...);
  cls.def(name, f, extra...);
}

std::optional<Scalar> optional_scalar(py::handle s) {
  return s.is_none() ? std::nullopt : std::optional<Scalar>(to_scalar(s));
}

// other as a tensor or a number; anything else is Python's NotImplemented (so a reflected
// operator of the other type may run).
template <typename F>
py::object with_operand(const Tensor& a, py::handle other, F f) {
  if (py::isinstance<Tensor>(other)) return py::cast(f(a, other.cast<const Tensor&>()));
  if (is_scalar(other)) return py::cast(f(a, to_scalar(other)));
  return py::reinterpret_borrow<py::object>(Py_NotImplemented);
}

template <typename F>
void def_binary(py::module_& m, Cls& cls, const char* name, F f) {
  auto bound = [f](const Tensor& a, py::handle b) { return with_operand(a, b, f); };
  m.def(name, bound, py::arg("input"), py::arg("other"));
  cls.def(name, bound, py::arg("other"));
}

template <typename F>
void def_operator(Cls& cls, const char* name, F f) {
  cls.def(
      name, [f](const Tensor& a, py::handle b) { return with_operand(a, b, f); },
      py::is_operator());
}

void bind_elementwise(py::module_& m, Cls& cls) {
  const std::pair<const char*, Unary> unary[] = {
#define TORCHLET_UNARY_function(name) {#name, &name},
#define TORCHLET_UNARY_own(name)
#define TORCHLET_UNARY(op, name, api, ...) TORCHLET_UNARY_##api(name)
#include "torchlet/unary_ops.def"
#undef TORCHLET_UNARY
#undef TORCHLET_UNARY_own
#undef TORCHLET_UNARY_function
      {"negative", &neg},
      {"relu", &relu},
      {"logical_not", &logical_not},
      {"isnan", &isnan},
      {"isfinite", &isfinite}};
  py::list names;  // torchlet/__init__.py exports each at the top level, as torch does
  for (const auto& [name, f] : unary) {
    def_both(m, cls, name, f);
    names.append(name);
  }
  m.attr("_unary_ops") = names;
  def_binary(m, cls, "add", [](const Tensor& a, const auto& b) { return a + b; });
  def_binary(m, cls, "sub", [](const Tensor& a, const auto& b) { return a - b; });
  def_binary(m, cls, "mul", [](const Tensor& a, const auto& b) { return a * b; });
  def_binary(m, cls, "div", [](const Tensor& a, const auto& b) { return a / b; });
  def_binary(m, cls, "pow", [](const Tensor& a, const auto& b) { return pow(a, b); });
  def_binary(m, cls, "eq", [](const Tensor& a, const auto& b) { return a == b; });
  def_binary(m, cls, "ne", [](const Tensor& a, const auto& b) { return a != b; });
  def_binary(m, cls, "lt", [](const Tensor& a, const auto& b) { return a < b; });
  def_binary(m, cls, "le", [](const Tensor& a, const auto& b) { return a <= b; });
  def_binary(m, cls, "gt", [](const Tensor& a, const auto& b) { return a > b; });
  def_binary(m, cls, "ge", [](const Tensor& a, const auto& b) { return a >= b; });
  def_both(
      m, cls, "maximum", [](const Tensor& a, const Tensor& b) { return maximum(a, b); },
      py::arg("other"));
  def_both(
      m, cls, "minimum", [](const Tensor& a, const Tensor& b) { return minimum(a, b); },
      py::arg("other"));
  def_both(
      m, cls, "logical_and", [](const Tensor& a, const Tensor& b) { return logical_and(a, b); },
      py::arg("other"));
  def_both(
      m, cls, "logical_or", [](const Tensor& a, const Tensor& b) { return logical_or(a, b); },
      py::arg("other"));
  auto clamp_ = [](const Tensor& x, py::object lo, py::object hi) {
    return clamp(x, optional_scalar(lo), optional_scalar(hi));
  };
  def_both(m, cls, "clamp", clamp_, py::arg("min") = py::none(), py::arg("max") = py::none());
  def_both(m, cls, "clip", clamp_, py::arg("min") = py::none(), py::arg("max") = py::none());
  def_both(
      m, cls, "masked_fill",
      [](const Tensor& x, const Tensor& mask, py::handle v) {
        return masked_fill(x, mask, to_scalar(v));
      },
      py::arg("mask"), py::arg("value"));
  def_both(
      m, cls, "nan_to_num",
      [](const Tensor& x, double nan, std::optional<double> pos, std::optional<double> neg) {
        return nan_to_num(x, nan, pos, neg);
      },
      py::arg("nan") = 0.0, py::arg("posinf") = py::none(), py::arg("neginf") = py::none());
  m.def(
      "where",
      [](const Tensor& c, py::handle a, py::handle b) {
        if (is_scalar(b)) return where(c, a.cast<Tensor>(), to_scalar(b));
        if (is_scalar(a)) return where(c, to_scalar(a), b.cast<Tensor>());
        return where(c, a.cast<Tensor>(), b.cast<Tensor>());
      },
      py::arg("condition"), py::arg("input"), py::arg("other"));
  m.def(
      "result_type",
      [](const Tensor& t, py::handle other) {
        return is_scalar(other) ? result_type(t, to_scalar(other))
                                : result_type(t, other.cast<Tensor>());
      },
      py::arg("tensor"), py::arg("other"));
}

void bind_operators(Cls& cls) {
  def_operator(cls, "__add__", [](const Tensor& a, const auto& b) { return a + b; });
  def_operator(cls, "__radd__", [](const Tensor& a, const auto& b) { return b + a; });
  def_operator(cls, "__sub__", [](const Tensor& a, const auto& b) { return a - b; });
  def_operator(cls, "__rsub__", [](const Tensor& a, const auto& b) { return b - a; });
  def_operator(cls, "__mul__", [](const Tensor& a, const auto& b) { return a * b; });
  def_operator(cls, "__rmul__", [](const Tensor& a, const auto& b) { return b * a; });
  def_operator(cls, "__truediv__", [](const Tensor& a, const auto& b) { return a / b; });
  def_operator(cls, "__rtruediv__", [](const Tensor& a, const auto& b) { return b / a; });
  def_operator(cls, "__pow__", [](const Tensor& a, const auto& b) { return pow(a, b); });
  def_operator(cls, "__rpow__", [](const Tensor& a, const auto& b) { return pow(b, a); });
  def_operator(cls, "__eq__", [](const Tensor& a, const auto& b) { return a == b; });
  def_operator(cls, "__ne__", [](const Tensor& a, const auto& b) { return a != b; });
  def_operator(cls, "__lt__", [](const Tensor& a, const auto& b) { return a < b; });
  def_operator(cls, "__le__", [](const Tensor& a, const auto& b) { return a <= b; });
  def_operator(cls, "__gt__", [](const Tensor& a, const auto& b) { return a > b; });
  def_operator(cls, "__ge__", [](const Tensor& a, const auto& b) { return a >= b; });
  cls.def(
      "__matmul__", [](const Tensor& a, const Tensor& b) { return matmul(a, b); },
      py::is_operator());
  cls.def(
      "__and__", [](const Tensor& a, const Tensor& b) { return a & b; }, py::is_operator());
  cls.def(
      "__or__", [](const Tensor& a, const Tensor& b) { return a | b; }, py::is_operator());
  cls.def("__invert__", [](const Tensor& a) { return ~a; });
  cls.def("__neg__", [](const Tensor& a) { return -a; });
  cls.def("__abs__", [](const Tensor& a) { return abs(a); });
}

// x.add_(other, alpha=1) and friends (Tensor::add_): the same Python object comes back, as
// PyTorch's. As an operator (x += other) an operand of another type is NotImplemented.
template <typename F>
py::object in_place(py::object self, py::handle other, bool op, F f) {
  auto& t = self.cast<Tensor&>();
  if (py::isinstance<Tensor>(other))
    f(t, other.cast<const Tensor&>());
  else if (is_scalar(other))
    f(t, to_scalar(other));
  else if (op)
    return py::reinterpret_borrow<py::object>(Py_NotImplemented);
  else
    throw py::type_error(std::string("Expected other to be a Tensor or a number, but got ") +
                         Py_TYPE(other.ptr())->tp_name);
  return self;
}

void bind_in_place(Cls& cls) {
  auto add = [](Tensor& t, const auto& o, const Scalar& alpha) { t.add_(o, alpha); };
  auto sub = [](Tensor& t, const auto& o, const Scalar& alpha) { t.sub_(o, alpha); };
  auto mul = [](Tensor& t, const auto& o) { t.mul_(o); };
  auto div = [](Tensor& t, const auto& o) { t.div_(o); };
  const auto with_alpha = [&cls](const char* name, const char* op, auto f) {
    cls.def(
        name,
        [f](py::object self, py::handle other, py::handle alpha) {
          const Scalar a = to_scalar(alpha);
          return in_place(self, other, false, [&](Tensor& t, const auto& o) { f(t, o, a); });
        },
        py::arg("other"), py::kw_only(), py::arg("alpha") = 1);
    cls.def(
        op,
        [f](py::object self, py::handle other) {
          return in_place(self, other, true, [&](Tensor& t, const auto& o) { f(t, o, 1); });
        },
        py::is_operator());
  };
  const auto plain = [&cls](const char* name, const char* op, auto f) {
    cls.def(
        name, [f](py::object self, py::handle other) { return in_place(self, other, false, f); },
        py::arg("other"));
    cls.def(
        op, [f](py::object self, py::handle other) { return in_place(self, other, true, f); },
        py::is_operator());
  };
  with_alpha("add_", "__iadd__", add);
  with_alpha("sub_", "__isub__", sub);
  plain("mul_", "__imul__", mul);
  plain("div_", "__itruediv__", div);
}

// torch.return_types.max and friends: (values, indices) with names. Never released: it lives
// as long as the interpreter.
py::handle values_indices;

py::object pair(const std::tuple<Tensor, Tensor>& vi) {
  return values_indices(std::get<0>(vi), std::get<1>(vi));
}

void bind_reductions(py::module_& m, Cls& cls) {
  values_indices = py::module_::import("collections")
                       .attr("namedtuple")("return_types", "values indices")
                       .release();
  def_both(
      m, cls, "sum",
      [](const Tensor& x, py::object dim, bool keep) { return sum(x, dims_of(dim), keep); },
      py::arg("dim") = py::none(), py::arg("keepdim") = false);
  def_both(
      m, cls, "mean",
      [](const Tensor& x, py::object dim, bool keep) { return mean(x, dims_of(dim), keep); },
      py::arg("dim") = py::none(), py::arg("keepdim") = false);
  def_both(
      m, cls, "amax",
      [](const Tensor& x, py::object dim, bool keep) { return amax(x, dims_of(dim), keep); },
      py::arg("dim") = py::tuple(), py::arg("keepdim") = false);
  def_both(
      m, cls, "amin",
      [](const Tensor& x, py::object dim, bool keep) { return amin(x, dims_of(dim), keep); },
      py::arg("dim") = py::tuple(), py::arg("keepdim") = false);
  def_both(
      m, cls, "logsumexp",
      [](const Tensor& x, py::object dim, bool keep) { return logsumexp(x, dims_of(dim), keep); },
      py::arg("dim"), py::arg("keepdim") = false);
  auto extreme = [](bool largest) {
    return [largest](const Tensor& x, py::object dim, bool keep) -> py::object {
      if (dim.is_none()) return py::cast(largest ? max(x) : min(x));
      if (py::isinstance<Tensor>(dim))
        return py::cast(largest ? maximum(x, dim.cast<Tensor>()) : minimum(x, dim.cast<Tensor>()));
      const auto d = dim.cast<int64_t>();
      return pair(largest ? max(x, d, keep) : min(x, d, keep));
    };
  };
  def_both(m, cls, "max", extreme(true), py::arg("dim") = py::none(), py::arg("keepdim") = false);
  def_both(m, cls, "min", extreme(false), py::arg("dim") = py::none(), py::arg("keepdim") = false);
  auto arg_extreme = [](bool largest) {
    return [largest](const Tensor& x, py::object dim, bool keep) {
      if (dim.is_none()) return largest ? argmax(x.reshape({-1}), 0) : argmin(x.reshape({-1}), 0);
      return largest ? argmax(x, dim.cast<int64_t>(), keep) : argmin(x, dim.cast<int64_t>(), keep);
    };
  };
  def_both(m, cls, "argmax", arg_extreme(true), py::arg("dim") = py::none(),
           py::arg("keepdim") = false);
  def_both(m, cls, "argmin", arg_extreme(false), py::arg("dim") = py::none(),
           py::arg("keepdim") = false);
  def_both(
      m, cls, "prod",
      [](const Tensor& x, py::object dim, bool keep) {
        return dim.is_none() ? prod(x) : prod(x, dim.cast<int64_t>(), keep);
      },
      py::arg("dim") = py::none(), py::arg("keepdim") = false);
  auto spread = [](bool is_std) {
    return [is_std](const Tensor& x, py::object dim, py::object unbiased, py::object correction,
                    bool keep) {
      double c = correction.is_none() ? 1.0 : correction.cast<double>();
      if (!unbiased.is_none()) c = unbiased.cast<bool>() ? 1.0 : 0.0;
      return is_std ? torchlet::std(x, dims_of(dim), c, keep) : var(x, dims_of(dim), c, keep);
    };
  };
  for (bool is_std : {false, true})
    def_both(m, cls, is_std ? "std" : "var", spread(is_std), py::arg("dim") = py::none(),
             py::arg("unbiased") = py::none(), py::kw_only(), py::arg("correction") = py::none(),
             py::arg("keepdim") = false);
  def_both(
      m, cls, "norm",
      [](const Tensor& x, double p, py::object dim, bool keep) {
        return norm(x, p, dims_of(dim), keep);
      },
      py::arg("p") = 2.0, py::arg("dim") = py::none(), py::arg("keepdim") = false);
  for (bool every : {true, false})
    def_both(
        m, cls, every ? "all" : "any",
        [every](const Tensor& x, py::object dim, bool keep) {
          if (dim.is_none()) return every ? all(x) : any(x);
          return every ? all(x, dim.cast<int64_t>(), keep) : any(x, dim.cast<int64_t>(), keep);
        },
        py::arg("dim") = py::none(), py::arg("keepdim") = false);
  def_both(
      m, cls, "cumsum", [](const Tensor& x, int64_t dim) { return cumsum(x, dim); },
      py::arg("dim"));
}

void bind_linear_algebra(py::module_& m, Cls& cls) {
  def_both(
      m, cls, "matmul", [](const Tensor& a, const Tensor& b) { return matmul(a, b); },
      py::arg("other"));
  def_both(
      m, cls, "mm", [](const Tensor& a, const Tensor& b) { return mm(a, b); }, py::arg("mat2"));
  def_both(
      m, cls, "bmm", [](const Tensor& a, const Tensor& b) { return bmm(a, b); }, py::arg("mat2"));
  def_both(
      m, cls, "outer", [](const Tensor& a, const Tensor& b) { return outer(a, b); },
      py::arg("vec2"));
  def_both(
      m, cls, "addmm",
      [](const Tensor& x, const Tensor& a, const Tensor& b, py::handle beta, py::handle alpha) {
        return addmm(x, a, b, to_scalar(beta), to_scalar(alpha));
      },
      py::arg("mat1"), py::arg("mat2"), py::kw_only(), py::arg("beta") = 1, py::arg("alpha") = 1);
  def_both(
      m, cls, "baddbmm",
      [](const Tensor& x, const Tensor& a, const Tensor& b, py::handle beta, py::handle alpha) {
        return baddbmm(x, a, b, to_scalar(beta), to_scalar(alpha));
      },
      py::arg("batch1"), py::arg("batch2"), py::kw_only(), py::arg("beta") = 1,
      py::arg("alpha") = 1);
  def_both(
      m, cls, "softmax", [](const Tensor& x, int64_t dim) { return softmax(x, dim); },
      py::arg("dim"));
  def_both(
      m, cls, "log_softmax", [](const Tensor& x, int64_t dim) { return log_softmax(x, dim); },
      py::arg("dim"));
  def_both(
      m, cls, "index_select",
      [](const Tensor& x, int64_t dim, const Tensor& index) { return index_select(x, dim, index); },
      py::arg("dim"), py::arg("index"));
  def_both(
      m, cls, "gather",
      [](const Tensor& x, int64_t dim, const Tensor& index) { return gather(x, dim, index); },
      py::arg("dim"), py::arg("index"));
  def_both(
      m, cls, "scatter",
      [](const Tensor& x, int64_t dim, const Tensor& index, py::object src, py::object value) {
        TORCHLET_CHECK(src.is_none() != value.is_none(),
                       "scatter: Expected exactly one of src and value, but got ",
                       src.is_none() ? "neither" : "both");
        py::handle given = src.is_none() ? value : src;
        if (is_scalar(given)) return scatter(x, dim, index, to_scalar(given));
        return scatter(x, dim, index, given.cast<Tensor>());
      },
      py::arg("dim"), py::arg("index"), py::arg("src") = py::none(), py::kw_only(),
      py::arg("value") = py::none());
  def_both(
      m, cls, "scatter_add",
      [](const Tensor& x, int64_t dim, const Tensor& index, const Tensor& src) {
        return scatter_add(x, dim, index, src);
      },
      py::arg("dim"), py::arg("index"), py::arg("src"));
  def_both(
      m, cls, "index_add",
      [](const Tensor& x, int64_t dim, const Tensor& index, const Tensor& source,
         py::handle alpha) { return index_add(x, dim, index, source, to_scalar(alpha)); },
      py::arg("dim"), py::arg("index"), py::arg("source"), py::kw_only(), py::arg("alpha") = 1);
  m.def(
      "einsum",
      [](const std::string& equation, py::args operands) {
        // torch.einsum("ij,jk", a, b) and torch.einsum("ij,jk", [a, b])
        if (operands.size() == 1 && !py::isinstance<Tensor>(operands[0]))
          return einsum(equation, operands[0].cast<std::vector<Tensor>>());
        return einsum(equation, operands.cast<std::vector<Tensor>>());
      },
      py::arg("equation"));
  m.def(
      "cat", [](const std::vector<Tensor>& ts, int64_t dim) { return cat(ts, dim); },
      py::arg("tensors"), py::arg("dim") = 0);
  m.def(
      "stack", [](const std::vector<Tensor>& ts, int64_t dim) { return stack(ts, dim); },
      py::arg("tensors"), py::arg("dim") = 0);
}

}  // namespace

void bind_ops(py::module_& m, Cls& cls) {
  bind_elementwise(m, cls);
  bind_operators(cls);
  bind_in_place(cls);
  bind_reductions(m, cls);
  bind_linear_algebra(m, cls);
  bind_functional(m);  // bind_functional.cpp
}

}  // namespace torchlet::python
