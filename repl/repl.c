/*
** repl.c — the session (see repl.h): telling commands from Lua, running
** Lua lines as lua.c's REPL does (expression first, continuation lines
** for incomplete statements, errors with a traceback that never end the
** loop), the input sources (stdin, -x lists, `source` files), `load` and
** the default `run`.
**
** User code runs only inside lua_pcall. Outside it this file pushes
** strings and reads tables raw (never lua_getglobal, which could run a
** metatable on _G): those calls fail only when memory runs out, which
** panics as in any embedding, so no recoverable error can longjmp past a
** malloc'ed line held here.
*/
#include "repl.h"
#include "host.h"
#include "runlimit.h"
#include "lineio.h"
#include "pager.h"
#include "srcfile.h"
#include "textstore.h"

#include <ctype.h>
#include <errno.h>
#include <lauxlib.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Returned inside this file when Ctrl-C abandoned a continuation. */
#define CANCELLED 1
#define SOURCE_DEPTH_MAX 16

/* ------------------------------------------------------------------------
** Small helpers
** ---------------------------------------------------------------------- */

/* a command printed repl_oom_text() (see repl.h) */
static bool oom_seen;

const char *repl_oom_text(void) {
  oom_seen = true;
  return "?";
}

static char *xstrdup(const char *str) {
  size_t n = strlen(str) + 1;
  char *r = malloc(n);
  if (!r) {
    fputs("shapedb: out of memory\n", stderr);
    exit(EXIT_FAILURE);   /* as gnulib's xalloc_die: said, and no core dump */
  }
  return memcpy(r, str, n);
}

static const char *skip_blanks(const char *p) {
  while (*p == ' ' || *p == '\t') p++;
  return p;
}

void repl_strv_add(repl_strv *sv, const char *str) {
  if (sv->n == sv->cap) {
    size_t cap = sv->cap ? 2 * sv->cap : 16;
    char **v = realloc(sv->v, cap * sizeof *v);
    if (!v) return;
    sv->v = v;
    sv->cap = cap;
  }
  sv->v[sv->n++] = xstrdup(str);
}

void repl_strv_clear(repl_strv *sv) {
  for (size_t i = 0; i < sv->n; i++) free(sv->v[i]);
  sv->n = 0;
}

void repl_strv_free(repl_strv *sv) {
  repl_strv_clear(sv);
  free(sv->v);
  sv->v = NULL;
  sv->cap = 0;
}

bool repl_use_color(const repl_session *s, FILE *f) {
  repl_color_mode m = s ? s->color : REPL_COLOR_AUTO;
  if (m != REPL_COLOR_AUTO) return m == REPL_COLOR_ON;
  const char *nc = getenv("NO_COLOR"), *term = getenv("TERM");
  if (term && !strcmp(term, "dumb")) return false;   /* as gdb: a dumb terminal has no colour */
  return !(nc && *nc) && isatty(fileno(f));
}

void repl_error(repl_session *s, const char *fmt, ...) {
  va_list ap;
  bool color = repl_use_color(s, stderr);
  fflush(stdout);
  if (color) fputs("\033[31m", stderr);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  if (color) fputs("\033[0m", stderr);
  fputc('\n', stderr);
  fflush(stderr);
}

void repl_complete_no_symbols(repl_session *s, const char *prefix, repl_strv *out) {
  (void)s;
  (void)prefix;
  (void)out;
}

/* ------------------------------------------------------------------------
** The session
** ---------------------------------------------------------------------- */

repl_session *repl_session_new(lua_State *L, bool tty) {
  repl_session *s = calloc(1, sizeof *s);
  if (!s) return NULL;
  s->L = L;
  s->tty = tty;
  s->color = REPL_COLOR_AUTO;
  s->history = true;
  s->prompt = xstrdup(REPL_PROMPT);
  return s;
}

void repl_session_free(repl_session *s) {
  if (!s) return;
  repl_host_free(s->L);
  free(s->program);
  free(s->prompt);
  free(s->last_repeat);
  free(s);
}

/* ------------------------------------------------------------------------
** Input sources. Lua statements continue on the next line of the source
** they started in; Ctrl-C at the secondary prompt leaves the line that
** was being typed in pushback, to be read as a fresh first line.
** ---------------------------------------------------------------------- */

typedef enum { IN_STDIN, IN_LIST, IN_FILE } input_kind;

