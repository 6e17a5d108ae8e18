from nets.model import init
from nets.seeding import fresh_key

params = init(3, 4)
print(params["w"].shape)
print(fresh_key())
