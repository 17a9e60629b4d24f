/*
** builtin.c — the general commands every session has: help, apropos,
** complete, echo, set/show, info program, load, source, run, lua, quit.
** The debugger registers its own tables beside this one (cmd.h); help and
** completion read them all the same way.
*/
#include "repl.h"
#include "lineio.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>



static void heading(repl_session *s, const char *text) {
  bool color = repl_use_color(s, stdout);
  printf("%s%c%s%s\n", color ? "\033[1m" : "", toupper((unsigned char)text[0]),
         text + 1, color ? "\033[0m" : "");
}

/* ------------------------------------------------------------------------
** help, apropos, complete
** ---------------------------------------------------------------------- */

static void help_list(repl_session *s) {
  size_t ngroups, n;
  const char *const *groups = repl_cmd_groups(&ngroups);
  const repl_cmd *const *v = repl_cmd_list(NULL, &n);
  printf("Commands by group ('help CMD' explains one, 'apropos WORD' searches):\n");
  for (size_t g = 0; g < ngroups; g++) {
    putchar('\n');
    heading(s, groups[g]);
    for (size_t i = 0; i < n; i++)
      if (v[i]->group && !strcmp(v[i]->group, groups[g]))
        repl_cmd_print_line(v[i]);
  }
  printf("\n"
"Any other line is Lua, as at the stock `lua` prompt: an expression prints\n"
"its value, an unfinished statement continues on a `>>` line, an error\n"
"prints a traceback. A line is a command when its first word is a command's\n"
"name or alias, or a unique prefix of a name that is not also a Lua global\n"
"(`h` for `help`), and is not followed by = ( . [ : (so `s = 1` is Lua).\n"
"`lua CODE` forces Lua. Enter on an empty line repeats the last stepping\n"
"command.\n");
}

static void help_one(repl_session *s, const repl_cmd *c, const char *parent) {
  (void)s;
  printf("usage: %s\n", c->usage);
  if (c->aliases && *c->aliases) {
    printf("aliases:");
    const char *p = c->aliases;
    while (*p) {
      while (*p == ' ') p++;
      size_t l = strcspn(p, " ");
      if (l) printf(" %.*s", (int)l, p);
      p += l;
    }
    putchar('\n');
  }
  printf("\n%s", c->help);
  size_t n = 0;
  const repl_cmd *const *v = parent ? NULL : repl_cmd_list(c->name, &n);
  if (n > 0) {
    printf("\nSubcommands:\n");
    for (size_t i = 0; i < n; i++) repl_cmd_print_line(v[i]);
  }
}

static const repl_cmd *resolve(repl_session *s, const char *parent, const char *word) {
  int nm;
  size_t len = strlen(word);
  const repl_cmd *c = repl_cmd_find(parent, word, len, &nm, NULL);
  if (c) return c;
  if (nm > 1) {
    char *cands = repl_cmd_candidates(parent, word, len);
    if (parent)
      repl_error(s, "ambiguous %s subcommand: %s, could be: %s", parent, word, cands);
    else
      repl_error(s, "ambiguous command: %s, could be: %s", word, cands);
    free(cands);
    return NULL;
  }
  const char *sug = repl_cmd_suggest(parent, word, len);
  if (parent && sug)
    repl_error(s, "unknown %s subcommand: %s. Did you mean '%s'?", parent, word, sug);
  else if (parent)
    repl_error(s, "unknown %s subcommand: %s. Try 'help %s'.", parent, word, parent);
  else if (sug)
    repl_error(s, "unknown command: %s. Did you mean '%s'?", word, sug);
  else
    repl_error(s, "unknown command: %s. Type 'help' for a list of commands.", word);
  return NULL;
}

static int cmd_help(repl_session *s, const repl_cmd *self, const repl_args *a) {
  (void)self;
  if (a->argc == 0) {
    help_list(s);
    return 0;
  }
  const repl_cmd *c = resolve(s, NULL, a->argv[0]);
  if (!c) return -1;
  if (a->argc == 2) {
    const repl_cmd *sub = resolve(s, c->name, a->argv[1]);
    if (!sub) return -1;
    help_one(s, sub, c->name);
    return 0;
  }
  help_one(s, c, NULL);
  return 0;
}

