/*
** debug_import.c — opening a PyTorch TORCH_TRACE log in the debugger:
** `replay LOG [--rank N]` (and `shapedb --replay LOG`), `info compiles`,
** `info records`, `info recompiles`, `info graph ID KIND`, and the
** expression trees `explain` adds on an imported log.
**
** The importer (core/torch_trace_import.h) appends the log's events to the
** session's event stream, so every motion, breakpoint, `print`, `why` and
** `assume` works on it as on a live run; there is no program to resume,
** so motions stop at the last imported event.
*/
#include "debug.h"
#include "host.h"
#include "spool.h"
#include "srcfile.h"
#include "torch_trace_import.h"
#include "trace_io.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A listing: printed, or the command fails (out of memory: the text is
** not whole), and the session goes on. */
static int put_text(dbg *d, const char *what, char *text) {
  if (!text) {
    repl_error(d->s, "%s: out of memory", what);
    return -1;
  }
  fputs(text, stdout);
  free(text);
  return 0;
}

static bool ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), m = strlen(suffix);
  return n >= m && !strcmp(s + n - m, suffix);
}

/* A directory of per-rank logs (dedicated_log_torch_trace_rank_0_xxx.log):
** the log of RANK, or the only log when none names a rank. Malloc'ed path,
** or NULL with the error printed. */
static char *pick_rank(dbg *d, const char *dir, long rank) {
  DIR *dp = opendir(dir);
  if (!dp) {
    repl_error(d->s, "replay: %s: cannot read the directory", dir);
    return NULL;
  }
  char want[48];
  snprintf(want, sizeof want, "rank_%ld", rank);
  char *found = NULL, *only = NULL;
  int nlogs = 0, nmatch = 0;
  struct dirent *de;
  while ((de = readdir(dp))) {
    if (!ends_with(de->d_name, ".log") && !ends_with(de->d_name, ".log.gz")) continue;
    nlogs++;
    size_t n = strlen(dir) + strlen(de->d_name) + 2;
    char *path = malloc(n);
    if (!path) break;
    snprintf(path, n, "%s/%s", dir, de->d_name);
    /* rank_1 but not rank_10: "..._rank_1.log", "..._rank_1_abc.log" */
    const char *at = strstr(de->d_name, want);
    if (at && (at[strlen(want)] == '_' || at[strlen(want)] == '.')) {
      /* several attempts of one rank: the names sort by creation order */
      if (!found || strcmp(path, found) < 0) { free(found); found = path; path = NULL; }
      nmatch++;
    } else if (!strstr(de->d_name, "rank_")) {
      free(only);
      only = path;
      path = NULL;
    }
    free(path);
  }
  closedir(dp);
  if (!found && rank == 0 && only && nlogs == 1) found = only, only = NULL;
  free(only);
  if (!found)
    repl_error(d->s, "replay: %s: no log of rank %ld among its %d .log file%s", dir, rank,
               nlogs, nlogs == 1 ? "" : "s");
  else if (nmatch > 1)
    printf("(%d logs of rank %ld; replaying %s)\n", nmatch, rank, found);
  return found;
}

/* The user's Python stack of each imported event, for `where`. */
static void on_stack(void *ud, size_t seq, const char *stack) {
  dbg_replay_stack(ud, seq, stack);
}

