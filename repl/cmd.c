/*
** cmd.c — the command registry (see cmd.h): tables of repl_cmd entries,
** lookup by name, alias or unique prefix, typo suggestions, argument
** splitting and checked dispatch. Printing help is builtin.c's; completing
** is lineio.c's; both read the same entries through repl_cmd_list.
*/
#include "cmd.h"
#include "repl.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The entries under one parent (NULL: the top level), sorted by name so
** help, `could be:` lists and completion come out in a stable order. */
typedef struct table {
  char *parent;
  const repl_cmd **v;
  size_t n, cap;
} table;

static table top;
static table *subs;
static size_t nsubs, capsubs;
/* Groups in the order they were first registered, and the display order. */
static const char **group_seen;
static size_t ngroup_seen, capgroup_seen;
static const char **group_order;

/* Registration happens at start-up from static tables: running out of
** memory there leaves nothing sensible to do. */
static void *xrealloc(void *p, size_t n) {
  p = realloc(p, n ? n : 1);
  if (!p) {
    fputs("shapedb: out of memory\n", stderr);
    exit(EXIT_FAILURE);   /* as gnulib's xalloc_die: said, and no core dump */
  }
  return p;
}

static void table_put(table *t, const repl_cmd *c) {
  for (size_t i = 0; i < t->n; i++)
    if (!strcmp(t->v[i]->name, c->name)) { t->v[i] = c; return; }
  if (t->n == t->cap) {
    t->cap = t->cap ? 2 * t->cap : 16;
    t->v = xrealloc(t->v, t->cap * sizeof *t->v);
  }
  size_t i = t->n++;
  while (i > 0 && strcmp(t->v[i - 1]->name, c->name) > 0) {
    t->v[i] = t->v[i - 1];
    i--;
  }
  t->v[i] = c;
}

static table *find_table(const char *parent, bool create) {
  if (!parent) return &top;
  for (size_t i = 0; i < nsubs; i++)
    if (!strcmp(subs[i].parent, parent)) return &subs[i];
  if (!create) return NULL;
  if (nsubs == capsubs) {
    capsubs = capsubs ? 2 * capsubs : 8;
    subs = xrealloc(subs, capsubs * sizeof *subs);
  }
  table *t = &subs[nsubs++];
  memset(t, 0, sizeof *t);
  size_t len = strlen(parent) + 1;
  t->parent = memcpy(xrealloc(NULL, len), parent, len);
  return t;
}

static void note_group(const char *g) {
  if (!g) return;
  for (size_t i = 0; i < ngroup_seen; i++)
    if (!strcmp(group_seen[i], g)) return;
  if (ngroup_seen == capgroup_seen) {
    capgroup_seen = capgroup_seen ? 2 * capgroup_seen : 8;
    group_seen = xrealloc(group_seen, capgroup_seen * sizeof *group_seen);
  }
  group_seen[ngroup_seen++] = g;
}

void repl_cmd_register(const repl_cmd *cmds, size_t n) {
  for (size_t i = 0; i < n; i++) {
    table_put(&top, &cmds[i]);
    note_group(cmds[i].group);
  }
}

void repl_cmd_register_sub(const char *parent, const repl_cmd *cmds, size_t n) {
  table *t = find_table(parent, true);
  for (size_t i = 0; i < n; i++) table_put(t, &cmds[i]);
}

void repl_cmd_unregister_all(void) {
  free(top.v);
  memset(&top, 0, sizeof top);
  for (size_t i = 0; i < nsubs; i++) {
    free(subs[i].parent);
    free(subs[i].v);
  }
  free(subs);
  subs = NULL;
  nsubs = capsubs = 0;
  free(group_seen);
  free(group_order);
  group_seen = group_order = NULL;
  ngroup_seen = capgroup_seen = 0;
}

const repl_cmd *const *repl_cmd_list(const char *parent, size_t *n) {
  table *t = find_table(parent, false);
  *n = t ? t->n : 0;
  return t ? (const repl_cmd *const *)t->v : NULL;
}

/* gdb's classes in gdb's order, so a debugger's groups land where a gdb
** user looks for them whatever order the modules register in. */
static const char *const preferred_groups[] = {
  "running", "breakpoints", "stack", "data", "status", "files", "support",
};

const char *const *repl_cmd_groups(size_t *n) {
  size_t k = 0;
  free(group_order);
  group_order = xrealloc(NULL, (ngroup_seen + 1) * sizeof *group_order);
  size_t npref = sizeof preferred_groups / sizeof *preferred_groups;
  for (size_t p = 0; p < npref; p++)
    for (size_t i = 0; i < ngroup_seen; i++)
      if (!strcmp(group_seen[i], preferred_groups[p])) group_order[k++] = group_seen[i];
  for (size_t i = 0; i < ngroup_seen; i++) {
    bool pref = false;
    for (size_t p = 0; p < npref; p++)
      if (!strcmp(group_seen[i], preferred_groups[p])) pref = true;
    if (!pref) group_order[k++] = group_seen[i];
  }
  *n = k;
  return group_order;
}

