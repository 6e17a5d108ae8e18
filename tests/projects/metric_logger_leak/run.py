from logdemo.train import fit

print(fit(3))
