/*
** debug_tutorial.c — guided lessons on the real engine (`tutorial`).
**
** A lesson is a program (scripts/lessons/NN-name.lua, an ordinary shapedb
** program) plus its commentary (NN-name.lesson: a Lua table read as data,
** in an empty environment, so it runs nothing). The commentary lists
** stops: a breakpoint SPEC to run to, what to say there, and a question
** whose answer is read from the engine's state at that stop — never
** written in the lesson — so a lesson cannot drift from what the model
** does. Texts may name state in braces ({pending}, {keypath u0}, ...),
** filled in from the view at the stop.
**
** The tutorial drives the debugger with its own commands (`tbreak SPEC`,
** `continue`): it moves to a stop silently, asks for a prediction, and
** only then shows the stop as the debugger would (the reveal). Any
** debugger command can be typed in between.
*/
#include "debug.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <lauxlib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf.h"

#define MAX_STOPS 16

typedef struct tut_stop {
  char *at, *say, *ask, *check, *hint;
} tut_stop;

typedef struct tut_lesson {
  int num;
  char *path;          /* the program, or the log it replays */
  bool is_log;         /* path is a TORCH_TRACE log (the lesson's `log`) */
  char *title, *intro, *outro;
  tut_stop stops[MAX_STOPS];
  int nstops;
} tut_lesson;

typedef struct tut {
  tut_lesson lesson;   /* the lesson being taken (num 0: none) */
  int stop;            /* the stop shown last (-1: before the first) */
  size_t stop_at[MAX_STOPS];  /* the cursor at each stop reached */
  bool asked;          /* the current stop's question awaits an answer */
  int right, total;    /* predictions so far */
  FILE *answers;       /* batch answers, or NULL */
} tut;

static tut T;

/* --- finding lessons ------------------------------------------------------ */

/* scripts/lessons beside the binary's tree, or $SHAPEDB_LESSONS, or ./scripts/lessons */
static const char *lessons_dir(void) {
  static char dir[4200];
  const char *env = getenv("SHAPEDB_LESSONS");
  if (env && *env) return env;
  char exe[4000];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n > 0) {
    exe[n] = '\0';
    for (int up = 0; up < 3; up++) {
      char *slash = strrchr(exe, '/');
      if (!slash) break;
      *slash = '\0';
      snprintf(dir, sizeof dir, "%s/scripts/lessons", exe);
      struct stat st;
      if (stat(dir, &st) == 0 && S_ISDIR(st.st_mode)) return dir;
    }
  }
  return "scripts/lessons";
}

/* The path of lesson N's file with suffix ext (".lua", ".lesson"),
** malloc'ed, or NULL. */
static char *lesson_file(int num, const char *ext) {
  const char *dir = lessons_dir();
  DIR *d = opendir(dir);
  if (!d) return NULL;
  char prefix[16];
  snprintf(prefix, sizeof prefix, "%02d-", num);
  char *found = NULL;
  size_t el = strlen(ext);
  for (struct dirent *e; (e = readdir(d)) != NULL;) {
    size_t n = strlen(e->d_name);
    if (strncmp(e->d_name, prefix, 3) || n <= el || strcmp(e->d_name + n - el, ext)) continue;
    size_t len = strlen(dir) + n + 2;
    found = malloc(len);
    if (found) snprintf(found, len, "%s/%s", dir, e->d_name);
    break;
  }
  closedir(d);
  return found;
}

/* --- reading a lesson -------------------------------------------------------- */

static char *dup_field(lua_State *L, int t, const char *k) {
  lua_getfield(L, t, k);
  const char *v = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
  char *out = v ? strdup(v) : NULL;
  lua_pop(L, 1);
  return out;
}

static void lesson_free(tut_lesson *l) {
  free(l->path);
  free(l->title);
  free(l->intro);
  free(l->outro);
  for (int i = 0; i < l->nstops; i++) {
    tut_stop *st = &l->stops[i];
    free(st->at);
    free(st->say);
    free(st->ask);
    free(st->check);
    free(st->hint);
  }
  memset(l, 0, sizeof *l);
}

