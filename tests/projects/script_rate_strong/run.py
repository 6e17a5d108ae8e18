import train

print(train.w)