static bool mentions(const char *text, const char *word) {
  if (!text) return false;
  size_t lw = strlen(word);
  for (const char *p = text; *p; p++)
    if (!strncasecmp(p, word, lw)) return true;
  return false;
}

static bool cmd_mentions(const repl_cmd *c, const char *word) {
  return mentions(c->name, word) || mentions(c->aliases, word) ||
         mentions(c->usage, word) || mentions(c->summary, word) ||
         mentions(c->help, word);
}

static int cmd_apropos(repl_session *s, const repl_cmd *self, const repl_args *a) {
  (void)s;
  (void)self;
  size_t n, found = 0;
  const repl_cmd *const *v = repl_cmd_list(NULL, &n);
  for (size_t i = 0; i < n; i++) {
    if (cmd_mentions(v[i], a->rest)) {
      repl_cmd_print_line(v[i]);
      found++;
    }
    size_t nsub;
    const repl_cmd *const *sub = repl_cmd_list(v[i]->name, &nsub);
    for (size_t j = 0; j < nsub; j++)
      if (cmd_mentions(sub[j], a->rest)) {
        repl_cmd_print_line(sub[j]);
        found++;
      }
  }
  if (!found) printf("no command mentions '%s'\n", a->rest);
  return 0;
}

static int compare_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The same word breaks readline uses (lineio.c), so `complete` shows what
** Tab would. */
#define WORD_BREAKS " \t\n\"'`@$><=;|&{([,+*/%^#~)}"

static int cmd_complete(repl_session *s, const repl_cmd *self, const repl_args *a) {
  (void)self;
  const char *line = a->rest;
  size_t start = strlen(line);
  while (start > 0 && !strchr(WORD_BREAKS, line[start - 1])) start--;
  repl_strv out = { 0 };
  bool files;
  repl_complete_line(s, line, start, &out, &files);
  if (out.n) qsort(out.v, out.n, sizeof *out.v, compare_str);
  for (size_t i = 0; i < out.n; i++)
    if (i == 0 || strcmp(out.v[i], out.v[i - 1]))
      printf("%.*s%s\n", (int)start, line, out.v[i]);
  repl_strv_free(&out);
  return 0;
}

/* ------------------------------------------------------------------------
** echo, quit, lua, load, source, run, info
** ---------------------------------------------------------------------- */

static int cmd_echo(repl_session *s, const repl_cmd *self, const repl_args *a) {
  (void)s;
  (void)self;
  for (const char *p = a->rest; *p; p++) {
    if (*p == '\\' && p[1]) {
      p++;
      putchar(*p == 'n' ? '\n' : *p == 't' ? '\t' : *p);
    } else {
      putchar(*p);
    }
  }
  putchar('\n');
  return 0;
}

static int cmd_quit(repl_session *s, const repl_cmd *self, const repl_args *a) {
  if (a->argc == 1) {
    char *end;
    errno = 0;
    long v = strtol(a->argv[0], &end, 10);
    if (errno || *end || end == a->argv[0] || v < 0 || v > 255) {
      repl_error(s, "usage: %s (STATUS is 0 to 255)", self->usage);
      return -1;
    }
    s->status = (int)v;
    s->status_set = true;
  }
  s->quit = true;
  return 0;
}

static int cmd_lua(repl_session *s, const repl_cmd *self, const repl_args *a) {
  (void)self;
  return repl_eval_lua(s, a->rest);
}

static int cmd_load(repl_session *s, const repl_cmd *self, const repl_args *a) {
  (void)self;
  return repl_load(s, a->argv[0], false);
}

static int cmd_source(repl_session *s, const repl_cmd *self, const repl_args *a) {
  (void)self;
  return repl_exec_file(s, a->argv[0]);
}

static int cmd_run(repl_session *s, const repl_cmd *self, const repl_args *a) {
  (void)self;
  if (s->hooks.run) return s->hooks.run(s, a->rest);
  return repl_run_default(s, a->rest);
}

