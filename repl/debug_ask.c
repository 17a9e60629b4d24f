/*
** debug_ask.c — questions about expressions at the cursor: `print`, `why`,
** `assume`, `unassume`, `info assumptions`. Each builds a probe (a ShapeEnv
** rebuilt from the view, core/probe.h) at the cursor with the session's
** assumptions on top, so the answers hold at any step, forwards or back,
** and without the program.
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

/* A probe at the cursor with the first n assumptions (and `extra` after
** them, when not NULL); NULL with the error printed. */
static sdb_probe *probe_at(dbg *d, const char *cmd, size_t n, const sdb_expr *extra) {
  const sdb_expr **facts = malloc((n + 1) * sizeof *facts);
  if (!facts) oom();
  if (n) memcpy(facts, d->assumed, n * sizeof *facts);
  if (extra) facts[n++] = extra;
  sdb_err err = SDB_ERR_INIT;
  sdb_probe *p = sdb_probe_new(dbg_view(d), facts, n, &err);
  free(facts);
  if (!p) {
    if (err.code == SDB_E_OOM || !err.msg) oom();
    if (extra) repl_error(d->s, "%s: %s", cmd, err.msg);
    else repl_error(d->s, "%s: %s (`info assumptions` lists the assumptions, `unassume` drops one)",
                    cmd, err.msg);
    sdb_err_clear(&err);
  }
  return p;
}

/* The user's names of the symbols, for the checks `why` and `assume`
** suggest once the run has raised a data-dependent error: the error says
** which locals it found them in ("These suggested fixes were derived by
** replacing `u0` with n, `u1` with x:size(0) in ..."), in a live run and
** in its replay alike. */
typedef struct err_names {
  const sdb_expr *sym[16];
  char name[16][64];
  int n;
} err_names;

static const char *err_name_of(void *ud, const sdb_expr *sym) {
  const err_names *en = ud;
  for (int i = 0; i < en->n; i++)
    if (en->sym[i] == sym) return en->name[i];
  return NULL;
}

static void failure_names(dbg *d, sdb_probe *p, err_names *en) {
  en->n = 0;
  size_t upto = d->cur < sdb_events_count(d->ev) ? d->cur : sdb_events_count(d->ev);
  const sdb_event *e = NULL;
  for (size_t i = upto; i > d->base && !e; i--)
    if (sdb_events_at(d->ev, i - 1)->kind == SDB_EV_ERROR) e = sdb_events_at(d->ev, i - 1);
  static const char intro[] = "(These suggested fixes were derived by replacing ";
  const char *q = e && sdb_event_detail(e) ? strstr(sdb_event_detail(e), intro) : NULL;
  if (!q) return;
  q += sizeof intro - 1;
  while (*q == '`' && en->n < 16) {
    const char *sym_end = strchr(q + 1, '`');
    if (!sym_end || strncmp(sym_end, "` with ", 7)) break;
    char sym[64];
    size_t ns = (size_t)(sym_end - q - 1);
    if (ns >= sizeof sym) break;
    memcpy(sym, q + 1, ns);
    sym[ns] = '\0';
    const char *nm = sym_end + 7;
    size_t nn = strcspn(nm, " ,");
    sdb_err err = SDB_ERR_INIT;
    const sdb_expr *s = NULL;
    if (nn && nn < sizeof en->name[0] && sdb_probe_parse(p, sym, &s, &err) == 0 && s->kind == SDB_SYM) {
      en->sym[en->n] = s;
      memcpy(en->name[en->n], nm, nn);
      en->name[en->n][nn] = '\0';
      en->n++;
    }
    sdb_err_clear(&err);
    q = strstr(nm, ", `");
    if (!q) break;
    q += 2;
  }
  if (en->n) sdb_probe_set_namer(p, err_name_of, en);
}

static const sdb_expr *parse_in(dbg *d, sdb_probe *p, const char *cmd, const char *text) {
  const sdb_expr *e = NULL;
  sdb_err err = SDB_ERR_INIT;
  if (sdb_probe_parse(p, text, &e, &err) != SDB_OK) {
    repl_error(d->s, "%s: %s", cmd, err.msg ? err.msg : "cannot parse the expression");
    sdb_err_clear(&err);
    return NULL;
  }
  return e;
}

static void put_text(char *text) {
  if (!text) oom();
  fputs(text, stdout);
  if (*text && text[strlen(text) - 1] != '\n') putchar('\n');
  free(text);
}

