"""The event files read by the protobuf runtime TensorBoard itself uses (Debian's
python3-protobuf), with the messages declared here from TensorBoard's .proto field numbers:
every record parses, and serializing it again gives the same bytes, so torchlet's hand-written
encoding is protobuf's own (field order, varints, packing, defaults left out)."""

import os

import numpy as np
import pytest
import tensorboard_reader as tb

import torchlet
from torchlet.utils.tensorboard import SummaryWriter

pytest.importorskip("google.protobuf")
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory, struct_pb2  # noqa: E402

F = descriptor_pb2.FieldDescriptorProto
KINDS = {"double": F.TYPE_DOUBLE, "float": F.TYPE_FLOAT, "int64": F.TYPE_INT64, "int32": F.TYPE_INT32,
         "string": F.TYPE_STRING, "bytes": F.TYPE_BYTES}

# message -> [(name, number, kind or message type, repeated)], TensorBoard's numbers.
MESSAGES = {
    "Event": [("wall_time", 1, "double"), ("step", 2, "int64"), ("file_version", 3, "string"),
              ("summary", 5, ".tb.Summary"), ("session_log", 7, ".tb.SessionLog")],
    "SessionLog": [("status", 1, "int32"), ("checkpoint_path", 2, "string"), ("msg", 3, "string")],
    "Summary": [("value", 1, ".tb.Value", True)],
    "Value": [("tag", 1, "string"), ("simple_value", 2, "float"), ("image", 4, ".tb.Image"),
              ("histo", 5, ".tb.Histogram"), ("tensor", 8, ".tb.Tensor"), ("metadata", 9, ".tb.Metadata")],
    "Image": [("height", 1, "int32"), ("width", 2, "int32"), ("colorspace", 3, "int32"),
              ("encoded_image_string", 4, "bytes")],
    "Histogram": [("min", 1, "double"), ("max", 2, "double"), ("num", 3, "double"), ("sum", 4, "double"),
                  ("sum_squares", 5, "double"), ("bucket_limit", 6, "double", True), ("bucket", 7, "double", True)],
    "Metadata": [("plugin_data", 1, ".tb.PluginData"), ("display_name", 2, "string")],
    "PluginData": [("plugin_name", 1, "string"), ("content", 2, "bytes")],
    "Tensor": [("dtype", 1, "int32"), ("tensor_shape", 2, ".tb.Shape"), ("float_val", 5, "float", True),
               ("double_val", 6, "double", True), ("string_val", 8, "bytes", True)],
    "Shape": [("dim", 2, ".tb.Dim", True)],
    "Dim": [("size", 1, "int64"), ("name", 2, "string")],
    "HParamsPluginData": [("version", 1, "int32"), ("experiment", 2, ".tb.Experiment"),
                          ("session_start_info", 3, ".tb.SessionStartInfo"),
                          ("session_end_info", 4, ".tb.SessionEndInfo")],
    "Experiment": [("hparam_infos", 4, ".tb.HParamInfo", True), ("metric_infos", 5, ".tb.MetricInfo", True)],
    "HParamInfo": [("name", 1, "string"), ("type", 4, "int32"), ("domain_discrete", 5, ".google.protobuf.ListValue")],
    "MetricInfo": [("name", 1, ".tb.MetricName")],
    "MetricName": [("group", 1, "string"), ("tag", 2, "string")],
    "SessionStartInfo": [("hparams", 1, ".tb.SessionStartInfo.HparamsEntry", True)],
    "SessionEndInfo": [("status", 1, "int32")],
}
# The oneofs: proto3 writes a oneof member even at its default value.
ONEOFS = {"Event": ("what", {"file_version", "summary", "session_log"}),
          "Value": ("value", {"simple_value", "image", "histo", "tensor"}),
          "HParamsPluginData": ("data", {"experiment", "session_start_info", "session_end_info"})}


def _field(message, name, number, kind, repeated=False):
    field = message.field.add(name=name, number=number,
                              label=F.LABEL_REPEATED if repeated else F.LABEL_OPTIONAL)
    if kind in KINDS:
        field.type = KINDS[kind]
    else:
        field.type, field.type_name = F.TYPE_MESSAGE, kind
    if kind in ("double", "float") and repeated:
        field.options.packed = True
    return field


