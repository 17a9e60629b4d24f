/*
** repl.h — the interactive session: its state, the hooks a debugger sets,
** and the read-eval loop that tells commands from Lua.
**
** A line whose first word is a command (its name, an alias, or a unique
** prefix of a name) runs that command; every other line is Lua, run as the
** stock `lua` REPL runs it. The exact rule is repl_classify's comment in
** repl.c and the closing paragraph of `help`.
*/
#ifndef REPL_REPL_H
#define REPL_REPL_H

#include "cmd.h"

#include <lua.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define REPL_VERSION "0.1.0"
#define REPL_PROMPT "(shapedb) "
#define REPL_PROMPT2 ">> "

/* A growable vector of malloc'ed strings (completion candidates). */
typedef struct repl_strv {
  char **v;
  size_t n, cap;
} repl_strv;
void repl_strv_add(repl_strv *sv, const char *str);   /* copies str */
void repl_strv_clear(repl_strv *sv);                  /* frees the strings */
void repl_strv_free(repl_strv *sv);                   /* and the vector */

typedef enum repl_color_mode {
  REPL_COLOR_AUTO,  /* on when the stream is a terminal and NO_COLOR is unset */
  REPL_COLOR_ON,
  REPL_COLOR_OFF
} repl_color_mode;

/* What a debugger plugs in. Every hook may be NULL (the default). */
typedef struct repl_hooks {
  /* `run [ARGS]`: ARGS is the raw text after `run` ("" when none).
  ** Default: repl_run_default. Return 0 or -1 like a command. */
  int (*run)(repl_session *s, const char *args);
  /* Add the symbol names (u0, s1...) that may complete `prefix` to out
  ** (filtering is optional: candidates not starting with prefix are
  ** dropped). Called from inside readline: must not raise Lua errors
  ** (use lua_pcall around any Lua work). Default: no symbols. */
  void (*complete_symbols)(repl_session *s, const char *prefix, repl_strv *out);
  /* After every line read at the prompt or from -x/source: cmd is the
  ** entry that ran (NULL for a Lua line), rc its status. A debugger
  ** prints its status line here. Default: nothing. */
  void (*after_line)(repl_session *s, const repl_cmd *cmd, int rc);
  /* After `load` (or the command line) made path the session's program. */
  void (*loaded)(repl_session *s);
  /* A Lua line that names a variable of a paused program's selected frame
  ** (`x:meta()` at a breakpoint): run it there, as `print` does. 0 or -1
  ** when it did, 1 when the line is not about the frame. Default: none. */
  int (*frame_lua)(repl_session *s, const char *line);
  /* True while the sources must not be re-read from disk: a paused program
  ** runs the text it was started with, and its stops show that text.
  ** Default: never (listings follow the user's edits). */
  bool (*sources_frozen)(repl_session *s);
  /* Before a line runs: true when the hook took it as data (the lines of
  ** a debugger's `commands ... end`), so it does not run. */
  bool (*take_line)(repl_session *s, const char *line);
} repl_hooks;

struct repl_session {
  lua_State *L;           /* owned: closed by repl_session_free */
  char *program;          /* the loaded program's path (owned), or NULL */
  char **prog_argv;       /* its arguments from the command line (not owned) */
  int prog_argc;
  bool tty;               /* stdin is a terminal: readline, prompts, history */
  repl_color_mode color;  /* `set color` */
  bool history;           /* `set history`: record and save input lines */
  char *prompt;           /* primary prompt (owned), `set prompt` */
  const char *data_prompt;/* instead of prompt while a hook takes lines
                             (gdb's ">" for `commands`), or NULL */
  char *last_repeat;      /* last repeatable command line (owned), or NULL */
  bool batch;             /* --batch: no stdin, exit after the -x commands */
  bool quit;              /* `quit` ran, or input ended */
  int status;             /* exit status given to `quit STATUS` */
  bool status_set;        /* ... and whether one was given */
  int failures;           /* lines that failed (commands or Lua) */
  int source_depth;       /* nesting of `source` */
  int stdin_lines;        /* lines read from a piped stdin, for messages */
  bool input_failed;      /* a line of input was refused (bad or unreadable) */
  repl_hooks hooks;
  void *ext;              /* the debugger's own state */
};