static void note_assumptions(dbg *d) {
  if (d->nassumed)
    printf("  (with %zu assumption%s: `info assumptions`)\n", d->nassumed,
           d->nassumed == 1 ? "" : "s");
}

static int ask(dbg *d, const char *cmd, const char *text, bool why) {
  sdb_probe *p = probe_at(d, cmd, d->nassumed, NULL);
  if (!p) return -1;
  const sdb_expr *e = NULL;
  if (!*text) {
    /* `why` alone: the question the last data-dependent error asked */
    const sdb_expr *const *qs;
    size_t nq = why ? sdb_probe_questions(p, &qs) : 0;
    if (!nq) {
      repl_error(d->s, "%s: expected an expression such as u0 + 1 or Eq(u0, 4)%s", cmd,
                 why ? " (there is no data-dependent error at this step to ask about)" : "");
      sdb_probe_free(p);
      return -1;
    }
    e = qs[nq - 1];
  } else {
    e = parse_in(d, p, cmd, text);
  }
  if (!e) {
    sdb_probe_free(p);
    return -1;
  }
  if (why) {
    /* a question asked is one `assume` reports on later */
    size_t i = 0;
    while (i < d->nasked && d->asked[i] != e) i++;
    if (i == d->nasked && sdb_is_bool(e)) {
      d->asked = realloc(d->asked, (d->nasked + 1) * sizeof *d->asked);
      if (!d->asked) oom();
      d->asked[d->nasked++] = e;
    }
  }
  err_names en;
  failure_names(d, p, &en);
  put_text(why ? sdb_probe_why(p, e) : sdb_probe_print(p, e));
  note_assumptions(d);
  sdb_probe_free(p);
  return 0;
}

int dbg_ask_print(dbg *d, const char *text) { return ask(d, "print", text, false); }
int dbg_ask_display(dbg *d, const char *text) { return ask(d, "display", text, false); }

static int cmd_print(repl_session *s, const repl_cmd *c, const repl_args *a) {
  /* `print x:meta()`: Lua in the selected frame when it names a variable */
  int r = dbg_frame_print(dbg_of(s), a->rest);
  if (r <= 0) return r;
  return ask(dbg_of(s), c->name, a->rest, false);
}

static int cmd_why(repl_session *s, const repl_cmd *c, const repl_args *a) {
  return ask(dbg_of(s), c->name, a->rest, true);
}

static int cmd_assume(repl_session *s, const repl_cmd *c, const repl_args *a) {
  dbg *d = dbg_of(s);
  if (!*a->rest) {
    repl_error(s, "%s: expected a condition such as u0 >= 1", c->name);
    return -1;
  }
  sdb_probe *before = probe_at(d, c->name, d->nassumed, NULL);
  if (!before) return -1;
  const sdb_expr *fact = parse_in(d, before, c->name, a->rest);
  sdb_probe *after = fact ? probe_at(d, c->name, d->nassumed, fact) : NULL;
  if (!after) {
    sdb_probe_free(before);
    return -1;
  }
  err_names en;
  failure_names(d, after, &en);
  put_text(sdb_probe_assume_report(before, after, fact, d->asked, d->nasked));
  /* decided already: the report said which way; nothing to take as known */
  const sdb_expr *known = sdb_maybe_evaluate_static(sdb_probe_env(before), fact);
  sdb_probe_free(before);
  sdb_probe_free(after);
  if (known) {
    printf("Nothing assumed: %s.\n", known->kind == SDB_TRUE ? "it is known already"
                                       : "an assumption cannot contradict what is known");
    return known->kind == SDB_TRUE ? 0 : -1;
  }
  d->assumed = realloc(d->assumed, (d->nassumed + 1) * sizeof *d->assumed);
  if (!d->assumed) oom();
  d->assumed[d->nassumed++] = fact;
  printf("Assumption %zu added: `print` and `why` now take it as known; `unassume` drops it.\n",
         d->nassumed);
  return 0;
}

