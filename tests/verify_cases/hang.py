"""Its example never returns: the verifier must time out on this file and go on with the others."""
import jax


@jax.jit
def flip(x, n):
    if n > 0:
        return x
    return -x


def spin():
    while True:
        pass


# jaxlint-example: spin()