static int cmd_info_program(repl_session *s, const repl_cmd *self, const repl_args *a) {
  (void)self;
  (void)a;
  if (!s->program) {
    printf("no program loaded\n");
    return 0;
  }
  printf("program: %s\n", s->program);
  if (s->prog_argc > 0) {
    printf("arguments:");
    for (int i = 0; i < s->prog_argc; i++) printf(" %s", s->prog_argv[i]);
    putchar('\n');
  }
  return 0;
}

/* ------------------------------------------------------------------------
** set / show
** ---------------------------------------------------------------------- */

static const char *const color_words[] = { "on", "off", "auto", NULL };
static const char *const onoff_words[] = { "on", "off", NULL };

static const char *color_name(repl_color_mode m) {
  return m == REPL_COLOR_ON ? "on" : m == REPL_COLOR_OFF ? "off" : "auto";
}

static int set_color(repl_session *s, const repl_cmd *self, const repl_args *a) {
  const char *v = a->argv[0];
  if (!strcmp(v, "on")) s->color = REPL_COLOR_ON;
  else if (!strcmp(v, "off")) s->color = REPL_COLOR_OFF;
  else if (!strcmp(v, "auto")) s->color = REPL_COLOR_AUTO;
  else {
    repl_error(s, "usage: %s", self->usage);
    return -1;
  }
  return 0;
}

static int set_history(repl_session *s, const repl_cmd *self, const repl_args *a) {
  const char *v = a->argv[0];
  if (!strcmp(v, "on")) s->history = true;
  else if (!strcmp(v, "off")) s->history = false;
  else {
    repl_error(s, "usage: %s", self->usage);
    return -1;
  }
  return 0;
}

/* The text after `set prompt`, kept as typed (a trailing blank matters);
** quotes around the whole of it are removed, so "(dbg) " can be written. */
static int set_prompt(repl_session *s, const repl_cmd *self, const repl_args *a) {
  (void)self;
  const char *t = a->rest;
  size_t n = strlen(t);
  if (n >= 2 && (t[0] == '"' || t[0] == '\'') && t[n - 1] == t[0]) {
    t++;
    n -= 2;
  }
  char *p = malloc(n + 1);
  if (!p) {
    repl_error(s, "not enough memory");
    return -1;
  }
  memcpy(p, t, n);
  p[n] = '\0';
  free(s->prompt);
  s->prompt = p;
  return 0;
}

static int show_color(repl_session *s, const repl_cmd *self, const repl_args *a) {
  (void)self;
  (void)a;
  printf("color: %s\n", color_name(s->color));
  return 0;
}

static int show_history(repl_session *s, const repl_cmd *self, const repl_args *a) {
  (void)self;
  (void)a;
  printf("history: %s\n", s->history ? "on" : "off");
  return 0;
}

static int show_prompt(repl_session *s, const repl_cmd *self, const repl_args *a) {
  (void)self;
  (void)a;
  printf("prompt: \"%s\"\n", s->prompt);
  return 0;
}

/* `show` alone runs every `show` subcommand, the debugger's too. */
static int cmd_show(repl_session *s, const repl_cmd *self, const repl_args *a) {
  size_t n;
  const repl_cmd *const *v = repl_cmd_list(self->name, &n);
  if (a->argc > 0) {
    resolve(s, self->name, a->argv[0]);
    return -1;
  }
  repl_args none = { 0, NULL, "" };
  int rc = 0;
  for (size_t i = 0; i < n; i++)
    if (v[i]->exec && v[i]->min_args == 0 && v[i]->exec(s, v[i], &none) != 0) rc = -1;
  return rc;
}

/* ------------------------------------------------------------------------
** The tables
** ---------------------------------------------------------------------- */

