/*
** debug_retrace.c — `retrace [ID]` and `info divergences`: re-run the
** dynamo_output_graph of an imported TORCH_TRACE log's compile through
** shapedb's own fake tensors and operators (core/retrace.h), as a run the
** debugger steps through like any other, and list where shapedb's result
** metadata differs from what PyTorch wrote beside each node.
**
** The retrace's events are appended to the session's stream after the
** imported ones and opened as a replay (dbg_replay_open), so stepping,
** breakpoints (`break event divergence`), `where`, `list` (the quoted
** Python lines), `info graph`, `explain`, `save` all work on it. The last
** retrace's summary and divergences are kept here until the next one.
*/
#include "debug.h"
#include "fx_parse.h"
#include "retrace.h"
#include "torch_trace_import.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *last_divergences;   /* `info divergences` text, owned */
static char *last_summary;

static void put_owned(char *text) {
  if (!text) {
    fputs("shapedb: out of memory\n", stderr);
    exit(1);
  }
  fputs(text, stdout);
}

/* Graph kinds that are FX graphs printed by print_readable, in the order a
** compile logs them: what `retrace` can re-run. */
static const char *const fx_kinds[] = {
  "dynamo_output_graph", "aot_joint_graph", "aot_forward_graph", "aot_backward_graph",
  "aot_inference_graph", "inductor_pre_grad_graph", "inductor_post_grad_graph", NULL,
};

/* KIND as given ("aot_forward" for aot_forward_graph): the FX kind it
** names, exactly or as the start of one; NULL when it names none. */
static const char *fx_kind(const char *kind) {
  for (int i = 0; fx_kinds[i]; i++)
    if (!strcmp(fx_kinds[i], kind)) return fx_kinds[i];
  for (int i = 0; fx_kinds[i]; i++)
    if (!strncmp(fx_kinds[i], kind, strlen(kind))) return fx_kinds[i];
  return NULL;
}

/* The compile to retrace: ID, or the first that logged KIND. */
static const sdb_tti_compile *pick(dbg *d, const char *id, const char *kind) {
  if (id) {
    const sdb_tti_compile *c = sdb_tti_find(d->import, id);
    if (!c) {
      repl_error(d->s, "retrace: no compile %s in this log (`info compiles` lists them)", id);
      return NULL;
    }
    if (!sdb_tti_graph_find(c, kind)) {
      repl_error(d->s, "retrace: compile %s logged no %s to re-run (`info graph %s` lists what "
                       "it logged)", c->id, kind, id);
      return NULL;
    }
    return c;
  }
  for (size_t i = 0; i < sdb_tti_ncompiles(d->import); i++) {
    const sdb_tti_compile *c = sdb_tti_compile_at(d->import, i);
    if (sdb_tti_graph_find(c, kind)) return c;
  }
  repl_error(d->s, "retrace: this log has no %s to re-run", kind);
  return NULL;
}

/* Backed symbols start from the values the log's create_symbol records
** gave them in this compile. */
static int log_hint(void *ud, const char *sym, int64_t *out) {
  return sdb_tti_symbol_hint(ud, sym, out);
}