/* Read lesson num's commentary in a fresh state with an empty
** environment: it is data. 0, or -1 with the reason in err. */
static int lesson_read(int num, tut_lesson *l, char *err, size_t errlen) {
  memset(l, 0, sizeof *l);
  char *text = lesson_file(num, ".lesson");
  l->path = lesson_file(num, ".lua");
  if (!text) {
    snprintf(err, errlen, "there is no lesson %d (in %s)", num, lessons_dir());
    free(text);
    lesson_free(l);
    return -1;
  }
  lua_State *L = luaL_newstate();
  int rc = -1;
  if (!L) {
    snprintf(err, errlen, "out of memory");
  } else if (luaL_loadfilex(L, text, "t") != LUA_OK) {
    snprintf(err, errlen, "%s", lua_tostring(L, -1));
  } else {
    lua_newtable(L);                       /* the empty environment */
    lua_setupvalue(L, -2, 1);
    if (lua_pcall(L, 0, 1, 0) != LUA_OK) {
      snprintf(err, errlen, "%s", lua_tostring(L, -1));
    } else if (!lua_istable(L, -1)) {
      snprintf(err, errlen, "%s: does not return a table", text);
    } else {
      l->num = num;
      l->title = dup_field(L, -1, "title");
      l->intro = dup_field(L, -1, "intro");
      l->outro = dup_field(L, -1, "outro");
      /* a lesson on a real PyTorch log names the log beside it instead of
      ** a program: `log = "11-draft-export.log"` */
      char *log = dup_field(L, -1, "log");
      if (log) {
        size_t n = strlen(lessons_dir()) + strlen(log) + 2;
        free(l->path);
        l->path = malloc(n);
        if (l->path) snprintf(l->path, n, "%s/%s", lessons_dir(), log);
        l->is_log = true;
        free(log);
      }
      lua_getfield(L, -1, "stops");
      int n = lua_istable(L, -1) ? (int)lua_rawlen(L, -1) : 0;
      rc = 0;
      for (int i = 1; i <= n && l->nstops < MAX_STOPS; i++) {
        lua_rawgeti(L, -1, i);
        tut_stop *st = &l->stops[l->nstops++];
        st->at = dup_field(L, -1, "at");
        st->say = dup_field(L, -1, "say");
        st->ask = dup_field(L, -1, "ask");
        st->check = dup_field(L, -1, "check");
        st->hint = dup_field(L, -1, "hint");
        lua_pop(L, 1);
        if (!st->at || (st->ask && !st->check)) {
          snprintf(err, errlen, "%s: stop %d needs `at`%s", text, i, st->ask ? " and `check`" : "");
          rc = -1;
        }
      }
      if (!l->title || !n) {
        snprintf(err, errlen, "%s: needs a title and stops", text);
        rc = -1;
      } else if (!l->path) {
        snprintf(err, errlen, "%s: has no program beside it (%02d-NAME.lua) and names no `log`",
                 text, num);
        rc = -1;
      }
    }
  }
  if (L) lua_close(L);
  free(text);
  if (rc != 0) lesson_free(l);
  return rc;
}

/* --- the engine's answers ------------------------------------------------------ */

static const sdb_expr *find_sym(const sdb_view *v, const char *name) {
  size_t n = sdb_view_symbol_count(v);
  for (size_t i = 0; i < n; i++)
    if (!strcmp(sdb_view_symbol_at(v, i)->name, name)) return sdb_view_symbol_at(v, i);
  return NULL;
}

static void put_set(sdb_buf *b, const sdb_expr *const *syms, size_t n) {
  sdb_buf_putc(b, '{');
  for (size_t i = 0; i < n; i++) sdb_buf_printf(b, "%s%s", i ? ", " : "", syms[i]->name);
  sdb_buf_putc(b, '}');
}

