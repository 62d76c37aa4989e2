#!/usr/bin/env bash
# Summarise log lines read on stdin: counts per level, then the first ERROR lines.
# Usage: triage.sh [--max N] < app.log
# Exit 0 on success; 2 when stdin holds no log lines or on a bad argument.
set -euo pipefail

max=5
while [ "$#" -gt 0 ]; do
  case "$1" in
    --max)
      [ "$#" -ge 2 ] || { echo "triage: --max needs a number" >&2; exit 2; }
      max="$2"; shift 2 ;;
    --max=*) max="${1#--max=}"; shift ;;
    -h|--help)
      echo "usage: triage.sh [--max N] < logfile"; exit 0 ;;
    *) echo "triage: unknown argument: $1 (log lines go on stdin)" >&2; exit 2 ;;
  esac
done
case "$max" in
  ''|*[!0-9]*) echo "triage: --max must be a non-negative integer, got '$max'" >&2; exit 2 ;;
esac

# Never wait for a human typing at a terminal.
if [ -t 0 ]; then
  echo "triage: no log lines on stdin" >&2
  exit 2
fi

status=0
LC_ALL=C awk -v max="$max" '
  {
    sub(/\r$/, "")
    if ($0 ~ /^[ \t]*$/) next
    total++
    line = tolower($0)
    level = "OTHER"
    # First whole-word level token wins.
    if (match(line, /(^|[^a-z0-9_])(error|err|fatal|critical|warning|warn|info|notice|debug|trace)([^a-z0-9_]|$)/)) {
      word = substr(line, RSTART, RLENGTH)
      gsub(/[^a-z]/, "", word)
      if (word == "error" || word == "err" || word == "fatal" || word == "critical") level = "ERROR"
      else if (word == "warn" || word == "warning") level = "WARN"
      else if (word == "info" || word == "notice") level = "INFO"
      else level = "DEBUG"
    }
    count[level]++
    if (level == "ERROR" && shown < max) first[++shown] = $0
  }
  END {
    if (total == 0) {
      exit 3  # no log lines: reported by the shell below
    }
    printf "ERROR %d\nWARN %d\nINFO %d\nDEBUG %d\nOTHER %d\n", count["ERROR"], count["WARN"], count["INFO"], count["DEBUG"], count["OTHER"]
    if (shown > 0) {
      printf "--- first %d ERROR lines ---\n", shown
      for (i = 1; i <= shown; i++) print first[i]
    }
  }
' || status=$?
if [ "$status" -eq 3 ]; then
  echo "triage: no log lines on stdin" >&2
  exit 2
fi
exit "$status"
