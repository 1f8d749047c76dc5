"""Perft leaves per second for each variant, with and without the shared-subtree table.

    python benchmarks/bench_engine.py            # the issue's targets and a little more
"""

from __future__ import annotations

import argparse
import time

from foxgeese.engine import Game, get_variant, perft

CASES = [
    ("standard", {}, 6),
    ("standard", {"sideways": True}, 6),
    ("standard", {"geese": 17}, 6),
    ("hare-and-hounds", {}, 10),
    ("great-cross", {}, 6),
]


def main() -> None:
    argparse.ArgumentParser(description=__doc__.splitlines()[0]).parse_args()  # --help, and no stray options
    print(f"{'variant':<28} {'depth':>5} {'leaves':>12} {'hash s':>8} {'leaves/s':>12} {'plain s':>8} {'leaves/s':>12}")
    for variant_id, options, depth in CASES:
        game = Game(get_variant(variant_id, **options))
        row = []
        for use_hash in (True, False):
            began = time.perf_counter()
            leaves = perft(game, depth, use_hash=use_hash)
            elapsed = time.perf_counter() - began
            row += [elapsed, leaves / elapsed]
        name = variant_id + "".join(f" {k}={v}" for k, v in options.items())
        print(f"{name:<28} {depth:>5} {leaves:>12,} {row[0]:>8.3f} {row[1]:>12,.0f} {row[2]:>8.3f} {row[3]:>12,.0f}")


if __name__ == "__main__":
    main()