/* What the engine says `what` is at the cursor ("pending", "keypath u0",
** ...): its text into b. false when `what` is not something we can read. */
static bool engine_fact(dbg *d, const char *what, sdb_buf *b) {
  const sdb_view *v = dbg_view(d);
  char kind[32] = "", arg[64] = "";
  sscanf(what, "%31s %63s", kind, arg);
  const sdb_expr *sym = *arg ? find_sym(v, arg) : NULL;
  sdb_view_sym info;
  bool have = sym && sdb_view_symbol(v, sym, &info);
  const sdb_event *e = sdb_view_event(v);
  if (!strcmp(kind, "pending")) {
    const sdb_expr *const *p;
    size_t n = sdb_view_pending(v, &p);
    put_set(b, p, n);
  } else if (!strcmp(kind, "symbols") || !strcmp(kind, "unbacked")) {
    size_t n = sdb_view_symbol_count(v), k = 0;
    const sdb_expr **set = calloc(n ? n : 1, sizeof *set);
    if (!set) return false;
    for (size_t i = 0; i < n; i++) {
      const sdb_expr *s = sdb_view_symbol_at(v, i);
      if (kind[0] == 's' || (sdb_view_symbol(v, s, &info) && info.unbacked)) set[k++] = s;
    }
    put_set(b, set, k);
    free(set);
  } else if (!strcmp(kind, "keypath")) {
    if (!have || !info.keypath) return false;
    sdb_buf_puts(b, *info.keypath ? info.keypath : "<value>");
  } else if (!strcmp(kind, "range")) {
    if (!have || !info.has_range) return false;
    char r[96];
    sdb_buf_puts(b, sdb_range_str(info.range, r, sizeof r));
  } else if (!strcmp(kind, "source")) {
    if (!have || !info.source) return false;
    sdb_buf_puts(b, info.source);
  } else if (!strcmp(kind, "replacement")) {
    if (!have || !info.replacement) return false;
    char *s = sdb_expr_str(info.replacement);
    sdb_buf_puts(b, s ? s : repl_oom_text());
    free(s);
  } else if (!strcmp(kind, "created") || !strcmp(kind, "symbol")) {
    if (!e || !sdb_event_sym(e)) return false;
    sdb_buf_puts(b, sdb_event_sym(e)->name);
  } else if (!strcmp(kind, "renamed")) {
    if (!e || e->kind != SDB_EV_RENAMED || !sdb_event_sym(e) || !sdb_event_sym2(e)) return false;
    sdb_buf_printf(b, "%s -> %s", sdb_event_sym(e)->name, sdb_event_sym2(e)->name);
  } else if (!strcmp(kind, "expr")) {
    if (!e || !sdb_event_expr(e)) return false;
    char *s = sdb_expr_str(sdb_event_expr(e));
    sdb_buf_puts(b, s ? s : repl_oom_text());
    free(s);
  } else if (!strcmp(kind, "event")) {
    if (!e) return false;
    char *s = sdb_event_summary(e);
    sdb_buf_puts(b, s ? s : repl_oom_text());
    free(s);
  } else if (!strcmp(kind, "text") || !strcmp(kind, "detail")) {
    const char *t = e ? (kind[0] == 't' ? sdb_event_text(e) : sdb_event_detail(e)) : NULL;
    if (!t) return false;
    sdb_buf_puts(b, t);
  } else if (!strcmp(kind, "guards")) {
    size_t n = sdb_view_count(v, SDB_EV_GUARD_ADDED);
    sdb_buf_printf(b, "%zu", n);
  } else if (!strcmp(kind, "installed")) {
    const char *const *lines;
    size_t n = sdb_view_installed_guards(v, &lines);
    for (size_t i = 0; i < n; i++) sdb_buf_printf(b, "%s%s", i ? "; " : "", lines[i]);
    if (!n) sdb_buf_puts(b, "(none)");
  } else if (!strcmp(kind, "hit")) {
    if (!e || e->kind != SDB_EV_GUARD_CHECK) return false;
    sdb_buf_puts(b, (e->flags & 1) ? "yes" : "no");
  } else if (!strcmp(kind, "phase")) {
    sdb_buf_puts(b, sdb_phase_name(sdb_view_phase(v)));
  } else if (!strcmp(kind, "tracer")) {
    const char *t = sdb_view_tracer(v);
    sdb_buf_puts(b, t ? t : "-");
  } else if (!strcmp(kind, "line")) {
    /* the user's file:line, as the stop header names it */
    if (!e || !sdb_event_site(e)->file) return false;
    const char *base = strrchr(sdb_event_site(e)->file, '/');
    sdb_buf_printf(b, "%s:%d", base ? base + 1 : sdb_event_site(e)->file, (int)sdb_event_site(e)->line);
  } else if (!strcmp(kind, "free")) {
    if (!e || !sdb_event_expr(e)) return false;
    const sdb_expr **syms = NULL;
    long n = sdb_free_symbols(sdb_event_expr(e), &syms);
    if (n < 0) return false;
    put_set(b, syms, (size_t)n);
    free(syms);
  } else {
    return false;
  }
  return true;
}

