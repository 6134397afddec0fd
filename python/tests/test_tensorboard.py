"""torch.utils.tensorboard.SummaryWriter: the event files read back by tensorboard_reader (the
TFRecord framing and both CRCs, then every field of every Event), the run folders and file
names PyTorch uses, each add_* method's values and plugin data, images decoded by Pillow, and
when events reach the disk."""

import importlib.util
import io
import os
import re
import socket
import struct
import time

import numpy as np
import pytest
import tensorboard_reader as tb

import torchlet
from torchlet.utils.tensorboard import SummaryWriter, _record


def events(log_dir):
    """The events of the one event file in log_dir, the version event checked and dropped."""
    (name,) = [n for n in os.listdir(log_dir) if n.startswith("events.out.tfevents.")]
    found = tb.read_events(os.path.join(log_dir, name))
    assert set(found[0]) == {"wall_time", "file_version"} and found[0]["file_version"] == "brain.Event:2"
    assert abs(found[0]["wall_time"] - time.time()) < 60
    return found[1:]


def values(log_dir):
    return [(e.get("step", 0), v) for e in events(log_dir) for v in e["summary"]["value"]]


@pytest.mark.parametrize("data, crc", [(b"123456789", 0xE3069283), (bytes(32), 0x8A9136AA),
                                       (b"\xff" * 32, 0x62A8AB43), (bytes(range(32)), 0x46DD794E)])
def test_crc32c_test_vectors(data, crc):
    assert _record.crc32c(data) == crc and tb.crc32c(data) == crc


def test_records_are_framed_and_a_corrupt_byte_is_caught(tmp_path):
    with SummaryWriter(tmp_path) as w:
        w.add_scalar("loss", 0.5, 1)
    (name,) = os.listdir(tmp_path)
    blob = bytearray((tmp_path / name).read_bytes())
    (length,) = struct.unpack("<Q", blob[:8])
    assert length + 16 < len(blob)
    blob[20] ^= 1
    (tmp_path / name).write_bytes(bytes(blob))
    with pytest.raises(AssertionError, match="bad data CRC at byte 0"):
        tb.read_records(tmp_path / name)