/* Import FILE, a log read from FPATH (a pipe's spooled copy) or FILE itself. */
static int import_log(dbg *d, const char *fpath, const char *file) {
  if (!sdb_tt_sniff(fpath)) {
    repl_error(d->s, "replay: %s: not a TORCH_TRACE log (its first line is not a "
                     "`V0211 16:42:20.546000 123 file.py:1] {...}` record)", file);
    return -1;
  }
  size_t before = dbg_replay_begin(d);
  sdb_tti *t;
  sdb_err err = SDB_ERR_INIT;
  int rc = sdb_tti_import_ex(fpath, file, d->ev, on_stack, d, &t, &err);
  if (rc && !t) {
    repl_error(d->s, "replay: %s", err.msg ? err.msg : "cannot read the log");
    sdb_err_clear(&err);
    return -1;
  }
  /* Ctrl-C stopped the reading, or memory ran out: said, and what was
  ** read is imported (and folded for the debugger: another Ctrl-C stops
  ** that), as a saved trace's events before a bad line are */
  bool cut = rc < 0;
  if (cut && err.kind && !strcmp(err.kind, "KeyboardInterrupt")) repl_host_clear_interrupt();
  char *cut_msg = cut && err.msg ? strdup(err.msg) : NULL;
  sdb_err_clear(&err);
  sdb_tti_free(d->import);
  d->import = t;
  const sdb_tt_reader *r = sdb_tti_reader(t);
  size_t nc = sdb_tti_ncompiles(t), np = sdb_tt_nproblems(r);
  /* the imported run starts here: the cursor before its first event */
  char label[1200];
  snprintf(label, sizeof label, "TORCH_TRACE log %s (%ld records, %zu compile%s)", file,
           sdb_tt_nrecords(r), nc, nc == 1 ? "" : "s");
  dbg_replay_info info = { label, NULL, NULL, 0, NULL };
  dbg_replay_open(d, before, &info);
  /* files not on this machine: `list` and the stop lines show the lines
  ** the log quotes (stack frames' loc, graphs' `code:` comments) */
  for (size_t i = 0; i < sdb_tti_nsources(t); i++) {
    const char *src;
    char *text = sdb_tti_source_at(t, i, &src);
    if (text && sdb_srcfile_count(src) < 0) sdb_srcfile_set_text(src, text);
    free(text);
  }
  printf("Replaying %s (TORCH_TRACE): %ld records, %zu compile%s, %zu events",
         file, sdb_tt_nrecords(r), nc, nc == 1 ? "" : "s", dbg_length(d) - before);
  if (np) printf("; %zu problem%s (`info records`)", np, np == 1 ? "" : "s");
  printf(".\n`info compiles` lists them; `step`, `continue` and `break` move through the "
         "log.\n");
  if (cut) {
    fflush(stdout);
    repl_error(d->s, "replay: %s", cut_msg ? cut_msg : "out of memory");
    free(cut_msg);
    return -1;
  }
  return 0;
}

