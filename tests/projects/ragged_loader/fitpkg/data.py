import numpy as np


class BatchIterator:
    def __init__(self, x, y, batch_size, seed=0):
        self.x, self.y = x, y
        self.batch_size = batch_size
        self.rng = np.random.default_rng(seed)

    def __iter__(self):
        order = self.rng.permutation(len(self.x))
        for start in range(0, len(self.x), self.batch_size):
            rows = order[start:start + self.batch_size]
            yield self.x[rows], self.y[rows]
