from nets.layers import random_bias
from nets.model import init
from nets.seeding import fresh_key

# expected compiles: init=1
params = init(fresh_key(), 3, 4)
params["b"] = params["b"] + random_bias(4)
print(params["w"].shape, params["b"].shape)
print(fresh_key())
