from net.train import build

print([w.shape for w in build(0)])

# expected compiles: init=1 (a tuple is hashable)