typedef struct input {
  input_kind kind;
  bool repeat;           /* an empty line repeats the last repeatable command */
  char *pushback;
  FILE *f;               /* IN_FILE */
  const char *name;
  int lineno;
  bool failed;           /* IN_FILE: a line could not be read */
  char **list;           /* IN_LIST */
  int n, i;
} input;

/* The source of the line being run, for `lua` and `run` lines that need
** continuation lines. */
static input *current_input;

static char *input_read(repl_session *s, input *in, bool continuation, bool *cancelled) {
  *cancelled = false;
  if (in->pushback) {
    char *line = in->pushback;
    in->pushback = NULL;
    return line;
  }
  switch (in->kind) {
  case IN_STDIN:
    return repl_lineio_read(s, continuation, cancelled);
  case IN_LIST:
    return in->i < in->n ? xstrdup(in->list[in->i++]) : NULL;
  case IN_FILE: {
    /* Any bad line stops a command file: running the lines after one
    ** that was dropped could do the wrong thing. */
    char *line;
    const char *why;
    int rc = repl_getline(in->f, &line, &why);
    if (rc == 0) return NULL;
    in->lineno++;
    if (rc < 0) {
      repl_error(s, "source: %s:%d: %s", in->name, in->lineno, why);
      in->failed = true;
      return NULL;
    }
    return line;
  }
  }
  return NULL;
}

/* ------------------------------------------------------------------------
** Commands or Lua
** ---------------------------------------------------------------------- */

static bool is_keyword(const char *w, size_t n) {
  static const char *const kw[] = {
    "and", "break", "do", "else", "elseif", "end", "false", "for", "function",
    "goto", "if", "in", "local", "nil", "not", "or", "repeat", "return", "then",
    "true", "until", "while", NULL,
  };
  for (const char *const *k = kw; *k; k++)
    if (strlen(*k) == n && !strncmp(*k, w, n)) return true;
  return false;
}

static bool is_ident(const char *w, size_t n) {
  if (n == 0 || isdigit((unsigned char)w[0])) return false;
  for (size_t i = 0; i < n; i++)
    if (!(w[i] == '_' || isalnum((unsigned char)w[i]))) return false;
  return true;
}

/* "reverse-stpe": identifiers joined by single dashes. In Lua it would be
** a subtraction of globals; as a line of its own it is a mistyped command. */
static bool is_dashed_word(const char *w, size_t n) {
  size_t i = 0;
  bool dash = false;
  while (i < n) {
    if (!(isalpha((unsigned char)w[i]) || w[i] == '_')) return false;
    while (i < n && (isalnum((unsigned char)w[i]) || w[i] == '_')) i++;
    if (i < n) {
      if (w[i] != '-') return false;
      dash = true;
      i++;
      if (i == n) return false;
    }
  }
  return dash;
}

/* Raw access: a metatable on _G must not run user code (or raise) here. */
static bool global_has_value(lua_State *L, const char *w, size_t n) {
  lua_pushglobaltable(L);
  lua_pushlstring(L, w, n);
  bool has = lua_rawget(L, -2) != LUA_TNIL;
  lua_pop(L, 2);
  return has;
}