/* The kinds of fact engine_fact reads: braces around anything else are
** plain text ({dynamic = true}). */
static bool is_fact(const char *what) {
  static const char *const kinds[] = {
    "pending", "symbols", "unbacked", "keypath", "range", "source", "replacement",
    "created", "symbol", "renamed", "expr", "event", "text", "detail", "guards",
    "installed", "hit", "phase", "tracer", "line", "free", NULL};
  size_t n = strcspn(what, " ");
  for (int i = 0; kinds[i]; i++)
    if (strlen(kinds[i]) == n && !strncmp(kinds[i], what, n)) return true;
  return false;
}

/* text with each {fact} replaced by the engine's; NULL (and *bad set to
** the fact) when one cannot be read. Malloc'ed. */
static char *fill(dbg *d, const char *text, char *bad, size_t badlen) {
  sdb_buf b = SDB_BUF_INIT;
  for (const char *p = text; *p; p++) {
    const char *close = *p == '{' ? strchr(p, '}') : NULL;
    if (!close || close - p > 70 || close == p + 1) {
      sdb_buf_putc(&b, *p);
      continue;
    }
    char what[72];
    snprintf(what, sizeof what, "%.*s", (int)(close - p - 1), p + 1);
    if (!is_fact(what)) {
      sdb_buf_putc(&b, *p);
      continue;
    }
    if (!engine_fact(d, what, &b)) {
      snprintf(bad, badlen, "%s", what);
      sdb_buf_free(&b);
      return NULL;
    }
    p = close;
  }
  return sdb_buf_take(&b);
}

/* Answers compare without blanks, braces or commas, in any order for sets. */
static void normalize(const char *in, bool set, char *out, size_t cap) {
  char words[32][64];
  int n = 0;
  const char *p = in;
  while (*p && n < 32) {
    while (*p && (isspace((unsigned char)*p) || (set && strchr("{},", *p)))) p++;
    size_t k = 0;
    while (*p && !isspace((unsigned char)*p) && !(set && strchr("{},", *p)) && k < 63)
      words[n][k++] = *p++;
    if (k) words[n++][k] = '\0';
  }
  if (set) qsort(words, (size_t)n, sizeof words[0], (int (*)(const void *, const void *))strcmp);
  size_t len = 0;
  out[0] = '\0';
  for (int i = 0; i < n && len + 65 < cap; i++) len += (size_t)snprintf(out + len, cap - len, "%s%s", i && set ? " " : "", words[i]);
  for (char *q = out; *q; q++) *q = (char)tolower((unsigned char)*q);
  if (set && (!strcmp(out, "none") || !strcmp(out, "empty"))) out[0] = '\0';
}

static bool is_set_fact(const char *check) {
  return !strncmp(check, "pending", 7) || !strncmp(check, "symbols", 7) ||
         !strncmp(check, "unbacked", 8) || !strncmp(check, "free", 4);
}

/* --- moving between stops ------------------------------------------------------ */

/* Run one debugger command with stdout silenced (the tutorial shows the
** stop itself, after the prediction). */
static int quietly(repl_session *s, const char *line) {
  fflush(stdout);
  int saved = dup(STDOUT_FILENO);
  int null = open("/dev/null", O_WRONLY);
  if (saved >= 0 && null >= 0) dup2(null, STDOUT_FILENO);
  int rc = repl_exec_line(s, line);
  fflush(stdout);
  if (saved >= 0) {
    dup2(saved, STDOUT_FILENO);
    close(saved);
  }
  if (null >= 0) close(null);
  return rc;
}

static void say(dbg *d, const char *label, const char *text) {
  if (!text) return;
  char bad[72];
  char *t = fill(d, text, bad, sizeof bad);
  if (!t) {
    printf("%s(lesson error: it names {%s}, which is not known at this stop)\n", label, bad);
    return;
  }
  printf("%s%s\n", label, t);
  free(t);
}

static void progress_save(int num, int right, int total);

static void finish_lesson(repl_session *s) {
  dbg *d = dbg_of(s);
  say(d, "", T.lesson.outro);
  char *next = lesson_file(T.lesson.num + 1, ".lesson");
  printf("Lesson %d finished: %d of %d prediction%s right.%s\n", T.lesson.num, T.right, T.total,
         T.total == 1 ? "" : "s", next ? " `tutorial next` starts the next lesson." : "");
  free(next);
  progress_save(T.lesson.num, T.right, T.total);
}

/* Ask the current stop's question; with an answers file, answer it. */
static int answer_text(repl_session *s, const char *text);
static int next_stop(repl_session *s);

