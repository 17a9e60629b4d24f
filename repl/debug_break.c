/*
** debug_break.c — what gdb lets a breakpoint carry besides where it
** stops: a condition (`break op nonzero if u0 > 3`, `condition N COND`)
** and a command list (`commands N` ... `end`), run after each stop it
** makes.
**
** A condition is a symbolic expression asked at the step the breakpoint
** matched, as `print` asks one (ranges, replacements, runtime asserts,
** the session's assumptions): the breakpoint stops only where it is known
** true, or, when it names backed symbols only, true at their hints (this
** compile's sizes). A symbol that does not exist yet makes it false.
**
** Command lists run after the command that stopped, one line at a time as
** if typed; a list whose lines move the cursor can stop again, and the
** lists queued then run next (iteratively: `commands` ending in
** `continue` does not grow the C stack).
*/
#include "debug.h"
#include "probe.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void oom(void) {
  fputs("shapedb: out of memory\n", stderr);
  exit(1);
}

static char *dup(const char *s) {
  char *r = strdup(s);
  if (!r) oom();
  return r;
}

bool dbg_bp_condition(dbg *d, const dbg_bp *bp, const sdb_view *v) {
  sdb_err err = SDB_ERR_INIT;
  sdb_probe *p = sdb_probe_new(v, d->assumed, d->nassumed, &err);
  sdb_err_clear(&err);
  if (!p) return false;
  const sdb_expr *e = NULL;
  sdb_shape_env *env = sdb_probe_env(p);
  bool holds = false;
  if (sdb_probe_parse(p, bp->cond, &e, &err) == SDB_OK && e) {
    /* known true; or, over backed symbols only, true at their hints (the
    ** sizes of this compile, as gdb reads a variable's value) */
    int64_t val;
    holds = sdb_statically_known_true(env, e) ||
            (!sdb_has_unbacked(env, sdb_simplify(env, e)) &&
             sdb_size_hint(env, e, &val, &err) == SDB_OK && val);
  }
  sdb_err_clear(&err);
  sdb_probe_free(p);
  return holds;
}

void dbg_bp_free(dbg_bp *bp) {
  free(bp->cond);
  for (size_t i = 0; i < bp->ncmds; i++) free(bp->cmds[i]);
  free(bp->cmds);
  bp->cond = NULL;
  bp->cmds = NULL;
  bp->ncmds = 0;
}

void dbg_bp_queue(dbg *d, const dbg_bp *bp) {
  if (!bp->ncmds) return;
  if (d->nqueued == d->capqueued) {
    size_t cap = d->capqueued ? 2 * d->capqueued : 4;
    int *q = realloc(d->queued, cap * sizeof *q);
    if (!q) oom();
    d->queued = q;
    d->capqueued = cap;
  }
  d->queued[d->nqueued++] = bp->num;
}

void dbg_bp_print_extra(const dbg_bp *bp) {
  if (bp->cond) printf("\tstop only if %s\n", bp->cond);
  for (size_t i = 0; i < bp->ncmds; i++) printf("        %s\n", bp->cmds[i]);
}

static dbg_bp *find(dbg *d, int num) {
  for (size_t i = 0; i < d->nbps; i++)
    if (d->bps[i].num == num) return &d->bps[i];
  return NULL;
}

/* N, or the last breakpoint made when absent; NULL with the error said */
static dbg_bp *bp_arg(dbg *d, const char *cmd, const char *word) {
  if (!word) {
    if (!d->nbps) {
      repl_error(d->s, "%s: no breakpoints (`break` makes one)", cmd);
      return NULL;
    }
    return &d->bps[d->nbps - 1];
  }
  char *end;
  long n = strtol(word, &end, 10);
  dbg_bp *bp = *end || n <= 0 ? NULL : find(d, (int)n);
  if (!bp) repl_error(d->s, "%s: no breakpoint number %s", cmd, word);
  return bp;
}

/* condition N [COND] */
static int cmd_condition(repl_session *s, const repl_cmd *c, const repl_args *a) {
  dbg *d = dbg_of(s);
  if (!a->argc) {
    repl_error(s, "%s: expected a breakpoint number, then a condition (none: unconditional)",
               c->name);
    return -1;
  }
  dbg_bp *bp = bp_arg(d, c->name, a->argv[0]);
  if (!bp) return -1;
  const char *cond = a->rest + strlen(a->argv[0]);
  while (*cond == ' ') cond++;
  if (!*cond) {
    free(bp->cond);
    bp->cond = NULL;
    printf("Breakpoint %d now unconditional.\n", bp->num);
    return 0;
  }
  char why[160];
  if (!sdb_parse(cond, why, sizeof why)) {
    repl_error(s, "%s: cannot read the condition '%s': %s", c->name, cond, why);
    return -1;
  }
  free(bp->cond);
  bp->cond = dup(cond);
  return 0;
}