/* repl_classify, plus *unknown_if_bad: the line is Lua only because its
** first word might be a Lua name; if it does not even compile, it was an
** unknown command. */
static repl_line_kind classify(repl_session *s, const char *line, const repl_cmd **cmd,
                               const char **rest, bool *unknown_if_bad) {
  const char *p = skip_blanks(line);
  *cmd = NULL;
  *rest = p;
  *unknown_if_bad = false;
  if (!*p) return REPL_LINE_BLANK;
  if (!(isalpha((unsigned char)*p) || *p == '_')) return REPL_LINE_LUA;
  size_t wl = repl_cmd_word_len(p);
  const char *after = p + wl;
  /* `break` and `goto` begin no Lua statement that can stand alone at the
  ** prompt (no loop to break, no label to go to), so where a command has
  ** that name the line is the command's */
  if (is_keyword(p, wl)) {
    int nm;
    bool ex;
    bool lone = (wl == 5 && !strncmp(p, "break", 5)) || (wl == 4 && !strncmp(p, "goto", 4));
    const repl_cmd *kc = lone ? repl_cmd_find(NULL, p, wl, &nm, &ex) : NULL;
    if (!kc || !ex) return REPL_LINE_LUA;
    *cmd = kc;
    *rest = skip_blanks(after);
    return REPL_LINE_COMMAND;
  }
  if (*after && strchr("(.[:{\"'", *after)) return REPL_LINE_LUA;
  const char *q = skip_blanks(after);
  if ((q[0] == '=' && q[1] != '=') || q[0] == ',') return REPL_LINE_LUA;
  bool ident = is_ident(p, wl);
  bool has_value = ident && global_has_value(s->L, p, wl);
  /* `print "hi"`, `f {1}`: Lua's call with one string or table argument */
  if (has_value && (*q == '"' || *q == '\'' || *q == '{')) return REPL_LINE_LUA;
  int nmatch;
  bool exact;
  const repl_cmd *c = repl_cmd_find(NULL, p, wl, &nmatch, &exact);
  if (c && (exact || !has_value)) {
    *cmd = c;
    *rest = q;
    return REPL_LINE_COMMAND;
  }
  if (has_value) return REPL_LINE_LUA;
  if (nmatch > 1) return REPL_LINE_AMBIGUOUS;
  if (!ident) {
    size_t head = strcspn(p, "-");
    if (is_dashed_word(p, wl) && !global_has_value(s->L, p, head))
      return REPL_LINE_UNKNOWN;
    return REPL_LINE_LUA;
  }
  if (!*q) return REPL_LINE_UNKNOWN;
  *unknown_if_bad = true;
  return REPL_LINE_LUA;
}

repl_line_kind repl_classify(repl_session *s, const char *line, const repl_cmd **cmd,
                             const char **rest) {
  bool unused;
  return classify(s, line, cmd, rest, &unused);
}

static void unknown_command(repl_session *s, const char *word) {
  size_t wl = repl_cmd_word_len(word);
  const char *sug = repl_cmd_suggest(NULL, word, wl);
  if (sug)
    repl_error(s, "unknown command: %.*s. Did you mean '%s'?", (int)wl, word, sug);
  else
    repl_error(s, "unknown command: %.*s. Type 'help' for a list of commands.",
               (int)wl, word);
}

static void ambiguous_command(repl_session *s, const char *word) {
  size_t wl = repl_cmd_word_len(word);
  char *c = repl_cmd_candidates(NULL, word, wl);
  repl_error(s, "ambiguous command: %.*s, could be: %s", (int)wl, word, c);
  free(c);
}

/* ------------------------------------------------------------------------
** Lua lines, as in lua.c
** ---------------------------------------------------------------------- */

/* lua.c's test: a syntax error at the end of the input means "more". */
static bool incomplete(lua_State *L) {
  size_t len;
  const char *msg = lua_tolstring(L, -1, &len);
  return msg && len >= 5 && !strcmp(msg + len - 5, "<eof>");
}

static char *append_line(char *chunk, const char *more) {
  size_t a = strlen(chunk), b = strlen(more);
  char *r = realloc(chunk, a + b + 2);
  if (!r) {
    free(chunk);
    return NULL;
  }
  r[a] = '\n';
  memcpy(r + a + 1, more, b + 1);
  return r;
}

/* Print the values above base with the global print, as lua.c does. The
** lookup is raw so that a metatable on _G runs only inside the pcall. */
static int print_results(repl_session *s, int base) {
  lua_State *L = s->L;
  int n = lua_gettop(L) - base;
  if (n <= 0) return 0;
  if (!lua_checkstack(L, LUA_MINSTACK)) {
    repl_error(s, "too many results to print");
    return -1;
  }
  /* tables print their contents, not table: 0x55... */
  for (int i = base + 1; i <= base + n; i++)
    if (lua_type(L, i) == LUA_TTABLE && luaL_getmetafield(L, i, "__tostring") == LUA_TNIL) {
      repl_host_format(L, i, 0);
      lua_replace(L, i);
    } else if (lua_type(L, i) == LUA_TTABLE) {
      lua_pop(L, 1);
    }
  lua_pushglobaltable(L);
  lua_pushliteral(L, "print");
  lua_rawget(L, -2);
  lua_remove(L, -2);
  lua_insert(L, base + 1);
  if (repl_host_pcall(L, n, 0) != LUA_OK) {
    repl_error(s, "error calling 'print' (%s)", lua_tostring(L, -1));
    return -1;
  }
  return 0;
}