static int cmd_retrace(repl_session *s, const repl_cmd *c, const repl_args *a) {
  dbg *d = dbg_of(s);
  if (!d->import) {
    repl_error(s, "%s: no TORCH_TRACE log is open (`replay LOG` opens one)", c->name);
    return -1;
  }
  /* retrace [ID] [KIND]: an id has a '/' (0/1, -/-, !0/0/1) */
  const char *id = NULL, *kind = "dynamo_output_graph";
  for (int i = 0; i < a->argc; i++) {
    const char *w = a->argv[i];
    if (strchr(w, '/') && !id) {
      id = w;
    } else if (isalpha((unsigned char)w[0]) && (kind = fx_kind(w))) {
      continue;
    } else {
      repl_error(s, "retrace: '%s' is neither a compile id (0/1) nor a graph kind (%s, "
                    "aot_forward_graph, ...)", w, "dynamo_output_graph");
      return -1;
    }
  }
  const sdb_tti_compile *tc = pick(d, id, kind);
  if (!tc) return -1;
  const sdb_tti_graph *g = sdb_tti_graph_find(tc, kind);
  const char *path = sdb_tt_path(sdb_tti_reader(d->import));
  char where[1200];
  /* "trace.log:38: dynamo_output_graph of [0/0]: payload line 7: ..." */
  snprintf(where, sizeof where, "%s:%ld: %s of %s: payload", path, g->line, kind, tc->id);
  sdb_fx_graph *fg = NULL;
  sdb_err err = SDB_ERR_INIT;
  if (sdb_fx_parse(g->text, where, &fg, &err) != 0) {
    repl_error(s, "retrace: %s", err.msg ? err.msg : "cannot read the graph");
    sdb_err_clear(&err);
    return -1;
  }
  size_t before = dbg_replay_begin(d);
  char name[160];
  /* a dynamo graph's run is "retrace [0/0]"; another kind says which */
  if (strcmp(kind, "dynamo_output_graph"))
    snprintf(name, sizeof name, "retrace %s %s", tc->id, kind);
  else
    snprintf(name, sizeof name, "retrace %s", tc->id);
  /* the sizes the real run saw: the same 0/1 specializations and guards */
  sdb_retrace_opts opts = { name, log_hint, (void *)tc,
                            !strncmp(kind, "aot_", 4) ? SDB_PHASE_AOT
                            : !strncmp(kind, "inductor_", 9) ? SDB_PHASE_LOWER : SDB_PHASE_TRACE };
  sdb_retrace r;
  memset(&r, 0, sizeof r);
  int rc = sdb_retrace_run(fg, d->ev, &opts, &r, &err);
  char label[1400];
  snprintf(label, sizeof label, "retrace of compile %s of TORCH_TRACE log %s", tc->id, path);
  dbg_replay_info info = { label, NULL, rc ? "failed" : "finished", 0, NULL };
  dbg_replay_open(d, before, &info);
  free(last_summary);
  free(last_divergences);
  last_summary = sdb_retrace_summary(&r);
  last_divergences = sdb_retrace_divergences_text(&r);
  printf("Retracing %s: its %s (log line %ld) through shapedb's ops, %zu events.\n",
         tc->id, kind, g->line, dbg_length(d) - before);
  if (rc) printf("The retrace stopped: %s\n", err.msg ? err.msg : "an error");
  put_owned(last_summary);
  printf("`step` and `continue` move through it; `info divergences` lists the differences.\n");
  sdb_err_clear(&err);
  sdb_retrace_clear(&r);
  sdb_fx_graph_free(fg);
  return 0;
}

static int info_divergences(repl_session *s, const repl_cmd *c, const repl_args *a) {
  (void)c;
  (void)a;
  (void)s;
  if (!last_summary) {
    printf("No retrace yet (`retrace [ID]` re-runs a compile of a replayed TORCH_TRACE log).\n");
    return 0;
  }
  put_owned(last_summary);
  if (last_divergences && *last_divergences) fputs(last_divergences, stdout);
  return 0;
}

static const repl_cmd retrace_cmds[] = {
  { "retrace", NULL, "running", "retrace [ID] [KIND]",
    "re-run a compile's graph from a TORCH_TRACE log in shapedb's model",
    "Parse the graph of KIND that PyTorch logged for compile ID (KIND:\n"
    "dynamo_output_graph by default, or aot_joint_graph, aot_forward_graph,\n"
    "aot_backward_graph, aot_inference_graph, inductor_pre_grad_graph,\n"
    "inductor_post_grad_graph, or the start of one: aot_forward; ID: the\n"
    "first compile that logged one by default, as `info compiles` writes it,\n"
    "0/0 or [0/0]), fakify its inputs with the symbols of its annotations\n"
    "(backed ones at the log's create_symbol values), and run each node\n"
    "through shapedb's operators in the phase of its kind (trace, aot,\n"
    "lower): a live trace of the real graph, with every pending symbol,\n"
    "binding and guard as an event at the node's `# File:` line. Each node's\n"
    "result is compared with PyTorch's annotation up to a renaming of\n"
    "symbols; `info divergences` lists where they differ, `break event\n"
    "divergence` stops there, and operators shapedb does not model are\n"
    "counted (their annotated result stands in).\n"
    "\nExample:\n"
    "  (shapedb) replay trace.log\n"
    "  (shapedb) retrace 0/0\n"
    "  (shapedb) retrace 0/0 aot_forward\n",
    cmd_retrace, REPL_COMPLETE_NONE, NULL, 0, 2, false },
};

static const repl_cmd retrace_info_cmds[] = {
  { "divergences", NULL, "data", "info divergences",
    "where the last retrace differs from PyTorch",
    "The last `retrace`'s summary line (nodes, matched, diverged, unsupported\n"
    "ops), then each node whose result differs from PyTorch's annotation:\n"
    "the graph, node, payload line, what differs, PyTorch's and shapedb's.\n"
    "\nExample:\n"
    "  (shapedb) info divergences\n",
    info_divergences, REPL_COMPLETE_NONE, NULL, 0, 0, false },
};

void dbg_retrace_init(void) {
  repl_cmd_register(retrace_cmds, sizeof retrace_cmds / sizeof retrace_cmds[0]);
  repl_cmd_register_sub("info", retrace_info_cmds,
                        sizeof retrace_info_cmds / sizeof retrace_info_cmds[0]);
}

void dbg_retrace_free(void) {
  free(last_summary);
  free(last_divergences);
  last_summary = last_divergences = NULL;
}
