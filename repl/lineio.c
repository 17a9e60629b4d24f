/*
** lineio.c — input at the prompt (see lineio.h): readline on a terminal,
** getline on a pipe, the history file, Ctrl-C at the prompt, and the
** completion candidates that both Tab and the `complete` command use.
**
** readline 8.2 echoes the prompt and the input to stdout when stdin is not
** a terminal, which would corrupt piped transcripts, so it is not used at
** all there (STYLE.md).
*/
#include "lineio.h"
#include "event.h"
#include "ops.h"
#include "host.h"

#include <ctype.h>
#include <errno.h>
#include <lauxlib.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <readline/history.h>
#include <readline/readline.h>

#define HISTORY_MAX 1000

/* readline's callbacks carry no user pointer: the one session. */
static repl_session *sess;
static char *history_file;
static bool catching;
static struct sigaction outer_sigint;
static volatile sig_atomic_t prompt_sigint;
/* Set by the signal-event hook when Ctrl-C abandoned a continuation. */
static bool reading_continuation, continuation_cancelled;

/* ------------------------------------------------------------------------
** History
** ---------------------------------------------------------------------- */

static char *join(const char *a, const char *b) {
  size_t la = strlen(a), lb = strlen(b);
  char *r = malloc(la + lb + 1);
  if (!r) return NULL;
  memcpy(r, a, la);
  memcpy(r + la, b, lb + 1);
  return r;
}

/* mkdir -p, ignoring failures: a missing directory only means no history. */
static void make_dirs(char *path) {
  for (char *p = path + 1; *p; p++) {
    if (*p != '/') continue;
    *p = '\0';
    mkdir(path, 0700);
    *p = '/';
  }
  mkdir(path, 0700);
}

char *repl_history_path(void) {
  /* The XDG spec: a relative path in these variables is invalid and
  ** must be ignored. */
  const char *xdg = getenv("XDG_STATE_HOME");
  if (xdg && *xdg == '/') {
    char *dir = join(xdg, "/shapedb");
    if (!dir) return NULL;
    make_dirs(dir);
    char *path = join(dir, "/history");
    free(dir);
    return path;
  }
  const char *home = getenv("HOME");
  if (!home || !*home) return NULL;
  return join(home, "/.shapedb_history");
}

/* Entries read from the file at start; the ones after are this session's. */
static int history_loaded;

