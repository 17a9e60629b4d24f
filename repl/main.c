/*
** main.c — command-line entry of bin/shapedb. One rule, no guessing from
** the terminal:
**
**   shapedb FILE.lua [args]        run the program, print its report, exit
**   shapedb -i|--debug FILE.lua    REPL with FILE loaded, not run
**   shapedb                        REPL with nothing loaded
**   shapedb --batch -x CMD... [FILE.lua]   run the commands and exit
**   shapedb -x CMD... [FILE.lua]   run the commands, then the REPL
**   shapedb -e CHUNK [-e ...]      Lua chunks (before anything; alone, exit)
**   shapedb --replay LOG [--rank N]  the debugger on a TORCH_TRACE log
**                                    or a trace saved by shapedb
**   --record FILE                    save the run's events to FILE at the end
**
** Whether stdin is a terminal decides only how the REPL reads (readline
** or getline), never what runs.
**
** Exit status: 0 on success, 1 when a chunk, the script or a --batch
** command fails, 2 on bad usage; `quit N` exits with N.
*/
#include "cancel.h"
#include "debug.h"
#include "host.h"
#include "runlimit.h"
#include "pager.h"
#include "lineio.h"
#include "render_dot.h"
#include "render_html.h"
#include "repl.h"
#include "lsdb.h"
#include "trace_io.h"

#include <lauxlib.h>
#include <errno.h>
#ifdef __GLIBC__
#include <malloc.h>   /* mallopt */
#endif
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void usage(FILE *f) {
  fprintf(f,
    "usage: shapedb [options] [FILE.lua [args...]]\n"
    "  FILE.lua [args]  run the Lua program FILE and exit, as `lua FILE` does\n"
    "  -i, --debug      open the REPL with FILE loaded (not run); without\n"
    "                   FILE, open it with nothing loaded (also the default)\n"
    "  -x CMD           run the REPL command CMD (repeatable, in order), then\n"
    "                   open the REPL with FILE loaded as with -i\n"
    "  --batch          run the -x commands and exit instead: status 0 if\n"
    "                   they all succeeded, 1 otherwise; stdin is not read\n"
    "  -e CHUNK         run the Lua chunk CHUNK first (repeatable); with no\n"
    "                   FILE, -i, -x or --batch, exit afterwards\n"
    "  -q, --quiet      after FILE, print only the end result (graphs, bindings,\n"
    "                   guards), not the event log\n"
    "  --no-report      after FILE, print nothing of shapedb's own\n"
    "  --dot FILE       at the end, write the graphs of every compile as\n"
    "                   Graphviz DOT to FILE (render with dot -Tsvg)\n"
    "  --html DIR       at the end, write a static HTML report of the run\n"
    "                   into DIR (DIR/index.html)\n"
    "  --retrace LOG [ID] [KIND]  open LOG as --replay does and re-run\n"
    "                   compile ID's graph of KIND (dynamo_output_graph,\n"
    "                   aot_forward_graph, ...) in the model (`retrace ID\n"
    "                   KIND`; the first compile with one when ID is left out)\n"
    "  --replay LOG     open a PyTorch TORCH_TRACE log (plain, .gz, or a\n"
    "                   directory of per-rank logs) in the debugger\n"
    "  --rank N         with --replay DIR: rank N's log (default 0)\n"
    "  --record FILE    at the end, save the run's events as a trace to FILE\n"
    "                   (`shapedb --replay FILE` steps through it later)\n"
    "  --max-steps N    stop any run of Lua code after N instructions with an\n"
    "                   error (as `set step-limit N`)\n"
    "  --max-events N   stop a program once the session has recorded N events\n"
    "                   (as `set max-events N`; 0: no limit)\n"
    "  --version        print the version and exit\n"
    "  --help           print this help and exit\n"
    "Lua runs with the `shapedb` module loaded as a global. The REPL uses\n"
    "readline when stdin is a terminal; otherwise it reads one line at a\n"
    "time from stdin and prints no prompt. Type `help` in it for commands.\n");
}

/* What `shapedb FILE.lua` prints after the program: the event log and, per
** compiled function, its graph, bindings and guards (REPORT_FULL); only the
** end result (REPORT_QUIET, --quiet); nothing (REPORT_NONE, --no-report). */
enum { REPORT_NONE, REPORT_QUIET, REPORT_FULL };

/* false when the report could not be printed whole (out of memory): the
** run then fails, as a report with a piece missing is not the run's */
static bool print_report(lua_State *L, int report) {
  if (report == REPORT_NONE) return true;
  repl_lib_field(L, "shapedb", "_traces");
  size_t ntraces = lua_istable(L, -1) ? lua_rawlen(L, -1) : 0;
  lua_pop(L, 1);
  if (ntraces == 0) return true;   /* nothing was compiled */
  fflush(stdout);
  repl_lib_field(L, "shapedb", "report");
  repl_lib_field(L, "io", "stdout");
  lua_pushboolean(L, report == REPORT_QUIET);
  int rc = repl_host_pcall(L, 2, 0);
  repl_host_report(L, rc);
  fflush(stdout);
  return rc == LUA_OK;
}

