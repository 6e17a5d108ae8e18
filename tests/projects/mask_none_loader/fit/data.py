import numpy as np


def batches(x, y, size):
    for start in range(0, len(x), size):
        xb, yb = x[start:start + size], y[start:start + size]
        if len(xb) == size:
            yield {"x": xb, "y": yb, "mask": None}
        else:
            pad = size - len(xb)
            mask = np.concatenate([np.ones(len(xb)), np.zeros(pad)]).astype(np.float32)
            yield {"x": np.pad(xb, ((0, pad), (0, 0))), "y": np.pad(yb, (0, pad)), "mask": mask}