@pytest.fixture(scope="module")
def messages():
    pool = descriptor_pool.DescriptorPool()
    pool.AddSerializedFile(descriptor_pb2.FileDescriptorProto.FromString(
        struct_pb2.DESCRIPTOR.serialized_pb).SerializeToString())
    proto = descriptor_pb2.FileDescriptorProto(name="tb.proto", package="tb", syntax="proto3",
                                               dependency=["google/protobuf/struct.proto"])
    for name, fields in MESSAGES.items():
        message = proto.message_type.add(name=name)
        oneof_name, members = ONEOFS.get(name, (None, ()))
        if oneof_name:
            message.oneof_decl.add(name=oneof_name)
        for spec in fields:
            field = _field(message, *spec)
            if field.name in members:
                field.oneof_index = 0
        if name == "SessionStartInfo":
            entry = message.nested_type.add(name="HparamsEntry")
            entry.options.map_entry = True
            _field(entry, "key", 1, "string")
            _field(entry, "value", 2, ".google.protobuf.Value")
    pool.Add(proto)
    factory = message_factory.MessageFactory(pool)
    return {name: factory.GetPrototype(pool.FindMessageTypeByName(f"tb.{name}")) for name in MESSAGES}


def write_everything(log_dir):
    with SummaryWriter(log_dir, purge_step=2) as w:
        w.add_scalar("loss", 0.25, 3)
        w.add_scalar("zero", 0.0, 0)
        w.add_scalar("new", 1.5, 4, new_style=True)
        w.add_histogram("h", torchlet.tensor([0.5, -1.0, 2.0, 0.0]), 5)
        w.add_image("img", np.full((3, 2, 2), 0.5, np.float32), 6)
        w.add_text("t", "text", 7)
        w.add_hparams({"lr": 0.01, "opt": "sgd", "n": 4}, {"m": 1.0}, hparam_domain_discrete={"n": [4, 8]},
                      run_name="hp")


def test_every_record_is_protobufs_own_encoding(tmp_path, messages):
    write_everything(tmp_path)
    files = [os.path.join(d, n) for d, _, names in os.walk(tmp_path) for n in names]
    seen = set()
    for path in files:
        for record in tb.read_records(path):
            event = messages["Event"].FromString(record)
            assert event.SerializeToString() == record
            for value in event.summary.value:
                seen.add(value.WhichOneof("value") or value.metadata.plugin_data.plugin_name)
                if value.metadata.plugin_data.plugin_name == "hparams":
                    content = value.metadata.plugin_data.content
                    data = messages["HParamsPluginData"].FromString(content)
                    assert data.SerializeToString() == content
                    seen.add(data.WhichOneof("data"))
    assert seen == {"simple_value", "tensor", "histo", "image", "hparams", "experiment", "session_start_info",
                    "session_end_info"}


def test_protobuf_reads_the_values_written(tmp_path, messages):
    write_everything(tmp_path)
    (name,) = [n for n in os.listdir(tmp_path) if n.startswith("events")]
    found = [messages["Event"].FromString(r) for r in tb.read_records(tmp_path / name)]
    assert [e.WhichOneof("what") for e in found[:3]] == ["file_version", "file_version", "session_log"]
    assert found[1].step == 2 and found[2].session_log.status == 1
    scalars = {v.tag: (e.step, v.simple_value) for e in found for v in e.summary.value if v.HasField("simple_value")}
    assert scalars == {"loss": (3, 0.25), "zero": (0, 0.0)}
    (histo,) = [v.histo for e in found for v in e.summary.value if v.HasField("histo")]
    assert (histo.min, histo.max, histo.num, histo.sum, histo.sum_squares) == (-1.0, 2.0, 4.0, 1.5, 5.25)
    (start,) = [v for e in (messages["Event"].FromString(r) for r in tb.read_records(
        next(os.path.join(tmp_path, "hp", n) for n in os.listdir(tmp_path / "hp")))) for v in e.summary.value
        if v.tag == "_hparams_/session_start_info"]
    hparams = messages["HParamsPluginData"].FromString(start.metadata.plugin_data.content).session_start_info.hparams
    assert {k: hparams[k].WhichOneof("kind") for k in hparams} == {"lr": "number_value", "opt": "string_value",
                                                                   "n": "number_value"}
    assert (hparams["lr"].number_value, hparams["opt"].string_value) == (0.01, "sgd")
