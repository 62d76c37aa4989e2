#!/usr/bin/env python3
"""Convert CSV read on stdin to a JSON array of objects on stdout.

Usage: "CSV to JSON.py" [--delimiter C] [--infer-types] [--indent N]
The first row is the header. Exit 0 on success, 1 on malformed CSV,
2 on bad arguments. Standard library only.
"""
import argparse
import csv
import json
import re
import sys

NUMBER = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?")


class Parser(argparse.ArgumentParser):
    def error(self, message):
        self.print_usage(sys.stderr)
        print(f"csv-to-json: {message}", file=sys.stderr)
        sys.exit(2)


def delimiter(value):
    value = {"tab": "\t", "\\t": "\t"}.get(value, value)
    if len(value) != 1:
        raise argparse.ArgumentTypeError(f"must be one character (or 'tab'): {value!r}")
    return value


def infer(value):
    """'' -> None, true/false -> bool, numbers -> int/float, else the string."""
    if value is None or value == "":
        return None
    lowered = value.strip().lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    if NUMBER.fullmatch(value.strip()):
        number = float(value)
        if "." not in value and "e" not in lowered and abs(number) < 2**53:
            return int(value)
        return number
    return value


def main():
    parser = Parser(prog="CSV to JSON.py", description="CSV (stdin) to a JSON array (stdout).")
    parser.add_argument("--delimiter", type=delimiter, default=",", metavar="C",
                        help="field separator: one character or 'tab' (default ',')")
    parser.add_argument("--infer-types", action="store_true",
                        help="convert numbers, true/false and empty cells (null)")
    parser.add_argument("--indent", type=int, default=None, metavar="N",
                        help="pretty-print with N spaces (default: one line)")
    args = parser.parse_args()
    sys.stdin.reconfigure(encoding="utf-8-sig", errors="replace", newline="")
    sys.stdout.reconfigure(encoding="utf-8")

    reader = csv.reader(sys.stdin, delimiter=args.delimiter, strict=True)
    rows = []
    try:
        header = next(reader, None)
        if header is not None:
            header = [name.strip() for name in header]
            for record in reader:
                if not record or record == [""]:
                    continue  # blank line
                item = {}
                for index, name in enumerate(header):
                    cell = record[index] if index < len(record) else None
                    item[name] = infer(cell) if args.infer_types else cell
                if len(record) > len(header):
                    item["_extra"] = record[len(header):]
                rows.append(item)
    except csv.Error as exc:
        print(f"csv-to-json: malformed CSV at line {reader.line_num}: {exc}", file=sys.stderr)
        return 1
    print(json.dumps(rows, ensure_ascii=False, indent=args.indent))
    return 0


if __name__ == "__main__":
    sys.exit(main())
