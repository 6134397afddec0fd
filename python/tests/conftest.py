"""pytest setup: `torch` is Debian's PyTorch when installed; tests that compare against it
take the fixture and are skipped where it is missing."""

import pytest


@pytest.fixture(scope="session")
def torch():
    return pytest.importorskip("torch")
