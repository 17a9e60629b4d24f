#!/bin/sh
# robust.sh — hostile input at the prompt and in files (issue #16): long
# lines, NUL bytes, unreadable and endless files; each a clear error, never
# a hang or a crash (harness: tests/lib/transcript.sh).
NAME=robust
. "${SHAPEDB_TESTS:-$(dirname "$0")/..}/lib/transcript.sh"

printf 'print(1)\nprint(2)\0x\nprint(3)\n' > "$work/nul.sdb"

# --- NUL bytes -----------------------------------------------------------
want <<'OUT'
1
stdin:2: NUL byte at column 9
3
[exit 1]
OUT
(cd "$work" && "$SHAPEDB" < nul.sdb) > "$tmp/got" 2>&1; echo "[exit $?]" >> "$tmp/got"
check "a NUL byte on piped stdin drops that line, says so, and fails the session"

want <<'OUT'
1
source: nul.sdb:2: NUL byte at column 9
[exit 1]
OUT
run --batch -x 'source nul.sdb'
check "a NUL byte stops a sourced file"

# --- endless and huge input ----------------------------------------------
want <<'OUT'
source: /dev/zero:1: line too long (over 1048576 bytes)
[exit 1]
OUT
run --batch -x 'source /dev/zero'
check "source /dev/zero is an error, not a memory exhaustion"

want <<'OUT'
list: cannot read /dev/zero: file too large (over 16 MiB)
break: cannot read /dev/zero: file too large (over 16 MiB)
[exit 1]
OUT
run --batch -x 'list /dev/zero:1' -x 'break /dev/zero:3'
check "list and break refuse a file past the size cap"

want <<'OUT'
shapedb: cannot read /dev/zero: file too large (over 16 MiB)
[exit 1]
OUT
head -c 17000000 /dev/zero | tr '\0' ' ' > "$work/big.lua"
run big.lua
rm -f "$work/big.lua"
sed -i 's|/dev/zero|big.lua|' "$tmp/want"
check "a program past the size cap is refused"

want <<'OUT'
load: cannot open missing.lua: No such file or directory
[exit 1]
OUT
run --batch -x 'load missing.lua'
check "load of a missing file"

# --- long lines: linear splitting and a cap ---------------------------------
awk 'BEGIN { printf "echo"; for (i = 0; i < 100000; i++) printf " a"; printf "\n" }' > "$work/long.sdb"
want <<'OUT'
200000
[exit 0]
OUT
(cd "$work" && "$SHAPEDB" < long.sdb | wc -c | tr -d ' ') > "$tmp/got" 2>&1; echo "[exit $?]" >> "$tmp/got"
check "a 200 KB command line of 100000 words is split (in linear time)"

awk 'BEGIN { printf "echo "; for (i = 0; i < 1100000; i++) printf "a"; printf "\necho next\n" }' > "$work/huge.sdb"
want <<'OUT'
stdin:1: line too long (over 1048576 bytes)
[exit 1]
OUT
(cd "$work" && "$SHAPEDB" < huge.sdb) > "$tmp/got" 2>&1; echo "[exit $?]" >> "$tmp/got"
check "a line over 1 MiB on stdin ends the input with an error"

echo "1..$n"
