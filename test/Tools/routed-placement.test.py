"""Fails when the plan told of a better predictor is over 1% slower."""
import json
import sys

def mean_step(path):
    with open(path) as f:
        comparison = json.load(f)
    policy = next(p for p in comparison["policies"]
                  if p["name"] == "hyperoffload")
    return policy["routing_steps"]["mean_step_time_s"]

without, told = (mean_step(path) for path in sys.argv[1:3])
if told > without * 1.01:
    sys.exit(f"predictor 90%: {told * 1e3:.3f} ms, over 1% slower than "
             f"{without * 1e3:.3f} ms without a predictor")
