from . import config


def step_decay(lr):
    return lr * config.DECAY
