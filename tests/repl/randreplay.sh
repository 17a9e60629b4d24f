#!/bin/sh
# randreplay.sh — random programs (tests/lib/randgen.lua, issue #16), each
# run live under the debugger with --record, then its saved trace replayed
# under the same commands: the text must be the same, forwards, backwards
# and at breakpoints (as tests/repl/save.sh checks for the examples).
# RANDREPLAY_N programs (default 8; `make soak` runs more), seeded by
# RANDREPLAY_SEED.
NAME=randreplay
. "${SHAPEDB_TESTS:-$(dirname "$0")/..}/lib/transcript.sh"
N=${RANDREPLAY_N:-8}
SEED=${RANDREPLAY_SEED:-16}
LUA_PATH="${SHAPEDB_TESTS:-$(dirname "$0")/..}/lib/?.lua;;"
export LUA_PATH

"$SHAPEDB" -e "require('randgen').emit('$work', $N, $SEED)" || exit 1

forwards='step|step 3|where|list|info pending|info symbols|next|step 7|where|info guards|info graph|finish|step 5|info asserts|info bindings|info replacements|info ranges|explain s0|explain u0|print s0 + 1|why u0 >= 0|assume u0 >= 0|why u0 >= 0|info tracers|info phases|goto end|info events|info timeline|reverse-step 4|reverse-next|reverse-finish|info symbols|goto 5|where|goto start|step 2|reverse-step|goto end|reverse-continue'
breaks='break unbacked|break guard|break phase aot|break phase lower|break op nonzero|break symbol s0|watch u0|break error|break event replacement_added|break event buffer_lowered|break FILE:3|continue|continue|continue|where|continue|continue 2|continue|info breakpoints|continue|continue|continue|reverse-continue|reverse-continue|reverse-continue|where|reverse-continue|info breakpoints|delete|continue'

# session CMDS ARGS...: shapedb --batch, -x for each |-separated command
session() {
  cmds=$1
  shift
  old=$IFS
  IFS='|'
  xs=
  for c in $cmds; do xs="$xs -x '$c'"; done
  IFS=$old
  (cd "$work" && eval "\"\$SHAPEDB\" --batch $xs \"\$@\"" < /dev/null) 2>&1
  echo "[exit $?]"
}
# where a live run and a replay must differ (README, Saved traces)
normalize() {
  grep -v '^Starting program: ' |
  sed 's/: the program has finished without events; `run` starts it again/: the replay has no events; a replay has no program to run/' |
  sed 's/: the program has finished (event \([0-9]*\) is the last); `reverse-step` or `goto` move back, `run` starts it again/: the end of the replay (event \1 is the last); `reverse-step` or `goto` move back; a replay has no program to run further/'
}

same=0
total=0
events=0
for prog in "$work"/prog-*.lua; do
  base=$(basename "$prog")
  for kind in forwards breaks; do
    eval "cmds=\$$kind"
    cmds=$(printf '%s' "$cmds" | sed "s|FILE|$base|")
    rm -f "$work/t.jsonl"
    session "$cmds" --record t.jsonl "$base" | normalize > "$tmp/live"
    total=$((total + 1))
    [ -f "$work/t.jsonl" ] || { echo "# $base, $kind: no trace saved"; continue; }
    session "$cmds" --replay t.jsonl | grep -v '^Replaying ' > "$tmp/replay"
    if cmp -s "$tmp/live" "$tmp/replay"; then
      same=$((same + 1))
      [ $kind = forwards ] && events=$((events + $(sed -n 's/.*"events":\([0-9]*\).*/\1/p' "$work/t.jsonl" | head -1)))
    else
      echo "# $base, $kind: the replay differs from the live run:"
      sed 's/^/#   /' "$prog"
      diff -u "$tmp/live" "$tmp/replay" | sed 's/^/# /' | head -40
    fi
  done
done
echo "$same of $total" > "$tmp/got"
echo "$total of $total" > "$tmp/want"
check "$N random programs (seed $SEED), recorded then replayed: the same text forwards, backwards and at breakpoints"
echo "# randreplay: programs=$N sessions=$total same=$same events=$events"
echo "1..$n"
