// A bash process that outlives a SIGKILLed gateway by exactly as long as it needs to kill what
// the gateway left. Its stdin is a pipe whose write end only the gateway holds, so EOF means the gateway is
// gone (or closed the runner). Each run's first process inherits that write end, writes "+<its pid>" (its
// process group) and closes it before it runs anything: so the watchdog cannot see EOF while a run it does
// not know of is starting, however the gateway dies. On EOF it kills every group it was told of (the
// gateway writes "-<pid>" when a run ended) and, with cgroups, sweeps this gateway's run cgroups. First it
// closes every descriptor above stdio the gateway inherited without close-on-exec (a supervisor's log file or
// pipe), as a run's wrapper does: it may outlive the gateway, and must not keep them open meanwhile.
/** The watchdog's bash script: its stdin is the gateway's pipe, its arguments the cgroup folders it sweeps. */
export const WATCHDOG_SCRIPT = `trap '' INT TERM HUP QUIT PIPE
for fd in /proc/self/fd/*; do
  fd=\${fd##*/}
  case $fd in ''|*[!0-9]*|0|1|2) continue ;; esac
  eval "exec $fd>&-" 2>/dev/null
done
declare -A groups=()
while IFS= read -r line; do
  if [[ $line =~ ^[+]([0-9]+)$ ]]; then groups[\${BASH_REMATCH[1]}]=1
  elif [[ $line =~ ^-([0-9]+)$ ]]; then unset "groups[\${BASH_REMATCH[1]}]"
  fi
done
for pgid in "\${!groups[@]}"; do kill -KILL -- "-$pgid" 2>/dev/null; done
sweep() {
  local dir=$1 round run pid
  for ((round = 0; round < 400; round++)); do
    for run in "$dir"/*/; do
      [ -d "$run" ] || continue
      while read -r pid; do kill -KILL "$pid" 2>/dev/null; done <"\${run}cgroup.procs"
      rmdir "$run" 2>/dev/null
    done
    rmdir "$dir" 2>/dev/null && return
    [ -d "$dir" ] || return
    sleep 0.05
  done
}
for dir in "$@"; do
  [ -n "$dir" ] && sweep "$dir"
done
exit 0`;