static const repl_cmd builtins[] = {
  { "run", NULL, "running", "run [LUA]",
    "run the loaded program, or the Lua code LUA",
    "Run the loaded program from its first line (re-read from its file, with\n"
    "`arg` set as `lua FILE ARGS` sets it). With LUA, run that Lua code\n"
    "instead, as a line at the prompt would. Errors print with a traceback\n"
    "and leave the session as it was.\n"
    "\n"
    "Example:\n"
    "  (shapedb) load scripts/tour.lua\n"
    "  (shapedb) run\n",
    cmd_run, REPL_COMPLETE_LUA, NULL, 0, -1, false },
  { "load", NULL, "files", "load FILE",
    "make FILE the session's program, without running it",
    "Load the Lua program FILE as the session's program: the file must exist\n"
    "and compile (errors name FILE:LINE), but nothing in it runs until\n"
    "`run`. A later `load` replaces the program. `shapedb -i FILE` does the\n"
    "same at start-up.\n"
    "\n"
    "Example:\n"
    "  (shapedb) load scripts/tour.lua\n"
    "  loaded scripts/tour.lua\n",
    cmd_load, REPL_COMPLETE_FILE, NULL, 1, 1, false },
  { "source", NULL, "files", "source FILE",
    "run the command lines in FILE",
    "Run each line of FILE as if typed at the prompt: commands, or Lua (a\n"
    "statement may span lines). Lines starting with # are comments. The\n"
    "first failing line stops the file.\n"
    "\n"
    "Example:\n"
    "  (shapedb) source session.sdb\n",
    cmd_source, REPL_COMPLETE_FILE, NULL, 1, 1, false },
  { "lua", NULL, "data", "lua CODE",
    "run CODE as Lua, even when it starts like a command",
    "Run CODE as a Lua line. Needed only when the line would otherwise be\n"
    "read as a command: `lua run = 1` assigns the global `run`. An\n"
    "expression prints its values, as at the stock `lua` prompt.\n"
    "\n"
    "Example:\n"
    "  (shapedb) lua help = 'mine'\n"
    "  (shapedb) lua help\n"
    "  mine\n",
    cmd_lua, REPL_COMPLETE_LUA, NULL, 1, -1, false },
  { "info", "i", "status", "info SUBCOMMAND",
    "show the state of the session",
    "Show one part of the session's state; `info` alone lists the parts.\n"
    "Subcommands take unique prefixes too: `i pro` is `info program`.\n"
    "\n"
    "Example:\n"
    "  (shapedb) info program\n"
    "  program: scripts/tour.lua\n",
    NULL, REPL_COMPLETE_SUBCOMMAND, NULL, 0, -1, false },
  { "show", NULL, "status", "show [SETTING]",
    "show the settings, or one of them",
    "Show the value of a setting (see `set`), or of all of them.\n"
    "\n"
    "Example:\n"
    "  (shapedb) show color\n"
    "  color: auto\n",
    cmd_show, REPL_COMPLETE_SUBCOMMAND, NULL, 0, -1, false },
  { "apropos", NULL, "support", "apropos WORD",
    "list the commands whose help mentions WORD",
    "Search the names, summaries and help texts of all commands for WORD\n"
    "(ignoring case) and list the commands that mention it.\n"
    "\n"
    "Example:\n"
    "  (shapedb) apropos history\n",
    cmd_apropos, REPL_COMPLETE_NONE, NULL, 1, -1, false },
  { "complete", NULL, "support", "complete TEXT",
    "list the completions of TEXT, as Tab would",
    "Print every completion of the last word of TEXT, one per line with the\n"
    "rest of TEXT in front, exactly as Tab at the prompt would offer them.\n"
    "\n"
    "Example:\n"
    "  (shapedb) complete he\n"
    "  help\n",
    cmd_complete, REPL_COMPLETE_NONE, NULL, 0, -1, false },
  { "echo", NULL, "support", "echo [TEXT]",
    "print TEXT",
    "Print TEXT and a newline; \\n and \\t in TEXT are a newline and a tab.\n"
    "Useful in `source` files and -x lists.\n"
    "\n"
    "Example:\n"
    "  (shapedb) echo step 1\\tdone\n"
    "  step 1\tdone\n",
    cmd_echo, REPL_COMPLETE_NONE, NULL, 0, -1, false },
  { "help", NULL, "support", "help [CMD [SUB]]",
    "list the commands, or explain one",
    "Without CMD, list the commands by group. With CMD (a name, alias or\n"
    "unique prefix), show its usage, what it does and an example; with SUB,\n"
    "the same for one of its subcommands.\n"
    "\n"
    "Example:\n"
    "  (shapedb) help load\n"
    "  (shapedb) help info program\n",
    cmd_help, REPL_COMPLETE_COMMAND, NULL, 0, 2, false },
  { "quit", "exit", "support", "quit [STATUS]",
    "leave shapedb (Ctrl-D at the prompt does too)",
    "Leave shapedb, saving the history. STATUS (0 to 255) becomes the exit\n"
    "status; otherwise it is 0, or 1 in --batch mode when a command failed.\n"
    "\n"
    "Example:\n"
    "  (shapedb) quit\n",
    cmd_quit, REPL_COMPLETE_NONE, NULL, 0, 1, false },
  { "set", NULL, "support", "set SETTING VALUE",
    "change a setting: color, history, prompt",
    "Change a setting of the session; `show` prints them.\n"
    "\n"
    "Example:\n"
    "  (shapedb) set color off\n"
    "  (shapedb) set prompt \"(sdb) \"\n",
    NULL, REPL_COMPLETE_SUBCOMMAND, NULL, 0, -1, false },
};

