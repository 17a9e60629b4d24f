#!/bin/sh
# batch.sh — the REPL without a terminal: --batch -x lists and piped stdin,
# compared with the exact text they print (stdout and stderr together, in
# order) and their exit status (harness: tests/lib/transcript.sh).
NAME=batch
. "${SHAPEDB_TESTS:-$(dirname "$0")/..}/lib/transcript.sh"

cat > "$work/prog.lua" <<'LUA'
print("prog runs with", ...)
print("arg[0] is " .. arg[0])
answer = 42
LUA
printf 'x =\n' > "$work/bad.lua"
printf 'local t = {}\nerror("oops")\n' > "$work/err.lua"
cat > "$work/cmds.sdb" <<'SDB'
# a comment
echo from a file
for i = 1, 2 do
  print("line", i)
end
nosuchcommand
echo not reached
SDB

# --- help ------------------------------------------------------------------
want <<'OUT'
Commands by group ('help CMD' explains one, 'apropos WORD' searches):

Running
  continue [N]             run to the next breakpoint or the end
  finish                   run to the end of the current tracer or phase
  goto N|start|end         jump to event N, the start of the run, or its end
  kill                     end the paused program
  next [N]                 step over a nested tracer or phase
  replay LOG [--rank N]    open a PyTorch TORCH_TRACE log in the debugger
  retrace [ID] [KIND]      re-run a compile's graph from a TORCH_TRACE log in shapedb's model
  reverse-continue         go back to the previous breakpoint hit or the start
  reverse-finish           go back to where the current tracer or phase began
  reverse-next [N]         go back over a nested tracer or phase
  reverse-step [N]         go back one event (N events)
  run [LUA]                run the program from its start, or the Lua code LUA
  save FILE                save the run's events as a trace to replay later
  step [N]                 advance to the next event (N events)

Breakpoints
  break SPEC [if COND]     stop where SPEC matches an event
  commands [N]             lines to run each time breakpoint N stops
  condition N [COND]       stop at breakpoint N only where COND is known true
  delete [N...]            delete breakpoints (all without N)
  disable [N...]           disable breakpoints (all without N)
  enable [N...]            enable breakpoints (all without N)
  tbreak SPEC              a breakpoint deleted when first hit
  watch SYM                stop at every event that touches symbol SYM

Stack
  down [N]                 select the frame N levels in (the callee)
  frame [N]                show the selected Lua frame, or select frame N
  up [N]                   select the frame N levels out (the caller)
  where [SYM|GUARD]        the Lua stack here, or where SYM or a guard came from

Data
  assume COND              try a torch._check(COND) here without re-running
  explain SYM|GUARD        the whole life of a symbol
  lua CODE                 run CODE as Lua, even when it starts like a command
  print EXPR               an expression here: simplified, range, known or not
  report [quiet|html DIR]  the batch report: event log, graphs, bindings, guards
  unassume [N|all]         drop the last assumption (or number N, or all)
  why [EXPR]               why an expression is or is not statically known here

Status
  display [PANEL|EXPR]     show a panel or an expression at every stop
  info SUBCOMMAND          show the state of the session
  show [SETTING]           show the settings, or one of them
  undisplay [N...]         stop showing displays (all without N)

Files
  dump dot FILE [all]      write pictures of the run to a file
  list [LINE|FILE:LINE]    the program's source around the current event
  load FILE                make FILE the session's program, without running it
  source FILE              run the command lines in FILE

Support
  apropos WORD             list the commands whose help mentions WORD
  complete TEXT            list the completions of TEXT, as Tab would
  echo [TEXT]              print TEXT
  help [CMD [SUB]]         list the commands, or explain one
  predict TEXT             answer the tutorial's question
  quit [STATUS]            leave shapedb (Ctrl-D at the prompt does too)
  set SETTING VALUE        change a setting: color, history, prompt
  tutorial [N|next|...]    guided lessons on how unbacked symbols propagate

