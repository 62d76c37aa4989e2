#!/usr/bin/env python3
"""Numeric statistics of one named CSV column, as JSON.

Usage: column-stats.v2.py --column NAME [--delimiter C] [FILE]
Reads CSV from FILE (relative to the skill folder) or stdin; the first row is
the header. Exit 0 on success, 1 when the column is missing or has no numeric
value, 2 on bad arguments or an unreadable file. Standard library only.
"""
import argparse
import csv
import json
import math
import statistics
import sys


class Parser(argparse.ArgumentParser):
    def error(self, message):
        self.print_usage(sys.stderr)
        print(f"column-stats: {message}", file=sys.stderr)
        sys.exit(2)


def delimiter(value):
    value = {"tab": "\t", "\\t": "\t"}.get(value, value)
    if len(value) != 1:
        raise argparse.ArgumentTypeError(f"must be one character (or 'tab'): {value!r}")
    return value


def to_number(cell):
    """A finite number as Python's float() reads it, else None ("1,234" and "n/a" are not numbers)."""
    try:
        value = float(cell.strip())
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def tidy(value):
    value = round(value, 6)
    return int(value) if value.is_integer() and abs(value) < 2**53 else value


def main():
    parser = Parser(prog="column-stats.v2.py", description="Numeric stats of one CSV column.")
    parser.add_argument("--column", required=True, metavar="NAME", help="header of the column (exact, case-sensitive)")
    parser.add_argument("--delimiter", type=delimiter, default=",", metavar="C")
    parser.add_argument("file", nargs="?", metavar="FILE", help="CSV file instead of stdin")
    args = parser.parse_args()
    sys.stdout.reconfigure(encoding="utf-8")

    if args.file:
        try:
            source = open(args.file, encoding="utf-8-sig", errors="replace", newline="")
        except OSError as exc:
            print(f"column-stats: cannot read {args.file}: {exc.strerror}", file=sys.stderr)
            return 2
    else:
        sys.stdin.reconfigure(encoding="utf-8-sig", errors="replace", newline="")
        source = sys.stdin

    with source:
        try:
            reader = csv.reader(source, delimiter=args.delimiter)
            header = [name.strip() for name in next(reader, [])]
            if args.column not in header:
                shown = ", ".join(repr(h) for h in header) if header else "none (empty input)"
                print(f"column-stats: no column {args.column!r}; columns: {shown}", file=sys.stderr)
                return 1
            index = header.index(args.column)
            values, missing, non_numeric, rows = [], 0, 0, 0
            for record in reader:
                if not record or record == [""]:
                    continue
                rows += 1
                cell = record[index] if index < len(record) else ""
                if cell.strip() == "":
                    missing += 1
                    continue
                number = to_number(cell)
                if number is None:
                    non_numeric += 1
                else:
                    values.append(number)
        except csv.Error as exc:
            print(f"column-stats: malformed CSV at line {reader.line_num}: {exc}", file=sys.stderr)
            return 1

    if not values:
        print(f"column-stats: column {args.column!r} has no numeric values "
              f"({rows} rows, {missing} empty, {non_numeric} non-numeric)", file=sys.stderr)
        return 1
    result = {
        "column": args.column,
        "rows": rows,
        "count": len(values),
        "missing": missing,
        "non_numeric": non_numeric,
        "min": tidy(min(values)),
        "max": tidy(max(values)),
        "sum": tidy(math.fsum(values)),
        "mean": tidy(statistics.fmean(values)),
        "median": tidy(statistics.median(values)),
        "stdev": tidy(statistics.stdev(values)) if len(values) > 1 else None,
    }
    print(json.dumps(result, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