static int ask(repl_session *s) {
  dbg *d = dbg_of(s);
  tut_stop *st = &T.lesson.stops[T.stop];
  printf("\n-- lesson %d, stop %d of %d --\n", T.lesson.num, T.stop + 1, T.lesson.nstops);
  say(d, "", st->say);
  if (!st->ask) {
    dbg_show_stop(d);
    if (T.answers) return next_stop(s) < 0 ? -1 : 0;
    printf("(`tutorial next` goes on)\n");
    return 0;
  }
  printf("Predict: %s\n", st->ask);
  T.asked = true;
  if (!T.answers) {
    printf("(predict with `predict TEXT`; `tutorial next` to skip; any command works meanwhile)\n");
    return 0;
  }
  char line[512];
  if (!fgets(line, sizeof line, T.answers)) line[0] = '\0';
  line[strcspn(line, "\r\n")] = '\0';
  printf("predict %s\n", line);
  return answer_text(s, line);
}

/* Move to stop i (> T.stop) silently, then ask. */
static int goto_stop(repl_session *s, int i) {
  dbg *d = dbg_of(s);
  sdb_view *before = d->shown ? sdb_view_clone(d->shown) : NULL;
  char cmd[256];
  snprintf(cmd, sizeof cmd, "tbreak %s", T.lesson.stops[i].at);
  int rc = quietly(s, cmd);
  /* a program runs to its first stop; a replayed log has nothing to run */
  bool run = !T.lesson.is_log && (d->prog == PROG_READY || d->prog == PROG_NONE);
  if (rc == 0) rc = quietly(s, run ? "run" : "continue");
  /* the stop is shown after the prediction, with what changed since the last one */
  if (before) {
    sdb_view_free(d->shown);
    d->shown = before;
  }
  const sdb_event *e = sdb_view_event(dbg_view(d));
  if (rc != 0 || (d->prog != PROG_PAUSED && d->cur == dbg_length(d) && (!e || d->stop_bp == 0))) {
    repl_error(s, "tutorial: lesson %d never reached stop %d (`%s`)", T.lesson.num, i + 1,
               T.lesson.stops[i].at);
    return -1;
  }
  T.stop = i;
  T.stop_at[i] = d->cur;
  return ask(s);
}

/* The lesson finished last in this session: `tutorial next` goes on from
** it (the saved progress only says which lessons were ever finished). */
static int last_finished;

static int next_stop(repl_session *s) {
  dbg *d = dbg_of(s);
  if (T.asked) {           /* skipped: reveal the answer first */
    T.asked = false;
    dbg_show_stop(d);
  }
  if (T.stop + 1 >= T.lesson.nstops) {   /* stay at the last stop, to explore */
    finish_lesson(s);
    int num = T.lesson.num;
    lesson_free(&T.lesson);
    last_finished = num;
    return num;   /* > 0: finished */
  }
  return goto_stop(s, T.stop + 1) == 0 ? 0 : -1;
}

static int answer_text(repl_session *s, const char *text) {
  dbg *d = dbg_of(s);
  tut_stop *st = &T.lesson.stops[T.stop];
  sdb_buf truth = SDB_BUF_INIT;
  if (!engine_fact(d, st->check, &truth)) {
    repl_error(s, "tutorial: the engine has no `%s` at this stop (lesson %d, stop %d)", st->check,
               T.lesson.num, T.stop + 1);
    sdb_buf_free(&truth);
    return -1;
  }
  bool set = is_set_fact(st->check);
  char a[1024], b[1024];
  normalize(text, set, a, sizeof a);
  normalize(sdb_buf_cstr(&truth), set, b, sizeof b);
  bool ok = !strcmp(a, b) || (!strncmp(st->check, "keypath", 7) && !strcmp(b, "<value>") && !*a);
  T.total++;
  if (ok) {
    T.right++;
    printf("Right: %s\n", sdb_buf_cstr(&truth));
  } else {
    printf("Not quite: the engine says %s.\n", sdb_buf_cstr(&truth));
    if (st->hint) say(d, "Hint: ", st->hint);
  }
  sdb_buf_free(&truth);
  T.asked = false;
  dbg_show_stop(d);
  if (T.answers) return next_stop(s) < 0 ? -1 : ok ? 0 : 1;
  printf("(`tutorial next` goes on)\n");
  return ok ? 0 : 1;
}

/* --- progress --------------------------------------------------------------- */

