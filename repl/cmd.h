/*
** cmd.h — the command table, in the tmux style: one struct per command
** holds everything about it (names, group, usage, help, exec, how its
** arguments complete, whether Enter repeats it), and that one table drives
** dispatch, prefix lookup, suggestions, completion and help, so they
** cannot drift apart.
**
** Modules add their own tables with repl_cmd_register (top-level
** commands) and repl_cmd_register_sub (subcommands: `info guards`,
** `set color`). Tables are static data owned by the module that registers
** them; the registry keeps pointers to the entries.
*/
#ifndef REPL_CMD_H
#define REPL_CMD_H

#include <stdbool.h>
#include <stddef.h>

typedef struct repl_session repl_session;
typedef struct repl_cmd repl_cmd;

/* What the arguments of a command complete to (Tab, and `complete`). */
typedef enum repl_complete_kind {
  REPL_COMPLETE_NONE,
  REPL_COMPLETE_FILE,        /* file names */
  REPL_COMPLETE_SYMBOL,      /* u0, s1...: asks hooks.complete_symbols */
  REPL_COMPLETE_BREAKPOINT,  /* unbacked guard phase op symbol error, FILE:LINE;
                                after `symbol`, symbols */
  REPL_COMPLETE_SUBCOMMAND,  /* the subcommands registered under this name,
                                then the chosen subcommand's own kind */
  REPL_COMPLETE_COMMAND,     /* command names, then their subcommands (help) */
  REPL_COMPLETE_WORDS,       /* the words in `words` (first argument only) */
  REPL_COMPLETE_LUA          /* Lua globals and fields (lua, print) */
} repl_complete_kind;

/* A parsed command line. argv holds the arguments after the command (and
** subcommand) words, split on blanks, with '...' and "..." grouping;
** rest is the raw text after those words with leading blanks removed
** (for commands that take free text: `lua CODE`, `echo TEXT`). */
typedef struct repl_args {
  int argc;
  char **argv;
  const char *rest;
} repl_args;

/* Return 0 on success, -1 on failure (after printing the reason to stderr
** with repl_error). Failure makes --batch exit with status 1. */
typedef int (*repl_exec_fn)(repl_session *s, const repl_cmd *cmd,
                            const repl_args *a);

struct repl_cmd {
  const char *name;          /* "step"; for a subcommand, the word: "guards" */
  const char *aliases;       /* blank-separated exact aliases ("s"), or NULL.
                                Aliases match only exactly; names also match
                                by unique prefix. */
  const char *group;         /* help group: "running", "breakpoints", "data",
                                "stack", "status", "files", "support"... */
  const char *usage;         /* "step [N]", "info guards": shown by help and
                                on a wrong argument count */
  const char *summary;       /* one line, lower case, no full stop */
  const char *help;          /* paragraphs, ending with an "Example:" block */
  repl_exec_fn exec;         /* NULL: a prefix command that only dispatches
                                to its subcommands (and lists them alone) */
  repl_complete_kind complete;
  const char *const *words;  /* REPL_COMPLETE_WORDS: NULL-terminated list */
  int min_args, max_args;    /* argument count checked before exec; -1: any */
  bool repeatable;           /* an empty line runs it again (gdb's step) */
};

/* Add n commands. An entry whose name is already registered replaces the
** old one (so a debugger can take over a built-in command). The entries
** must outlive the registry (static tables). */
void repl_cmd_register(const repl_cmd *cmds, size_t n);

/* Add n subcommands under the top-level command `parent` (which may be
** registered before or after). `info pending`, `set color`... */
void repl_cmd_register_sub(const char *parent, const repl_cmd *cmds, size_t n);

/* Forget every registration (frees the registry; for a clean exit). */
void repl_cmd_unregister_all(void);

/* Look a word up among the top-level commands (parent NULL) or the
** subcommands of parent: an exact name, an exact alias, or a unique prefix
** of a name. Returns the entry, or NULL with *nmatch set to 0 (unknown) or
** to the number of names it is a prefix of (ambiguous). *exact (may be
** NULL) tells a name or alias from a prefix. */
const repl_cmd *repl_cmd_find(const char *parent, const char *word, size_t len,
                              int *nmatch, bool *exact);

/* The entries under parent (NULL: top level), sorted by name; owned by the
** registry and valid until the next registration. */
const repl_cmd *const *repl_cmd_list(const char *parent, size_t *n);

/* The help groups of the top-level commands, in display order (the usual
** gdb-like order first, then any others in registration order). */
const char *const *repl_cmd_groups(size_t *n);

/* The name (or alias) closest to word by edit distance, if close enough to
** be a likely typo; NULL otherwise. */
const char *repl_cmd_suggest(const char *parent, const char *word, size_t len);
/* The same rule over any names (an operator's, say): the nearest within
** one edit for short words, two for longer ones, or NULL. */
const char *repl_suggest(const char *word, const char *const *names, size_t n);

/* The names matching word as a prefix, ", "-joined, for "could be: ..."
** messages. Returns a malloc'ed string. */
char *repl_cmd_candidates(const char *parent, const char *word, size_t len);

/* Run cmd with the text after its name: resolve a subcommand if it has
** any, split the arguments, check their count (printing "usage: ..." on a
** mismatch), and call exec. *ran (may be NULL) is set to the entry that
** ran, for the repeat flag. Returns exec's status, or -1. */
int repl_cmd_exec(repl_session *s, const repl_cmd *cmd, const char *text,
                  const repl_cmd **ran);

/* "  usage    summary": one line of the help listing, apropos and the
** subcommand list a prefix command prints alone. */
void repl_cmd_print_line(const repl_cmd *c);

/* Split text into words (blanks separate, '...' and "..." group). Returns
** a malloc'ed NULL-terminated vector that repl_words_free releases. */
char **repl_words_split(const char *text, int *n);
void repl_words_free(char **words);

/* A word of a command name: letters, digits, '_' and '-' (not "--"). */
size_t repl_cmd_word_len(const char *p);

#endif
