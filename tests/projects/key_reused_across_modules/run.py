import jax

jax.config.update("jax_debug_key_reuse", True)

from rl.train import setup

setup(0)
