from noisy.model import init_mlp
from noisy.noise import draw

params = init_mlp((4, 8, 1))
print([w.shape for w, _ in params])
print(draw((2,)))     # the key the trace left behind is a tracer
