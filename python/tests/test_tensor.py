"""Tensor creation, conversion, numpy sharing, indexing, printing, grad mode and errors."""

import numpy as np
import pytest

import torchlet


def test_creation_infers_pytorchs_dtypes():
    assert torchlet.tensor([1, 2]).dtype == torchlet.int64
    assert torchlet.tensor([1, 2.5]).dtype == torchlet.float32
    assert torchlet.tensor([True, False]).dtype == torchlet.bool
    assert torchlet.tensor(3).dim() == 0
    assert torchlet.tensor([]).dtype == torchlet.float32
    assert torchlet.tensor([[], []]).shape == (2, 0)
    assert torchlet.tensor([[1, 2, 3], [4, 5, 6]]).shape == (2, 3)
    assert torchlet.tensor([1, 2], dtype=torchlet.float32).tolist() == [1.0, 2.0]
    assert torchlet.FloatTensor([[1, 2]]).dtype == torchlet.float32
    assert torchlet.LongTensor(np.array([0, 2, 1])).tolist() == [0, 2, 1]


def test_arange_gives_pytorchs_dtypes_and_values(torch):
    for args in [(5,), (2.5,), (0, 1, 0.1), (1, 2.5, 0.5), (1.0, -1.0, -0.5), (0, 10, 3), (1.0, 1.0)]:
        ours, theirs = torchlet.arange(*args), torch.arange(*args)
        assert str(ours.dtype).rsplit(".", 1)[-1] == str(theirs.dtype).rsplit(".", 1)[-1], args
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
    assert torchlet.arange(0, 1, 0.25, dtype=torchlet.float64).dtype == torchlet.float64
    for args in [(3.0, 1.0), (0, 4, -1)]:
        with pytest.raises(RuntimeError):
            torch.arange(*args)
        with pytest.raises(RuntimeError, match="arange: Expected end"):
            torchlet.arange(*args)


def test_numpy_arrays_of_every_layout():
    a = np.arange(12, dtype=np.float64).reshape(3, 4)
    for array in (a, a.T, a[:, 1:3], a.astype(np.int32), a > 5):
        t = torchlet.tensor(array)
        np.testing.assert_array_equal(t.numpy(), array)
    assert torchlet.from_numpy(a.astype(np.float32)).dtype == torchlet.float32
    assert torchlet.tensor(a).dtype == torchlet.float64  # as torch.tensor of a float64 array


def test_numpy_shares_cpu_memory():
    t = torchlet.zeros(2, 3)
    view = t.numpy()
    view[1, 2] = 7.0
    assert t[1, 2].item() == 7.0
    t.fill_(2.0)
    assert view.sum() == 12.0
    assert np.asarray(t).shape == (2, 3)  # the buffer protocol
    np.testing.assert_array_equal(t.t().numpy(), view.T)


def test_numpy_refuses_a_tensor_that_requires_grad():
    with pytest.raises(ValueError, match="detach"):
        torchlet.ones(2, requires_grad=True).numpy()


def test_item_and_conversions():
    assert torchlet.tensor(2.5).item() == 2.5
    assert isinstance(torchlet.tensor(3).item(), int)
    assert torchlet.tensor([True]).item() is True
    assert float(torchlet.tensor(1.5)) == 1.5
    assert torchlet.tensor([1, 2]).to(torchlet.float32).dtype == torchlet.float32
    x = torchlet.ones(2)
    assert x.to("cpu").device == torchlet.device("cpu")
    assert f"{torchlet.tensor(0.123456):.4f}" == "0.1235"


def test_indexing_gives_views():
    x = torchlet.arange(24).reshape(2, 3, 4)
    assert x[1].shape == (3, 4)
    assert x[:, 1:].shape == (2, 2, 4)
    assert x[..., -1].tolist() == [[3, 7, 11], [15, 19, 23]]
    assert x[None, 0, :, None].shape == (1, 3, 1, 4)
    assert x[torchlet.tensor([1, 0])][0, 0, 0].item() == 12
    y = torchlet.zeros(3, 3)
    y[1] = 5.0
    y[:, 0] = torchlet.tensor([1.0, 2.0, 3.0])
    assert y.tolist() == [[1, 0, 0], [2, 5, 5], [3, 0, 0]]