/* Append this session's lines to the file in one write(2) with O_APPEND,
** so sessions that end at the same time interleave whole lines and never
** overwrite each other (write_history rewrites the file: the last session
** to exit would win). The file is cut back to HISTORY_MAX lines only when
** it has grown to twice that. */
static int save_history(void) {
  if (!history_file || !sess->history) return 0;
  HIST_ENTRY **h = history_list();
  size_t len = 0;
  for (int i = history_loaded; h && i < history_length; i++)
    if (h[i]) len += strlen(h[i]->line) + 1;
  if (len == 0) return 0;
  char *buf = malloc(len), *p = buf;
  if (!buf) return ENOMEM;
  for (int i = history_loaded; i < history_length; i++) {
    if (!h[i]) continue;
    size_t n = strlen(h[i]->line);
    memcpy(p, h[i]->line, n);
    p[n] = '\n';
    p += n + 1;
  }
  int err = 0;
  int fd = open(history_file, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  if (fd < 0) {
    err = errno;
  } else {
    ssize_t w = write(fd, buf, len);
    if (w < 0) err = errno;
    else if ((size_t)w != len) err = EIO;
    if (close(fd) < 0 && !err) err = errno;
  }
  free(buf);
  if (err) return err;
  history_loaded = history_length;
  FILE *f = fopen(history_file, "r");
  int lines = 0, c;
  if (f) {
    while ((c = getc(f)) != EOF)
      if (c == '\n') lines++;
    fclose(f);
  }
  if (lines > 2 * HISTORY_MAX) history_truncate_file(history_file, HISTORY_MAX);
  return 0;
}

static void remember(const char *line) {
  if (!sess->history) return;
  const char *p = line;
  while (*p == ' ' || *p == '\t') p++;
  if (!*p) return;
  HIST_ENTRY **h = history_list();
  if (h && history_length > 0 && h[history_length - 1] &&
      !strcmp(h[history_length - 1]->line, line))
    return;
  add_history(line);
}

/* ------------------------------------------------------------------------
** Ctrl-C at the prompt: the handler only raises a flag; readline's read()
** then fails with EINTR (no SA_RESTART) and calls rl_signal_event_hook,
** where it is safe to redraw.
** ---------------------------------------------------------------------- */

/* Also raises repl_host_interrupted, so C code running a command outside
** any pcall (a debugger's stepping loop) can see the Ctrl-C. */
static void on_prompt_sigint(int sig) {
  (void)sig;
  prompt_sigint = 1;
  repl_host_interrupted = 1;
}

/* SIGTERM and SIGHUP (the terminal went away) on a terminal session: the
** handler only records the signal and stops any Lua code running; at the
** prompt readline's read() fails with EINTR and the event hook below ends
** the session: terminal modes back, history saved, then the signal again
** with its default action. A second one kills at once. */
static volatile sig_atomic_t term_sig;
static struct sigaction outer_term, outer_hup;

static void on_term(int sig) {
  term_sig = sig;
  signal(sig, SIG_DFL);
  repl_host_interrupted = 1;
  repl_host_stop_lua();
}

static void die_of_signal(void) {
  int sig = term_sig;
  signal(sig, SIG_DFL);
  raise(sig);
}

bool repl_lineio_terminated(void) { return term_sig != 0; }

static int on_signal_event(void) {
  if (term_sig) {
    rl_free_line_state();
    rl_cleanup_after_signal();
    save_history();
    die_of_signal();
  }
  if (!prompt_sigint) return 0;
  prompt_sigint = 0;
  rl_echo_signal_char(SIGINT);
  rl_free_line_state();
  rl_replace_line("", 0);
  rl_crlf();
  if (reading_continuation) {
    /* Drop the unfinished Lua statement too, as lua.c's prompt does. */
    reading_continuation = false;
    continuation_cancelled = true;
    rl_set_prompt(sess->prompt);
  }
  rl_on_new_line();
  rl_redisplay();
  return 0;
}

/* A Ctrl-C that lands while readline is not blocked in read() (drawing
** the prompt, between two keys on a busy machine) raises the flag without
** any EINTR, so the hook above would only run at some later signal: the
** keys typed after the Ctrl-C would join the line it cleared. Readline
** reads a key at a time through here, so a raised flag is acted on before
** the next key. */
static int getc_after_signals(FILE *f) {
  if (prompt_sigint || term_sig) on_signal_event();
  return rl_getc(f);
}

/* ------------------------------------------------------------------------
** Completion
** ---------------------------------------------------------------------- */

static const char *const breakpoint_kinds[] = {
  "unbacked", "guard", "phase", "op", "symbol", "error", "event", NULL,
};

static void add_match(repl_strv *out, const char *cand, const char *text) {
  if (!strncmp(cand, text, strlen(text))) repl_strv_add(out, cand);
}

static void add_commands(repl_strv *out, const char *parent, const char *text) {
  size_t n;
  const repl_cmd *const *v = repl_cmd_list(parent, &n);
  for (size_t i = 0; i < n; i++) add_match(out, v[i]->name, text);
}

static void add_files(repl_strv *out, const char *text, bool *files) {
  char *f;
  for (int state = 0; (f = rl_filename_completion_function(text, state)); state++) {
    repl_strv_add(out, f);
    free(f);
  }
  *files = true;
}

static void add_symbols(repl_strv *out, const char *text) {
  repl_strv tmp = { 0 };
  if (sess->hooks.complete_symbols) sess->hooks.complete_symbols(sess, text, &tmp);
  for (size_t i = 0; i < tmp.n; i++) add_match(out, tmp.v[i], text);
  repl_strv_free(&tmp);
}

static bool is_ident(const char *p, size_t n) {
  if (n == 0 || isdigit((unsigned char)p[0])) return false;
  for (size_t i = 0; i < n; i++)
    if (!(p[i] == '_' || isalnum((unsigned char)p[i]))) return false;
  return true;
}

/* Keys of the table at idx that are identifiers starting with prefix, as
** head..key, appended to the result table at 2. Raw access only: no
** metamethod (user code) runs while the user is pressing Tab. */
static void collect_keys(lua_State *L, int idx, const char *head, size_t nhead,
                         const char *prefix) {
  idx = lua_absindex(L, idx);
  size_t lp = strlen(prefix);
  lua_pushnil(L);
  while (lua_next(L, idx)) {
    lua_pop(L, 1);
    if (lua_type(L, -1) != LUA_TSTRING) continue;
    size_t lk;
    const char *k = lua_tolstring(L, -1, &lk);
    if (!is_ident(k, lk) || strncmp(k, prefix, lp)) continue;
    lua_pushlstring(L, head, nhead);
    lua_pushvalue(L, -2);
    lua_concat(L, 2);
    lua_rawseti(L, 2, (lua_Integer)lua_rawlen(L, 2) + 1);
  }
}

/* Protected: fills a table with the Lua names completing text ("str",
** "string.fo", "e:su"). The path before the last '.' or ':' is walked from
** _G through tables, and through the __index table of a value's
** metatable (so methods of strings and userdata complete). */
static int lua_candidates(lua_State *L) {
  const char *text = lua_touserdata(L, 1);
  lua_newtable(L);
  const char *sep = NULL;
  for (const char *p = text; *p; p++)
    if (*p == '.' || *p == ':') sep = p;
  lua_pushglobaltable(L);
  bool found = true;
  for (const char *p = text; sep && p < sep;) {
    size_t l = strcspn(p, ".:");
    lua_pushlstring(L, p, l);
    if (lua_type(L, -2) == LUA_TTABLE) {
      lua_rawget(L, -2);
    } else if (lua_getmetatable(L, -2)) {
      lua_pushliteral(L, "__index");
      lua_rawget(L, -2);
      if (lua_type(L, -1) != LUA_TTABLE) { found = false; break; }
      lua_pushvalue(L, -3);
      lua_rawget(L, -2);
    } else {
      found = false;
      break;
    }
    lua_replace(L, 3);
    lua_settop(L, 3);
    p += l + 1;
  }
  if (!found) {
    lua_settop(L, 2);
    return 1;
  }
  const char *prefix = sep ? sep + 1 : text;
  size_t nhead = (size_t)(prefix - text);
  if (lua_type(L, 3) == LUA_TTABLE) collect_keys(L, 3, text, nhead, prefix);
  if (sep && lua_getmetatable(L, 3)) {
    lua_pushliteral(L, "__index");
    lua_rawget(L, -2);
    if (lua_type(L, -1) == LUA_TTABLE) collect_keys(L, -1, text, nhead, prefix);
  }
  lua_settop(L, 2);
  return 1;
}

static void add_lua(repl_strv *out, const char *text) {
  lua_State *L = sess->L;
  int top = lua_gettop(L);
  /* A light userdata, not a string: nothing that could fail outside the
  ** pcall. */
  lua_pushcfunction(L, lua_candidates);
  lua_pushlightuserdata(L, (void *)text);
  if (lua_pcall(L, 1, 1, 0) == LUA_OK && lua_type(L, -1) == LUA_TTABLE) {
    lua_Integer n = (lua_Integer)lua_rawlen(L, -1);
    for (lua_Integer i = 1; i <= n; i++) {
      lua_rawgeti(L, -1, i);
      const char *c = lua_tostring(L, -1);
      if (c) add_match(out, c, text);
      lua_pop(L, 1);
    }
  }
  lua_settop(L, top);
}

/* Complete the argument after the words args[0..n) of cmd. */
static void complete_args(const repl_cmd *cmd, bool toplevel, char **args, int n,
                          const char *text, repl_strv *out, bool *files) {
  size_t nsub = 0;
  if (toplevel) repl_cmd_list(cmd->name, &nsub);
  if (nsub > 0) {
    if (n == 0) {
      add_commands(out, cmd->name, text);
      if (!cmd->exec) return;
    } else {
      const repl_cmd *sub = repl_cmd_find(cmd->name, args[0], strlen(args[0]), NULL, NULL);
      if (sub) {
        complete_args(sub, false, args + 1, n - 1, text, out, files);
        return;
      }
      if (!cmd->exec) return;
    }
  }
  switch (cmd->complete) {
  case REPL_COMPLETE_NONE:
  case REPL_COMPLETE_SUBCOMMAND:
    break;
  case REPL_COMPLETE_FILE:
    add_files(out, text, files);
    break;
  case REPL_COMPLETE_SYMBOL:
    add_symbols(out, text);
    break;
  case REPL_COMPLETE_BREAKPOINT:
    if (n == 0) {
      for (const char *const *k = breakpoint_kinds; *k; k++) add_match(out, *k, text);
      add_files(out, text, files);
    } else if (n == 1 && !strcmp(args[0], "symbol")) {
      add_symbols(out, text);
    } else if (n == 1 && !strcmp(args[0], "phase")) {
      for (int p = SDB_PHASE_NONE + 1; p < SDB_PHASE_COUNT; p++)
        add_match(out, sdb_phase_name((sdb_phase)p), text);
    } else if (n == 1 && !strcmp(args[0], "op")) {
      for (size_t i = 0; i < sdb_op_count(); i++) add_match(out, sdb_op_at(i)->name, text);
    } else if (n == 1 && !strcmp(args[0], "event")) {
      for (int k = 0; k < SDB_EV_COUNT; k++) add_match(out, sdb_event_name((sdb_event_kind)k), text);
    }
    break;
  case REPL_COMPLETE_COMMAND:
    if (n == 0) {
      add_commands(out, NULL, text);
    } else if (n == 1) {
      const repl_cmd *c = repl_cmd_find(NULL, args[0], strlen(args[0]), NULL, NULL);
      if (c) add_commands(out, c->name, text);
    }
    break;
  case REPL_COMPLETE_WORDS:
    if (n == 0 && cmd->words)
      for (const char *const *w = cmd->words; *w; w++) add_match(out, *w, text);
    break;
  case REPL_COMPLETE_LUA:
    add_lua(out, text);
    break;
  }
}

void repl_complete_line(repl_session *s, const char *line, size_t start,
                        repl_strv *out, bool *files) {
  repl_session *saved = sess;
  sess = s;
  *files = false;
  const char *text = line + start;
  size_t lead = strspn(line, " \t");
  if (lead >= start) {
    /* The first word: a command, or the start of a Lua line. */
    if (!strpbrk(text, ".:")) add_commands(out, NULL, text);
    add_lua(out, text);
  } else {
    const repl_cmd *cmd;
    const char *rest;
    if (repl_classify(s, line, &cmd, &rest) == REPL_LINE_COMMAND &&
        (size_t)(rest - line) <= start) {
      char *before = malloc(start - (size_t)(rest - line) + 1);
      if (before) {
        memcpy(before, rest, start - (size_t)(rest - line));
        before[start - (size_t)(rest - line)] = '\0';
        int n;
        char **args = repl_words_split(before, &n);
        free(before);
        complete_args(cmd, true, args, n, text, out, files);
        repl_words_free(args);
      }
    } else {
      add_lua(out, text);
    }
  }
  sess = saved;
}

static repl_strv candidates;
static size_t next_candidate;

static char *generate(const char *text, int state) {
  if (state == 0) next_candidate = 0;
  size_t lt = strlen(text);
  while (next_candidate < candidates.n) {
    const char *c = candidates.v[next_candidate++];
    if (!strncmp(c, text, lt)) return strdup(c);
  }
  return NULL;
}

static char **attempt_completion(const char *text, int start, int end) {
  (void)text;
  rl_attempted_completion_over = 1;
  char *line = strndup(rl_line_buffer, (size_t)end);
  if (!line) return NULL;
  bool files;
  repl_strv_clear(&candidates);
  repl_complete_line(sess, line, (size_t)start, &candidates, &files);
  free(line);
  if (files) rl_filename_completion_desired = 1;
  return rl_completion_matches(text, generate);
}

/* ------------------------------------------------------------------------
** Reading
** ---------------------------------------------------------------------- */

int repl_getline(FILE *f, char **line, const char **why) {
  static char msg[64];
  size_t n = 0, cap = 0, nul = 0;
  char *buf = NULL;
  int c;
  *line = NULL;
  *why = NULL;
  errno = 0;
  while ((c = getc(f)) != EOF && c != '\n') {
    if (n + 2 > cap) {
      if (cap >= REPL_LINE_MAX) {
        free(buf);
        snprintf(msg, sizeof msg, "line too long (over %d bytes)", REPL_LINE_MAX);
        *why = msg;
        return -1;
      }
      cap = cap ? 2 * cap : 128;
      char *nb = realloc(buf, cap);
      if (!nb) { free(buf); *why = "out of memory"; return -1; }
      buf = nb;
    }
    if (c == 0 && !nul) nul = n + 1;
    buf[n++] = (char)c;
    if (repl_host_interrupted) { free(buf); *why = "interrupted"; return -1; }
  }
  if (c == EOF && ferror(f)) {
    free(buf);
    *why = errno == EINTR ? "interrupted" : strerror(errno ? errno : EIO);
    return -1;
  }
  if (c == EOF && n == 0) { free(buf); return 0; }
  if (nul) {
    free(buf);
    snprintf(msg, sizeof msg, "NUL byte at column %zu", nul);
    *why = msg;
    return -2;
  }
  if (!buf && !(buf = malloc(1))) { *why = "out of memory"; return -1; }
  if (n > 0 && buf[n - 1] == '\r') n--;
  buf[n] = '\0';
  *line = buf;
  return 1;
}

void repl_lineio_init(repl_session *s) {
  sess = s;
  if (!s->tty) return;
  rl_readline_name = "shapedb";
  rl_attempted_completion_function = attempt_completion;
  /* Lua's operators and brackets end a word, so `print(str<Tab>` and
  ** `x = str<Tab>` complete `str`; '-' does not (reverse-step). */
  rl_basic_word_break_characters = " \t\n\"'`@$><=;|&{([,+*/%^#~)}";
  rl_catch_signals = 0;
  rl_signal_event_hook = on_signal_event;
  rl_getc_function = getc_after_signals;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_prompt_sigint;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, &outer_sigint);
  sa.sa_handler = on_term;
  sigaction(SIGTERM, &sa, &outer_term);
  sigaction(SIGHUP, &sa, &outer_hup);
  catching = true;
  using_history();
  history_file = repl_history_path();
  if (history_file) read_history(history_file);
  history_loaded = history_length;
}