/* Does the blank-separated list `aliases` hold word exactly? */
static bool has_alias(const char *aliases, const char *word, size_t len) {
  const char *p = aliases;
  while (p && *p) {
    while (*p == ' ') p++;
    size_t l = strcspn(p, " ");
    if (l == len && l && !strncmp(p, word, len)) return true;
    p += l;
  }
  return false;
}

const repl_cmd *repl_cmd_find(const char *parent, const char *word, size_t len,
                              int *nmatch, bool *exact) {
  table *t = find_table(parent, false);
  int dummy;
  if (!nmatch) nmatch = &dummy;
  if (exact) *exact = false;
  *nmatch = 0;
  if (!t || len == 0) return NULL;
  for (size_t i = 0; i < t->n; i++)
    if (strlen(t->v[i]->name) == len && !strncmp(t->v[i]->name, word, len)) {
      if (exact) *exact = true;
      *nmatch = 1;
      return t->v[i];
    }
  for (size_t i = 0; i < t->n; i++)
    if (has_alias(t->v[i]->aliases, word, len)) {
      if (exact) *exact = true;
      *nmatch = 1;
      return t->v[i];
    }
  const repl_cmd *found = NULL;
  for (size_t i = 0; i < t->n; i++)
    if (!strncmp(t->v[i]->name, word, len)) {
      found = t->v[i];
      ++*nmatch;
    }
  return *nmatch == 1 ? found : NULL;
}

char *repl_cmd_candidates(const char *parent, const char *word, size_t len) {
  table *t = find_table(parent, false);
  size_t size = 1;
  for (size_t i = 0; t && i < t->n; i++)
    if (!strncmp(t->v[i]->name, word, len)) size += strlen(t->v[i]->name) + 2;
  char *out = xrealloc(NULL, size);
  out[0] = '\0';
  for (size_t i = 0; t && i < t->n; i++)
    if (!strncmp(t->v[i]->name, word, len)) {
      if (out[0]) strcat(out, ", ");
      strcat(out, t->v[i]->name);
    }
  return out;
}

/* Optimal string alignment distance: Levenshtein plus adjacent swaps, so
** "hlep" is one edit from "help". Long words are not worth comparing. */
#define DIST_MAX 64
static int distance(const char *a, size_t la, const char *b, size_t lb) {
  static int d[DIST_MAX + 1][DIST_MAX + 1];
  if (la > DIST_MAX || lb > DIST_MAX) return DIST_MAX;
  for (size_t i = 0; i <= la; i++) d[i][0] = (int)i;
  for (size_t j = 0; j <= lb; j++) d[0][j] = (int)j;
  for (size_t i = 1; i <= la; i++)
    for (size_t j = 1; j <= lb; j++) {
      int cost = a[i - 1] != b[j - 1];
      int v = d[i - 1][j] + 1;
      if (d[i][j - 1] + 1 < v) v = d[i][j - 1] + 1;
      if (d[i - 1][j - 1] + cost < v) v = d[i - 1][j - 1] + cost;
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
          d[i - 2][j - 2] + 1 < v)
        v = d[i - 2][j - 2] + 1;
      d[i][j] = v;
    }
  return d[la][lb];
}

const char *repl_cmd_suggest(const char *parent, const char *word, size_t len) {
  table *t = find_table(parent, false);
  /* One edit for short words (anything is two edits from "ab"), two for
  ** longer ones. Ties go to the first name in sorted order. */
  int limit = len <= 3 ? 1 : 2, best = limit + 1;
  const char *found = NULL;
  for (size_t i = 0; t && i < t->n; i++) {
    const repl_cmd *c = t->v[i];
    int dn = distance(word, len, c->name, strlen(c->name));
    if (dn < best) { best = dn; found = c->name; }
    const char *p = c->aliases;
    while (p && *p) {
      while (*p == ' ') p++;
      size_t l = strcspn(p, " ");
      if (l > 1) {  /* one-letter aliases are too easy to be near */
        int da = distance(word, len, p, l);
        if (da < best) { best = da; found = c->name; }
      }
      p += l;
    }
  }
  return found;
}

const char *repl_suggest(const char *word, const char *const *names, size_t n) {
  size_t len = strlen(word);
  int limit = len <= 3 ? 1 : 2, best = limit + 1;
  const char *found = NULL;
  for (size_t i = 0; i < n; i++) {
    int d = names[i] ? distance(word, len, names[i], strlen(names[i])) : best;
    if (d < best) { best = d; found = names[i]; }
  }
  return found;
}

