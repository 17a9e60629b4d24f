/*
** torch_trace_import.h — a TORCH_TRACE log turned into shapedb events.
**
** The reader (torch_trace.h) yields records; the importer folds them into
** an sdb_events stream that the debugger, `print`, `why`, `assume` and
** `explain` use exactly as they use a live run's:
**
**   a new compile id          phase_start trace (text "[0/1] fn"), a
**                             tracer_push named by the id: each compile
**                             has its own ShapeEnv, as in PyTorch
**   create_symbol             create_symbol (hint, range, source)
**   create_unbacked_symbol    create_unbacked_symbol (range)
**   symbolic_shape_specialization  specialization (value, source, reason)
**   guard_added_fast, guard_added (prefix eval)   guard_added
**   guard_added (prefix runtime_assert)           runtime_assert
**   propagate_real_tensors(_provenance)   runtime_assert of what the real
**                             values said (detail names the record)
**   a symbol first seen in a graph's sizes, a guard or an expression
**                             create_symbol marked "mentioned" (no hint)
**   dynamo_guards / dynamo_cpp_guards_str   guards_installed
**   compilation_metrics with fail_type     error
**   graphs (dynamo_output_graph, aot_*_graph, inductor_*_graph,
**   inductor_output_code, exported_program, ...)   a note; the text is
**                             kept per compile (sdb_tti_graph)
**
** Each event's file:line and function are the innermost frame of the
** record's user_stack (or stack). expression_created records are kept by
** their Python object id (scoped to the file, as ids are reused) so a
** guard's expr_node_id can be walked down to its symbols (sdb_tti_tree).
**
** Ownership: the import owns its tables and the reader's (problems, kind
** counts); texts handed out are interned or owned by the import and live
** until sdb_tti_free. The events go to the caller's stream.
*/
#ifndef SDB_TORCH_TRACE_IMPORT_H
#define SDB_TORCH_TRACE_IMPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "event.h"
#include "torch_trace.h"

typedef struct sdb_tti sdb_tti;

typedef struct sdb_tti_graph {
  const char *kind;        /* interned record kind ("aot_forward_graph"), or the
                              artifact's name for graph-like artifacts */
  const char *text;        /* the payload (owned by the import) */
  long line;               /* the record's header line */
} sdb_tti_graph;

typedef struct sdb_tti_compile {
  sdb_tt_cid cid;
  const char *id;          /* interned "[0/1]" */
  const char *func;        /* co_name, or the innermost dynamo_start frame, or NULL */
  const char *file;        /* co_filename or that frame's file, or NULL */
  long lineno;
  const char *status;      /* "ok", "failed", "restarted" (a later attempt of
                              the same id followed), "running" (no
                              compilation_metrics) */
  const char *fail_type;   /* interned, or NULL */
  const char *fail_reason;
  const char *recompile_reason; /* interned, or NULL */
  long first_line;         /* header line of its first record */
  size_t first_event;      /* its phase_start's position in the stream */
  long symbols, unbacked, guards, asserts, specializations;
  long graph_breaks;       /* dynamo_graph_break_reason artifacts */
  const char *first_break; /* the first one's reason (its first line), interned */
  const char *first_break_file;
  long first_break_line;
  sdb_tti_graph *graphs;    /* graphs, code, guard listings and graph-like
                              artifacts, as `info graph ID KIND` shows them */
  size_t ngraphs;
  long graph_count;        /* of those, the graphs and code proper (not the
                              guard listings nor artifacts) */
  char **installed;        /* the installed guard set, sorted (owned) */
  size_t ninstalled;
  const char *installed_from; /* "dynamo_cpp_guards_str" or "dynamo_guards" */
} sdb_tti_compile;

