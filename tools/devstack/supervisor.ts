/**
 * The supervisor that runs every java process of the stack (and mvn): a small bash script, so it
 * costs no JVM or Node heap. It is spawned as a process-group leader and
 *  - starts the program in the background and writes its pid to a file;
 *  - every 500 ms checks the watched parent pid; when the parent is gone (even SIGKILLed) and the
 *    release file does not exist, it stops the program (SIGTERM, SIGKILL after 10 s), deletes the
 *    program's cleanup folder (and its parent folder when that is then empty), and exits;
 *  - on SIGTERM/SIGINT it stops the program the same way (deleting the folder only if the owner
 *    is gone: otherwise the owner does) and exits;
 *  - on SIGHUP (sent by the owner's exit hook, see cleanup.ts) it stops the program, waits up to
 *    5 s for the owner to be gone, deletes the folder and exits;
 *  - exits with the program's status when the program exits (cleaning up first if the owner is
 *    gone by then).
 * A parent pid of 0 watches nothing. Creating the release file hands a running program over
 * (detached stack): from then on the supervisor watches the pid written on the file's first line
 * instead (0: nothing).
 *
 * Arguments: parentPid releaseFile cleanupDir pidFile command [args...]
 */
export const SUPERVISOR_SCRIPT = String.raw`
parent=$1; release=$2; cleanup=$3; pidfile=$4
shift 4
"$@" &
child=$!
printf '%s
' "$child" > "$pidfile"
alive() {
  kill -0 "$1" 2>/dev/null || return 1
  # A dead owner whose own parent is gone may linger as a zombie until PID 1 reaps it.
  # /proc/<pid>/stat is "pid (comm) state ...". (No brace expansions here: this is a JS template.)
  if read -r stat 2>/dev/null < "/proc/$1/stat"; then
    case "$stat" in *") Z "* | *") X "*) return 1 ;; esac
  fi
  return 0
}
orphaned() {
  watched=$parent
  if [ -e "$release" ]; then
    watched=0
    read -r watched 2>/dev/null < "$release"
  fi
  [ "$watched" -gt 0 ] 2>/dev/null && ! alive "$watched"
}
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
remove_data() {
  if [ -n "$cleanup" ]; then
    rm -rf -- "$cleanup"
    rm -f -- "$release"
    rmdir -- "$(dirname -- "$cleanup")" 2>/dev/null
  fi
}
# SIGTERM/SIGINT: a stop; the owner deletes the data (unless it is gone already).
# SIGHUP: the owner is exiting (its exit hook): stop, wait for it to be gone, delete the data.
on_stop() {
  trap '' TERM INT HUP # A second signal must not kill the supervisor before the program is gone.
  stop_child
  if orphaned; then remove_data; fi
  exit 143
}
on_owner_exit() {
  trap '' TERM INT HUP
  stop_child
  i=0
  while ! orphaned && [ "$i" -lt 50 ]; do
    sleep 0.1
    i=$((i + 1))
  done
  if orphaned; then remove_data; fi
  exit 129
}
trap on_stop TERM INT
trap on_owner_exit HUP
while kill -0 "$child" 2>/dev/null; do
  if orphaned; then
    stop_child
    remove_data
    exit 0
  fi
  sleep 0.5
done
wait "$child"
status=$?
# A short-lived program (storage format) may end just as its owner dies: clean up after it too.
if orphaned; then remove_data; fi
exit $status
`;

/** Name the supervisor shows as `$0` in `ps`. */
export const SUPERVISOR_NAME = 'hookline-supervisor';