def test_run_folder_and_file_names_as_pytorchs(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    before = time.time()
    w = SummaryWriter(comment="_lr0.1", filename_suffix=".v2")
    w.close()
    (run,) = os.listdir(tmp_path / "runs")
    assert re.fullmatch(r"[A-Z][a-z]{2}\d\d_\d\d-\d\d-\d\d_" + re.escape(socket.gethostname()) + "_lr0.1", run)
    assert w.get_logdir() == os.path.join("runs", run)
    (name,) = os.listdir(tmp_path / "runs" / run)
    match = re.fullmatch(r"events\.out\.tfevents\.(\d{10})\." + re.escape(socket.gethostname())
                         + rf"\.{os.getpid()}\.(\d+)\.v2", name)
    assert match and abs(int(match.group(1)) - before) <= 2


def test_scalars_with_steps_and_wall_times(tmp_path):
    with SummaryWriter(tmp_path) as w:
        w.add_scalar("loss/train", 1 / 3, 10, walltime=1234.5)
        w.add_scalar("loss/train", 0.0, 0)
        w.add_scalar("zero-dim tensor", torchlet.tensor(2.5), -3)
        w.add_scalar("numpy", np.float64(7), 2**40)
        w.add_scalar("no step", torchlet.tensor([4.0]))
    found = events(tmp_path)
    assert found[0] == {"wall_time": 1234.5, "step": 10,
                        "summary": {"value": [{"tag": "loss/train", "simple_value": np.float32(1 / 3)}]}}
    assert found[1]["summary"] == {"value": [{"tag": "loss/train", "simple_value": 0.0}]} and "step" not in found[1]
    assert [(e.get("step", 0), e["summary"]["value"][0]["simple_value"]) for e in found[2:]] == [
        (2**64 - 3, 2.5), (2**40, 7.0), (0, 4.0)]  # a negative int64 is its two's complement
    assert all(abs(e["wall_time"] - time.time()) < 60 for e in found[1:])


def test_new_style_scalars_are_float_tensors_for_the_scalars_plugin(tmp_path):
    with SummaryWriter(tmp_path) as w:
        w.add_scalar("a", 1.25, 1, new_style=True)
        w.add_scalar("b", 1 / 3, 1, new_style=True, double_precision=True)
    (_, a), (_, b) = values(tmp_path)
    assert a == {"tag": "a", "metadata": {"plugin_data": {"plugin_name": "scalars"}},
                 "tensor": {"dtype": 1, "float_val": [1.25]}}
    assert b["tensor"] == {"dtype": 2, "double_val": [1 / 3]}


def test_a_scalar_must_be_one_value(tmp_path):
    with SummaryWriter(tmp_path) as w, pytest.raises(
            AssertionError, match=r"Tensor should contain one element \(0 dimensions\). Was given size: 2 and 1 "
                                  r"dimensions."):
        w.add_scalar("x", torchlet.ones(2))


def test_scalar_groups_go_to_one_run_per_member(tmp_path):
    with SummaryWriter(tmp_path) as w:
        w.add_scalars("loss/all", {"train": 1.0, "test": 2.0}, 5)
        w.add_scalars("loss/all", {"train": 0.5, "test": 1.5}, 6)
    assert sorted(p for p in os.listdir(tmp_path) if not p.startswith("events")) == ["loss_all_test",
                                                                                     "loss_all_train"]
    assert values(tmp_path / "loss_all_train") == [(5, {"tag": "loss/all", "simple_value": 1.0}),
                                                   (6, {"tag": "loss/all", "simple_value": 0.5})]
    assert [v["simple_value"] for _, v in values(tmp_path / "loss_all_test")] == [2.0, 1.5]
    assert events(tmp_path) == []


def expected_histogram(x, bins):
    counts, limits = np.histogram(x, bins=bins)
    nonzero = [i for i, c in enumerate(counts) if c]
    first, last = nonzero[0], nonzero[-1]
    kept = [0] + list(counts[:last + 1]) if first == 0 else list(counts[first - 1:last + 1])
    return {"min": x.min(), "max": x.max(), "num": float(x.size), "sum": x.sum(), "sum_squares": (x * x).sum(),
            "bucket_limit": list(limits[first:last + 2]), "bucket": [float(c) for c in kept]}


def test_histograms_with_tensorflows_buckets_and_others(tmp_path):
    x = torchlet.tensor([-2.0, 0.5, 0.5, 3.0, 1e-3, 0.0])
    with SummaryWriter(tmp_path) as w:
        w.add_histogram("weights", x, 1)
        w.add_histogram("uniform", np.arange(10.0), 2, bins=5)
        w.add_histogram("capped", np.arange(10.0), 3, bins=10, max_bins=3)
        bins = w.default_bins
    (_, weights), (_, uniform), (_, capped) = values(tmp_path)
    assert len(bins) == 2 * 774 + 1 and bins[774] == 0 and bins[775] == 1e-12
    xs = x.numpy().astype(np.float64)
    for got, want in ((weights, expected_histogram(xs, bins)), (uniform, expected_histogram(np.arange(10.0), 5))):
        assert set(got["histo"]) <= set(want)
        for k in want:  # a field at 0 is left out, as protobuf leaves it out
            np.testing.assert_allclose(got["histo"].get(k, 0.0), want[k], rtol=1e-15, err_msg=k)
    assert capped["histo"]["bucket"] == [0.0, 3.0, 3.0, 3.0, 1.0] and capped["histo"]["bucket_limit"] == [
        0.0, 2.7, 5.4, 8.1, 9.0]
    with pytest.raises(ValueError, match="The input has no element."):
        SummaryWriter(tmp_path).add_histogram("empty", np.zeros(0))


def pytorch_utils():
    """PyTorch's torch/utils/tensorboard/_utils.py, which imports nothing but numpy."""
    torch = pytest.importorskip("torch")
    path = os.path.join(os.path.dirname(torch.__file__), "utils", "tensorboard", "_utils.py")
    spec = importlib.util.spec_from_file_location("pytorch_tensorboard_utils", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def decoded(image):
    from PIL import Image

    png = Image.open(io.BytesIO(image["encoded_image_string"]))
    return png.mode, np.asarray(png)


@pytest.mark.parametrize("shape, dataformats", [((3, 5, 7), "CHW"), ((5, 7, 3), "HWC"), ((1, 5, 7), "CHW"),
                                                ((5, 7), "HW"), ((7, 5), "WH"), ((5, 7, 4), "HWC")])
def test_images_are_pngs_of_pytorchs_pixels(tmp_path, shape, dataformats):
    x = np.linspace(0, 1, int(np.prod(shape)), dtype=np.float32).reshape(shape)
    with SummaryWriter(tmp_path) as w:
        w.add_image("img", torchlet.from_numpy(x.copy()), 3, dataformats=dataformats)
    ((step, value),) = values(tmp_path)
    hwc = pytorch_utils().convert_to_HWC(x, dataformats)
    pixels = (hwc.astype(np.float32) * 255).astype(np.uint8)
    assert (step, value["tag"]) == (3, "img")
    assert {k: value["image"][k] for k in ("height", "width", "colorspace")} == dict(
        zip(("height", "width", "colorspace"), pixels.shape))
    mode, got = decoded(value["image"])
    assert mode == {3: "RGB", 4: "RGBA"}[pixels.shape[2]] and np.array_equal(got, pixels)


def test_a_batch_of_images_is_a_grid_as_pytorchs(tmp_path):
    batch = np.random.RandomState(0).randint(0, 256, size=(10, 1, 3, 2)).astype(np.uint8)
    with SummaryWriter(tmp_path) as w:
        w.add_images("batch", batch, 1)  # uint8: not scaled
        w.add_images("nhwc", batch.transpose(0, 2, 3, 1) / 255.0, 2, dataformats="NHWC")
    (_, grid), (_, nhwc) = values(tmp_path)
    expected = pytorch_utils().convert_to_HWC(batch, "NCHW")
    assert expected.shape == (6, 16, 3) and np.array_equal(decoded(grid["image"])[1], expected)
    assert np.abs(decoded(nhwc["image"])[1].astype(int) - expected).max() <= 1


def test_image_layout_errors_as_pytorchs():
    ours, theirs = torchlet.utils.tensorboard._utils, pytorch_utils()
    for args in ((np.zeros((2, 3)), "CHW"), (np.zeros((2, 3, 4)), "CCH")):
        with pytest.raises(AssertionError) as a:
            ours.convert_to_HWC(*args)
        with pytest.raises(AssertionError) as b:
            theirs.convert_to_HWC(*args)
        assert str(a.value) == str(b.value)


def test_text_for_the_text_plugin(tmp_path):
    with SummaryWriter(tmp_path) as w:
        w.add_text("notes", "héllo **world**", 4)
    assert values(tmp_path) == [(4, {"tag": "notes/text_summary", "metadata": {"plugin_data": {"plugin_name": "text"}},
                                     "tensor": {"dtype": 7, "tensor_shape": {"dim": [{"size": 1}]},
                                                "string_val": ["héllo **world**".encode()]}})]


def hparams_content(value):
    assert value["metadata"]["plugin_data"]["plugin_name"] == "hparams" and set(value) == {"tag", "metadata"}
    return tb.decode(value["metadata"]["plugin_data"]["content"], tb.HPARAMS_PLUGIN_DATA)


def test_hparams_for_the_hparams_plugin(tmp_path):
    with SummaryWriter(tmp_path) as w:
        w.add_hparams({"lr": 0.1, "optimizer": "adam", "layers": 3, "dropout": None, "nesterov": True},
                      {"hparam/accuracy": 0.75, "hparam/loss": 0.0}, hparam_domain_discrete={"layers": [2, 3]},
                      run_name="trial")
    assert events(tmp_path) == []
    found = values(tmp_path / "trial")
    tags = [v["tag"] for _, v in found]
    assert tags == ["_hparams_/experiment", "_hparams_/session_start_info", "_hparams_/session_end_info",
                    "hparam/accuracy", "hparam/loss"]
    experiment = hparams_content(found[0][1])["experiment"]
    assert experiment == {"hparam_infos": [
        {"name": "lr", "type": 3}, {"name": "optimizer", "type": 1},
        {"name": "layers", "type": 3, "domain_discrete": {"values": [{"number_value": 2.0}, {"number_value": 3.0}]}},
        {"name": "nesterov", "type": 3}],
        "metric_infos": [{"name": {"tag": "hparam/accuracy"}}, {"name": {"tag": "hparam/loss"}}]}
    start = hparams_content(found[1][1])["session_start_info"]["hparams"]
    assert start == [{"key": "lr", "value": {"number_value": 0.1}},
                     {"key": "optimizer", "value": {"string_value": "adam"}},
                     {"key": "layers", "value": {"number_value": 3.0}},
                     {"key": "nesterov", "value": {"number_value": 1.0}}]  # a bool is an int to PyTorch
    assert hparams_content(found[2][1]) == {"session_end_info": {"status": 1}}
    assert [v["simple_value"] for _, v in found[3:]] == [0.75, 0.0]


@pytest.mark.parametrize("args, error", [
    (([1], {}), "hparam_dict and metric_dict should be dictionary."),
    (({"a": [1]}, {}), "value should be one of int, float, str, bool, or torch.Tensor"),
    (({"a": 1}, {}, {"a": ["x"]}), r"parameter: hparam_domain_discrete\[a\] should be a list of same type as "
                                   r"hparam_dict\[a\]."),
])
def test_hparams_errors_as_pytorchs(tmp_path, args, error):
    with SummaryWriter(tmp_path) as w, pytest.raises((TypeError, ValueError), match=error):
        w.add_hparams(*args)


def test_events_wait_for_max_queue_flush_secs_flush_or_close(tmp_path):
    w = SummaryWriter(tmp_path / "queue", max_queue=3)
    for step in range(2):
        w.add_scalar("x", step, step)
    assert events(tmp_path / "queue") == []
    w.add_scalar("x", 2, 2)
    assert len(events(tmp_path / "queue")) == 3
    w.add_scalar("x", 3, 3)
    w.flush()
    assert len(events(tmp_path / "queue")) == 4
    w.close()
    w.close()  # a second close does nothing

    timed = SummaryWriter(tmp_path / "timed", flush_secs=0.2)
    timed.add_text("t", "x")
    deadline = time.time() + 10
    while not events(tmp_path / "timed") and time.time() < deadline:
        time.sleep(0.05)
    assert len(events(tmp_path / "timed")) == 1
    timed.close()


def test_a_closed_writer_opens_a_new_file_on_the_next_event(tmp_path):
    w = SummaryWriter(tmp_path)
    w.close()
    w.add_scalar("x", 1.0)
    w.close()
    assert len(os.listdir(tmp_path)) == 2


def test_purge_step_marks_the_restart(tmp_path):
    with SummaryWriter(tmp_path, purge_step=7) as w:
        w.add_scalar("x", 1.0, 7)
    found = events(tmp_path)
    assert found[0]["step"] == 7 and found[0]["file_version"] == "brain.Event:2"
    assert found[1]["step"] == 7 and found[1]["session_log"] == {"status": 1}
    assert found[2]["summary"]["value"][0]["simple_value"] == 1.0


def test_what_torchlet_lacks_says_so(tmp_path):
    with SummaryWriter(tmp_path) as w:
        with pytest.raises(NotImplementedError, match="torchlet does not have SummaryWriter.add_graph yet"):
            w.add_graph(torchlet.nn.Linear(2, 2), torchlet.ones(1, 2))
        with pytest.raises(AttributeError, match="torchlet does not have "
                                                 "torch.utils.tensorboard.SummaryWriter.add_figure yet"):
            w.add_figure("f", None)