/* --dot FILE: the graphs of every compile of the run, drawn from the
** events (the same picture as `dump dot FILE all` at the last event). */
/* --html DIR: the HTML report of the whole run (`report html DIR`). */
static const char *dot_path, *html_dir, *record_path;

static int write_pictures(lua_State *L, const char *title, const sdb_tti *imp) {
  if (!dot_path && !html_dir) return 0;
  sdb_timeline *t = sdb_timeline_new(lsdb_events(L));
  const char *why = "out of memory";
  int rc = 0;
  if (dot_path && (!t || repl_dot_save(t, sdb_timeline_length(t), true, dot_path, &why) != 0)) {
    fprintf(stderr, "shapedb: --dot %s: %s\n", dot_path, why);
    rc = -1;
  }
  if (html_dir) {
    int n = t ? repl_html_write(html_dir, t, sdb_timeline_length(t), title, imp, &why) : -1;
    if (n < 0) {
      fprintf(stderr, "shapedb: --html %s: %s\n", html_dir, why);
      rc = -1;
    } else {   /* on stderr: stdout is the program's and the report's */
      fprintf(stderr, "shapedb: wrote %s/index.html and %d compile page%s\n", html_dir, n,
              n == 1 ? "" : "s");
    }
  }
  sdb_timeline_free(t);
  return rc;
}

/* The non-interactive path, `shapedb FILE.lua [args]`: run the program as
** `lua FILE` would, then print the report. A failure (a trace error, say)
** is printed after the report, with its Lua location, and exits 1. */
static int run_script(lua_State *L, char **argv, int argc, int report) {
  lua_createtable(L, argc, 1);
  for (int i = 0; i < argc; i++) {
    lua_pushstring(L, argv[i]);
    lua_rawseti(L, -2, i);
  }
  lua_setglobal(L, "arg");
  int status = repl_host_loadfile(L, argv[0]);
  if (status == LUA_OK) {
    for (int i = 1; i < argc; i++) lua_pushstring(L, argv[i]);
    status = repl_host_pcall(L, argc - 1, 0);
  }
  bool reported = print_report(L, report);
  repl_host_report(L, status);
  if (record_path && dbg_save_stream(lsdb_events(L), argv[0], argv + 1, argc - 1,
                                     status != LUA_OK, record_path) != 0)
    return 1;
  if (write_pictures(L, argv[0], NULL) != 0) return 1;
  return status == LUA_OK && reported ? 0 : 1;
}

/* out of memory before the session: said, status 1 */
static int oom_status(void) {
  fputs("shapedb: out of memory\n", stderr);
  return 1;
}

/* Modules that add commands and hooks to the session register here, after
** the built-ins (so they may replace them). */
static void init_modules(repl_session *s) {
  repl_builtin_init();
  repl_limits_init();
  repl_pager_init();
  dbg_init(s);
}

static int run_session(lua_State *L, bool batch, char **xs, int nx, char **argv,
                       int argc) {
  repl_session *s = repl_session_new(L, !batch && isatty(STDIN_FILENO));
  if (!s) {
    fprintf(stderr, "shapedb: out of memory\n");
    repl_host_free(L);
    return 1;
  }
  s->batch = batch;
  init_modules(s);
  repl_lineio_init(s);
  if (s->tty)
    printf("shapedb %s: type 'help' for commands, Ctrl-D to quit.\n", REPL_VERSION);
  if (argc > 0) {
    if (repl_load(s, argv[0], !s->tty) == 0) {
      s->prog_argv = argv + 1;
      s->prog_argc = argc - 1;
    } else {
      s->failures++;
    }
  }
  if (nx > 0) repl_exec_list(s, xs, nx);
  if (!batch && !s->quit) repl_loop(s);
  repl_lineio_finish(s);
  /* A line of input that could not be read (too long, NUL, read error)
  ** fails even an interactive session fed from a pipe. */
  int status = s->status_set ? s->status
             : (batch && s->failures > 0) || s->input_failed ? 1 : 0;
  {
    /* a replayed TORCH_TRACE log is reported with what only the log has */
    const sdb_tti *imp = dbg_of(s)->import;
    const char *title = imp ? sdb_tt_path(sdb_tti_reader(imp)) : dbg_program(dbg_of(s));
    if (write_pictures(s->L, title, imp) != 0 && status == 0) status = 1;
  }
  if (record_path && dbg_save(dbg_of(s), record_path, true) != 0) status = 1;
  dbg_free(s);
  repl_session_free(s);
  repl_cmd_unregister_all();
  return status;
}