/* The error message (with its traceback) on top of the stack. After
** Ctrl-C the terminal has echoed ^C where the cursor was: start a line. */
static void report_lua_error(repl_session *s) {
  const char *msg = repl_limits_message(lua_tostring(s->L, -1));
  if (repl_host_interrupted && s->tty) putchar('\n');
  repl_host_clear_interrupt();
  repl_error(s, "%s", msg ? msg : "(error object is not a string)");
}

static int eval_lua(repl_session *s, const char *code, input *in, bool unknown_if_bad) {
  lua_State *L = s->L;
  int base = lua_gettop(L);
  /* Lua in a sourced file is named by the file and its lines are the
  ** file's (the chunk starts with as many newlines as lines went before),
  ** so an error reads cmds.sdb:6:, not stdin:1: */
  char name[256] = "=stdin";
  size_t skip = 0;
  if (in && in->kind == IN_FILE && in->name && in->lineno > 0) {
    snprintf(name, sizeof name, "=%s", in->name);
    skip = (size_t)in->lineno - 1;
  }
  size_t n = strlen(code);
  char *buf = malloc(skip + n + 9);
  if (!buf) {
    repl_error(s, "not enough memory");
    return -1;
  }
  memset(buf, '\n', skip);
  memcpy(buf + skip, "return ", 7);
  memcpy(buf + skip + 7, code, n);
  memcpy(buf + skip + 7 + n, ";", 2);
  int status = luaL_loadbuffer(L, buf, skip + n + 8, name);
  free(buf);
  int more_lines = 0;
  if (status != LUA_OK) {
    lua_settop(L, base);
    char *chunk = malloc(skip + n + 1);
    if (!chunk) {
      repl_error(s, "not enough memory");
      return -1;
    }
    memset(chunk, '\n', skip);
    memcpy(chunk + skip, code, n + 1);
    for (;;) {
      status = luaL_loadbuffer(L, chunk, strlen(chunk), name);
      if (status != LUA_ERRSYNTAX || !incomplete(L) || !in) break;
      bool cancelled;
      char *more = input_read(s, in, true, &cancelled);
      if (cancelled) {
        in->pushback = more;
        free(chunk);
        lua_settop(L, base);
        return CANCELLED;
      }
      if (!more) break;  /* the "<eof>" error stands */
      lua_settop(L, base);
      more_lines++;
      chunk = append_line(chunk, more);
      free(more);
      if (!chunk) {
        repl_error(s, "not enough memory");
        return -1;
      }
    }
    free(chunk);
  }
  if (status == LUA_OK) {
    status = repl_host_pcall(L, 0, LUA_MULTRET);
    if (status == LUA_OK) {
      int rc = print_results(s, base);
      lua_settop(L, base);
      return rc;
    }
  } else if (status == LUA_ERRSYNTAX && unknown_if_bad && more_lines == 0) {
    lua_settop(L, base);
    unknown_command(s, skip_blanks(code));
    return -1;
  }
  report_lua_error(s);
  lua_settop(L, base);
  return -1;
}

int repl_eval_lua(repl_session *s, const char *code) {
  int rc = eval_lua(s, code, current_input, false);
  return rc == CANCELLED ? 0 : rc;
}

/* ------------------------------------------------------------------------
** Lines
** ---------------------------------------------------------------------- */

