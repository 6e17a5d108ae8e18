from deqsolve.train import main

print(main())
# expected compiles: forward=1 (six refinement steps, below the unrolling threshold)
