"""Writes a function whose device buffers have the given sizes and lifetimes.

Each argument is SIZE@[START,END): SIZE bytes (a multiple of 4) live from
instant START to instant END. A buffer is made by an op without operands
and ends at an op that reads it and makes an empty tensor, so that the
buffers live at each instant are exactly those listed for it. With
--repeat-tail N, N more buffers of 4 bytes follow, one at a time.
"""

import argparse
import re
import sys


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("buffers", nargs="+")
    parser.add_argument("--repeat-tail", type=int, default=0)
    args = parser.parse_args()
    buffers = []
    for text in args.buffers:
        match = re.fullmatch(r"(\d+)@\[(\d+),(\d+)\)", text)
        if not match or int(match[1]) % 4:
            sys.exit(f"not SIZE@[START,END) with SIZE a multiple of 4: {text}")
        buffers.append(tuple(map(int, match.groups())))
    end = max(stop for _, _, stop in buffers)
    for index in range(args.repeat_tail):
        buffers.append((4, end + index, end + index + 1))
    lines = []
    for instant in sorted({t for _, start, stop in buffers for t in (start, stop)}):
        for index, (size, start, stop) in enumerate(buffers):
            if stop == instant:
                lines.append(f'  %end{index} = ho.compute "k"(%b{index}) : '
                             f'(tensor<{size // 4}xf32>) -> tensor<0xf32>')
        for index, (size, start, stop) in enumerate(buffers):
            if start == instant:
                lines.append(f'  %b{index} = ho.compute "k"() : () -> '
                             f'tensor<{size // 4}xf32>')
    print("func.func @buffers() {")
    print("\n".join(lines))
    print("  return")
    print("}")


if __name__ == "__main__":
    main()
