from smooth.train import main

print(main())
# expected compiles: step=1