def test_errors_are_pythons_kinds():
    x = torchlet.zeros(2, 3)
    with pytest.raises(IndexError):
        x[5]
    with pytest.raises(IndexError):
        x[0, 0, 0]
    with pytest.raises(IndexError, match="Expected index in"):  # torchlet::Error of kind Index
        x[torchlet.tensor([7])]
    with pytest.raises(OSError):  # kind I/O
        torchlet.load("/nonexistent/model.safetensors")
    with pytest.raises(RuntimeError, match="Expected"):
        x + torchlet.zeros(4)
    with pytest.raises(RuntimeError):
        torchlet.tensor([[1, 2], [3]])
    with pytest.raises(TypeError):
        x + "a"
    with pytest.raises(TypeError):
        torchlet.tensor(["a"])
    with pytest.raises(RuntimeError):
        torchlet.device("tpu")
    for convert in (lambda t: t.item(), float, int):  # ValueError, as PyTorch's
        with pytest.raises(ValueError, match=r"only one element tensors .* shape \[2\]"):
            convert(torchlet.ones(2))
    with pytest.raises(RuntimeError, match="ambiguous"):
        bool(torchlet.ones(2))


def test_no_grad_as_context_and_decorator():
    w = torchlet.ones(2, requires_grad=True)
    with torchlet.no_grad():
        assert not (w * 2).requires_grad
    assert (w * 2).requires_grad

    @torchlet.no_grad()
    def f():
        return w * 2

    assert not f().requires_grad
    assert torchlet.is_grad_enabled()


def test_backward_accumulates_and_grad_can_be_cleared():
    w = torchlet.tensor([1.0, 2.0], requires_grad=True)
    (w * w).sum().backward()
    (w * w).sum().backward()
    assert w.grad.tolist() == [4.0, 8.0]
    w.grad = None
    assert w.grad is None


def test_cuda_queries_answer_without_a_gpu():
    assert isinstance(torchlet.cuda.is_available(), bool)
    assert torchlet.cuda.device_count() >= 0
    if not torchlet.cuda.is_available():
        with pytest.raises(RuntimeError):
            torchlet.zeros(2).to("cuda")


@pytest.mark.parametrize("values", [
    [[0.1234, -1.0], [3.0, 2.5]], [1.0, 2.0, -3.0], [1e-5, 1.0], [12345678901.0, 1.0], [[1, 2], [3, 4]],
    [True, False], list(range(40)), [0.5] * 30, 3.25,
])
def test_printing_matches_pytorch(torch, values):
    assert repr(torchlet.tensor(values)) == repr(torch.tensor(values))


def test_printing_a_parameter_matches_pytorch(torch):
    assert repr(torchlet.ones(2, requires_grad=True)) == repr(torch.ones(2, requires_grad=True))
    torch_p, our_p = torch.nn.Parameter(torch.zeros(2)), torchlet.nn.Parameter(torchlet.zeros(2))
    assert repr(our_p) == repr(torch_p)


def test_type_stubs_name_only_what_exists():
    import ast
    import os

    with open(os.path.join(os.path.dirname(torchlet.__file__), "_C.pyi")) as f:
        tree = ast.parse(f.read())
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name != "__getattr__":
            assert hasattr(torchlet._C, node.name), node.name
        if isinstance(node, ast.ClassDef) and hasattr(torchlet._C, node.name):
            cls = getattr(torchlet._C, node.name)
            for member in node.body:
                name = member.name if isinstance(member, ast.FunctionDef) else getattr(member.target, "id", None) \
                    if isinstance(member, ast.AnnAssign) else None
                if name and name not in ("__getattr__", "__init__"):
                    assert hasattr(cls, name), f"{node.name}.{name}"


def test_operator_slots_agree_with_the_bound_methods():
    import torchlet.nn as nn

    a, p = torchlet.tensor([1.0, -2.0]), nn.Parameter(torchlet.tensor([0.5, 4.0]))
    for ours, bound in ((a + p, a.__add__(p)), (3 - a, a.__rsub__(3)), (p * 2, p.__mul__(2)),
                        (1 / p, p.__rtruediv__(1)), (True + a, a.__radd__(True)), (a - a, a.sub(a))):
        assert ours.tolist() == bound.tolist()
    assert (p * a).requires_grad and (p * a).grad_fn.name() == "MulBackward0"
    assert (torchlet.tensor([2]) * 3).dtype == torchlet.int64
    assert a.__add__("x") is NotImplemented
    with pytest.raises(TypeError):
        None / a
