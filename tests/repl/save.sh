#!/bin/sh
# save.sh — saved traces: every example recorded (--record) and replayed
# (--replay) under the same debugger commands prints the same text, step by
# step, forwards and backwards, with breakpoints of every kind; a failed
# save keeps the old file byte for byte; every malformed trace gets its
# exact message (harness: tests/lib/transcript.sh).
NAME=save
. "${SHAPEDB_TESTS:-$(dirname "$0")/..}/lib/transcript.sh"
root=$(cd "$(dirname "$0")/../.." && pwd)

# --- live and replay give the same text --------------------------------------
# The commands of each session: forwards, backwards, breakpoints.
forwards='step|step 3|where|list|info pending|info symbols|next|step 7|where|info guards|info graph|finish|step 5|info asserts|info bindings|info replacements|info ranges|explain s0|explain u0|print s0 + 1|print u0 >= 0|why u0 >= 0|assume u0 >= 0|why u0 >= 0|info tracers|info phases|goto end|info events|info timeline|step'
backwards='goto end|reverse-step|where|list|reverse-step 4|reverse-next|reverse-finish|info symbols|reverse-step 3|info pending|goto 5|where|goto start|step 2|reverse-step|goto end|reverse-continue|info events'
breaks='break unbacked|break guard|break phase aot|break op nonzero|break symbol s0|watch u0|break error|break event replacement_added|tbreak event node_placed|break FILE:6|continue|continue|continue|where|continue|continue 2|continue|info breakpoints|continue|continue|continue|reverse-continue|reverse-continue|reverse-continue|where|reverse-continue|info breakpoints|delete|continue'

# session CMDS ARGS...: shapedb --batch, -x for each |-separated command,
# then ARGS
session() {
  cmds=$1
  shift
  old=$IFS
  IFS='|'
  xs=
  for c in $cmds; do xs="$xs -x '$c'"; done
  IFS=$old
  (cd "$root" && eval "\"\$SHAPEDB\" --batch $xs \"\$@\"" < /dev/null) 2>&1
  echo "[exit $?]"
}

# Where they must differ: a live run starts its program, which prints what
# it prints (tour.lua's last line, the scenario scripts' TAP lines); at the end, the live program could be
# run again, a replay has none. (`info events` ahead of the cursor differs
# too: a live run lists only the events its program has reached.)
normalize() {
  grep -v '^Starting program: \|^tour finished: \|^ok [0-9]\|^not ok [0-9]\|^1\.\.[0-9]\|^# ' |
  sed 's/: the program has finished without events; `run` starts it again/: the replay has no events; a replay has no program to run/' |
  sed 's/: the program has finished (event \([0-9]*\) is the last); `reverse-step` or `goto` move back, `run` starts it again/: the end of the replay (event \1 is the last); `reverse-step` or `goto` move back; a replay has no program to run further/'
}

