"""Progress for long work (calibration, training epochs): a caller's callback, a tqdm bar when
asked for (progress=True and tqdm importable), a plain one-line bar on stderr otherwise."""
import sys


class _Callback:
    def __init__(self, fn, total, desc):
        self.fn, self.total, self.desc, self.done = fn, total, desc, 0

    def update(self, n=1, **info):
        self.done += n
        self.fn(self.done, self.total, dict(info, stage=self.desc))

    def close(self):
        pass


class _TextBar:
    """The fallback when tqdm is absent: '\\r'-redrawn on stderr, cleared at the end."""

    def __init__(self, total, desc):
        self.total, self.desc, self.done = total, desc, 0

    def update(self, n=1, **info):
        self.done += n
        filled = int(30 * self.done / self.total) if self.total else 0
        extra = " ".join(f"{k} {v:.4g}" if isinstance(v, float) else f"{k} {v}" for k, v in info.items())
        sys.stderr.write(f"\r{self.desc} [{'#' * filled}{'.' * (30 - filled)}] {self.done}/{self.total} {extra}")
        sys.stderr.flush()

    def close(self):
        sys.stderr.write("\r\033[K")
        sys.stderr.flush()


class _Tqdm:
    def __init__(self, tqdm, total, desc):
        self.bar = tqdm(total=total, desc=desc, leave=False)

    def update(self, n=1, **info):
        if info:
            self.bar.set_postfix(info, refresh=False)
        self.bar.update(n)

    def close(self):
        self.bar.close()


class _Silent:
    def update(self, n=1, **info):
        pass

    def close(self):
        pass


def progress_for(progress, total, desc):
    """progress: None/False (nothing), True (a bar), or callable(done, total, info: dict)."""
    if progress is None or progress is False:
        return _Silent()
    if callable(progress):
        return _Callback(progress, total, desc)
    if progress is True:
        try:
            from tqdm import tqdm
        except ImportError:
            return _TextBar(total, desc)
        return _Tqdm(tqdm, total, desc)
    raise TypeError("progress must be None, True or a callable(done, total, info)")
