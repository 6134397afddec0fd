"""TensorBoard's event files: TFRecords, each the data's length (8 bytes, little-endian), the
masked CRC32C of those 8 bytes, the data, and the masked CRC32C of the data, where a masked
CRC is ((crc >> 15) | (crc << 17)) + 0xa282ead8 (32 bits). An EventFileWriter opens
events.out.tfevents.TIME.HOST.PID.N in its folder, writes the "brain.Event:2" version event
at once, then keeps records in memory until max_queue of them wait, flush_secs have passed
(a daemon thread looks), or flush()/close()."""

import os
import socket
import struct
import threading
import time

from torchlet.utils.tensorboard import _proto


def _crc32c_table():
    # CRC-32C (Castagnoli), reflected polynomial 0x82F63B78, one byte at a time.
    table = []
    for byte in range(256):
        crc = byte
        for _ in range(8):
            crc = (crc >> 1) ^ 0x82F63B78 if crc & 1 else crc >> 1
        table.append(crc)
    return table


_CRC32C_TABLE = _crc32c_table()


def crc32c(data):
    crc = 0xFFFFFFFF
    table = _CRC32C_TABLE
    for byte in data:
        crc = table[(crc ^ byte) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


def masked_crc32c(data):
    crc = crc32c(data)
    return (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def tfrecord(data):
    """One TFRecord holding data."""
    length = struct.pack("<Q", len(data))
    return length + struct.pack("<I", masked_crc32c(length)) + data + struct.pack("<I", masked_crc32c(data))


def event(wall_time, step=None, file_version=None, summary=None, session_log_status=None):
    """An Event message: wall_time (1), step (2), and one of file_version (3), summary (5) or
    session_log (7, its status)."""
    what = None
    if file_version is not None:
        what = _proto.blob(3, file_version)
    elif summary is not None:
        what = _proto.blob(5, summary)
    elif session_log_status is not None:
        what = _proto.blob(7, _proto.integer(1, session_log_status))
    return _proto.message(_proto.double(1, wall_time), _proto.integer(2, step) if step else None, what)


_files_opened = 0  # the last part of an event file's name: files opened by this process
_files_lock = threading.Lock()


class EventFileWriter:
    def __init__(self, log_dir, max_queue=10, flush_secs=120, filename_suffix=""):
        global _files_opened
        self._log_dir = str(log_dir)
        os.makedirs(self._log_dir, exist_ok=True)
        with _files_lock:
            number, _files_opened = _files_opened, _files_opened + 1
        name = f"events.out.tfevents.{int(time.time()):010d}.{socket.gethostname()}.{os.getpid()}.{number}"
        self.path = os.path.join(self._log_dir, name + filename_suffix)
        self._file = open(self.path, "wb")
        self._pending = []
        self._max_queue = max_queue
        self._lock = threading.Lock()
        self._closed = threading.Event()
        self.add_event(event(time.time(), file_version="brain.Event:2"))
        self.flush()
        self._flusher = threading.Thread(target=self._flush_every, args=(flush_secs,), daemon=True)
        self._flusher.start()

    def get_logdir(self):
        return self._log_dir

    def add_event(self, event_bytes):
        with self._lock:
            if self._closed.is_set():
                raise OSError("Writer is closed")
            self._pending.append(tfrecord(event_bytes))
            if len(self._pending) >= self._max_queue:
                self._write_pending()

    def _write_pending(self):
        self._file.write(b"".join(self._pending))
        self._pending.clear()
        self._file.flush()

    def _flush_every(self, seconds):
        while not self._closed.wait(seconds):
            self.flush()

    def flush(self):
        with self._lock:
            if not self._closed.is_set():
                self._write_pending()

    def close(self):
        with self._lock:
            if self._closed.is_set():
                return
            self._write_pending()
            self._file.close()
            self._closed.set()
