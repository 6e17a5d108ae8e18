import train

print(train.w)

# expected compiles: sgd_step=1
