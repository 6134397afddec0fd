"""torch.utils.tensorboard: SummaryWriter, writing TensorBoard event files (TFRecords of Event
protocol buffers, encoded here: Debian has no tensorboard package, and none is needed)."""

from torchlet.utils.tensorboard.writer import FileWriter, SummaryWriter

__all__ = ["FileWriter", "SummaryWriter"]