static int bad_usage(const char *fmt, const char *arg) {
  fprintf(stderr, "shapedb: ");
  fprintf(stderr, fmt, arg);
  fputc('\n', stderr);
  usage(stderr);
  return 2;
}

/* Output that could not be written is lost data: a full disk or a broken
** pipe behind stdout ends the process with a message and status 1, not 0.
** Registered first, so it runs after every other exit handler, and
** os.exit in a program goes through it too. */
static void close_stdout(void) {
  bool bad = ferror(stdout) != 0;
  errno = 0;
  if (fclose(stdout) != 0) bad = true;
  if (!bad) return;
  /* errno is the fclose's, when the last buffer was what failed */
  fprintf(stderr, "shapedb: cannot write to standard output: %s; the output is incomplete\n",
          errno ? strerror(errno) : "write error");
  fflush(stderr);
  _exit(1);
}

int main(int argc, char **argv) {
#ifdef M_MMAP_THRESHOLD
  /* Blocks of 60 KiB and up get pages of their own: arena chunks and the
  ** arrays that grow by doubling. glibc's default threshold rises to the
  ** size of each mapped block freed, which put them in the heap among a
  ** long trace's nodes and tensors; freed, they left holes there that
  ** smaller blocks never filled (an eighth of the heap at the end of an
  ** inductor compile of 100k ops). Setting it also stops the rise. */
  mallopt(M_MMAP_THRESHOLD, 60 * 1024);
#endif
  atexit(close_stdout);
  sdb_cancel_watch(&repl_host_interrupted);   /* Ctrl-C stops long reads in core */
  char **chunks = calloc((size_t)argc + 1, sizeof *chunks);
  char **xs = calloc((size_t)argc + 1, sizeof *xs);
  int nchunks = 0, nx = 0, script = 0, status = 0;
  bool debug = false, batch = false;
  const char *replay_path = NULL, *replay_rank = NULL;
  bool retrace = false;
  const char *retrace_id = NULL, *retrace_kind = NULL;
  char *retrace_cmd = NULL;
  char *replay_cmd = NULL;
  int report = REPORT_FULL;
  if (!chunks || !xs) {
    fprintf(stderr, "shapedb: out of memory\n");
    return 1;
  }
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      usage(stdout);
      goto done;
    }
    if (!strcmp(a, "--version")) {
      printf("shapedb %s (%s)\n", REPL_VERSION, LUA_RELEASE);
      goto done;
    }
    if (!strcmp(a, "-e") || !strcmp(a, "-x")) {
      if (i + 1 >= argc) {
        status = bad_usage("'%s' needs an argument", a);
        goto done;
      }
      if (a[1] == 'e') chunks[nchunks++] = argv[++i];
      else xs[nx++] = argv[++i];
      continue;
    }
    if (!strcmp(a, "--retrace")) {
      /* --retrace LOG [ID]: `replay LOG` then `retrace [ID]`; an ID is a
      ** compile id as PyTorch writes it (0/0, [1/0], !0/0/1, -/-) */
      if (i + 1 >= argc) {
        status = bad_usage("'%s' needs a TORCH_TRACE log", a);
        goto done;
      }
      replay_path = argv[++i];
      retrace = true;
      /* then up to two words that are not options or a Lua file: the id
      ** (it looks like one) and the graph kind, both checked by `retrace`
      ** (a misspelt kind is its error, not a program to load) */
      while (i + 1 < argc && !retrace_kind) {
        const char *w = argv[i + 1];
        size_t len = strlen(w);
        bool id = strchr(w, '/') && strspn(w, "[]!-/0123456789_") == len;
        if (!id && (w[0] == '-' || (len > 4 && !strcmp(w + len - 4, ".lua")))) break;
        if (id && !retrace_id) retrace_id = w;
        else retrace_kind = w;
        i++;
      }
      continue;
    }
    if (!strcmp(a, "--replay") || !strcmp(a, "--rank")) {
      /* --replay LOG [--rank N]: the REPL's `replay` command, run first */
      if (i + 1 >= argc) {
        status = bad_usage("'%s' needs an argument", a);
        goto done;
      }
      if (a[2] == 'r' && a[3] == 'e') replay_path = argv[++i];
      else replay_rank = argv[++i];
      continue;
    }
    if (!strcmp(a, "-i") || !strcmp(a, "--debug")) { debug = true; continue; }
    if (!strcmp(a, "--batch")) { batch = true; continue; }
    if (!strcmp(a, "--quiet") || !strcmp(a, "-q")) { report = REPORT_QUIET; continue; }
    if (!strcmp(a, "--no-report")) { report = REPORT_NONE; continue; }
    if (!strcmp(a, "--record")) {
      if (i + 1 >= argc) {
        status = bad_usage("'%s' needs an argument", a);
        goto done;
      }
      record_path = argv[++i];
      continue;
    }
    if (!strcmp(a, "--dot") || !strcmp(a, "--html")) {
      if (i + 1 >= argc) {
        status = bad_usage("'%s' needs an argument", a);
        goto done;
      }
      if (a[2] == 'd') dot_path = argv[++i];
      else html_dir = argv[++i];
      continue;
    }
    if (!strcmp(a, "--max-events")) {
      char *end;
      long long n = i + 1 < argc ? strtoll(argv[i + 1], &end, 10) : 0;
      if (i + 1 >= argc || *end || end == argv[i + 1] || n < 0) {
        status = bad_usage("'%s' needs a number of events (0: no limit)", a);
        goto done;
      }
      repl_limits_set_events((size_t)n);
      i++;
      continue;
    }
    if (!strcmp(a, "--max-steps")) {
      char *end;
      long long n = i + 1 < argc ? strtoll(argv[i + 1], &end, 10) : 0;
      if (i + 1 >= argc || *end || end == argv[i + 1] || n <= 0) {
        status = bad_usage("'%s' needs a positive number of steps", a);
        goto done;
      }
      repl_limit.steps = n;
      i++;
      continue;
    }
    if (!strcmp(a, "--")) { if (i + 1 < argc) script = i + 1; break; }
    if (a[0] == '-' && a[1]) {
      status = bad_usage("unknown option '%s'", a);
      goto done;
    }
    script = i;
    /* what follows FILE is the program's (as after `lua FILE`); say so when
    ** it looks like one of ours, which would otherwise be ignored */
    for (int k = i + 1; k < argc; k++) {
      static const char *const ours[] = {"--record", "--html", "--dot", "--batch", "--replay",
                                         "--retrace", "--no-report", "--quiet", "-q", "-i",
                                         "--debug", "-x", "--max-steps", "--max-events", NULL};
      for (const char *const *o = ours; *o; o++)
        if (!strcmp(argv[k], *o)) {
          fprintf(stderr, "shapedb: note: '%s' after %s is an argument of the program; "
                          "shapedb's options go before the file\n", argv[k], argv[i]);
          k = argc;
          break;
        }
    }
    break;
  }
  if (replay_rank && !replay_path) {
    status = bad_usage("'%s' goes with --replay LOG", "--rank");
    goto done;
  }
  if (replay_path) {
    /* `replay LOG --rank N` before the -x commands */
    size_t n = strlen(replay_path) + (replay_rank ? strlen(replay_rank) : 0) + 32;
    replay_cmd = malloc(n);
    if (!replay_cmd) { status = oom_status(); goto done; }
    snprintf(replay_cmd, n, "replay \"%s\"%s%s", replay_path, replay_rank ? " --rank " : "",
             replay_rank ? replay_rank : "");
    memmove(xs + 1, xs, (size_t)nx * sizeof *xs);
    xs[0] = replay_cmd;
    nx++;
    if (retrace) {
      size_t m = (retrace_id ? strlen(retrace_id) : 0) +
                 (retrace_kind ? strlen(retrace_kind) : 0) + 16;
      retrace_cmd = malloc(m);
      if (!retrace_cmd) { status = oom_status(); goto done; }
      snprintf(retrace_cmd, m, "retrace%s%s%s%s", retrace_id ? " " : "", retrace_id ? retrace_id : "",
               retrace_kind ? " " : "", retrace_kind ? retrace_kind : "");
      memmove(xs + 2, xs + 1, (size_t)(nx - 1) * sizeof *xs);
      xs[1] = retrace_cmd;
      nx++;
    }
  }
  {
    /* tests: make saves fail after N bytes (a full disk, on any disk) */
    const char *fail = getenv("SHAPEDB_TEST_WRITE_FAIL_AFTER");
    if (fail) sdb_trace_fail_after(atol(fail));
  }
  bool repl = debug || batch || nx > 0 || (!script && nchunks == 0);
  lua_State *L = repl_host_new();
  if (!L) {
    fprintf(stderr, "shapedb: cannot create Lua state: out of memory\n");
    status = 1;
    goto done;
  }
  for (int i = 0; i < nchunks; i++)
    if (repl_host_dostring(L, chunks[i], "=(command line)") != LUA_OK) {
      repl_host_free(L);
      status = 1;
      goto done;
    }
  if (repl) {
    status = run_session(L, batch, xs, nx, script ? argv + script : NULL,
                         script ? argc - script : 0);
  } else {
    if (script) status = run_script(L, argv + script, argc - script, report);
    repl_host_free(L);
  }
done:
  free(replay_cmd);
  free(retrace_cmd);
  free(chunks);
  free(xs);
  return status;
}
