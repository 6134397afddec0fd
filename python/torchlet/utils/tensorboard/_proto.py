"""The protocol buffer wire format, written by hand for the few TensorBoard messages the
SummaryWriter emits (Debian has no tensorboard package to generate them from). A field is its
key (number << 3 | wire type) and a value: a varint, 8 or 4 little-endian bytes, or a
length-prefixed run of bytes (strings, nested messages, packed numbers). A message is the
concatenation of its fields; fields left at proto3's defaults are simply not written."""

import struct

VARINT, FIXED64, BYTES, FIXED32 = 0, 1, 2, 5


def varint(value):
    """Base-128, low group first, the high bit set on all but the last byte; negative int64
    values as their 64-bit two's complement."""
    value &= (1 << 64) - 1
    out = bytearray()
    while value > 0x7F:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def _key(field, wire_type):
    return varint(field << 3 | wire_type)


def integer(field, value):
    """An int32, int64, bool or enum field."""
    return _key(field, VARINT) + varint(int(value))


def double(field, value):
    return _key(field, FIXED64) + struct.pack("<d", value)


def float32(field, value):
    return _key(field, FIXED32) + struct.pack("<f", value)


def blob(field, data):
    """A string (UTF-8), bytes, or a nested message's bytes."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    return _key(field, BYTES) + varint(len(data)) + data


def packed_doubles(field, values):
    return blob(field, struct.pack(f"<{len(values)}d", *values))


def packed_floats(field, values):
    return blob(field, struct.pack(f"<{len(values)}f", *values))


def message(*fields):
    """The message of these encoded fields (None for a field left out)."""
    return b"".join(f for f in fields if f is not None)
