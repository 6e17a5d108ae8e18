from . import config, schedule
from .model import sgd_step


def train(w, grads):
    lr = 0.1
    for _ in range(config.EPOCHS):
        for g in grads:
            w = sgd_step(w, g, lr)
        lr = schedule.step_decay(lr)
    return w