static int run_line(repl_session *s, const char *line, input *in, const repl_cmd **ran) {
  const repl_cmd *cmd;
  const char *rest;
  bool unknown_if_bad;
  /* A Ctrl-C belongs to the line it interrupted: each line starts with the
  ** flag down, or a later `replay` in a --batch list would stop at once.
  ** (A sourced file's reader checks it before reading the next line.) */
  repl_host_clear_interrupt();
  switch (classify(s, line, &cmd, &rest, &unknown_if_bad)) {
  case REPL_LINE_BLANK:
    return 0;
  case REPL_LINE_COMMAND: {
    oom_seen = false;
    /* listings page at a terminal; what may run the program does not (its
    ** own output is not ours to hold back) */
    static const char *const unpaged[] = {"source", "lua", "tutorial", "quit", NULL};
    bool page = strcmp(cmd->group, "running") != 0;
    for (int i = 0; page && unpaged[i]; i++) page = strcmp(cmd->name, unpaged[i]) != 0;
    bool paging = page && repl_pager_begin(s);
    unsigned long lost = sdb_tstore_losses();   /* lines with no memory to read them, as "?" */
    int rc = repl_cmd_exec(s, cmd, rest, ran);
    if (paging) repl_pager_end();
    if (rc == 0 && sdb_tstore_losses() != lost) oom_seen = true;   /* else it said why */
    if (oom_seen) {   /* a "?" above stands for a text there was no memory for */
      oom_seen = false;
      repl_error(s, "%s: out of memory: some of its output is missing (shown as ?)", cmd->name);
      if (rc == 0) rc = -1;
    }
    return rc;
  }
  case REPL_LINE_AMBIGUOUS:
    ambiguous_command(s, rest);
    return -1;
  case REPL_LINE_UNKNOWN: {
    /* a lone name is Lua, as at the stock prompt: a variable of the paused
    ** frame, else nil, with the command it may have meant */
    /* only typed at a terminal: in -x lists, --batch and sourced files an
    ** unknown word stays an error, so a misspelt command fails the script */
    size_t wl = repl_cmd_word_len(rest);
    if (!is_ident(rest, wl) || *skip_blanks(rest + wl) || !s->tty || !in || in->kind != IN_STDIN) {
      unknown_command(s, rest);
      return -1;
    }
    int fr = s->hooks.frame_lua ? s->hooks.frame_lua(s, rest) : 1;
    if (fr <= 0) return fr;
    const char *sug = repl_cmd_suggest(NULL, rest, wl);
    printf("nil\n");
    if (!sug) return 0;
    /* close to a command: most likely a typo, and a failed line */
    repl_error(s, "%.*s is not a command (as Lua it is nil): did you mean '%s'?", (int)wl, rest, sug);
    return -1;
  }
  case REPL_LINE_LUA:
    if (s->hooks.frame_lua) {
      int fr = s->hooks.frame_lua(s, line);
      if (fr <= 0) return fr;
    }
    break;
  }
  return eval_lua(s, line, in, unknown_if_bad);
}

/* One line from a source: repeat on an empty line (stdin only), run it,
** keep the repeat state, count failures, call the after_line hook. */
static int handle_line(repl_session *s, const char *line, input *in) {
  char *again = NULL;
  size_t len = strnlen(line, REPL_LINE_MAX + 1);
  if (len > REPL_LINE_MAX) {   /* -x, readline: the readers cap their own */
    repl_error(s, "line too long (over %d bytes)", REPL_LINE_MAX);
    s->failures++;
    return -1;
  }
  if (!*skip_blanks(line)) {
    if (!in->repeat || !s->last_repeat) return 0;
    line = again = xstrdup(s->last_repeat);
  }
  /* the user may have edited a file since the last line: listings and
  ** stop lines show what is on disk now, unless a paused program still
  ** runs the old text (then that text stays, and the change is said once) */
  static const char *noted;
  if (s->hooks.sources_frozen && s->hooks.sources_frozen(s)) {
    const char *f = sdb_srcfile_changed_on_disk();
    if (f && f != noted)
      printf("(note: %s changed on disk since this run started: listings show the text the program "
             "is running; `run` starts it again with the new text)\n", f);
    noted = f;
  } else {
    sdb_srcfile_refresh(false);
    noted = NULL;
  }
  if (s->hooks.take_line && s->hooks.take_line(s, line)) {
    free(again);
    return 0;
  }
  input *outer = current_input;
  current_input = in;
  const repl_cmd *ran = NULL;
  int rc = run_line(s, line, in, &ran);
  current_input = outer;
  if (rc == CANCELLED) rc = 0;
  if (in->repeat) {
    if (ran && ran->repeatable) {
      if (!again) {
        free(s->last_repeat);
        s->last_repeat = xstrdup(line);
      }
    } else {
      free(s->last_repeat);
      s->last_repeat = NULL;
    }
  }
  if (rc != 0) s->failures++;
  if (s->hooks.after_line) s->hooks.after_line(s, ran, rc);
  fflush(stdout);
  free(again);
  return rc;
}

int repl_exec_line(repl_session *s, const char *line) {
  input in = { .kind = IN_LIST };
  int rc = handle_line(s, line, &in);
  free(in.pushback);
  return rc;
}