static const repl_cmd info_subs[] = {
  { "program", NULL, "status", "info program",
    "the loaded program and its arguments",
    "Show the path of the loaded program and the arguments `run` passes it.\n"
    "\n"
    "Example:\n"
    "  (shapedb) info program\n"
    "  program: scripts/tour.lua\n",
    cmd_info_program, REPL_COMPLETE_NONE, NULL, 0, 0, false },
};

static const repl_cmd set_subs[] = {
  { "color", NULL, "support", "set color on|off|auto",
    "colour the output: always, never, or on a terminal",
    "`auto` (the default) colours output written to a terminal unless the\n"
    "NO_COLOR environment variable is set or TERM is `dumb`; `on` and `off`\n"
    "override that.\n"
    "\n"
    "Example:\n"
    "  (shapedb) set color off\n",
    set_color, REPL_COMPLETE_WORDS, color_words, 1, 1, false },
  { "history", NULL, "support", "set history on|off",
    "record the lines typed, and save them at exit",
    "With `on` (the default), lines typed at a terminal go into the history\n"
    "(Up arrow) and are saved to $XDG_STATE_HOME/shapedb/history, or to\n"
    "~/.shapedb_history when XDG_STATE_HOME is unset.\n"
    "\n"
    "Example:\n"
    "  (shapedb) set history off\n",
    set_history, REPL_COMPLETE_WORDS, onoff_words, 1, 1, false },
  { "prompt", NULL, "support", "set prompt TEXT",
    "the prompt shown on a terminal",
    "Use TEXT, exactly as typed after `set prompt `, as the prompt; quote it\n"
    "to make a trailing blank visible. Piped sessions print no prompt.\n"
    "\n"
    "Example:\n"
    "  (shapedb) set prompt \"(sdb) \"\n",
    set_prompt, REPL_COMPLETE_NONE, NULL, 1, -1, false },
};

static const repl_cmd show_subs[] = {
  { "color", NULL, "status", "show color", "whether output is coloured",
    "Show the `set color` setting.\n\nExample:\n  (shapedb) show color\n  color: auto\n",
    show_color, REPL_COMPLETE_NONE, NULL, 0, 0, false },
  { "history", NULL, "status", "show history", "whether input is recorded",
    "Show the `set history` setting.\n\nExample:\n  (shapedb) show history\n  history: on\n",
    show_history, REPL_COMPLETE_NONE, NULL, 0, 0, false },
  { "prompt", NULL, "status", "show prompt", "the prompt",
    "Show the prompt, quoted.\n\nExample:\n  (shapedb) show prompt\n  prompt: \"(shapedb) \"\n",
    show_prompt, REPL_COMPLETE_NONE, NULL, 0, 0, false },
};

#define COUNT(a) (sizeof(a) / sizeof *(a))

void repl_builtin_init(void) {
  repl_cmd_register(builtins, COUNT(builtins));
  repl_cmd_register_sub("info", info_subs, COUNT(info_subs));
  repl_cmd_register_sub("set", set_subs, COUNT(set_subs));
  repl_cmd_register_sub("show", show_subs, COUNT(show_subs));
}
