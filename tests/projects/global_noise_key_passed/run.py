# expected compiles: init_mlp=1
import jax

from noisy.model import init_mlp
from noisy.noise import draw

params = init_mlp(jax.random.PRNGKey(0), (4, 8, 1))
params = init_mlp(jax.random.PRNGKey(1), (4, 8, 1))
print([w.shape for w, _ in params])
print(draw(jax.random.PRNGKey(2), (2,))[1])
