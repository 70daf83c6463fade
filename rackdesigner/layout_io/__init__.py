"""Reading and writing layout files (format v1); :mod:`rackdesigner.document` builds on it."""

from .reader import MAX_FILE_BYTES, load_path, load_text, load_text_with_map, read_text
from .saving import CommentsLostError, FileChangedError, SaveError, write_atomic
from .writer import dumps

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
