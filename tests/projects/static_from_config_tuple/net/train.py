import jax

from net import hparams
from net.model import init


def build(seed):
    return init(jax.random.key(seed), widths=hparams.WIDTHS)