Any other line is Lua, as at the stock `lua` prompt: an expression prints
its value, an unfinished statement continues on a `>>` line, an error
prints a traceback. A line is a command when its first word is a command's
name or alias, or a unique prefix of a name that is not also a Lua global
(`h` for `help`), and is not followed by = ( . [ : (so `s = 1` is Lua).
`lua CODE` forces Lua. Enter on an empty line repeats the last stepping
command.
[exit 0]
OUT
run --batch -x help
check "help lists the commands by group"

want <<'OUT'
usage: load FILE

Load the Lua program FILE as the session's program: the file must exist
and compile (errors name FILE:LINE), but nothing in it runs until
`run`. A later `load` replaces the program. `shapedb -i FILE` does the
same at start-up.

Example:
  (shapedb) load scripts/tour.lua
  loaded scripts/tour.lua
[exit 0]
OUT
run --batch -x 'help load'
check "help load: usage, text and example"

want <<'OUT'
usage: quit [STATUS]
aliases: exit

Leave shapedb, saving the history. STATUS (0 to 255) becomes the exit
status; otherwise it is 0, or 1 in --batch mode when a command failed.

Example:
  (shapedb) quit
usage: info program

The loaded program and its arguments, whether it is running, paused or
finished, how many events were recorded and where the cursor is.

Example:
  (shapedb) info program
unknown command: hepl. Did you mean 'help'?
[exit 1]
OUT
run --batch -x 'h exit' -x 'help i pr' -x 'help hepl'
check "help takes prefixes, aliases and subcommands; a typo gets a suggestion"

want <<'OUT'
info subcommands:
  info asserts             the deferred runtime asserts
  info assumptions         the facts `assume` added
  info bindings            the unbacked bindings recorded on graph nodes
  info breakpoints         the breakpoints, with their hit counts
  info compiles            the compiles of an imported TORCH_TRACE log
  info display             what is shown at every stop
  info divergences         where the last retrace differs from PyTorch
  info events [N|all]      the events around the cursor (or N, or all)
  info graph [NAME]        the nodes of a graph so far
  info guards              the guards taken, with phase and Lua line
  info locals              the local variables of the selected frame
  info pending             the fresh unbacked symbols waiting for a binding
  info phases              the phases so far, with their event ranges
  info program             the program, its state and the cursor
  info ranges              the value range of each symbol
  info recompiles          why each frame was compiled again, and the guard diff
  info records             record kinds of an imported log, and what was skipped
  info replacements        the symbol replacements in force
  info symbols             every symbol: kind, range, status
  info timeline [ascii]    every symbol's life across the events of this compile
  info tracers             the tracer stack (trace > cond.true_branch)
  apropos WORD             list the commands whose help mentions WORD
  quit [STATUS]            leave shapedb (Ctrl-D at the prompt does too)
  set SETTING VALUE        change a setting: color, history, prompt
  set history on|off       record the lines typed, and save them at exit
  show history             whether input is recorded
no command mentions 'xyzzy'
[exit 0]
OUT
run --batch -x info -x 'apropos HISTORY' -x 'apropos xyzzy'
check "a prefix command alone lists its subcommands; apropos searches"

# --- unknown, ambiguous, usage ---------------------------------------------
want <<'OUT'
unknown command: hlep. Did you mean 'help'?
unknown command: hlep. Did you mean 'help'?
unknown command: xyzzy. Type 'help' for a list of commands.
unknown command: sourse-file. Type 'help' for a list of commands.
ambiguous command: rev, could be: reverse-continue, reverse-finish, reverse-next, reverse-step
unknown info subcommand: progrm. Did you mean 'program'?
unknown set subcommand: zz. Try 'help set'.
usage: load FILE
usage: set color on|off|auto
usage: quit [STATUS] (STATUS is 0 to 255)
still alive
[exit 1]
OUT
run --batch -x hlep -x 'hlep load' -x xyzzy -x sourse-file -x rev -x 'info progrm' \
  -x 'set zz 1' -x load -x 'set color blue' -x 'quit soon' -x 'echo still alive'
check "bad commands: suggestion, ambiguity, usage; the session goes on"

# --- Lua lines ---------------------------------------------------------------
want <<'OUT'
2
10
1	nil	hi
hello
[exit 0]
OUT
feed '1+1
x = 5
x * 2
1, nil, "hi"
print("hello")
'
check "Lua expressions print their values; globals persist between lines"

want <<'OUT'
1
2
done
[exit 0]
OUT
feed 'for i = 1, 2 do
print(i)
end
print("done")
'
check "an incomplete statement continues on the next line"

{ cat <<'OUT'
before
stdin:1: boom
stack traceback:
OUT
  echo "${TAB}[C]: in function 'error'"
  echo "${TAB}stdin:1: in main chunk"
  cat <<'OUT'
stdin:1: attempt to call a nil value (global 'nosuch')
stack traceback:
OUT
  echo "${TAB}stdin:1: in main chunk"
  cat <<'OUT'
stdin:1: unexpected symbol near '='
5
stdin:2: 'end' expected (to close 'for' at line 1) near <eof>
[exit 0]
OUT
} > "$tmp/want"
feed 'print("before")
error("boom")
nosuch()
x = = 1
y = 5
y
for i = 1, 2 do
print(i)
'
check "Lua errors print a traceback and never end the session"

want <<'OUT'
3
7
color: auto
height: the terminal's (24)
history: on
max-events: 10000000
memory-limit: off
pagination: on
prompt: "(shapedb) "
step-limit: off
time-limit: off
mine
1
[exit 0]
OUT
feed 'sh = 3
sh
show = 7
lua show
show
lua help = "mine"
lua help
t = {}
t.x = 1
t.x
'
check "the command-or-Lua rule: assignments, globals, exact names, lua CODE"

# --- load, run, source -------------------------------------------------------
want <<'OUT'
run: no program loaded; use `load FILE`, or `run LUA` to run Lua code
load: cannot open nosuch.lua: No such file or directory
load: bad.lua:2: unexpected symbol near <eof>
no program loaded
state: not running
events: 0 recorded, this run from event 0; cursor before the first event
[exit 1]
OUT
run --batch -x run -x 'load nosuch.lua' -x 'load bad.lua' -x 'info program'
check "run without a program, load of a missing or broken file"

want <<'OUT'
loaded prog.lua
live run
program: prog.lua
state: loaded, not started (prog.lua)
events: 0 recorded, this run from event 0; cursor before the first event
Starting program: prog.lua
prog runs with
arg[0] is prog.lua
42
[exit 0]
OUT
run --batch -x 'load prog.lua' -x 'i pro' -x run -x answer
check "load, then run: the program's globals stay for the prompt"

want <<'OUT'
live run
program: prog.lua
arguments: a b
state: loaded, not started (prog.lua)
events: 0 recorded, this run from event 0; cursor before the first event
Starting program: prog.lua
prog runs with	a	b
arg[0] is prog.lua
[exit 0]
OUT
run --batch -x 'info program' -x run prog.lua a b
check "--batch FILE args: loaded, not run, until run"

{ echo "loaded err.lua"
  echo "Starting program: err.lua"
  echo "err.lua:2: oops"
  echo "stack traceback:"
  echo "${TAB}[C]: in function 'error'"
  echo "${TAB}err.lua:2: in main chunk"
  echo "after"
  echo "[exit 1]"
} > "$tmp/want"
run --batch -x 'load err.lua' -x run -x 'echo after'
check "a failing program reports file:line with a traceback"

want <<'OUT'
4
r
[exit 0]
OUT
run --batch -x 'run 2 + 2' -x 'run print("r")'
check "run LUA runs Lua code"

want <<'OUT'
from a file
line	1
line	2
unknown command: nosuchcommand. Type 'help' for a list of commands.
source: stopped at cmds.sdb:6
after
[exit 1]
OUT
run --batch -x 'source cmds.sdb' -x 'echo after'
check "source runs a command file and stops at the first failure"

# --- command line --------------------------------------------------------------
want <<'OUT'
live run
program: prog.lua
state: loaded, not started (prog.lua)
events: 0 recorded, this run from event 0; cursor before the first event
Starting program: prog.lua
prog runs with
arg[0] is prog.lua
[exit 0]
OUT
feed 'info program
run
' -i prog.lua
check "-i FILE with a pipe: loaded quietly, commands from stdin"

want <<'OUT'
first
piped
[exit 0]
OUT
feed 'echo piped
' -x 'echo first'
check "-x without --batch runs, then reads the REPL's input"

want <<'OUT'
prog runs with	one
arg[0] is prog.lua
[exit 0]
OUT
run prog.lua one
check "shapedb FILE runs the program"

want <<'OUT'
3
6
[exit 0]
OUT
run -e 'z = 3' -e 'print(z)' --batch -x 'z * 2'
check "-e chunks run first, in the session's Lua state"

want <<'OUT'
shapedb: (command line):1: e fails
stack traceback:
[exit 1]
OUT
run -e 'error("e fails")' --batch -x 'echo never'
sed -i '/^'"$TAB"'/d' "$tmp/got"
check "a failing -e chunk exits with status 1"

want <<'OUT'
ok
unknown command: nope. Type 'help' for a list of commands.
also run
[exit 1]
OUT
run --batch -x 'echo ok' -x nope -x 'echo also run'
check "--batch runs every command and exits 1 when one failed"

want <<'OUT'
[exit 3]
OUT
run --batch -x 'quit 3' -x 'echo never'
check "quit STATUS ends the batch with that status"

n=$((n + 1))
out=$("$SHAPEDB" --version 2>&1)
if printf '%s\n' "$out" | grep -Eq '^shapedb [0-9]+\.[0-9]+\.[0-9]+ \(Lua 5\.4(\.[0-9]+)?\)$'; then
  echo "ok $n - --version"
else
  echo "not ok $n - --version"
  echo "# got: $out"
fi

want <<'OUT'
usage: shapedb [options] [FILE.lua [args...]]
  FILE.lua [args]  run the Lua program FILE and exit, as `lua FILE` does
  -i, --debug      open the REPL with FILE loaded (not run); without
                   FILE, open it with nothing loaded (also the default)
  -x CMD           run the REPL command CMD (repeatable, in order), then
                   open the REPL with FILE loaded as with -i
  --batch          run the -x commands and exit instead: status 0 if
                   they all succeeded, 1 otherwise; stdin is not read
  -e CHUNK         run the Lua chunk CHUNK first (repeatable); with no
                   FILE, -i, -x or --batch, exit afterwards
  -q, --quiet      after FILE, print only the end result (graphs, bindings,
                   guards), not the event log
  --no-report      after FILE, print nothing of shapedb's own
  --dot FILE       at the end, write the graphs of every compile as
                   Graphviz DOT to FILE (render with dot -Tsvg)
  --html DIR       at the end, write a static HTML report of the run
                   into DIR (DIR/index.html)
  --retrace LOG [ID] [KIND]  open LOG as --replay does and re-run
                   compile ID's graph of KIND (dynamo_output_graph,
                   aot_forward_graph, ...) in the model (`retrace ID
                   KIND`; the first compile with one when ID is left out)
  --replay LOG     open a PyTorch TORCH_TRACE log (plain, .gz, or a
                   directory of per-rank logs) in the debugger
  --rank N         with --replay DIR: rank N's log (default 0)
  --record FILE    at the end, save the run's events as a trace to FILE
                   (`shapedb --replay FILE` steps through it later)
  --max-steps N    stop any run of Lua code after N instructions with an
                   error (as `set step-limit N`)
  --max-events N   stop a program once the session has recorded N events
                   (as `set max-events N`; 0: no limit)
  --version        print the version and exit
  --help           print this help and exit
Lua runs with the `shapedb` module loaded as a global. The REPL uses
readline when stdin is a terminal; otherwise it reads one line at a
time from stdin and prints no prompt. Type `help` in it for commands.
[exit 0]
OUT
run --help
check "--help lists every option"

run --bogus
head -1 "$tmp/got" > "$tmp/got1"
tail -1 "$tmp/got" >> "$tmp/got1"
mv "$tmp/got1" "$tmp/got"
want <<'OUT'
shapedb: unknown option '--bogus'
[exit 2]
OUT
check "an unknown option is a usage error (exit 2)"

run -x
head -1 "$tmp/got" > "$tmp/got1"
tail -1 "$tmp/got" >> "$tmp/got1"
mv "$tmp/got1" "$tmp/got"
want <<'OUT'
shapedb: '-x' needs an argument
[exit 2]
OUT
check "-x without its command is a usage error"

# --- settings and completion ---------------------------------------------------
want <<'OUT'
color: off
height: the terminal's (24)
history: off
max-events: 10000000
memory-limit: off
pagination: on
prompt: "(sdb) "
step-limit: off
time-limit: off
unknown show subcommand: colr. Did you mean 'color'?
[exit 1]
OUT
run --batch -x 'set color off' -x 'set hist off' -x 'set prompt "(sdb) "' -x show -x 'show colr'
check "set and show"

want <<'OUT'
help
info
i program
set color
set color off
set color on
load prog.lua
help info
string.find
string.format
print(string.format
[exit 0]
OUT
run --batch -x 'complete he' -x 'complete inf' -x 'complete i pro' -x 'complete set co' \
  -x 'complete set color o' -x 'complete load pro' -x 'complete help inf' \
  -x 'complete string.f' -x 'complete print(string.fo'
check "complete: commands, subcommands, words, files, Lua fields"

# Options after FILE belong to the program (as after `lua FILE`): said
# when one looks like shapedb's, which it would otherwise ignore.
cat > "$work/args.lua" <<'LUA'
print(select("#", ...), ...)
LUA
want <<'OUT'
shapedb: note: '--record' after args.lua is an argument of the program; shapedb's options go before the file
2	--record	t.jsonl
[exit 0]
OUT
run --no-report args.lua --record t.jsonl
check "a shapedb option after FILE is the program's, with a note"

# The report's aot graph names a renamed symbol as its types do: the
# retrace's u1 is u0 again, in the binding comment too
cat > "$work/aotnz.lua" <<'LUA'
local function model(x) return x:nonzero():sum() end
return torch.compile(model, { backend = "aot_eager" })(shapedb.tensor{5, 2})
LUA
run -q aotnz.lua
grep -A1 'torch.ops.aten.nonzero.default' "$tmp/got" > "$tmp/got.s" && mv "$tmp/got.s" "$tmp/got"
want <<'OUT'
        nonzero: "i64[u0, 2]" = torch.ops.aten.nonzero.default(arg0_1);  arg0_1 = None
        # u0: .size()[0]
OUT
check "the report's aot graph: bindings under the renamed symbol's name"

# ... and so does the debugger's info graph at the end, where the node was
# recorded before the retrace renamed its symbol (as PyTorch prints it)
run --batch -x 'goto end' -x 'info graph aot' aotnz.lua
grep -A1 'torch.ops.aten.nonzero.default' "$tmp/got" > "$tmp/got.s" && mv "$tmp/got.s" "$tmp/got"
want <<'OUT'
    nonzero: "i64[u0, 2]" = torch.ops.aten.nonzero.default(arg0_1)
    # u0: .size()[0]
OUT
check "info graph: an aot node placed before the rename shows the symbol's name now"

# Lua in a sourced file is named by the file, at the file's line numbers
printf 'echo one\n-- a comment\nlocal t = {\n  1,\necho two\n' > "$work/lua3.sdb"
want <<'OUT'
one
lua3.sdb:5: '}' expected (to close '{' at line 3) near 'two'
source: stopped at lua3.sdb:5
[exit 1]
OUT
run --batch -x 'source lua3.sdb'
check "a Lua error in a sourced file names the file and its line"

# A second run in the debugger is a new process: its compiles are [0/0]
# again and the report lists only them
cp "$SHAPEDB_TESTS/../scripts/nonzero.lua" "$work/nz2.lua"
run --batch -x run -x run -x 'report quiet' nz2.lua
grep '^== ' "$tmp/got" > "$tmp/got.s" && mv "$tmp/got.s" "$tmp/got"
want <<'OUT'
== model [0/0] (backend=eager) ==
OUT
check "report after a second run: that run's compiles, numbered from [0/0]"

echo "1..$n"