int repl_exec_list(repl_session *s, char **lines, int n) {
  input in = { .kind = IN_LIST, .list = lines, .n = n };
  int status = 0;
  bool cancelled;
  char *line;
  while (!s->quit && (line = input_read(s, &in, false, &cancelled))) {
    if (handle_line(s, line, &in) != 0) status = -1;
    free(line);
  }
  free(in.pushback);
  return status;
}

int repl_exec_file(repl_session *s, const char *path) {
  if (s->source_depth >= SOURCE_DEPTH_MAX) {
    repl_error(s, "source: nested too deeply (%d levels)", SOURCE_DEPTH_MAX);
    return -1;
  }
  FILE *f = fopen(path, "r");
  if (!f) {
    repl_error(s, "source: cannot open %s: %s", path, strerror(errno));
    return -1;
  }
  input in = { .kind = IN_FILE, .f = f, .name = path };
  int status = 0;
  bool cancelled;
  char *line;
  s->source_depth++;
  while (!s->quit && (line = input_read(s, &in, false, &cancelled))) {
    /* gdb command files have '#' comments; at the prompt '#' is Lua's
    ** length operator, so only here. */
    int rc = *skip_blanks(line) == '#' ? 0 : handle_line(s, line, &in);
    free(line);
    if (rc != 0) {
      repl_error(s, "source: stopped at %s:%d", path, in.lineno);
      status = -1;
      break;
    }
  }
  if (in.failed) status = -1;
  s->source_depth--;
  free(in.pushback);
  fclose(f);
  return status;
}

int repl_loop(repl_session *s) {
  input in = { .kind = IN_STDIN, .repeat = true, .name = "stdin" };
  bool cancelled;
  while (!s->quit) {
    char *line = input_read(s, &in, false, &cancelled);
    if (!line) {
      if (s->tty) putchar('\n');  /* Ctrl-D: leave the shell on a new line */
      s->quit = true;
      break;
    }
    handle_line(s, line, &in);
    free(line);
    if (repl_lineio_terminated()) s->quit = true;
  }
  free(in.pushback);
  fflush(stdout);
  return s->status;
}

/* ------------------------------------------------------------------------
** The program
** ---------------------------------------------------------------------- */

int repl_load(repl_session *s, const char *path, bool quiet) {
  lua_State *L = s->L;
  if (repl_host_loadfile(L, path) != LUA_OK) {
    repl_error(s, "load: %s", lua_tostring(L, -1));
    lua_pop(L, 1);
    return -1;
  }
  lua_pop(L, 1);
  char *copy = xstrdup(path);
  free(s->program);
  s->program = copy;
  s->prog_argv = NULL;
  s->prog_argc = 0;
  if (!quiet) printf("loaded %s\n", path);
  if (s->hooks.loaded) s->hooks.loaded(s);
  return 0;
}

void repl_set_arg(repl_session *s) {
  lua_State *L = s->L;
  /* set raw, so a metatable on _G runs no code outside a pcall */
  lua_pushglobaltable(L);
  lua_pushliteral(L, "arg");
  lua_createtable(L, s->prog_argc, 1);
  lua_pushstring(L, s->program);
  lua_rawseti(L, -2, 0);
  for (int i = 0; i < s->prog_argc; i++) {
    lua_pushstring(L, s->prog_argv[i]);
    lua_rawseti(L, -2, i + 1);
  }
  lua_rawset(L, -3);
  lua_pop(L, 1);
}

int repl_run_default(repl_session *s, const char *args) {
  if (args && *skip_blanks(args)) {
    int rc = eval_lua(s, args, current_input, false);
    return rc == CANCELLED ? 0 : rc;
  }
  if (!s->program) {
    repl_error(s, "run: no program loaded; use `load FILE` or start shapedb with a FILE");
    return -1;
  }
  lua_State *L = s->L;
  int base = lua_gettop(L);
  repl_set_arg(s);
  if (luaL_loadfile(L, s->program) != LUA_OK) {
    repl_error(s, "run: %s", lua_tostring(L, -1));
    lua_settop(L, base);
    return -1;
  }
  for (int i = 0; i < s->prog_argc; i++) lua_pushstring(L, s->prog_argv[i]);
  if (repl_host_pcall(L, s->prog_argc, 0) != LUA_OK) {
    report_lua_error(s);
    lua_settop(L, base);
    return -1;
  }
  lua_settop(L, base);
  return 0;
}
