"""Reading and writing layout files (format v1)."""

from .reader import MAX_FILE_BYTES, Origin, load_path, load_text, load_text_with_map, read_text
from .saving import FileChangedError, save
from .writer import dumps

__all__ = [
    "MAX_FILE_BYTES",
    "FileChangedError",
    "Origin",
    "dumps",
    "load_path",
    "load_text",
    "load_text_with_map",
    "read_text",
    "save",
]