/* Kept beside the history file: $XDG_STATE_HOME/shapedb/tutorial when that
** is an absolute path, else ~/.shapedb_tutorial. */
static bool progress_path(char *out, size_t cap) {
  const char *xdg = getenv("XDG_STATE_HOME");
  if (xdg && xdg[0] == '/') {
    snprintf(out, cap, "%s/shapedb", xdg);
    mkdir(out, 0700);
    snprintf(out, cap, "%s/shapedb/tutorial", xdg);
    return true;
  }
  const char *home = getenv("HOME");
  if (!home || !*home) return false;
  snprintf(out, cap, "%s/.shapedb_tutorial", home);
  return true;
}

/* scores[n] = right * 1000 + total + 1, or 0 when never finished */
static void progress_load(int scores[32]) {
  memset(scores, 0, 32 * sizeof *scores);
  char path[4096];
  if (!progress_path(path, sizeof path)) return;
  FILE *f = fopen(path, "r");
  if (!f) return;
  int n, r, t;
  while (fscanf(f, "lesson %d %d/%d\n", &n, &r, &t) == 3)
    if (n > 0 && n < 32) scores[n] = r * 1000 + t + 1;
  fclose(f);
}

static void progress_save(int num, int right, int total) {
  int scores[32];
  progress_load(scores);
  if (num > 0 && num < 32) scores[num] = right * 1000 + total + 1;
  char path[4096], tmp[4200];
  if (!progress_path(path, sizeof path)) return;
  snprintf(tmp, sizeof tmp, "%s.tmp", path);
  FILE *f = fopen(tmp, "w");
  if (!f) return;
  for (int i = 1; i < 32; i++)
    if (scores[i]) fprintf(f, "lesson %d %d/%d\n", i, (scores[i] - 1) / 1000, (scores[i] - 1) % 1000);
  if (fclose(f) == 0) rename(tmp, path);
  else unlink(tmp);
}

/* --- commands ------------------------------------------------------------------ */

static int list_lessons(void) {
  int scores[32];
  progress_load(scores);
  printf("Lessons (scripts in %s):\n", lessons_dir());
  int shown = 0;
  for (int n = 1; n < 32; n++) {
    tut_lesson l;
    char err[256];
    if (lesson_read(n, &l, err, sizeof err) != 0) continue;
    char done[32] = "";
    if (scores[n]) snprintf(done, sizeof done, "  [done %d/%d]", (scores[n] - 1) / 1000, (scores[n] - 1) % 1000);
    printf("  %2d  %s%s\n", n, l.title, done);
    lesson_free(&l);
    shown++;
  }
  if (!shown) printf("  (none found)\n");
  printf("`tutorial N` starts lesson N; in it, `predict TEXT`, `tutorial next`, `tutorial back`, `tutorial quit`.\n");
  return 0;
}

static int start(repl_session *s, int num, const char *answers) {
  dbg *d = dbg_of(s);
  tut_lesson l;
  char err[512];
  if (lesson_read(num, &l, err, sizeof err) != 0) {
    repl_error(s, "tutorial: %s", err);
    return -1;
  }
  FILE *af = NULL;
  if (answers && !(af = fopen(answers, "r"))) {
    repl_error(s, "tutorial: %s: %s", answers, strerror(errno));
    lesson_free(&l);
    return -1;
  }
  lesson_free(&T.lesson);
  if (T.answers) fclose(T.answers);
  memset(&T, 0, sizeof T);
  T.lesson = l;
  T.stop = -1;
  T.answers = af;
  char cmd[4200];
  snprintf(cmd, sizeof cmd, l.is_log ? "replay \"%s\"" : "load %s", l.path);
  if (quietly(s, "delete") != 0 || quietly(s, cmd) != 0) {
    repl_error(s, "tutorial: cannot load %s", l.path);
    return -1;
  }
  printf("Lesson %d: %s\n", num, l.title);
  say(d, "", l.intro);
  int rc = goto_stop(s, 0);
  if (T.answers) {
    /* answered from a file: the lesson ran to its end (or failed) */
    int right = T.right, total = T.total;
    fclose(T.answers);
    T.answers = NULL;
    if (rc < 0) return -1;
    return right == total ? 0 : -1;
  }
  return rc < 0 ? -1 : 0;
}

