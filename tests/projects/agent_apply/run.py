from rl.loop import rollout

print(rollout(5)[1])
