"""Reading and writing layout files (format v1); :mod:`.document` builds on it."""

from rackdesigner.layout_io.reader import (
    MAX_FILE_BYTES,
    load_path,
    load_text,
    load_text_with_map,
    read_text,
)
from rackdesigner.layout_io.saving import (
    CommentsLostError,
    FileChangedError,
    SaveError,
    write_atomic,
)
from rackdesigner.layout_io.writer import dumps

__all__ = [
    "MAX_FILE_BYTES",
    "CommentsLostError",
    "FileChangedError",
    "SaveError",
    "dumps",
    "load_path",
    "load_text",
    "load_text_with_map",
    "read_text",
    "write_atomic",
]
