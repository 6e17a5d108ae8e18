from logdemo.train import fit

print(fit(3))
# expected compiles: train_step=1
