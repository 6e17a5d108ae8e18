from relax.solver import run

print(run())

# expected compiles: settle=1
