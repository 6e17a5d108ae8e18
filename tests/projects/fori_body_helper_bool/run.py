from relax.solver import run

print(run())
