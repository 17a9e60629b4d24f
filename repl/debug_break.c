/*
** debug_break.c — making breakpoints (`break`, `tbreak`, `watch`), listing
** and deleting them, and what gdb lets a breakpoint carry besides where it
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
#include "ops.h"
#include "probe.h"
#include "srcfile.h"

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

static dbg_bp *find(dbg *d, int num) { return dbg_bp_find(d, num); }

static void *grow(void *arr, size_t *cap, size_t need, size_t elem) {
  if (need <= *cap) return arr;
  size_t ncap = *cap ? *cap * 2 : 16;
  while (ncap < need) ncap *= 2;
  void *p = realloc(arr, ncap * elem);
  if (!p) oom();
  *cap = ncap;
  return p;
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

/* A condition naming a word that no symbol is spelled like (s0, u1): it
** can never hold; said when it is set, not discovered as a breakpoint that
** never stops. */
static void note_unshaped(const char *cond_text, const sdb_expr *e) {
  const sdb_expr **fs;
  long n = sdb_free_symbols(e, &fs);
  for (long i = 0; i < n; i++)
    if (!dbg_symbol_shaped(fs[i]->name)) {
      printf("(note: %s is not a symbol name, such as s0 or u1: `%s` stays false)\n", fs[i]->name,
             cond_text);
      break;
    }
  if (n > 0) free(fs);
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
  const sdb_expr *ce = sdb_parse(cond, why, sizeof why);
  if (!ce) {
    repl_error(s, "%s: cannot read the condition '%s': %s", c->name, cond, why);
    return -1;
  }
  free(bp->cond);
  bp->cond = dup(cond);
  note_unshaped(cond, ce);
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

/* --- making, listing and deleting them ---------------------------------------- */

/* Parse a breakpoint spec into bp; 0, or -1 with the error printed. */
static int parse_bp(dbg *d, const char *cmd, const repl_args *a, dbg_bp *bp) {
  repl_session *s = d->s;
  memset(bp, 0, sizeof *bp);
  if (a->argc == 0) {
    repl_error(s, "%s: what? unbacked, guard [TEXT], phase NAME, op NAME, symbol SYM, "
                  "FILE:LINE, LINE, error, or an event kind (`help break`)", cmd);
    return -1;
  }
  const char *w = a->argv[0];
  const char *rest = a->argc > 1 ? a->argv[1] : NULL;
  bool one = a->argc == 1;
  if (!strcmp(w, "event") && a->argc == 2) {   /* `break event renamed`, as listed */
    int ek = sdb_event_from_name(rest);
    if (ek < 0) {
      repl_error(s, "%s: unknown event kind '%s'; the kinds are:", cmd, rest);
      for (int k = 0; k < SDB_EV_COUNT; k++)
        fprintf(stderr, "%s%s", k % 6 ? " " : k ? "\n  " : "  ", sdb_event_name((sdb_event_kind)k));
      fputc('\n', stderr);
      return -1;
    }
    bp->kind = BP_EVENT;
    bp->event = ek;
    return 0;
  }
  if (!strcmp(w, "unbacked") && one) { bp->kind = BP_UNBACKED; return 0; }
  if (!strcmp(w, "error") && one) { bp->kind = BP_ERROR; return 0; }
  if (!strcmp(w, "guard")) {
    bp->kind = BP_GUARD;
    if (rest) {
      const char *text = a->rest + strlen("guard");
      while (*text == ' ' || *text == '\t') text++;
      /* allow quotes: break guard "Eq(s0" */
      size_t n = strlen(text);
      if (n >= 2 && (text[0] == '"' || text[0] == '\'') && text[n - 1] == text[0]) {
        bp->arg = dup(text + 1);
        bp->arg[n - 2] = '\0';
      } else {
        bp->arg = dup(text);
      }
    }
    return 0;
  }
  if (!strcmp(w, "phase") || !strcmp(w, "op") || !strcmp(w, "symbol")) {
    if (a->argc != 2) {
      repl_error(s, "%s: `%s` takes one name (`%s %s NAME`)", cmd, w, cmd, w);
      return -1;
    }
    if (w[0] == 'p') {
      int ph = sdb_phase_from_name(rest);
      if (ph <= SDB_PHASE_NONE) {
        repl_error(s, "%s: unknown phase '%s' (trace, cond, aot, lower, guards)", cmd, rest);
        return -1;
      }
      bp->kind = BP_PHASE;
      bp->phase = ph;
    } else if (w[0] == 'o') {
      if (!sdb_op_find(rest)) {
        size_t nops = sdb_op_count();
        const char **names = calloc(nops ? nops : 1, sizeof *names);
        for (size_t i = 0; names && i < nops; i++) names[i] = sdb_op_at(i)->name;
        const char *sug = names ? repl_suggest(rest, names, nops) : NULL;
        if (sug)
          repl_error(s, "%s: no operator named '%s'. Did you mean '%s'?", cmd, rest, sug);
        else
          repl_error(s, "%s: no operator named '%s' (the names are torch's: nonzero, item, ...)",
                     cmd, rest);
        free(names);
        return -1;
      }
      bp->kind = BP_OP;
      bp->arg = dup(rest);
    } else {
      if (!dbg_symbol_shaped(rest)) {
        repl_error(s, "%s: '%s' is not a symbol name (s0, u1, ...)", cmd, rest);
        return -1;
      }
      bp->kind = BP_SYMBOL;
      bp->sym = sdb_sym(rest);
    }
    return 0;
  }
  if (one) {
    int ek = sdb_event_from_name(w);
    if (ek >= 0) {
      bp->kind = BP_EVENT;
      bp->event = ek;
      return 0;
    }
    /* FILE:LINE or LINE (in the loaded program) */
    const char *colon = strrchr(w, ':');
    const char *num = colon ? colon + 1 : w;
    char *end;
    long line = strtol(num, &end, 10);
    if (*num && !*end && line > 0) {
      char *file = colon ? dup(w) : NULL;
      if (file) file[colon - w] = '\0';
      else if (dbg_program(d)) file = dup(dbg_program(d));
      if (!file) {
        repl_error(s, "%s: no program loaded; say FILE:%ld", cmd, line);
        return -1;
      }
      int count = sdb_srcfile_count(file);
      if (count < 0 && dbg_program(d) && !strcmp(dbg_basename(file), dbg_basename(dbg_program(d)))) {
        free(file);
        file = dup(dbg_program(d));
        count = sdb_srcfile_count(file);
      }
      if (count < 0) {
        repl_error(s, "%s: cannot read %s: %s", cmd, file, sdb_srcfile_error(file));
        free(file);
        return -1;
      }
      if (line > count) {
        repl_error(s, "%s: %s has only %d lines", cmd, file, count);
        free(file);
        return -1;
      }
      bp->kind = BP_LINE;
      bp->arg = file;
      bp->line = (int)line;
      return 0;
    }
  }
  repl_error(s, "%s: unknown breakpoint '%s'; expected unbacked, guard [TEXT], phase NAME, "
                "op NAME, symbol SYM, FILE:LINE, LINE, error, or an event kind", cmd, a->rest);
  return -1;
}

static int add_bp(repl_session *s, const repl_cmd *c, const repl_args *a0, bool temporary,
                  bool watch) {
  dbg *d = dbg_of(s);
  dbg_bp bp;
  /* SPEC if COND: the spec's words end at `if` */
  repl_args cut = *a0;
  const repl_args *a = a0;
  const char *cond = NULL;
  for (int i = 0; i < a0->argc; i++)
    if (!strcmp(a0->argv[i], "if")) {
      const char *at = strstr(a0->rest, " if ");
      cond = at ? at + 4 : "";
      while (*cond == ' ') cond++;
      if (!*cond) {
        repl_error(s, "%s: expected a condition after `if` (`break op nonzero if u0 > 3`)", c->name);
        return -1;
      }
      cut.argc = i;
      a = &cut;
      break;
    }
  if (watch) {
    if (!dbg_symbol_shaped(a->argv[0])) {
      repl_error(s, "%s: '%s' is not a symbol name (s0, u1, ...)", c->name, a->argv[0]);
      return -1;
    }
    memset(&bp, 0, sizeof bp);
    bp.kind = BP_SYMBOL;
    bp.sym = sdb_sym(a->argv[0]);
    bp.watch = true;
  } else if (parse_bp(d, c->name, a, &bp) < 0) {
    return -1;
  }
  const sdb_expr *ce = NULL;
  if (cond) {
    char why[160];
    if (!(ce = sdb_parse(cond, why, sizeof why))) {
      repl_error(s, "%s: cannot read the condition '%s': %s", c->name, cond, why);
      free(bp.arg);
      return -1;
    }
    bp.cond = dup(cond);
  }
  bp.num = ++d->next_bp;
  bp.enabled = true;
  bp.temporary = temporary;
  d->bps = grow(d->bps, &d->capbps, d->nbps + 1, sizeof *d->bps);
  d->bps[d->nbps++] = bp;
  char what[160];
  dbg_bp_describe(&bp, what, sizeof what);
  printf("%s %d: %s%s%s\n", temporary ? "Temporary breakpoint" : watch ? "Watchpoint" : "Breakpoint",
         bp.num, what, bp.cond ? " if " : "", bp.cond ? bp.cond : "");
  if (ce) note_unshaped(bp.cond, ce);
  return 0;
}

static int cmd_break(repl_session *s, const repl_cmd *c, const repl_args *a) {
  return add_bp(s, c, a, false, false);
}

static int cmd_tbreak(repl_session *s, const repl_cmd *c, const repl_args *a) {
  return add_bp(s, c, a, true, false);
}

static int cmd_watch(repl_session *s, const repl_cmd *c, const repl_args *a) {
  return add_bp(s, c, a, false, true);
}

/* The breakpoint numbers in argv (all when none); -1 on a bad one. */
static int each_bp(repl_session *s, const repl_cmd *c, const repl_args *a,
                   void (*fn)(dbg *d, size_t i)) {
  dbg *d = dbg_of(s);
  if (a->argc == 0) {
    for (size_t i = d->nbps; i-- > 0;) fn(d, i);
    return 0;
  }
  int rc = 0;
  for (int k = 0; k < a->argc; k++) {
    char *end;
    long n = strtol(a->argv[k], &end, 10);
    dbg_bp *bp = *end ? NULL : dbg_bp_find(d, (int)n);
    if (!bp) {
      repl_error(s, "%s: no breakpoint number %s", c->name, a->argv[k]);
      rc = -1;
      continue;
    }
    fn(d, (size_t)(bp - d->bps));
  }
  return rc;
}

static void do_delete(dbg *d, size_t i) { dbg_bp_remove(d, i); }
static void do_disable(dbg *d, size_t i) { d->bps[i].enabled = false; }
static void do_enable(dbg *d, size_t i) { d->bps[i].enabled = true; }

static int cmd_delete(repl_session *s, const repl_cmd *c, const repl_args *a) {
  if (a->argc == 0 && dbg_of(s)->nbps) printf("Deleted all breakpoints.\n");
  return each_bp(s, c, a, do_delete);
}
static int cmd_disable(repl_session *s, const repl_cmd *c, const repl_args *a) {
  return each_bp(s, c, a, do_disable);
}
static int cmd_enable(repl_session *s, const repl_cmd *c, const repl_args *a) {
  return each_bp(s, c, a, do_enable);
}

static int cmd_info_breakpoints(repl_session *s, const repl_cmd *c, const repl_args *a) {
  dbg *d = dbg_of(s);
  (void)c; (void)a;
  if (!d->nbps) {
    printf("No breakpoints.\n");
    return 0;
  }
  printf("Num  Type        Disp  Enb  Hits  What\n");
  for (size_t i = 0; i < d->nbps; i++) {
    const dbg_bp *bp = &d->bps[i];
    char what[160];
    dbg_bp_describe(bp, what, sizeof what);
    printf("%-4d %-11s %-5s %-4s %-5u %s\n", bp->num, bp->watch ? "watchpoint" : "breakpoint",
           bp->temporary ? "del" : "keep", bp->enabled ? "y" : "n", bp->hits, what);
    dbg_bp_print_extra(bp);
  }
  return 0;
}

static const repl_cmd break_cmds[] = {
  { "break", "b", "breakpoints", "break SPEC [if COND]",
    "stop where SPEC matches an event",
    "Set a breakpoint. SPEC is one of:\n"
    "  unbacked         any unbacked symbol created\n"
    "  guard [TEXT]     any guard added (whose text contains TEXT)\n"
    "  phase NAME       the phase becomes NAME: trace, cond, aot, lower, guards\n"
    "  op NAME          a call of operator NAME (its first event)\n"
    "  symbol SYM       any event touching SYM (created, pending, bound, ...)\n"
    "  FILE:LINE, LINE  the first event caused by that Lua line\n"
    "  error            an error event (a data-dependent error, say)\n"
    "  [event] KIND     any event of that kind (renamed, memo_hit, ...)\n"
    "With `if COND` it stops only where COND holds (`help condition`).\n"
    "\nExample:\n"
    "  (shapedb) break guard Eq\n"
    "  (shapedb) break nonzero.lua:7\n"
    "  (shapedb) break op nonzero if u0 > 3\n",
    cmd_break, REPL_COMPLETE_BREAKPOINT, NULL, 0, -1, false },
  { "tbreak", NULL, "breakpoints", "tbreak SPEC",
    "a breakpoint deleted when first hit",
    "As `break`, but the breakpoint is deleted after it stops the program once.\n"
    "\nExample:\n"
    "  (shapedb) tbreak phase aot\n",
    cmd_tbreak, REPL_COMPLETE_BREAKPOINT, NULL, 0, -1, false },
  { "watch", NULL, "breakpoints", "watch SYM",
    "stop at every event that touches symbol SYM",
    "Stop whenever an event touches SYM: it is created, becomes pending, is\n"
    "bound, refined, replaced, renamed, or appears in a guard or assert.\n"
    "\nExample:\n"
    "  (shapedb) watch u0\n",
    cmd_watch, REPL_COMPLETE_SYMBOL, NULL, 1, 1, false },
  { "delete", "d", "breakpoints", "delete [N...]",
    "delete breakpoints (all without N)",
    "Delete the breakpoints numbered N (all of them without arguments).\n"
    "\nExample:\n"
    "  (shapedb) delete 2\n",
    cmd_delete, REPL_COMPLETE_NONE, NULL, 0, -1, false },
  { "disable", NULL, "breakpoints", "disable [N...]",
    "disable breakpoints (all without N)",
    "Disable the breakpoints numbered N (all without arguments); `enable`\n"
    "turns them back on.\n"
    "\nExample:\n"
    "  (shapedb) disable 1\n",
    cmd_disable, REPL_COMPLETE_NONE, NULL, 0, -1, false },
  { "enable", NULL, "breakpoints", "enable [N...]",
    "enable breakpoints (all without N)",
    "Enable the breakpoints numbered N (all without arguments).\n"
    "\nExample:\n"
    "  (shapedb) enable 1\n",
    cmd_enable, REPL_COMPLETE_NONE, NULL, 0, -1, false },
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

static const repl_cmd break_info_cmds[] = {
  { "breakpoints", "b", "breakpoints", "info breakpoints",
    "the breakpoints, with their hit counts",
    "List the breakpoints and watchpoints: number, kind, whether deleted when\n"
    "hit, whether enabled, how many times hit, and what they match.\n"
    "\nExample:\n"
    "  (shapedb) info breakpoints\n",
    cmd_info_breakpoints, REPL_COMPLETE_NONE, NULL, 0, 0, false },
};

void dbg_break_init(repl_session *s) {
  repl_cmd_register(break_cmds, sizeof break_cmds / sizeof break_cmds[0]);
  repl_cmd_register_sub("info", break_info_cmds, sizeof break_info_cmds / sizeof break_info_cmds[0]);
  s->hooks.take_line = take_line;
  s->hooks.after_line = after_line;
}
