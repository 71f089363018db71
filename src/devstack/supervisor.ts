/**
 * The supervisor that runs every java process of the stack (and mvn): a small bash script, so it
 * costs no JVM or Node heap. It is spawned as a process-group leader and
 *  - starts the program in the background and writes its pid to a file;
 *  - every 500 ms checks the watched parent pid; when the parent is gone (even SIGKILLed) and the
 *    release file does not exist, it stops the program (SIGTERM, SIGKILL after 10 s), deletes the
 *    program's cleanup folder (and its parent folder when that is then empty), and exits;
 *  - on SIGTERM/SIGINT/SIGHUP it stops the program the same way and exits;
 *  - exits with the program's status when the program exits.
 * A parent pid of 0 watches nothing (detached stack). Creating the release file detaches a running one.
 *
 * Arguments: parentPid releaseFile cleanupDir pidFile command [args...]
 */
export const SUPERVISOR_SCRIPT = String.raw`
parent=$1; release=$2; cleanup=$3; pidfile=$4
shift 4
"$@" &
child=$!
printf '%s\n' "$child" > "$pidfile"
stop_child() {
  kill -TERM "$child" 2>/dev/null
  i=0
  while kill -0 "$child" 2>/dev/null; do
    if [ "$i" -ge 100 ]; then kill -KILL "$child" 2>/dev/null; break; fi
    sleep 0.1
    i=$((i + 1))
  done
  wait "$child" 2>/dev/null
}
trap 'trap - TERM INT HUP; stop_child; exit 143' TERM INT HUP
while kill -0 "$child" 2>/dev/null; do
  if [ "$parent" -gt 0 ] && [ ! -e "$release" ] && ! kill -0 "$parent" 2>/dev/null; then
    stop_child
    if [ -n "$cleanup" ]; then
      rm -rf -- "$cleanup"
      rmdir -- "$(dirname -- "$cleanup")" 2>/dev/null
    fi
    exit 0
  fi
  sleep 0.5
done
wait "$child"
`;

/** Name the supervisor shows as `$0` in `ps`. */
export const SUPERVISOR_NAME = 'hookline-supervisor';
