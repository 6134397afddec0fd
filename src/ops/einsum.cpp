// einsum of one or two operands, composed from other ops so its gradient comes with them: a
// letter repeated in one operand takes the diagonal (a mask and a sum), letters in one operand
// only and not in the output are summed first, and the rest is one bmm of
// [batch, kept, contracted] by [batch, contracted, kept], permuted into the output's order.
#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

#include "ops/common.h"
#include "torchlet/functional.h"

namespace torchlet {

namespace {

const char* const kOp = "einsum";

// An operand with one letter per dimension.
struct Term {
  Tensor t;
  std::string letters;
};

bool has(const std::string& s, char c) { return s.find(c) != std::string::npos; }

int64_t size_of(const Term& term, char c) {
  return term.t.shape()[static_cast<int>(term.letters.find(c))];
}

// The diagonal over the two dimensions a letter labels twice ("ii->i"), until none repeats.
Term take_diagonals(Term term) {
  for (std::size_t i = 0; i < term.letters.size(); ++i) {
    const std::size_t j = term.letters.find(term.letters[i], i + 1);
    if (j == std::string::npos) continue;
    const int a = static_cast<int>(i), b = static_cast<int>(j);
    const int64_t n = term.t.shape()[a];
    TORCHLET_CHECK(term.t.shape()[b] == n, kOp, ": Expected the dimensions labelled '",
                   term.letters[i], "' to have one size, but got ", n, " and ", term.t.shape()[b]);
    // x * eye over (a, b), summed over b: x[.., k, .., k, ..] at position k of a.
    Shape eye_shape = term.t.shape();
    for (int d = 0; d < eye_shape.size(); ++d) eye_shape[d] = 1;
    Shape rows = eye_shape, cols = eye_shape;
    rows[a] = n, cols[b] = n;
    const TensorOptions options = TensorOptions(kInt64).with_device(term.t.device());
    const Tensor eye = (arange(n, options).reshape(rows) == arange(n, options).reshape(cols));
    term.t = (term.t * eye.to(term.t.dtype())).sum(b);
    term.letters.erase(j, 1);
    --i;  // the same letter may repeat a third time
  }
  return term;
}

// Sums the dimensions whose letters `keep` does not hold.
Term sum_except(Term term, const std::string& keep) {
  for (int d = static_cast<int>(term.letters.size()) - 1; d >= 0; --d) {
    if (has(keep, term.letters[d])) continue;
    term.t = term.t.sum(d);
    term.letters.erase(static_cast<std::size_t>(d), 1);
  }
  return term;
}

// The dimensions of term ordered as `order` lists their letters.
Tensor arranged(const Term& term, const std::string& order) {
  std::vector<int64_t> dims;
  for (char c : order) dims.push_back(static_cast<int64_t>(term.letters.find(c)));
  return term.t.permute(dims);
}

int64_t product(const Term& term, const std::string& letters) {
  int64_t p = 1;
  for (char c : letters) p *= size_of(term, c);
  return p;
}

}  // namespace

Tensor einsum(const std::string& equation, const std::vector<Tensor>& tensors) {
  std::string eq;
  for (char c : equation)
    if (c != ' ') eq += c;
  const std::size_t arrow = eq.find("->");
  const std::string lhs = eq.substr(0, arrow);
  std::vector<std::string> inputs;
  for (std::size_t start = 0;;) {
    const std::size_t comma = lhs.find(',', start);
    inputs.push_back(lhs.substr(start, comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  TORCHLET_CHECK(inputs.size() <= 2, kOp,
                 ": Expected an equation of one or two operands, but got \"", equation, "\"");
  TORCHLET_CHECK(inputs.size() == tensors.size(), kOp, ": Expected ", inputs.size(),
                 " tensors for the equation \"", equation, "\", but got ", tensors.size());
  std::vector<Term> terms;
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    ops::check_defined(kOp, {"operands", tensors[k]});
    for (char c : inputs[k])
      TORCHLET_CHECK(std::isalpha(static_cast<unsigned char>(c)), kOp,
                     ": Expected subscripts of letters (no ellipsis), but got \"", equation, "\"");
    TORCHLET_CHECK(static_cast<int>(inputs[k].size()) == tensors[k].dim(), kOp, ": Expected ",
                   inputs[k].size(), " dimensions for operand ", k, " (\"", inputs[k],
                   "\"), but got shape ", tensors[k].shape());
    terms.push_back(take_diagonals({tensors[k], inputs[k]}));
  }
  if (terms.size() == 2)
    ops::check_same_device(kOp, {{"operand 0", tensors[0]}, {"operand 1", tensors[1]}});
  std::string out;
  if (arrow != std::string::npos) {
    out = eq.substr(arrow + 2);
  } else {  // implicit output: the letters used once, in alphabetical order
    const std::string all = inputs.size() == 2 ? inputs[0] + inputs[1] : inputs[0];
    for (char c : all)
      if (std::count(all.begin(), all.end(), c) == 1) out += c;
    std::sort(out.begin(), out.end());
  }
  for (std::size_t i = 0; i < out.size(); ++i) {
    TORCHLET_CHECK(std::isalpha(static_cast<unsigned char>(out[i])) &&
                       out.find(out[i], i + 1) == std::string::npos,
                   kOp, ": Expected output subscripts of distinct letters, but got \"", out, "\"");
    bool found = false;
    for (const Term& t : terms) found = found || has(t.letters, out[i]);
    TORCHLET_CHECK(found, kOp, ": Expected every output subscript in an operand, but '", out[i],
                   "' is in none of \"", equation, "\"");
  }
  if (terms.size() == 1) {
    const Term t = sum_except(terms[0], out);
    return arranged(t, out);
  }
  Term a = sum_except(terms[0], out + terms[1].letters);
  Term b = sum_except(terms[1], out + terms[0].letters);
  std::string batch, contracted, a_kept, b_kept;
  for (char c : a.letters) {
    if (has(b.letters, c)) {
      TORCHLET_CHECK(size_of(a, c) == size_of(b, c), kOp, ": Expected subscript '", c,
                     "' to have one size in both operands, but got ", size_of(a, c), " and ",
                     size_of(b, c));
      (has(out, c) ? batch : contracted) += c;
    } else {
      a_kept += c;
    }
  }
  for (char c : b.letters)
    if (!has(a.letters, c)) b_kept += c;
  const int64_t nb = product(a, batch), m = product(a, a_kept), k = product(a, contracted),
                n = product(b, b_kept);
  const Tensor lhs3 = arranged(a, batch + a_kept + contracted).reshape({nb, m, k});
  const Tensor rhs3 = arranged(b, batch + contracted + b_kept).reshape({nb, k, n});
  std::vector<int64_t> sizes;
  for (char c : batch + a_kept) sizes.push_back(size_of(a, c));
  for (char c : b_kept) sizes.push_back(size_of(b, c));
  const Term product_term{bmm(lhs3, rhs3).reshape(Shape(sizes)), batch + a_kept + b_kept};
  return arranged(product_term, out);
}

}  // namespace torchlet