/* commands [N]: the lines up to `end` replace N's list */
static int cmd_commands(repl_session *s, const repl_cmd *c, const repl_args *a) {
  dbg *d = dbg_of(s);
  dbg_bp *bp = bp_arg(d, c->name, a->argc ? a->argv[0] : NULL);
  if (!bp) return -1;
  d->collecting = bp->num;
  d->ncollected = 0;
  if (s->tty) {
    printf("Type commands for breakpoint(s) %d, one per line.\n"
           "End with a line saying just \"end\".\n", bp->num);
    s->data_prompt = ">";
  }
  return 0;
}

static bool take_line(repl_session *s, const char *line) {
  dbg *d = dbg_of(s);
  if (!d->collecting) return false;
  while (*line == ' ' || *line == '\t') line++;
  size_t n = strlen(line);
  while (n && (line[n - 1] == ' ' || line[n - 1] == '\t')) n--;
  if (n == 3 && !strncmp(line, "end", 3)) {
    dbg_bp *bp = find(d, d->collecting);
    if (bp) {
      for (size_t i = 0; i < bp->ncmds; i++) free(bp->cmds[i]);
      free(bp->cmds);
      bp->cmds = d->collected;
      bp->ncmds = d->ncollected;
    } else {
      for (size_t i = 0; i < d->ncollected; i++) free(d->collected[i]);
      free(d->collected);
    }
    d->collected = NULL;
    d->ncollected = d->capcollected = 0;
    d->collecting = 0;
    s->data_prompt = NULL;
    return true;
  }
  if (d->ncollected == d->capcollected) {
    size_t cap = d->capcollected ? 2 * d->capcollected : 4;
    char **v = realloc(d->collected, cap * sizeof *v);
    if (!v) oom();
    d->collected = v;
    d->capcollected = cap;
  }
  char *copy = malloc(n + 1);
  if (!copy) oom();
  memcpy(copy, line, n);
  copy[n] = 0;
  d->collected[d->ncollected++] = copy;
  return true;
}

/* After a top-level line: run the command lists its stops queued. */
static void after_line(repl_session *s, const repl_cmd *cmd, int rc) {
  (void)cmd; (void)rc;
  dbg *d = dbg_of(s);
  if (!d || d->running_cmds) return;
  d->running_cmds = true;
  while (d->nqueued) {
    int num = d->queued[0];
    memmove(d->queued, d->queued + 1, (d->nqueued - 1) * sizeof *d->queued);
    d->nqueued--;
    dbg_bp *bp = find(d, num);
    if (!bp) continue;
    /* copy: a line may delete the breakpoint (`delete`) */
    size_t n = bp->ncmds;
    char **lines = malloc((n ? n : 1) * sizeof *lines);
    if (!lines) oom();
    for (size_t i = 0; i < n; i++) lines[i] = dup(bp->cmds[i]);
    for (size_t i = 0; i < n; i++) {
      repl_exec_line(s, lines[i]);
      free(lines[i]);
    }
    free(lines);
  }
  d->running_cmds = false;
}

static const repl_cmd break_cmds[] = {
  { "condition", NULL, "breakpoints", "condition N [COND]",
    "stop at breakpoint N only where COND is known true",
    "Give breakpoint N a condition, a symbolic expression asked where N\n"
    "matches, as `print` asks it: N stops only where COND is known true at\n"
    "that step (ranges, replacements, runtime asserts, assumptions), or,\n"
    "over backed symbols only, true at their hints (this compile's sizes).\n"
    "A symbol that does not exist yet at that step makes it false. Without\n"
    "COND, N stops wherever it matches again. `break SPEC if COND` sets one\n"
    "at once.\n"
    "\nExample:\n"
    "  (shapedb) break guard\n"
    "  Breakpoint 1: guard\n"
    "  (shapedb) condition 1 s0 > 4\n",
    cmd_condition, REPL_COMPLETE_NONE, NULL, 0, -1, false },
  { "commands", NULL, "breakpoints", "commands [N]",
    "lines to run each time breakpoint N stops",
    "Read lines up to one saying just `end` and run them, as if typed, after\n"
    "each stop that breakpoint N (the last one made, by default) makes.\n"
    "A list ending in `continue` goes on to the next stop. An empty list\n"
    "removes them.\n"
    "\nExample:\n"
    "  (shapedb) commands 1\n"
    "  >info pending\n"
    "  >end\n",
    cmd_commands, REPL_COMPLETE_NONE, NULL, 0, 1, false },
};

void dbg_break_init(repl_session *s) {
  repl_cmd_register(break_cmds, sizeof break_cmds / sizeof break_cmds[0]);
  s->hooks.take_line = take_line;
  s->hooks.after_line = after_line;
}
