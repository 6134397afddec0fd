"""A reader of TensorBoard event files for the tests, written apart from torchlet's writer: the
TFRecord framing with both masked CRC32Cs checked (a bitwise CRC, not the writer's table), and
the protocol buffer wire format decoded by schemas of the messages TensorBoard reads. A field
the schema does not know, a wrong wire type or a bad CRC fails the read."""

import struct

# Schemas: field number -> (name, kind[, schema of a message]); a name ending in [] repeats.
SESSION_LOG = {1: ("status", "int"), 2: ("checkpoint_path", "string"), 3: ("msg", "string")}
PLUGIN_DATA = {1: ("plugin_name", "string"), 2: ("content", "bytes")}
METADATA = {1: ("plugin_data", "message", PLUGIN_DATA), 2: ("display_name", "string"),
            3: ("summary_description", "string"), 4: ("data_class", "int")}
IMAGE = {1: ("height", "int"), 2: ("width", "int"), 3: ("colorspace", "int"), 4: ("encoded_image_string", "bytes")}
HISTOGRAM = {1: ("min", "double"), 2: ("max", "double"), 3: ("num", "double"), 4: ("sum", "double"),
             5: ("sum_squares", "double"), 6: ("bucket_limit", "packed double"), 7: ("bucket", "packed double")}
DIM = {1: ("size", "int"), 2: ("name", "string")}
SHAPE = {2: ("dim[]", "message", DIM), 3: ("unknown_rank", "int")}
TENSOR = {1: ("dtype", "int"), 2: ("tensor_shape", "message", SHAPE), 5: ("float_val", "packed float"),
          6: ("double_val", "packed double"), 8: ("string_val[]", "bytes")}
VALUE = {1: ("tag", "string"), 2: ("simple_value", "float"), 4: ("image", "message", IMAGE),
         5: ("histo", "message", HISTOGRAM), 8: ("tensor", "message", TENSOR), 9: ("metadata", "message", METADATA)}
SUMMARY = {1: ("value[]", "message", VALUE)}
EVENT = {1: ("wall_time", "double"), 2: ("step", "int"), 3: ("file_version", "string"),
         5: ("summary", "message", SUMMARY), 7: ("session_log", "message", SESSION_LOG)}

# The hparams plugin's content (HParamsPluginData) and google.protobuf's Value and ListValue.
STRUCT_VALUE = {1: ("null_value", "int"), 2: ("number_value", "double"), 3: ("string_value", "string"),
                4: ("bool_value", "int")}
LIST_VALUE = {1: ("values[]", "message", STRUCT_VALUE)}
HPARAM_INFO = {1: ("name", "string"), 2: ("display_name", "string"), 3: ("description", "string"),
               4: ("type", "int"), 5: ("domain_discrete", "message", LIST_VALUE)}
METRIC_INFO = {1: ("name", "message", {1: ("group", "string"), 2: ("tag", "string")})}
EXPERIMENT = {4: ("hparam_infos[]", "message", HPARAM_INFO), 5: ("metric_infos[]", "message", METRIC_INFO)}
HPARAMS_ENTRY = {1: ("key", "string"), 2: ("value", "message", STRUCT_VALUE)}
SESSION_START = {1: ("hparams[]", "message", HPARAMS_ENTRY), 5: ("start_time_secs", "double")}
SESSION_END = {1: ("status", "int"), 2: ("end_time_secs", "double")}
HPARAMS_PLUGIN_DATA = {1: ("version", "int"), 2: ("experiment", "message", EXPERIMENT),
                       3: ("session_start_info", "message", SESSION_START),
                       4: ("session_end_info", "message", SESSION_END)}

WIRE_TYPES = {"int": 0, "double": 1, "float": 5}  # every other kind is length-delimited (2)


def crc32c(data):
    crc = 0xFFFFFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 & -(crc & 1))
    return crc ^ 0xFFFFFFFF


def masked(crc):
    return (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def read_records(path):
    """The data of every TFRecord in the file, each CRC checked."""
    with open(path, "rb") as f:
        blob = f.read()
    records, at = [], 0
    while at < len(blob):
        assert len(blob) - at >= 12, f"a truncated record header at byte {at}"
        length_bytes = blob[at:at + 8]
        (length,) = struct.unpack("<Q", length_bytes)
        (length_crc,) = struct.unpack("<I", blob[at + 8:at + 12])
        assert length_crc == masked(crc32c(length_bytes)), f"bad length CRC at byte {at}"
        data = blob[at + 12:at + 12 + length]
        (data_crc,) = struct.unpack("<I", blob[at + 12 + length:at + 16 + length])
        assert len(data) == length and data_crc == masked(crc32c(data)), f"bad data CRC at byte {at}"
        records.append(data)
        at += 16 + length
    return records


def _varint(data, at):
    value, shift = 0, 0
    while True:
        byte = data[at]
        value |= (byte & 0x7F) << shift
        at += 1
        shift += 7
        if not byte & 0x80:
            return value, at


def decode(data, schema):
    """The message in data as a dict of its fields by name (lists for repeated ones)."""
    out, at = {}, 0
    while at < len(data):
        key, at = _varint(data, at)
        number, wire = key >> 3, key & 7
        assert number in schema, f"unexpected field {number} (wire type {wire}) for schema {sorted(schema)}"
        name, kind, *sub = schema[number]
        assert wire == WIRE_TYPES.get(kind, 2), f"field {name}: wire type {wire} for a {kind}"
        if wire == 0:
            value, at = _varint(data, at)
        elif wire == 1:
            (value,) = struct.unpack("<d", data[at:at + 8])
            at += 8
        elif wire == 5:
            (value,) = struct.unpack("<f", data[at:at + 4])
            at += 4
        else:
            length, at = _varint(data, at)
            value, at = data[at:at + length], at + length
            assert len(value) == length, f"field {name} runs past the end"
            if kind == "string":
                value = value.decode("utf-8")
            elif kind == "message":
                value = decode(value, sub[0])
            elif kind.startswith("packed"):
                width, code = (8, "d") if kind.endswith("double") else (4, "f")
                value = list(struct.unpack(f"<{len(value) // width}{code}", value))
        if name.endswith("[]"):
            out.setdefault(name[:-2], []).append(value)
        else:
            assert name not in out, f"field {name} twice"
            out[name] = value
    return out


def read_events(path):
    return [decode(record, EVENT) for record in read_records(path)]