size_t repl_cmd_word_len(const char *p) {
  size_t n = 0;
  while (isalnum((unsigned char)p[n]) || p[n] == '_' ||
         (p[n] == '-' && p[n + 1] != '-'))
    n++;
  return n;
}

static void push_word(char ***v, int *n, int *cap, char *w) {
  if (*n + 1 >= *cap) {
    *cap = *cap ? 2 * *cap : 8;
    *v = xrealloc(*v, (size_t)*cap * sizeof **v);
  }
  (*v)[(*n)++] = w;
  (*v)[*n] = NULL;
}

/* Two passes over each word (measure, then copy), so the whole split is
** linear in the line's length; a word's buffer is exactly its size. */
char **repl_words_split(const char *text, int *count) {
  char **v = NULL;
  int n = 0, cap = 0;
  push_word(&v, &n, &cap, NULL);  /* allocate the terminator */
  n = 0;
  const char *p = text;
  for (;;) {
    while (*p == ' ' || *p == '\t') p++;
    if (!*p) break;
    size_t len = 0;
    const char *q = p;
    while (*q && *q != ' ' && *q != '\t') {
      if (*q == '"' || *q == '\'') {
        char quote = *q++;
        while (*q && *q != quote) q++, len++;
        if (*q) q++;
      } else {
        q++, len++;
      }
    }
    char *w = xrealloc(NULL, len + 1), *o = w;
    while (p < q) {
      if (*p == '"' || *p == '\'') {
        char quote = *p++;
        while (p < q && *p != quote) *o++ = *p++;
        if (p < q) p++;
      } else {
        *o++ = *p++;
      }
    }
    *o = '\0';
    push_word(&v, &n, &cap, w);
  }
  if (count) *count = n;
  return v;
}

void repl_words_free(char **words) {
  if (!words) return;
  for (char **w = words; *w; w++) free(*w);
  free(words);
}

static const char *skip_blanks(const char *p) {
  while (*p == ' ' || *p == '\t') p++;
  return p;
}

void repl_cmd_print_line(const repl_cmd *c) {
  int w = (int)strlen(c->usage);
  printf("  %s%*s %s\n", c->usage, w < 24 ? 24 - w : 0, "", c->summary);
}

static void list_subcommands(repl_session *s, const repl_cmd *cmd) {
  size_t n;
  const repl_cmd *const *v = repl_cmd_list(cmd->name, &n);
  (void)s;
  printf("%s subcommands:\n", cmd->name);
  for (size_t i = 0; i < n; i++) repl_cmd_print_line(v[i]);
}

static int exec_at(repl_session *s, const repl_cmd *cmd, const char *text,
                   const repl_cmd **ran, bool toplevel) {
  text = skip_blanks(text);
  size_t nsub = 0;
  if (toplevel) repl_cmd_list(cmd->name, &nsub);
  if (nsub > 0) {
    size_t wl = strcspn(text, " \t");
    if (wl > 0) {
      int nm;
      const repl_cmd *sub = repl_cmd_find(cmd->name, text, wl, &nm, NULL);
      if (sub) return exec_at(s, sub, text + wl, ran, false);
      if (!cmd->exec) {
        if (nm > 1) {
          char *c = repl_cmd_candidates(cmd->name, text, wl);
          repl_error(s, "ambiguous %s subcommand: %.*s, could be: %s", cmd->name,
                     (int)wl, text, c);
          free(c);
        } else {
          const char *sug = repl_cmd_suggest(cmd->name, text, wl);
          if (sug)
            repl_error(s, "unknown %s subcommand: %.*s. Did you mean '%s'?",
                       cmd->name, (int)wl, text, sug);
          else
            repl_error(s, "unknown %s subcommand: %.*s. Try 'help %s'.",
                       cmd->name, (int)wl, text, cmd->name);
        }
        return -1;
      }
    } else if (!cmd->exec) {
      if (ran) *ran = cmd;
      list_subcommands(s, cmd);
      return 0;
    }
  }
  if (ran) *ran = cmd;
  int argc;
  char **argv = repl_words_split(text, &argc);
  int rc;
  if (argc < cmd->min_args || (cmd->max_args >= 0 && argc > cmd->max_args)) {
    repl_error(s, "usage: %s", cmd->usage);
    rc = -1;
  } else if (!cmd->exec) {
    rc = 0;
  } else {
    repl_args a = { argc, argv, text };
    rc = cmd->exec(s, cmd, &a);
  }
  repl_words_free(argv);
  return rc;
}

int repl_cmd_exec(repl_session *s, const repl_cmd *cmd, const char *text,
                  const repl_cmd **ran) {
  if (ran) *ran = cmd;
  return exec_at(s, cmd, text, ran, true);
}