/* A saved trace or a TORCH_TRACE log read from FPATH, called NAME. */
static int open_file(dbg *d, const char *fpath, const char *name) {
  struct stat st;
  if (stat(fpath, &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 0) {
    repl_error(d->s, "replay: %s: empty (neither a saved trace nor a TORCH_TRACE log)", name);
    return -1;
  }
  if (sdb_trace_sniff(fpath)) return dbg_replay_trace(d, fpath, name);
  return import_log(d, fpath, name);
}

int dbg_import_open(dbg *d, const char *path, long rank) {
  if (!strcmp(path, "-") && isatty(STDIN_FILENO)) {
    repl_error(d->s, "replay: -: standard input is a terminal; pipe a log into it "
                     "(`zcat LOG.gz | shapedb --replay -`)");
    return -1;
  }
  if (sdb_spool_needed(path)) {
    /* a pipe is sniffed, then read: read it once, into a temporary file */
    const char *name = strcmp(path, "-") ? path : "<stdin>";
    char *tmp;
    sdb_err err = SDB_ERR_INIT;
    if (sdb_spool(path, &tmp, &err)) {
      repl_error(d->s, "replay: %s", err.msg ? err.msg : "cannot read it");
      sdb_err_clear(&err);
      return -1;
    }
    int rc = open_file(d, tmp, name);
    unlink(tmp);
    free(tmp);
    return rc;
  }
  struct stat st;
  if (stat(path, &st) != 0) {
    repl_error(d->s, "replay: %s: no such file or directory", path);
    return -1;
  }
  if (!S_ISDIR(st.st_mode)) return open_file(d, path, path);
  char *file = pick_rank(d, path, rank);
  if (!file) return -1;
  int rc = import_log(d, file, file);
  free(file);
  return rc;
}

static int need_import(dbg *d, const char *cmd) {
  if (d->import) return 0;
  repl_error(d->s, "%s: no TORCH_TRACE log is open (`replay LOG` opens one)", cmd);
  return -1;
}

static int cmd_replay(repl_session *s, const repl_cmd *c, const repl_args *a) {
  dbg *d = dbg_of(s);
  const char *path = NULL;
  long rank = 0;
  for (int i = 0; i < a->argc; i++) {
    if (!strcmp(a->argv[i], "--rank")) {
      char *end;
      rank = i + 1 < a->argc ? strtol(a->argv[i + 1], &end, 10) : -1;
      if (i + 1 >= a->argc || *end || rank < 0) {
        repl_error(s, "%s: --rank needs a rank number (0, 1, ...)", c->name);
        return -1;
      }
      i++;
    } else if (!path) {
      path = a->argv[i];
    } else {
      repl_error(s, "%s: one log at a time (got '%s' after '%s')", c->name, a->argv[i], path);
      return -1;
    }
  }
  if (!path) {
    repl_error(s, "%s: expected a TORCH_TRACE log, a .log.gz or a directory of logs", c->name);
    return -1;
  }
  return dbg_import_open(d, path, rank);
}

static int info_compiles(repl_session *s, const repl_cmd *c, const repl_args *a) {
  (void)a;
  dbg *d = dbg_of(s);
  if (need_import(d, "info compiles")) return -1;
  (void)c;
  return put_text(d, "info compiles", sdb_tti_compiles_text(d->import));
}

static int info_records(repl_session *s, const repl_cmd *c, const repl_args *a) {
  (void)a;
  (void)c;
  dbg *d = dbg_of(s);
  if (need_import(d, "info records")) return -1;
  return put_text(d, "info records", sdb_tti_records_text(d->import));
}

static int info_recompiles(repl_session *s, const repl_cmd *c, const repl_args *a) {
  (void)a;
  (void)c;
  dbg *d = dbg_of(s);
  if (need_import(d, "info recompiles")) return -1;
  return put_text(d, "info recompiles", sdb_tti_recompiles_text(d->import));
}

int dbg_import_graph(dbg *d, const repl_args *a) {
  if (!d->import) return 1;
  if (a->argc < 1) {
    /* the graphs of the compile at the cursor, when the log has any */
    const sdb_tti_compile *c = d->cur ? sdb_tti_compile_of_event(d->import, d->cur - 1) : NULL;
    if (!c || !c->ngraphs) return 1;
    printf("%s has %zu graph%s in the log (`info graph %.*s KIND` shows one):\n", c->id,
           c->ngraphs, c->ngraphs == 1 ? "" : "s", (int)strlen(c->id) - 2, c->id + 1);
    for (size_t i = 0; i < c->ngraphs; i++)
      printf("  %-28s line %ld\n", c->graphs[i].kind, c->graphs[i].line);
    return 0;
  }
  const sdb_tti_compile *c = sdb_tti_find(d->import, a->argv[0]);
  if (!c) {
    sdb_tt_cid cid;
    if (sdb_tt_cid_parse(a->argv[0], &cid) && strcmp(a->argv[0], "-/-")) return 1;
    repl_error(d->s, "info graph: no compile %s in this log (`info compiles` lists them)",
               a->argv[0]);
    return -1;
  }
  const char *want = a->argc > 1 ? a->argv[1] : NULL;
  const sdb_tti_graph *g = NULL;
  for (size_t i = 0; i < c->ngraphs && !g; i++)
    if (!want || !strcmp(c->graphs[i].kind, want)) g = &c->graphs[i];
  /* `aot_forward` for aot_forward_graph: a unique prefix */
  for (size_t i = 0, n = 0; want && !g && i < c->ngraphs; i++)
    if (!strncmp(c->graphs[i].kind, want, strlen(want)) && !n++) g = &c->graphs[i];
  if (!g) {
    repl_error(d->s, "info graph: compile %s has no %s; it has:", c->id, want);
    for (size_t i = 0; i < c->ngraphs; i++) fprintf(stderr, "  %s\n", c->graphs[i].kind);
    return -1;
  }
  printf("%s %s (line %ld of the log):\n", c->id, g->kind, g->line);
  fputs(g->text, stdout);
  if (*g->text && g->text[strlen(g->text) - 1] != '\n') putchar('\n');
  if (!want && c->ngraphs > 1) {
    printf("other graphs:");
    for (size_t i = 1; i < c->ngraphs; i++) printf(" %s", c->graphs[i].kind);
    putchar('\n');
  }
  return 0;
}

int dbg_import_explain(dbg *d, const char *what, bool quiet) {
  if (!d->import) return 1;
  const char *why;
  char *tree = sdb_tti_tree(d->import, what, &why);
  if (!tree) {
    if (!quiet) repl_error(d->s, "explain: %s: %s", what, why);
    return quiet ? 1 : -1;
  }
  printf("expression tree from the log:\n");
  return put_text(d, "explain", tree);
}

static const repl_cmd import_cmds[] = {
  { "replay", NULL, "running", "replay LOG [--rank N]",
    "open a PyTorch TORCH_TRACE log in the debugger",
    "Import the structured log PyTorch writes with TORCH_TRACE=DIR (plain, .gz,\n"
    "or DIR itself: rank 0's log, or rank N's with --rank N) and put the cursor\n"
    "at its first event. Each compile id ([0/1]) gets its own ShapeEnv, named\n"
    "in the stop header as the tracer; symbols, guards, runtime asserts and\n"
    "specializations become events, so `step`, `break guard`, `print`, `why`,\n"
    "`assume` and `explain` work on what the PyTorch run did. Bad records are\n"
    "skipped and listed by `info records`.\n"
    "\nExample:\n"
    "  (shapedb) replay /tmp/trace/dedicated_log_torch_trace_rank_0_abc.log\n",
    cmd_replay, REPL_COMPLETE_FILE, NULL, 1, 3, false },
};

static const repl_cmd import_info_cmds[] = {
  { "compiles", NULL, "data", "info compiles",
    "the compiles of an imported TORCH_TRACE log",
    "One entry per compile id of the log opened by `replay`: the function,\n"
    "its status (ok, failed with the reason, running when the log has no\n"
    "compilation_metrics for it), the recompile reason, and what it holds.\n"
    "\nExample:\n"
    "  (shapedb) info compiles\n",
    info_compiles, REPL_COMPLETE_NONE, NULL, 0, 0, false },
  { "records", NULL, "data", "info records",
    "record kinds of an imported log, and what was skipped",
    "Counts per record kind (kinds shapedb does not model are kept and\n"
    "counted), then every problem met while reading, as file:line: a bad\n"
    "header line, bad JSON, a payload whose MD5 does not match, an empty line\n"
    "inside a payload, a timestamp going back, a truncated file.\n"
    "\nExample:\n"
    "  (shapedb) info records\n",
    info_records, REPL_COMPLETE_NONE, NULL, 0, 0, false },
  { "recompiles", NULL, "data", "info recompiles",
    "why each frame was compiled again, and the guard diff",
    "For each compile of a frame compiled before ([0/1] after [0/0]): the\n"
    "recompile reason from the log, and the installed guards (dynamo_cpp_\n"
    "guards_str, else dynamo_guards) removed (-) and added (+) against the\n"
    "previous compile of the same frame, sorted.\n"
    "\nExample:\n"
    "  (shapedb) info recompiles\n",
    info_recompiles, REPL_COMPLETE_NONE, NULL, 0, 0, false },
};

void dbg_import_init(void) {
  repl_cmd_register(import_cmds, sizeof import_cmds / sizeof import_cmds[0]);
  repl_cmd_register_sub("info", import_info_cmds,
                        sizeof import_info_cmds / sizeof import_info_cmds[0]);
}

void dbg_import_free(dbg *d) {
  sdb_tti_free(d->import);
  d->import = NULL;
}