/* Import PATH into EV. Fails (negative, err filled) with *out NULL when
** the file cannot be opened; with *out set, what was read imported, when
** Ctrl-C stopped the reading (KeyboardInterrupt) or an allocation failed
** (MemoryError: the log was not read whole). Bad records become problems
** (sdb_tti_reader). */
int sdb_tti_import(const char *path, sdb_events *ev, sdb_tti **out, sdb_err *err);
/* The same, calling STACK_FN for each event whose record names the user's
** Python stack (user_stack, else the frames of its stack outside
** PyTorch), with that stack as `where` prints one, innermost first and
** interned: "#0  forward at test_draft_export.py:297\n#1  ...". NAME
** (NULL: PATH) is what problems and errors call the file (see spool.h). */
typedef void (*sdb_tti_stack_fn)(void *ud, size_t seq, const char *stack);
int sdb_tti_import_ex(const char *path, const char *name, sdb_events *ev,
                      sdb_tti_stack_fn stack_fn, void *ud, sdb_tti **out, sdb_err *err);
void sdb_tti_free(sdb_tti *t);

/* The reader after the end of the file: problems, per-kind counts, the
** interned strings. */
const sdb_tt_reader *sdb_tti_reader(const sdb_tti *t);
size_t sdb_tti_ncompiles(const sdb_tti *t);
const sdb_tti_compile *sdb_tti_compile_at(const sdb_tti *t, size_t i);
/* The compile whose id is "0/1" / "[0/1]" / "!0/0/1", or NULL. */
const sdb_tti_compile *sdb_tti_find(const sdb_tti *t, const char *id);
/* The compile whose phase contains event position pos (NULL before any). */
const sdb_tti_compile *sdb_tti_compile_of_event(const sdb_tti *t, size_t pos);
/* Source lines the log quotes: the `loc` of user stack frames and the
** `# File: PATH:LINE in FN, code: TEXT` comments of graphs, per file. The
** i-th file's name, and its text with the quoted lines in place and the
** others empty (malloc'ed; the caller frees it), for `list` when the file
** is not on this machine. NULL when i is out of range. */
size_t sdb_tti_nsources(const sdb_tti *t);
char *sdb_tti_source_at(const sdb_tti *t, size_t i, const char **file);
/* The first graph of compile C whose kind is KIND, or NULL. */
/* The value the log's create_symbol gave backed symbol SYM ("s0") in
** compile C: 0 and *out set, or -1 when the log has none. */
int sdb_tti_symbol_hint(const sdb_tti_compile *c, const char *sym, int64_t *out);
const sdb_tti_graph *sdb_tti_graph_find(const sdb_tti_compile *c, const char *kind);
/* Is a record kind one the importer understands (maps or keeps)? */
bool sdb_tti_kind_known(const char *kind);
/* Symbolic-shape records and graphs logged outside any compile (an export
** run) go to a pseudo-compile whose id is "[-/-]", as tlparse names it. */

/* The expression tree under a guard or a symbol, rebuilt from
** expression_created ids, as text (malloc'ed; NULL on OOM):
**   Eq(s0, 3)   guard (eval) at test_draft_export.py:297 in forward
**   └─ eq(s0, 3) -> Eq(s0, 3)   expression_created, line 37
**      └─ s0: L['args'][0][0].size()[0]
** WHAT is a guard's text as logged ("Eq(s0, 3)") or a symbol ("u0").
** Returns NULL with *why set (static text) when nothing matches. */
char *sdb_tti_tree(const sdb_tti *t, const char *what, const char **why);

/* `info compiles`, `info records`, `info recompiles`: texts as the REPL
** prints them (malloc'ed; NULL on OOM). */
char *sdb_tti_compiles_text(const sdb_tti *t);
char *sdb_tti_records_text(const sdb_tti *t);
char *sdb_tti_recompiles_text(const sdb_tti *t);

/* Counts over the whole import, for tests. */
typedef struct sdb_tti_counts {
  long compiles, symbols, unbacked, guards, asserts, specializations, graphs,
       expressions, unknown_records;
} sdb_tti_counts;
sdb_tti_counts sdb_tti_totals(const sdb_tti *t);

#endif
