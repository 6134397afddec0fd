"""`import torchlet` loads only the engine; nn, optim and utils load on first use."""

import subprocess
import sys


def test_import_is_lazy_about_nn_optim_and_utils():
    code = ("import sys, torchlet; assert not any(m in sys.modules for m in ('torchlet.nn', 'torchlet.optim', "
            "'torchlet.utils')); torchlet.nn.Linear(2, 2); torchlet.optim.SGD; import torchlet.utils.data; "
            "assert 'torch' not in sys.modules; print('ok')")
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout
    assert out == "ok\n"