same=0
total=0
# The scenario scripts (tests/lua) load tests/lib/tap.lua.
LUA_PATH="$root/tests/lib/?.lua;;"
export LUA_PATH
for prog in "$root"/scripts/*.lua "$root"/scripts/lessons/*.lua "$root"/tests/lua/*.lua; do
  base=$(basename "$prog")
  for kind in forwards backwards breaks; do
    eval "cmds=\$$kind"
    cmds=$(printf '%s' "$cmds" | sed "s|FILE|$base|")
    rm -f "$work/t.jsonl"
    session "$cmds" --record "$work/t.jsonl" "$prog" | normalize > "$tmp/live"
    # a scenario whose check failed under the debugger ends with os.exit:
    # the process is gone before anything is saved
    [ -f "$work/t.jsonl" ] || { echo "# $base, $kind: no trace (os.exit)"; continue; }
    total=$((total + 1))
    session "$cmds" --replay "$work/t.jsonl" | grep -v '^Replaying \|^# ' > "$tmp/replay"
    if cmp -s "$tmp/live" "$tmp/replay"; then
      same=$((same + 1))
    else
      echo "# $base, $kind: the replay differs from the live run:"
      diff -u "$tmp/live" "$tmp/replay" | sed 's/^/# /' | head -40
    fi
  done
done
echo "$same of $total" > "$tmp/got"
echo "$total of $total" > "$tmp/want"
check 'every example, recorded then replayed: the same text forwards, backwards and at breakpoints'

# --- bad input: file:line: reason; what came before still loads --------------
cp "$root/scripts/nonzero.lua" "$work/nz.lua"
(cd "$work" && "$SHAPEDB" --batch --record good.jsonl -x 'goto end' nz.lua > /dev/null 2>&1)
g=$work/good.jsonl
{ head -3 "$g"; echo '{"seq":2,"event":"tracer_push",'; tail -n +5 "$g"; } > "$work/cut.jsonl"
{ head -6 "$g"; sed -n 7p "$g" | head -c 40; } > "$work/trunc.jsonl"
{ head -3 "$g"; echo '{"seq":2,"event":"compile_metrics","phase":"trace"}'
  echo '{"seq":3,"event":"dynamo_start","phase":"trace"}'
  echo '{"seq":3,"event":"dynamo_start","phase":"trace"}'
  echo '{"seq":3,"event":"","phase":"trace"}'; tail -n +4 "$g"; } > "$work/unknown.jsonl"
sed '1s/"version":1/"version":2/' "$g" > "$work/newer.jsonl"
{ head -8 "$g"; sed -n 9p "$g" | sed 's/"sym":"u0",//'; tail -n +10 "$g"; } > "$work/nosym.jsonl"
{ head -4 "$g"; echo '{"seq":3,"phase":"trace"}'; } > "$work/noevent.jsonl"
{ head -2 "$g"; echo '{"seq":1,"event":"guard_added","phase":"trace","expr":["Lt",0,"s0"]}'; } > "$work/badexpr.jsonl"
{ head -2 "$g"; echo '[1, 2]'; } > "$work/notobj.jsonl"
{ head -2 "$g"; echo; tail -n +3 "$g"; } > "$work/blank.jsonl"
sed '1s/"format":"shapedb-trace",//' "$g" > "$work/noformat.jsonl"
: > "$work/empty.jsonl"

want <<'OUT'
Replaying cut.jsonl: 2 events of nz.lua.
replay: cut.jsonl:4: invalid JSON: unexpected end of input
(the 2 events before line 4 are loaded)
event 1, phase trace, nz.lua:12 in main chunk
  fake_mode_created #1 (trace)
12	local out = compiled(shapedb.tensor{5, 2}, shapedb.tensor{7})
  compile 1 (model) began at event 0
[exit 1]
OUT
run --batch --replay cut.jsonl -x 'goto end'
check 'a line cut short: file:line: reason, and the events before it load'

want <<'OUT'
Replaying trunc.jsonl: 5 events of nz.lua.
warning: trunc.jsonl:7: invalid JSON: unexpected end of input (a truncated last line: skipped; the 5 events before it are loaded)
event 1, phase trace, nz.lua:12 in main chunk
  fake_mode_created #1 (trace)
12	local out = compiled(shapedb.tensor{5, 2}, shapedb.tensor{7})
  compile 1 (model) began at event 0
[exit 0]
OUT
run --batch --replay trunc.jsonl -x 'step 2'
check 'a truncated last line is reported, not fatal'

want <<'OUT'
Replaying unknown.jsonl: 28 events of nz.lua.
warning: unknown.jsonl: skipped 4 events of unknown kinds (compile_metrics, dynamo_start, "")
[exit 0]
OUT
run --batch --replay unknown.jsonl
check 'unknown event kinds are skipped with a count (an empty one after others hung the reader)'

want <<'OUT'
replay: newer.jsonl:1: format version 2 is newer than this shapedb reads (1); it was written by shapedb 0.1.0
no program loaded
state: not running
events: 0 recorded, this run from event 0; cursor before the first event
[exit 1]
OUT
run --batch --replay newer.jsonl -x 'info program'
check 'a trace from a newer format version is refused'

# "options" that are not an object are left out, as before (the header's
# reader took a failed dump of them for out of memory)
sed '1s/"options":{[^}]*}/"options":"main chunk"/' "$g" > "$work/stropts.jsonl"
want <<'OUT'
Replaying stropts.jsonl: 28 events of nz.lua.
[exit 0]
OUT
run --batch --replay stropts.jsonl
check 'options that are not an object are left out'

want <<'OUT'
Replaying nosym.jsonl: 7 events of nz.lua.
replay: nosym.jsonl:9: create_unbacked_symbol: missing field "sym"
(the 7 events before line 9 are loaded)
Replaying noevent.jsonl: 3 events of nz.lua.
replay: noevent.jsonl:5: missing field "event"
(the 3 events before line 5 are loaded)
Replaying badexpr.jsonl: 1 event of nz.lua.
replay: badexpr.jsonl:3: guard_added: bad "expr": wrong number of arguments in an expression
(the 1 event before line 3 is loaded)
Replaying notobj.jsonl: 1 event of nz.lua.
replay: notobj.jsonl:3: an event line must be a JSON object
(the 1 event before line 3 is loaded)
Replaying blank.jsonl: 1 event of nz.lua.
replay: blank.jsonl:3: invalid JSON: empty line
(the 1 event before line 3 is loaded)
replay: noformat.jsonl:1: not a shapedb trace (its first line has no "format": "shapedb-trace")
replay: empty.jsonl: empty (neither a saved trace nor a TORCH_TRACE log)
[exit 1]
OUT
run --batch -x 'replay nosym.jsonl' -x 'replay noevent.jsonl' -x 'replay badexpr.jsonl' \
  -x 'replay notobj.jsonl' -x 'replay blank.jsonl' -x 'replay noformat.jsonl' -x 'replay empty.jsonl'
check 'a missing field is named; bad expressions, lines that are not objects, blank lines, not a trace'

# Event lines are read by cJSON unless they hold a NUL or a byte past 0x7f
# (jansson then refuses what is not UTF-8, in its words: cJSON would take
# it) or an integer past 2**53 (read again by jansson: a double would round
# it). Found by make fuzz.
{ head -2 "$g"; printf '{"seq":1,"event":"guard_added","phase":"trace","expr":["Lt",0,"s\377","s1"]}\n'; } > "$work/badutf8.jsonl"
{ head -2 "$g"; printf '{"seq":1,"event":"guard_added","phase":"trace","expr":["Lt",0,"s0","s1"]}\0\n'; } > "$work/nul.jsonl"
{ head -2 "$g"; printf '{"seq":1,"event":"guard_added","phase":"trace","expr":["Lt",0,"s0",9007199254740993]}\n'; } > "$work/bigint.jsonl"
want <<'OUT'
Replaying badutf8.jsonl: 1 event of nz.lua.
replay: badutf8.jsonl:3: invalid JSON: unable to decode byte 0xff
(the 1 event before line 3 is loaded)
Replaying nul.jsonl: 1 event of nz.lua.
replay: nul.jsonl:3: invalid JSON: unexpected end of input
(the 1 event before line 3 is loaded)
Replaying bigint.jsonl: 2 events of nz.lua.
event 3, phase trace
  guard_added s0 < 9007199254740993
  guard: s0 < 9007199254740993
[program finished: 2 events in this run]
guards (1):
  s0 < 9007199254740993  (trace phase, event 3)
[exit 1]
OUT
run --batch -x 'replay badutf8.jsonl' -x 'replay nul.jsonl' -x 'replay bigint.jsonl' -x 'goto end' -x 'info guards'
check 'bytes past 0x7f and NULs are jansson'"'"'s errors; an integer past 2**53 stays exact'

# What cJSON would take and JSON refuses (a raw control character in a
# string, a leading zero) is refused in jansson's words; of duplicate keys
# the last counts, whichever reader reads the line (the second line has a
# "1." in a string, which sends it to jansson). Found by comparing replays
# of the fuzz corpus before and after jsonline.
{ head -2 "$g"; printf '{"seq":1,"event":"guard_added","phase":"trace","text":"a\001b","expr":["Lt",0,"s0","s1"]}\n'; } > "$work/ctl.jsonl"
{ head -2 "$g"; printf '{"seq":1,"event":"guard_added","phase":"trace","line":05,"expr":["Lt",0,"s0","s1"]}\n'; } > "$work/zero.jsonl"
{ head -2 "$g"; printf '{"seq":1,"event":"guard_added","phase":"trace","expr":["Lt",0,"s0","s1"],"expr":["Lt",0,"s0","s2"]}\n'
  printf '{"seq":2,"event":"guard_added","phase":"trace","text":"step 1. then","expr":["Lt",0,"s0","s1"],"expr":["Lt",0,"s0","s3"]}\n'; } > "$work/dup.jsonl"
want <<'OUT'
Replaying ctl.jsonl: 1 event of nz.lua.
replay: ctl.jsonl:3: invalid JSON: control character 0x1
(the 1 event before line 3 is loaded)
Replaying zero.jsonl: 1 event of nz.lua.
replay: zero.jsonl:3: invalid JSON: invalid token
(the 1 event before line 3 is loaded)
Replaying dup.jsonl: 3 events of nz.lua.
event 4, phase trace
  guard_added s0 < s3
  guard: s0 < s2
  guard: s0 < s3
[program finished: 3 events in this run]
guards (2):
  s0 < s2  (trace phase, event 3)
  s0 < s3  (trace phase, event 4)
[exit 1]
OUT
run --batch -x 'replay ctl.jsonl' -x 'replay zero.jsonl' -x 'replay dup.jsonl' -x 'goto end' -x 'info guards'
check 'control characters and leading zeros are refused; the last of duplicate keys counts'

# --- save: paused, atomic --------------------------------------------------------
want <<'OUT'
Starting program: nz.lua
Saved 5 events to p.jsonl (the program is paused: what happened so far, up to event 4).
Replaying p.jsonl: 5 events of nz.lua (the run was paused when saved).
run: a replay has no program to run (`info program` says what is replayed); `load FILE` loads one, `run LUA` runs Lua code
kill: a replay has no program to kill (`info program` says what is replayed)
replay: saved trace p.jsonl (format 1, written WHEN by shapedb 0.1.0)
program: nz.lua (not loaded: a replay has no program)
state: not running
events: 14 recorded, this run from event 9; cursor after event 13
earlier run 1: events 0-8, nz.lua
loaded nz.lua
live run
program: nz.lua
state: loaded, not started (nz.lua)
events: 14 recorded, this run from event 14; cursor after event 13
earlier run 1: events 0-8, nz.lua
[exit 1]
OUT
run --batch -x 'step 5' -x 'save p.jsonl' -x 'replay p.jsonl' -x run -x kill -x 'goto end' \
  -x 'info program' -x 'load nz.lua' -x 'info program' nz.lua
sed -i 's/written [0-9T:Z-]* by/written WHEN by/; /^event \|^  \|^[0-9]/d' "$tmp/got"
# (the killed program's last events, then the replay's, follow in the
# session's one stream: the replay runs from event 9)
check 'save while paused saves what happened so far; run and kill on a replay; info program'

printf 'the old trace\n' > "$work/keep.jsonl"
cp "$work/keep.jsonl" "$tmp/keep.orig"
want <<'OUT'
save: cannot write keep.jsonl: Input/output error; the old file is unchanged
[exit 1]
same bytes
temporary files left: 0
OUT
(cd "$work" && SHAPEDB_TEST_WRITE_FAIL_AFTER=100 "$SHAPEDB" --batch -x 'goto end' \
  -x 'save keep.jsonl' nz.lua < /dev/null 2>&1; echo "[exit $?]") | grep '^save\|^\[exit' > "$tmp/got"
cmp -s "$work/keep.jsonl" "$tmp/keep.orig" && echo "same bytes" >> "$tmp/got"
echo "temporary files left: $(ls "$work" | grep -c '\.tmp\.')" >> "$tmp/got"
check 'a write error keeps the old file byte for byte, and no temporary file is left'

# A program whose file name is not UTF-8 is saved, its name made UTF-8 in
# the trace ('?' for the byte), and replayed (jansson refused the name as
# a key of the writer's list of files, and the save said out of memory).
cp "$work/nz.lua" "$work/caf$(printf '\351').lua"
want <<'OUT'
[exit 0]
Replaying latin1.jsonl: 28 events of caf?.lua.
event 27, caf?.lua:12 in main chunk
OUT
(cd "$work" && "$SHAPEDB" --batch --record latin1.jsonl -x 'goto end' "caf$(printf '\351').lua" \
   > /dev/null 2>&1 < /dev/null; echo "[exit $?]"
 "$SHAPEDB" --batch --replay latin1.jsonl -x 'goto end' -x 'where' 2>&1 < /dev/null | head -2) > "$tmp/got"
check 'a program whose file name is not UTF-8 is saved and replayed'

# A full disk and a read-only folder need a small tmpfs (root only).
mnt=$tmp/mnt
mkdir "$mnt"
if mount -t tmpfs -o size=16k tmpfs "$mnt" 2> /dev/null; then
  trap 'umount "$mnt" 2> /dev/null; rm -rf "$tmp"' EXIT
  head -c 12000 /dev/zero | tr '\0' x > "$mnt/big.jsonl"
  cp "$mnt/big.jsonl" "$tmp/big.orig"
  want <<'OUT'
save: cannot write MNT/big.jsonl: No space left on device; the old file is unchanged
same bytes
OUT
  (cd "$work" && "$SHAPEDB" --batch -x 'goto end' -x "save $mnt/big.jsonl" nz.lua 2>&1) |
    grep '^save' | sed "s|$mnt|MNT|g" > "$tmp/got"
  cmp -s "$mnt/big.jsonl" "$tmp/big.orig" && echo "same bytes" >> "$tmp/got"
  check 'a full disk keeps the old file byte for byte'
  mount -o remount,ro "$mnt"
  want <<'OUT'
save: cannot write MNT/big.jsonl: Read-only file system (creating a file in MNT); the old file is unchanged
same bytes
OUT
  (cd "$work" && "$SHAPEDB" --batch -x "save $mnt/big.jsonl" 2>&1) | sed "s|$mnt|MNT|g" > "$tmp/got"
  cmp -s "$mnt/big.jsonl" "$tmp/big.orig" && echo "same bytes" >> "$tmp/got"
  check 'a read-only folder keeps the old file byte for byte'
  umount "$mnt"
else
  n=$((n + 1)); echo "ok $n # skip a full disk: cannot mount a tmpfs here"
  n=$((n + 1)); echo "ok $n # skip a read-only folder: cannot mount a tmpfs here"
fi

echo "1..$n"