static int cmd_tutorial(repl_session *s, const repl_cmd *c, const repl_args *a) {
  (void)c;
  dbg *d = dbg_of(s);
  if (a->argc == 0) return list_lessons();
  const char *w = a->argv[0];
  if (isdigit((unsigned char)w[0])) return start(s, atoi(w), a->argc > 1 ? a->argv[1] : NULL);
  if (!strcmp(w, "next")) {
    if (!T.lesson.num) {
      char *f = last_finished ? lesson_file(last_finished + 1, ".lesson") : NULL;
      if (f) {
        free(f);
        return start(s, last_finished + 1, NULL);
      }
      int scores[32];
      progress_load(scores);
      int n = 1;
      while (n < 31 && scores[n]) n++;
      return start(s, n, NULL);
    }
    int num = T.lesson.num;
    int rc = next_stop(s);
    if (rc == num) return 0;   /* finished; the next `tutorial next` starts num + 1 */
    return rc < 0 ? -1 : 0;
  }
  if (!strcmp(w, "back")) {
    if (!T.lesson.num || T.stop <= 0) {
      repl_error(s, "tutorial back: %s", T.lesson.num ? "this is the first stop" : "no lesson is running");
      return -1;
    }
    T.stop--;
    T.asked = false;
    char cmd[64];
    snprintf(cmd, sizeof cmd, "goto %zu", T.stop_at[T.stop] - 1);
    sdb_view *before = d->shown ? sdb_view_clone(d->shown) : NULL;
    int rc = quietly(s, cmd);
    if (before) {
      sdb_view_free(d->shown);
      d->shown = before;
    }
    printf("-- back to stop %d of %d --\n", T.stop + 1, T.lesson.nstops);
    say(d, "", T.lesson.stops[T.stop].say);
    dbg_show_stop(d);
    return rc;
  }
  if (!strcmp(w, "quit")) {
    if (!T.lesson.num) {
      repl_error(s, "tutorial quit: no lesson is running");
      return -1;
    }
    printf("Left lesson %d (the debugger stays where it is).\n", T.lesson.num);
    lesson_free(&T.lesson);
    T.asked = false;
    return 0;
  }
  repl_error(s, "tutorial: expected a lesson number, next, back or quit, not '%s'", w);
  return -1;
}

static int cmd_predict(repl_session *s, const repl_cmd *c, const repl_args *a) {
  (void)c;
  if (!T.lesson.num || !T.asked) {
    repl_error(s, "predict: no question is waiting (`tutorial` lists the lessons)");
    return -1;
  }
  int rc = answer_text(s, a->rest ? a->rest : "");
  return rc < 0 ? -1 : 0;
}

static const char *const tutorial_words[] = { "next", "back", "quit", NULL };

static const repl_cmd tutorial_cmds[] = {
  { "tutorial", NULL, "support", "tutorial [N|next|...]",
    "guided lessons on how unbacked symbols propagate",
    "Without arguments, list the lessons and your progress. `tutorial N`\n"
    "starts lesson N: it runs its program to each interesting event, says\n"
    "what happens there, and asks you to predict the state (which symbols\n"
    "are pending, which key path binds u0, ...) before it shows it; the\n"
    "answer is checked against the engine. `predict TEXT` answers, `tutorial\n"
    "next` goes on, `tutorial back` returns to the previous stop, `tutorial\n"
    "quit` leaves the lesson. Every debugger command works meanwhile.\n"
    "`tutorial N FILE` answers from FILE, one line per question, and fails\n"
    "unless every prediction was right (for a classroom's checks).\n"
    "\nExample:\n"
    "  (shapedb) tutorial 2\n"
    "  (shapedb) predict {u0}\n",
    cmd_tutorial, REPL_COMPLETE_WORDS, tutorial_words, 0, 2, false },
  { "predict", NULL, "support", "predict TEXT",
    "answer the tutorial's question",
    "Your prediction for the question the lesson asked at this stop: a set\n"
    "of symbols ({u0, u1} or {}), a key path (.size()[0]), a range\n"
    "([0, int_oo]), yes or no. It is checked against the engine's state.\n"
    "\nExample:\n"
    "  (shapedb) predict {u0}\n",
    cmd_predict, REPL_COMPLETE_NONE, NULL, 0, -1, false },
};

void dbg_tutorial_init(void) {
  repl_cmd_register(tutorial_cmds, sizeof tutorial_cmds / sizeof tutorial_cmds[0]);
}

void dbg_tutorial_free(void) {
  lesson_free(&T.lesson);
  if (T.answers) fclose(T.answers);
  T.answers = NULL;
}
