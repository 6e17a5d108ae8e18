from rl.loop import rollout

print(rollout(5)[1])

# expected compiles: apply=1 (jitted once per agent; one agent)