/* A session around L (which it takes over). tty: stdin is a terminal. */
repl_session *repl_session_new(lua_State *L, bool tty);
void repl_session_free(repl_session *s);   /* NULL is a no-op */

/* Register the built-in commands (builtin.c). */
void repl_builtin_init(void);

/* Make path the session's program: check it opens and parses, without
** running it. quiet: no "loaded PATH" line. 0 or -1 (message printed). */
int repl_load(repl_session *s, const char *path, bool quiet);

/* The global `arg` for the loaded program, as lua.c builds it: arg[0] the
** script, then its arguments. */
void repl_set_arg(repl_session *s);

/* The default `run`: with args, run them as a Lua line; without, run the
** loaded program (re-read from its file) with `arg` set as lua.c sets it,
** under the traceback handler. */
int repl_run_default(repl_session *s, const char *args);

/* Run one line as the prompt would (command or Lua; no continuation lines,
** no repeat, no history). 0 or -1. */
int repl_exec_line(repl_session *s, const char *line);

/* Run Lua code as the stock REPL does: "return CODE;" first, so
** expressions print their values, then CODE as a statement. 0 or -1. */
int repl_eval_lua(repl_session *s, const char *code);

/* Run lines from a list (-x) or a file (`source`), each as at the prompt;
** Lua statements may continue on the following lines. A file stops at the
** first failing line. 0 if all succeeded, -1 otherwise. */
int repl_exec_list(repl_session *s, char **lines, int n);
int repl_exec_file(repl_session *s, const char *path);

/* Read and run lines from stdin until `quit` or end of input. Returns the
** exit status. */
int repl_loop(repl_session *s);

/* Print a one-line error to stderr (red when colour is on for stderr),
** after flushing stdout so the two streams interleave in order. */
/* What a command prints in place of a text it could not make for want of
** memory ("?"); the command is then reported as failed, once it ends,
** with what is missing said (repl.c). */
const char *repl_oom_text(void);
void repl_error(repl_session *s, const char *fmt, ...)
#if defined(__GNUC__)
  __attribute__((format(printf, 2, 3)))
#endif
  ;

/* Whether to colour output written to f, following `set color`. */
bool repl_use_color(const repl_session *s, FILE *f);

/* How the prompt reads a line. A line is a command when its first word
**   - is not a Lua keyword (except `break` and `goto`, which begin no
**     statement that stands alone at the prompt, so they are commands),
**   - is not followed at once by ( . [ : { " ' or, after blanks, by = (not
**     ==) or , (so `s = 1`, `p(x)`, `t.x = 1`, `a, b = 1, 2` stay Lua),
**     nor, when it is a Lua global with a value, by a string or table
**     (`print "hi"` is Lua's call),
**   - and is a command's name or alias, or a unique prefix of a name that
**     is not also a Lua global with a value.
** An ambiguous prefix that is no Lua global is an error ("ambiguous
** command"); a word that is neither a command nor a Lua global with a
** value, alone on its line (or with words after it that are not Lua), is
** an unknown command. Everything else is Lua. */
typedef enum repl_line_kind {
  REPL_LINE_BLANK,
  REPL_LINE_COMMAND,    /* *cmd, and *rest = the text after the first word */
  REPL_LINE_LUA,
  REPL_LINE_AMBIGUOUS,  /* the first word prefixes several commands */
  REPL_LINE_UNKNOWN     /* an unknown command */
} repl_line_kind;
repl_line_kind repl_classify(repl_session *s, const char *line,
                             const repl_cmd **cmd, const char **rest);

/* The default symbol completion (none), so a hook can chain to it. */
void repl_complete_no_symbols(repl_session *s, const char *prefix, repl_strv *out);

#endif
