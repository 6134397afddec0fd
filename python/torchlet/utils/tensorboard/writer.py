"""torch.utils.tensorboard.writer: SummaryWriter, which writes TensorBoard event files as
PyTorch 1.13's does (the same run folders, file names, events and plugin data): scalars,
scalar groups (a run folder per member, as TensorBoard wants them), histograms, images, text
and hparams. add_graph and the other methods torchlet lacks say so."""

import os
import socket
import time
from datetime import datetime

from torchlet.utils.tensorboard import _record, summary


class FileWriter:
    """Writes Event records to one event file of log_dir."""

    def __init__(self, log_dir, max_queue=10, flush_secs=120, filename_suffix=""):
        self.event_writer = _record.EventFileWriter(str(log_dir), max_queue, flush_secs, filename_suffix)

    def get_logdir(self):
        return self.event_writer.get_logdir()

    def add_event(self, step=None, walltime=None, **what):
        """An Event at walltime (default: now) and step holding one of file_version, summary
        (a serialized Summary) or session_log_status."""
        wall_time = time.time() if walltime is None else walltime
        self.event_writer.add_event(_record.event(wall_time, None if step is None else int(step), **what))

    def add_summary(self, summary_bytes, global_step=None, walltime=None):
        self.add_event(global_step, walltime, summary=summary_bytes)

    def flush(self):
        self.event_writer.flush()

    def close(self):
        self.event_writer.close()


_SESSION_START = 1  # SessionLog.START


class SummaryWriter:
    """Logs to event files under log_dir (default runs/MONTHDAY_HH-MM-SS_HOSTNAME + comment) for
    TensorBoard. Events wait in memory until max_queue of them, flush_secs, flush() or close()."""

    def __init__(self, log_dir=None, comment="", purge_step=None, max_queue=10, flush_secs=120, filename_suffix=""):
        if not log_dir:
            now = datetime.now().strftime("%b%d_%H-%M-%S")
            log_dir = os.path.join("runs", now + "_" + socket.gethostname() + comment)
        self.log_dir = log_dir
        self.purge_step = purge_step
        self.max_queue = max_queue
        self.flush_secs = flush_secs
        self.filename_suffix = filename_suffix
        self.file_writer = self.all_writers = None
        self._get_file_writer()
        # TensorFlow's histogram buckets: +-1e-12 growing by 1.1 up to 1e20, and 0.
        v, buckets = 1e-12, []
        while v < 1e20:
            buckets.append(v)
            v *= 1.1
        self.default_bins = [-b for b in reversed(buckets)] + [0] + buckets

    def _get_file_writer(self):
        """The writer of log_dir, made again after close()."""
        if self.all_writers is None or self.file_writer is None:
            self.file_writer = FileWriter(self.log_dir, self.max_queue, self.flush_secs, self.filename_suffix)
            self.all_writers = {self.file_writer.get_logdir(): self.file_writer}
            if self.purge_step is not None:
                # TensorBoard drops the events at and after this step that an earlier run wrote.
                self.file_writer.add_event(self.purge_step, file_version="brain.Event:2")
                self.file_writer.add_event(self.purge_step, session_log_status=_SESSION_START)
                self.purge_step = None
        return self.file_writer

    def get_logdir(self):
        return self.log_dir

    def add_scalar(self, tag, scalar_value, global_step=None, walltime=None, new_style=False,
                   double_precision=False):
        self._get_file_writer().add_summary(summary.scalar(tag, scalar_value, new_style, double_precision),
                                            global_step, walltime)

    def add_scalars(self, main_tag, tag_scalar_dict, global_step=None, walltime=None):
        """Each value in the run log_dir/MAINTAG_TAG (slashes of main_tag as _), tagged main_tag,
        so that TensorBoard draws them in one chart."""
        walltime = time.time() if walltime is None else walltime
        log_dir = self._get_file_writer().get_logdir()
        for tag, scalar_value in tag_scalar_dict.items():
            run = log_dir + "/" + main_tag.replace("/", "_") + "_" + tag
            if run not in self.all_writers:
                self.all_writers[run] = FileWriter(run, self.max_queue, self.flush_secs, self.filename_suffix)
            self.all_writers[run].add_summary(summary.scalar(main_tag, scalar_value), global_step, walltime)

    def add_histogram(self, tag, values, global_step=None, bins="tensorflow", walltime=None, max_bins=None):
        if isinstance(bins, str) and bins == "tensorflow":
            bins = self.default_bins
        self._get_file_writer().add_summary(summary.histogram(tag, values, bins, max_bins), global_step, walltime)

    def add_histogram_raw(self, tag, min, max, num, sum, sum_squares, bucket_limits, bucket_counts,  # noqa: A002
                          global_step=None, walltime=None):
        if len(bucket_limits) != len(bucket_counts):
            raise ValueError("len(bucket_limits) != len(bucket_counts), see the document.")
        self._get_file_writer().add_summary(
            summary.histogram_raw(tag, min, max, num, sum, sum_squares, bucket_limits, bucket_counts), global_step,
            walltime)

    def add_image(self, tag, img_tensor, global_step=None, walltime=None, dataformats="CHW"):
        """img_tensor (C, H, W) by default; HWC, HW and the others with dataformats."""
        self._get_file_writer().add_summary(summary.image(tag, img_tensor, dataformats=dataformats), global_step,
                                            walltime)

    def add_images(self, tag, img_tensor, global_step=None, walltime=None, dataformats="NCHW"):
        """A batch of images, drawn as one grid image of 8 columns."""
        self._get_file_writer().add_summary(summary.image(tag, img_tensor, dataformats=dataformats), global_step,
                                            walltime)

    def add_text(self, tag, text_string, global_step=None, walltime=None):
        self._get_file_writer().add_summary(summary.text(tag, text_string), global_step, walltime)

    def add_hparams(self, hparam_dict, metric_dict, hparam_domain_discrete=None, run_name=None):
        """The hyperparameters and metrics of a run, for TensorBoard's HPARAMS tab, in the run
        log_dir/run_name (default: the time), the metrics also logged there as scalars."""
        if type(hparam_dict) is not dict or type(metric_dict) is not dict:
            raise TypeError("hparam_dict and metric_dict should be dictionary.")
        experiment, start, end = summary.hparams(hparam_dict, metric_dict, hparam_domain_discrete)
        log_dir = os.path.join(self._get_file_writer().get_logdir(), run_name or str(time.time()))
        with SummaryWriter(log_dir=log_dir) as w_hp:
            for s in (experiment, start, end):
                w_hp.file_writer.add_summary(s)
            for k, v in metric_dict.items():
                w_hp.add_scalar(k, v)

    def add_graph(self, model, input_to_model=None, verbose=False, use_strict_trace=True):
        raise NotImplementedError("torchlet does not have SummaryWriter.add_graph yet (PyTorch traces the model "
                                  "with torch.jit, which torchlet lacks)")

    def __getattr__(self, name):
        if name.startswith("add_"):  # add_figure, add_embedding, add_pr_curve, add_video, ...
            from torchlet._drop_in import MissingAttribute, missing_message

            raise MissingAttribute(missing_message(f"torch.utils.tensorboard.SummaryWriter.{name}"), name=name)
        raise AttributeError(f"'SummaryWriter' object has no attribute '{name}'")

    def flush(self):
        for writer in (self.all_writers or {}).values():
            writer.flush()

    def close(self):
        for writer in (self.all_writers or {}).values():
            writer.flush()
            writer.close()
        self.file_writer = self.all_writers = None

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        self.close()
