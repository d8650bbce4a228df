#!/usr/bin/env python3
"""Checks that a Chrome/Perfetto trace is one Perfetto shows as written.

- Complete slices (`"ph": "X"`) on one track (pid, tid) never overlap: the
  trace-event format draws a track's slices as a stack of nested calls, so
  two that only partly overlap are drawn wrong.
- Every slice carries args, and each track and process has a name.
- Every flow (a stall to the transfer it waited for) has one start and one
  end, each inside a slice of its track, so that Perfetto binds it.
- With --processes N, the trace holds exactly N processes, each named.

Usage: check-trace.py TRACE.json [--processes N]; prints what it checked,
exits 1 with the first problem otherwise.
"""

import argparse
import collections
import json
import sys

# Slices that touch (one ends as the next starts) do not overlap; times are
# microseconds printed from doubles.
EPSILON_US = 1e-6


def check(trace, processes):
    events = trace["traceEvents"]
    names = {(event["pid"], event.get("tid")): event["args"]["name"]
             for event in events if event["ph"] == "M"}
    slices = collections.defaultdict(list)
    for event in events:
        if event["ph"] != "X":
            continue
        if not event.get("args"):
            return f"slice '{event['name']}' at {event['ts']} us has no args"
        track = (event["pid"], event["tid"])
        if track not in names:
            return f"track {track} has no thread_name"
        slices[track].append((event["ts"], event["ts"] + event["dur"],
                              event["name"]))
    for track, spans in slices.items():
        spans.sort()
        for (start, end, name), (next_start, _, next_name) in zip(spans,
                                                                  spans[1:]):
            if next_start < end - EPSILON_US:
                return (f"on track '{names[track]}', '{next_name}' starts at "
                        f"{next_start} us, before '{name}' ends at {end} us")
    flows = collections.defaultdict(dict)
    for event in events:
        if event["ph"] in ("s", "f"):
            if event["ph"] in flows[event["id"]]:
                return f"flow {event['id']} has two '{event['ph']}' ends"
            flows[event["id"]][event["ph"]] = event
    for flow_id, ends in flows.items():
        if set(ends) != {"s", "f"}:
            return f"flow {flow_id} has only its '{''.join(ends)}' end"
        for end in ends.values():
            track = (end["pid"], end["tid"])
            if not any(start - EPSILON_US <= end["ts"] <= stop + EPSILON_US
                       for start, stop, _ in slices.get(track, [])):
                return (f"flow {flow_id}: its '{end['ph']}' end at "
                        f"{end['ts']} us is in no slice of track "
                        f"'{names.get(track)}'")
    pids = {event["pid"] for event in events}
    unnamed = [pid for pid in pids if (pid, None) not in names]
    if unnamed:
        return f"process {unnamed[0]} has no process_name"
    if processes is not None and len(pids) != processes:
        return f"{len(pids)} processes, expected {processes}"
    print(f"{sum(map(len, slices.values()))} slices on {len(slices)} tracks "
          f"in {len(pids)} processes: no overlaps, every slice with args; "
          f"{len(flows)} flows, each bound at both ends")
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trace")
    parser.add_argument("--processes", type=int)
    args = parser.parse_args()
    with open(args.trace) as file:
        problem = check(json.load(file), args.processes)
    if problem:
        print(f"{args.trace}: {problem}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
