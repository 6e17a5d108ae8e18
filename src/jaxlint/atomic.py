"""Writing a file so that a reader sees its old content or its new one, never half of it."""

from __future__ import annotations

import os

_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)


def write_atomically(path: str, data: bytes, prefix: str = ".tmp-", suffix: str = "",
                     keep_mode: bool = False) -> None:
    """Write `data` to a temporary file beside `path` (named `prefix`...`suffix`) and move it
    into place with os.replace, so that a concurrent reader or a crash never sees half a file.
    `keep_mode`: the file keeps the permission bits it had. Raises OSError; the temporary file
    never stays behind."""
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = _create(folder, prefix, suffix)
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


def _create(folder: str, prefix: str, suffix: str) -> tuple:
    """A new file only this process can read or write (mode 0600, as tempfile.mkstemp makes it,
    whose module costs 4-5 ms of imports in every process): (descriptor, path)."""
    for _ in range(100):
        tmp = os.path.join(folder, f"{prefix}{os.getpid()}-{os.urandom(6).hex()}{suffix}")
        try:
            return os.open(tmp, _FLAGS, 0o600), tmp
        except FileExistsError:
            continue
    raise FileExistsError(f"no free temporary name in {folder}")