char *repl_lineio_read(repl_session *s, bool continuation, bool *cancelled) {
  *cancelled = false;
  if (!s->tty) {
    /* A bad line is reported and skipped; one too long (or a read error)
    ** ends the input, since the rest of it cannot be trusted. */
    for (;;) {
      char *line;
      const char *why;
      int rc = repl_getline(stdin, &line, &why);
      if (rc > 0) { s->stdin_lines++; return line; }
      if (rc == 0) return NULL;
      s->stdin_lines++;
      s->input_failed = true;
      repl_error(s, "stdin:%d: %s", s->stdin_lines, why);
      if (rc == -1) return NULL;
    }
  }
  fflush(stdout);
  prompt_sigint = 0;
  repl_host_clear_interrupt();
  reading_continuation = continuation;
  continuation_cancelled = false;
  char *line = readline(continuation ? REPL_PROMPT2 : s->data_prompt ? s->data_prompt : s->prompt);
  reading_continuation = false;
  *cancelled = continuation_cancelled;
  if (line) remember(line);
  return line;
}

void repl_lineio_finish(repl_session *s) {
  if (!s->tty) return;
  int err = save_history();
  if (err) {
    fflush(stdout);
    fprintf(stderr, "shapedb: cannot write history %s: %s\n", history_file, strerror(err));
  }
  free(history_file);
  history_file = NULL;
  clear_history();
  repl_strv_free(&candidates);
  if (catching) {
    sigaction(SIGINT, &outer_sigint, NULL);
    if (term_sig) die_of_signal();   /* a SIGTERM/SIGHUP during a command */
    sigaction(SIGTERM, &outer_term, NULL);
    sigaction(SIGHUP, &outer_hup, NULL);
  }
  catching = false;
}
