#!/bin/sh
# pty.sh — the real interactive binary on a pseudo terminal, driven through
# tmux (send-keys, capture-pane): the prompt, Tab completion, history recall
# and the history file across two sessions, Ctrl-C in a running Lua loop
# and at the prompt, Ctrl-D, and colour at a stop (NO_COLOR, `set color
# off`). Run by prove through tests/tap-exec.
if ! command -v tmux > /dev/null 2>&1; then
  echo "1..0 # SKIP tmux not installed"
  exit 0
fi
SHAPEDB=${SHAPEDB:-bin/shapedb}
case $SHAPEDB in /*) ;; *) SHAPEDB=$PWD/$SHAPEDB ;; esac
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sdb-pty.XXXXXX") || exit 1
sock=sdbtest$$
T() { tmux -L "$sock" -f /dev/null "$@"; }
trap 'T kill-server 2> /dev/null; rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM HUP
# readline 8.2 wraps the prompt in bracketed-paste escapes unless told not to.
printf 'set enable-bracketed-paste off\n' > "$tmp/inputrc"
mkdir "$tmp/home"

n=0
pass() { n=$((n + 1)); echo "ok $n - $1"; }
fail() {
  n=$((n + 1))
  echo "not ok $n - $1"
  echo "# screen:"
  sed 's/^/#   /' "$tmp/screen"
}
sess=none
screen() { T capture-pane -p -t "$sess" > "$tmp/screen" 2> /dev/null; }
# Keys must reach readline, not the terminal driver: typed while shapedb is
# busy between two prompts, the tty is in canonical mode, where Ctrl-D
# becomes a NUL byte and Ctrl-C a signal to whatever runs. So every key
# that matters waits for a marker first (a prompt, a line of output), never
# for a time. The waits poll; their limit (20 s) only bounds a failure.
polls=400
# wait_for TEXT: poll the screen until a line contains TEXT.
wait_for() {
  i=0
  while [ $i -lt $polls ]; do
    screen
    grep -Fq -- "$1" "$tmp/screen" && return 0
    sleep 0.05
    i=$((i + 1))
  done
  return 1
}
# wait_line LINE: the same, for a whole line.
wait_line() {
  i=0
  while [ $i -lt $polls ]; do
    screen
    grep -Fqx -- "$1" "$tmp/screen" && return 0
    sleep 0.05
    i=$((i + 1))
  done
  return 1
}
# at_prompt PROMPT: poll until the screen's last non-blank line is PROMPT
# alone: readline shows a prompt only once it owns the terminal, so keys
# sent now are read by it. (capture-pane drops trailing blanks.)
at_prompt() {
  i=0
  while [ $i -lt $polls ]; do
    screen
    [ "$(grep -v '^ *$' "$tmp/screen" | tail -n 1)" = "$1" ] && return 0
    sleep 0.05
    i=$((i + 1))
  done
  return 1
}
# expect NAME TEXT: a TAP line for wait_for TEXT.
expect() { if wait_for "$2"; then pass "$1"; else fail "$1"; fi; }
keys() { T send-keys -t "$sess" "$@"; }
type_line() { keys -l "$1"; keys Enter; }
# Clear the screen (readline's C-l) so later checks see only new output:
# at the prompt, then until the prompt is the only line left.
clear_screen() {
  at_prompt "(shapedb)" > /dev/null
  keys C-l
  i=0
  while [ $i -lt $polls ]; do
    screen
    [ "$(grep -vc '^ *$' "$tmp/screen")" = 1 ] && return 0
    sleep 0.05
    i=$((i + 1))
  done
}
# start NAME xdg|home: a new tmux session running shapedb, with its history
# under $XDG_STATE_HOME or (XDG_STATE_HOME unset) in $HOME, and NO_COLOR
# unset unless $with_env (VAR=VALUE) sets it. When shapedb exits, the pane
# shows its exit status. Sessions stay until the end, so the tmux server
# does too.
with_env=
start() {
  sess=$1
  if [ "$2" = xdg ]; then xdg="XDG_STATE_HOME='$tmp/state'"; else xdg="-u XDG_STATE_HOME"; fi
  shift 2
  T new-session -d -x 120 -y 40 -s "$sess" \
    "cd '$tmp' && env -u NO_COLOR $xdg $with_env HOME='$tmp/home' INPUTRC='$tmp/inputrc' '$SHAPEDB' $*; echo \"[exit \$?]\"; sleep 60"
}

start one xdg
expect "the prompt appears on a terminal" "(shapedb)"

keys -l 'ech'
keys Tab
keys -l 'tab-ok'
keys Enter
if wait_for "(shapedb) echo tab-ok" && wait_line "tab-ok" &&
   [ "$(grep -cx 'tab-ok' "$tmp/screen")" = 1 ]; then
  pass "Tab completes a command prefix"
else
  fail "Tab completes a command prefix"
fi

clear_screen
type_line 'x = 41'
type_line 'print("hist" .. 1)'
wait_for "hist1" > /dev/null
at_prompt "(shapedb)" > /dev/null
keys Up
if wait_for '(shapedb) print("hist" .. 1)'; then
  keys Enter
  i=0
  while [ $i -lt $polls ]; do
    screen
    [ "$(grep -cx 'hist1' "$tmp/screen")" = 2 ] && break
    sleep 0.05
    i=$((i + 1))
  done
  if [ "$(grep -cx 'hist1' "$tmp/screen")" = 2 ]; then
    pass "Up recalls the previous line"
  else
    fail "Up recalls the previous line"
  fi
else
  fail "Up recalls the previous line"
fi

clear_screen
# the loop is on the same line as the marker it prints first
type_line 'print("spin" .. "ning") while true do end'
wait_line "spinning" > /dev/null
keys C-c
if wait_line "interrupted!"; then
  pass "Ctrl-C interrupts a running Lua loop"
else
  fail "Ctrl-C interrupts a running Lua loop"
fi
type_line 'x + 1'
if wait_for "(shapedb) x + 1" && wait_line "42"; then
  pass "the prompt returns with the Lua state intact"
else
  fail "the prompt returns with the Lua state intact"
fi

clear_screen
keys -l 'abc'
wait_for "(shapedb) abc" > /dev/null
keys C-c
wait_for "(shapedb) abc^C" > /dev/null
at_prompt "(shapedb)" > /dev/null
type_line '1 + 2'
if wait_for "(shapedb) 1 + 2" && wait_line "3" && ! grep -q "abc1" "$tmp/screen"; then
  pass "Ctrl-C at the prompt clears the line"
else
  fail "Ctrl-C at the prompt clears the line"
fi

clear_screen
type_line 'for i = 1, 2 do'
at_prompt ">>" > /dev/null
keys C-c
# the terminal turns ^C into a signal at once, but keys sent right after
# it can reach shapedb's read() before the signal does: wait for its answer
at_prompt "(shapedb)" > /dev/null
type_line '7'
# wait for the output line too: the echo of the input comes first
if wait_for "(shapedb) 7" && wait_line "7" && [ "$(grep -cx '7' "$tmp/screen")" = 1 ]; then
  pass "Ctrl-C at the >> prompt drops the unfinished statement"
else
  fail "Ctrl-C at the >> prompt drops the unfinished statement"
fi

type_line 'answer = 6 * 7'
wait_for "(shapedb) answer = 6 * 7" > /dev/null
at_prompt "(shapedb)" > /dev/null
keys C-d
expect "Ctrl-D at an empty prompt quits with status 0" "[exit 0]"

hist=$tmp/state/shapedb/history
if [ -f "$hist" ] && grep -qx 'x = 41' "$hist" && [ "$(tail -n 1 "$hist")" = 'answer = 6 * 7' ]; then
  pass "the history goes to \$XDG_STATE_HOME/shapedb/history"
else
  fail "the history goes to \$XDG_STATE_HOME/shapedb/history"
  [ -f "$hist" ] && sed 's/^/#   history: /' "$hist"
fi

start two xdg
wait_for "(shapedb)" > /dev/null
keys Up
if wait_for "(shapedb) answer = 6 * 7"; then
  keys Enter
  type_line 'answer'
  if wait_line "42"; then
    pass "a second session recalls the first one's history"
  else
    fail "a second session recalls the first one's history"
  fi
else
  fail "a second session recalls the first one's history"
fi
keys C-d
wait_for "[exit 0]" > /dev/null

start three home
wait_for "(shapedb)" > /dev/null
type_line 'echo to-home'
wait_for "to-home" > /dev/null
type_line 'quit'
wait_for "[exit 0]" > /dev/null
if grep -qx 'echo to-home' "$tmp/home/.shapedb_history" 2> /dev/null; then
  pass "without XDG_STATE_HOME the history goes to ~/.shapedb_history"
else
  fail "without XDG_STATE_HOME the history goes to ~/.shapedb_history"
fi

# --- the debugger on a terminal -----------------------------------------------
cat > "$tmp/loop.lua" <<'LUA'
local f = torch.compile(function(x)
  local idx = x:nonzero()
  return idx
end, { backend = "eager" })
local out = f(shapedb.tensor{4})
local spins = 0
print("spin" .. "ning") while true do spins = spins + 1 end
LUA
start four home -i loop.lua
wait_for "(shapedb)" > /dev/null
type_line 'break unbacked'
type_line 'continue'
expect "the debugger stops at a breakpoint" "Breakpoint 1, unbacked"
type_line 'step'
wait_for "pending: {} -> {u0}" > /dev/null
clear_screen
keys -l 'explain u'
keys Tab
keys Enter
if wait_for "(shapedb) explain u0" && wait_for "u0: unbacked int, created by nonzero at loop.lua:2"; then
  pass "Tab completes a symbol name"
else
  fail "Tab completes a symbol name"
fi
clear_screen
type_line 'step'
wait_for "node_placed nonzero" > /dev/null
keys Enter
if wait_for "unbacked_bindings %nonzero u0: .size()[0]"; then
  pass "Enter repeats the last step"
else
  fail "Enter repeats the last step"
fi
clear_screen
type_line 'continue'
wait_line "spinning" > /dev/null
keys C-c
if wait_for "Program interrupted at loop.lua:7 (after event 20, at loop.lua:5, shown below)."; then
  pass "Ctrl-C pauses a running program at its line"
else
  fail "Ctrl-C pauses a running program at its line"
fi
clear_screen
type_line 'info program'
if wait_line "state: paused (loop.lua)"; then
  pass "the paused program's state is intact"
else
  fail "the paused program's state is intact"
fi
type_line 'kill'
expect "kill ends the paused program" "[program killed"
keys C-d
expect "Ctrl-D leaves the debugger" "[exit 0]"

# --- colour at a stop -----------------------------------------------------------
# capture-pane -e keeps the escape sequences the terminal was sent.
ESC=$(printf '\033')
escreen() { T capture-pane -p -e -t "$sess" > "$tmp/screen" 2> /dev/null; }
# no_escapes: the screen (captured with -e) has not one escape sequence.
no_escapes() { escreen; ! grep -Fq "$ESC" "$tmp/screen"; }
start five home -i loop.lua
wait_for "(shapedb)" > /dev/null
type_line 'break unbacked'
type_line 'continue'
wait_for "Breakpoint 1, unbacked" > /dev/null
wait_for "new symbol: u0 [0, 4]" > /dev/null
escreen
if grep -Fq "  ${ESC}[36mcreate_unbacked_symbol u0 [0, 4]" "$tmp/screen"; then
  pass "with NO_COLOR unset the stop display is coloured"
else
  fail "with NO_COLOR unset the stop display is coloured"
fi
clear_screen
type_line 'set color off'
type_line 'step'
if wait_for "pending: {} -> {u0}" && no_escapes; then
  pass "set color off: the next stop has no escapes"
else
  fail "set color off: the next stop has no escapes"
fi
type_line 'kill'
keys C-d

with_env=NO_COLOR=1
start six home -i loop.lua
with_env=
wait_for "(shapedb)" > /dev/null
type_line 'break unbacked'
type_line 'continue'
if wait_for "Breakpoint 1, unbacked" && wait_for "new symbol: u0 [0, 4]" && no_escapes; then
  pass "with NO_COLOR=1 the stop display has no escapes"
else
  fail "with NO_COLOR=1 the stop display has no escapes"
fi
type_line 'show color'
expect "NO_COLOR leaves the setting at auto" "color: auto"
type_line 'kill'
keys C-d

# --- history: concurrent sessions append; SIGTERM/SIGHUP save it -----------
mkdir -p "$tmp/h2"
printf 'old line\n' > "$tmp/h2/.shapedb_history"
hstart() {
  sess=$1
  T new-session -d -x 120 -y 40 -s "$sess" \
    "cd '$tmp' && env -u NO_COLOR -u XDG_STATE_HOME HOME='$tmp/h2' INPUTRC='$tmp/inputrc' '$SHAPEDB'; echo \"[exit \$?]\"; stty -a | tr ' ' '\\n' | grep -x -e echo -e -echo; sleep 60"
}
# the shapedb process of the current session: the pane shell's child
shapedb_pid() { pgrep -P "$(T display -p -t "$sess" '#{pane_pid}')"; }
hstart ha
wait_for "(shapedb)" > /dev/null
type_line 'echo from-a'
wait_for "from-a" > /dev/null
hstart hb
wait_for "(shapedb)" > /dev/null
type_line 'echo from-b'
wait_for "from-b" > /dev/null
sess=ha; type_line 'quit'; wait_for "[exit 0]" > /dev/null
sess=hb; type_line 'quit'; wait_for "[exit 0]" > /dev/null
if [ "$(cat "$tmp/h2/.shapedb_history")" = "$(printf 'old line\necho from-a\nquit\necho from-b\nquit')" ]; then
  pass "two sessions at once both append to the history file"
else
  fail "two sessions at once both append to the history file"
  sed 's/^/#   history: /' "$tmp/h2/.shapedb_history"
fi

for sig in TERM HUP; do
  hstart h$sig
  wait_for "(shapedb)" > /dev/null
  type_line "echo before-$sig"
  wait_for "before-$sig" > /dev/null
  at_prompt "(shapedb)" > /dev/null
  keys -l 'half typed'
  wait_for "(shapedb) half typed" > /dev/null
  kill -$sig "$(shapedb_pid)"
  if wait_line "echo" && grep -qx "echo before-$sig" "$tmp/h2/.shapedb_history" &&
     ! grep -q 'half typed' "$tmp/h2/.shapedb_history"; then
    pass "SIG$sig at the prompt saves the history and restores the terminal"
  else
    fail "SIG$sig at the prompt saves the history and restores the terminal"
    sed 's/^/#   history: /' "$tmp/h2/.shapedb_history"
  fi
done

# the pager: a long listing stops after a screen and asks, as gdb's does
start pager xdg
wait_for "(shapedb)" > /dev/null
type_line 'set height 10'
at_prompt "(shapedb)" > /dev/null
clear_screen
type_line 'help'
if wait_for "--Type <RET> for more, q to quit, c to continue without paging--"; then
  keys -l 'q'
  keys Enter
  if wait_line "Quit" && at_prompt "(shapedb)"; then
    pass "a long listing pages after a screen; q drops the rest"
  else
    fail "a long listing pages after a screen; q drops the rest"
  fi
else
  fail "a long listing pages after a screen; q drops the rest"
fi
type_line 'set pagination off'
at_prompt "(shapedb)" > /dev/null
clear_screen
type_line 'help'
at_prompt "(shapedb)" > /dev/null
if grep -q "Type <RET> for more" "$tmp/screen"; then
  fail "set pagination off: no pager"
else
  pass "set pagination off: no pager"
fi

# At the prompt a lone name that is not a command is Lua (nil, as lua5.4
# prints it), with the command it may have meant; in --batch and sourced
# files the same word stays an unknown command (batch.sh).
clear_screen
type_line 'nosuchname'
if wait_line "nil" && at_prompt "(shapedb)"; then pass "a lone unknown name at the prompt is nil"; else fail "a lone unknown name at the prompt is nil"; fi
clear_screen
type_line 'stpe'
expect "a lone name close to a command is nil, with the command it may have meant" "stpe is not a command (as Lua it is nil): did you mean 'step'?"

echo "1..$n"
