"""Session log formats, each read into the neutral events of `assay.traces.records`."""

from assay.traces.formats.base import ParseStats
from assay.traces.formats.detect import READERS, UnknownFormat, detect, read_events, reader_named

__all__ = ["READERS", "ParseStats", "UnknownFormat", "detect", "read_events", "reader_named"]
