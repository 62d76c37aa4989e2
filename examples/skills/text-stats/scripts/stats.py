#!/usr/bin/env python3
"""Print line, word and character counts and the most frequent words as JSON.

Usage: stats.py [--top N] [FILE ...]
Reads stdin when no FILE is given. Exit 0 on success, 2 on bad arguments or
unreadable files. Standard library only.
"""
import argparse
import collections
import json
import re
import sys

# Letters/digits, optionally joined by inner apostrophes ("don't", "o'neil").
WORD_RE = re.compile(r"[^\W_]+(?:['\u2019][^\W_]+)*")


class Parser(argparse.ArgumentParser):
    def error(self, message):
        self.print_usage(sys.stderr)
        print(f"stats: {message}", file=sys.stderr)
        sys.exit(2)


def non_negative_int(value):
    try:
        number = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {value!r}") from None
    if number < 0:
        raise argparse.ArgumentTypeError(f"must be >= 0: {value!r}")
    return number


def read_inputs(paths):
    if not paths:
        return sys.stdin.read()
    parts = []
    for path in paths:
        try:
            with open(path, encoding="utf-8", errors="replace") as handle:
                parts.append(handle.read())
        except OSError as exc:
            print(f"stats: cannot read {path}: {exc.strerror}", file=sys.stderr)
            sys.exit(2)
    # Files are joined as if concatenated, each ending on its own line.
    return "".join(p if p.endswith("\n") or not p else p + "\n" for p in parts)


def stats(text, top):
    counts = collections.Counter(m.group(0).lower() for m in WORD_RE.finditer(text))
    ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))[:top]
    return {
        "lines": len(text.splitlines()),
        "words": len(text.split()),
        "chars": len(text),
        "top_words": [[word, n] for word, n in ranked],
    }


def main():
    parser = Parser(prog="stats.py", description="Text statistics as JSON.")
    parser.add_argument("--top", type=non_negative_int, default=5, metavar="N",
                        help="number of most frequent words to list (default 5)")
    parser.add_argument("files", nargs="*", metavar="FILE",
                        help="files to read instead of stdin (relative to the skill folder)")
    args = parser.parse_args()
    sys.stdin.reconfigure(encoding="utf-8", errors="replace")
    sys.stdout.reconfigure(encoding="utf-8")
    print(json.dumps(stats(read_inputs(args.files), args.top), ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
