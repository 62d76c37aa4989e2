#!/usr/bin/env python3
"""Profile a synthetic dataset slowly, reporting progress, for async-job demos.

Usage: profile.py [--rows N] [--seconds S] [--seed K]
stdout: "progress: k/steps" lines (flushed), then one JSON summary line.
Exit 0 done, 2 bad arguments, 130 cancelled (SIGTERM/SIGINT -> prints "cancelled").
Standard library only.
"""
import argparse
import datetime
import json
import math
import random
import signal
import sys
import time

STEP_SECONDS = 0.2
COUNTRIES = ["DE", "FR", "GB", "US", "JP", "BR", "IN", "NG"]
COUNTRY_WEIGHTS = [14, 10, 12, 30, 8, 9, 11, 6]
EPOCH = datetime.date(2020, 1, 1)


class Parser(argparse.ArgumentParser):
    def error(self, message):
        self.print_usage(sys.stderr)
        print(f"profile: {message}", file=sys.stderr)
        sys.exit(2)


def bounded(kind, low, high):
    def convert(value):
        try:
            number = kind(value)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a number: {value!r}") from None
        if not (low <= number <= high) or (kind is float and math.isnan(number)):
            raise argparse.ArgumentTypeError(f"must be between {low} and {high}: {value!r}")
        return number
    return convert


def on_cancel(signum, frame):
    sys.stdout.write("cancelled\n")
    sys.stdout.flush()
    sys.exit(130)


class Column:
    """Streaming statistics for one column."""

    def __init__(self, kind):
        self.kind = kind
        self.count = 0
        self.nulls = 0
        self.total = 0.0
        self.minimum = None
        self.maximum = None
        self.values = {}

    def add(self, value):
        self.count += 1
        if value is None:
            self.nulls += 1
            return
        if self.kind in ("int", "float"):
            self.total += value
        if self.minimum is None or value < self.minimum:
            self.minimum = value
        if self.maximum is None or value > self.maximum:
            self.maximum = value
        if self.kind != "float":
            self.values[value] = self.values.get(value, 0) + 1

    def summary(self):
        present = self.count - self.nulls
        out = {"type": self.kind, "nulls": self.nulls,
               "null_rate": round(self.nulls / self.count, 4) if self.count else 0.0}
        if self.kind in ("int", "float"):
            out["min"] = self.minimum
            out["max"] = self.maximum
            out["mean"] = round(self.total / present, 2) if present else None
        elif self.kind == "date":
            out["min"] = self.minimum.isoformat() if self.minimum else None
            out["max"] = self.maximum.isoformat() if self.maximum else None
        if self.kind == "float":
            out["min"] = round(self.minimum, 2) if self.minimum is not None else None
            out["max"] = round(self.maximum, 2) if self.maximum is not None else None
        else:
            out["distinct"] = len(self.values)
        if self.kind in ("category", "bool"):
            top = sorted(self.values.items(), key=lambda kv: (-kv[1], str(kv[0])))[:3]
            out["top"] = [[str(k).lower() if isinstance(k, bool) else k, n] for k, n in top]
        return out


def make_row(rng, index):
    def maybe(value, null_rate):
        return None if rng.random() < null_rate else value
    age = maybe(int(min(90, max(18, rng.gauss(45, 15)))), 0.02)
    income = maybe(round(rng.lognormvariate(10.6, 0.5), 2), 0.05)
    country = rng.choices(COUNTRIES, COUNTRY_WEIGHTS)[0]
    signup = maybe(EPOCH + datetime.timedelta(days=rng.randrange(0, 1500)), 0.01)
    churned = rng.random() < 0.18
    return {"id": index + 1, "age": age, "income": income, "country": country,
            "signup_date": signup, "churned": churned}


def main():
    parser = Parser(prog="profile.py", description="Profile a synthetic dataset slowly.")
    parser.add_argument("--rows", type=bounded(int, 1, 1_000_000), default=10_000, metavar="N")
    parser.add_argument("--seconds", type=bounded(float, 0, 600), default=3.0, metavar="S")
    parser.add_argument("--seed", type=int, default=42, metavar="K")
    args = parser.parse_args()

    signal.signal(signal.SIGTERM, on_cancel)
    signal.signal(signal.SIGINT, on_cancel)

    rng = random.Random(args.seed)
    columns = {"id": Column("int"), "age": Column("int"), "income": Column("float"),
               "country": Column("category"), "signup_date": Column("date"),
               "churned": Column("bool")}
    steps = max(1, round(args.seconds / STEP_SECONDS))
    started = time.monotonic()
    done_rows = 0
    for step in range(1, steps + 1):
        target = args.rows * step // steps
        while done_rows < target:
            for name, value in make_row(rng, done_rows).items():
                columns[name].add(value)
            done_rows += 1
        # Pace the run so that step k ends about k * S / steps seconds in.
        delay = started + args.seconds * step / steps - time.monotonic()
        if delay > 0:
            time.sleep(delay)
        print(f"progress: {step}/{steps}", flush=True)

    summary = {"rows": args.rows, "seconds": args.seconds, "seed": args.seed,
               "columns": {name: col.summary() for name, col in columns.items()}}
    print(json.dumps(summary), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