static int cmd_unassume(repl_session *s, const repl_cmd *c, const repl_args *a) {
  dbg *d = dbg_of(s);
  if (!d->nassumed) {
    repl_error(s, "%s: there are no assumptions", c->name);
    return -1;
  }
  if (a->argc && !strcmp(a->argv[0], "all")) {
    printf("Dropped %zu assumption%s.\n", d->nassumed, d->nassumed == 1 ? "" : "s");
    d->nassumed = 0;
    return 0;
  }
  size_t i = d->nassumed - 1;
  if (a->argc) {
    char *end;
    long n = strtol(a->argv[0], &end, 10);
    if (*end || n < 1 || (size_t)n > d->nassumed) {
      repl_error(s, "%s: expected `all` or an assumption number from 1 to %zu, got '%s'",
                 c->name, d->nassumed, a->argv[0]);
      return -1;
    }
    i = (size_t)n - 1;
  }
  char *text = sdb_expr_str(d->assumed[i]);
  printf("Dropped assumption %zu: %s\n", i + 1, text ? text : repl_oom_text());
  free(text);
  memmove(&d->assumed[i], &d->assumed[i + 1], (d->nassumed - i - 1) * sizeof *d->assumed);
  d->nassumed--;
  return 0;
}

static int info_assumptions(repl_session *s, const repl_cmd *c, const repl_args *a) {
  dbg *d = dbg_of(s);
  (void)c; (void)a;
  if (!d->nassumed) printf("No assumptions (`assume u0 >= 1` adds one).\n");
  for (size_t i = 0; i < d->nassumed; i++) {
    char *text = sdb_expr_str(d->assumed[i]);
    printf("  %zu: %s\n", i + 1, text ? text : repl_oom_text());
    free(text);
  }
  return 0;
}

static const repl_cmd ask_cmds[] = {
  { "print", "p", "data", "print EXPR",
    "an expression here: simplified, range, known or not",
    "Parse EXPR (sympy spelling: u0 + 1, Eq(u0, 4), Max(s0, 2), s0 // 2) and\n"
    "simplify it in the ShapeEnv as it stands at the current step, with the\n"
    "replacements, ranges, guards and runtime asserts known there (and the\n"
    "assumptions). Shows its range and whether it is statically known; a\n"
    "known one says why.\n"
    "\n"
    "Example:\n"
    "  (shapedb) print u0 >= 0\n"
    "  (shapedb) print 2*s1 - s0\n",
    cmd_print, REPL_COMPLETE_SYMBOL, NULL, 0, -1, false },
  { "why", NULL, "data", "why [EXPR]",
    "why an expression is or is not statically known here",
    "Say why EXPR is statically known (the range, replacement or fact that\n"
    "decides it), or why not: the symbols with their ranges and creation\n"
    "sites, the facts known about them, and an assignment within the ranges\n"
    "that makes it true and one that makes it false. This is the question a\n"
    "data-dependent error (GuardOnDataDependentSymNode) could not answer;\n"
    "without EXPR, `why` asks about the last such error at this step.\n"
    "\n"
    "Example:\n"
    "  (shapedb) why Eq(507 - u0, 0)\n",
    cmd_why, REPL_COMPLETE_SYMBOL, NULL, 0, -1, false },
  { "assume", NULL, "data", "assume COND",
    "try a torch._check(COND) here without re-running",
    "Add COND as a fact at the current step, as torch._check(COND) would, and\n"
    "show what it changes: which open questions (data-dependent errors, and\n"
    "the expressions asked about with `why`) it settles, and the ranges and\n"
    "replacements it changes. The assumption stays for later `print` and\n"
    "`why` until `unassume`; nothing re-runs. A COND that contradicts what is\n"
    "known is refused.\n"
    "\n"
    "Example:\n"
    "  (shapedb) assume u0 <= 2\n",
    cmd_assume, REPL_COMPLETE_SYMBOL, NULL, 0, -1, false },
  { "unassume", NULL, "data", "unassume [N|all]",
    "drop the last assumption (or number N, or all)",
    "Drop the last assumption `assume` added, assumption N, or all of them.\n"
    "\n"
    "Example:\n"
    "  (shapedb) unassume\n",
    cmd_unassume, REPL_COMPLETE_NONE, NULL, 0, 1, false },
};

static const repl_cmd ask_info_cmds[] = {
  { "assumptions", NULL, "data", "info assumptions",
    "the facts `assume` added",
    "The assumptions in force, numbered for `unassume N`.\n"
    "\n"
    "Example:\n"
    "  (shapedb) info assumptions\n",
    info_assumptions, REPL_COMPLETE_NONE, NULL, 0, 0, false },
};

void dbg_ask_init(void) {
  repl_cmd_register(ask_cmds, sizeof ask_cmds / sizeof ask_cmds[0]);
  repl_cmd_register_sub("info", ask_info_cmds, sizeof ask_info_cmds / sizeof ask_info_cmds[0]);
}
