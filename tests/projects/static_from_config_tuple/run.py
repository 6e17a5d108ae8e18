from net.train import build

print([w.shape for w in build(0)])
