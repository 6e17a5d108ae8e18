from fitpkg.train import train

print(train())

# expected compiles: fit_step=1
