"""Writing a file so that a reader sees its old content or its new one, never half of it."""

from __future__ import annotations

import os
import tempfile


def write_atomically(path: str, data: bytes, prefix: str = ".tmp-", suffix: str = "",
                     keep_mode: bool = False) -> None:
    """Write `data` to a temporary file beside `path` (named `prefix`...`suffix`) and move it
    into place with os.replace, so that a concurrent reader or a crash never sees half a file.
    `keep_mode`: the file keeps the permission bits it had. Raises OSError; the temporary file
    never stays behind."""
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=prefix, suffix=suffix)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        if keep_mode:
            try:
                os.chmod(tmp, os.stat(path).st_mode & 0o7777)
            except OSError:
                pass
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
