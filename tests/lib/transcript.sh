# transcript.sh — the harness of the transcript tests (tests/repl/*.sh),
# sourced by them: shapedb runs in a scratch directory, and what it prints
# (stdout and stderr together, in order) and its exit status are compared
# with the exact text expected. Set NAME before sourcing (the scratch
# directory's prefix). Run by prove through tests/tap-exec, which sets
# $SHAPEDB.
SHAPEDB=${SHAPEDB:-bin/shapedb}
case $SHAPEDB in /*) ;; *) SHAPEDB=$PWD/$SHAPEDB ;; esac
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sdb-$NAME.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
work=$tmp/work
mkdir "$work"
# No terminal, so no colour and no history; the environment must not
# change that.
unset NO_COLOR XDG_STATE_HOME
HOME=$tmp
export HOME

n=0
# check NAME: compare $tmp/got with $tmp/want.
check() {
  n=$((n + 1))
  if diff -u "$tmp/want" "$tmp/got" > "$tmp/diff"; then
    echo "ok $n - $1"
  else
    echo "not ok $n - $1"
    sed 's/^/# /' "$tmp/diff"
  fi
}
# run ARGS...: shapedb ARGS in $work, stdin empty; output and "[exit N]".
run() {
  (cd "$work" && "$SHAPEDB" "$@" < /dev/null) > "$tmp/got" 2>&1
  echo "[exit $?]" >> "$tmp/got"
}
# feed TEXT ARGS...: the same with TEXT piped to stdin.
feed() {
  text=$1
  shift
  (cd "$work" && printf '%s' "$text" | "$SHAPEDB" "$@") > "$tmp/got" 2>&1
  echo "[exit $?]" >> "$tmp/got"
}
want() { cat > "$tmp/want"; }
TAB=$(printf '\t')
