"""The shared analysis every rule reads: names, traced functions, dataflow, call sites."""
