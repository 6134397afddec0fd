"""torch.nn.functional's functions over torchlet's ops (the C++ in torchlet._C._nn)."""

from torchlet import _C

_nn = _C._nn

relu = _C.relu
sigmoid = _C.sigmoid
tanh = _C.tanh
linear = _nn.linear
gelu = _nn.gelu
silu = _nn.silu
leaky_relu = _nn.leaky_relu
elu = _nn.elu
softplus = _nn.softplus
cross_entropy = _nn.cross_entropy
nll_loss = _nn.nll_loss
mse_loss = _nn.mse_loss
l1_loss = _nn.l1_loss
smooth_l1_loss = _nn.smooth_l1_loss
huber_loss = _nn.huber_loss
binary_cross_entropy = _nn.binary_cross_entropy
binary_cross_entropy_with_logits = _nn.binary_cross_entropy_with_logits
kl_div = _nn.kl_div
layer_norm = _nn.layer_norm
batch_norm = _nn.batch_norm
conv2d = _nn.conv2d
max_pool2d = _nn.max_pool2d
dropout = _nn.dropout
conv1d = _nn.conv1d
conv_transpose2d = _nn.conv_transpose2d
avg_pool2d = _nn.avg_pool2d
adaptive_avg_pool2d = _nn.adaptive_avg_pool2d
max_pool1d = _nn.max_pool1d
group_norm = _nn.group_norm
dropout2d = _nn.dropout2d
embedding = _nn.embedding


def softmax(input, dim):  # noqa: A002 (PyTorch's name)
    return _C.softmax(input, dim)


def log_softmax(input, dim):  # noqa: A002
    return _C.log_softmax(input, dim)


def flatten(input, start_dim=0, end_dim=-1):  # noqa: A002
    return _nn.flatten(input, start_dim, end_dim)
