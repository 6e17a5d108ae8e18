from fitpkg.train import train

print(train())
