/*
** debug_frames.c — the paused program's Lua frames, as gdb and pdb show
** them: `frame [N]`, `up [N]`, `down [N]`, `info locals`, and `print`
** of a Lua expression in the selected frame (`print x:meta()`).
**
** A frame is a user frame of the program's thread (a file's code, not the
** embedded library nor C), numbered as `where` numbers them. They are live
** while the program is paused and the cursor is at its latest event; at
** any other step (the cursor moved back, a replay, a finished run) the
** frames are those `where` recorded for the cursor's event: `frame`, `up`
** and `down` move over them, and the locals are gone.
*/
#include "debug.h"
#include "host.h"
#include "intern.h"
#include "lsdb.h"
#include "srcfile.h"

#include <lauxlib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FRAMES 64

typedef struct frame {
  int level;             /* lua_getstack level in the program's thread (live) */
  const char *name;      /* "model", "main chunk" */
  const char *file;      /* as far as known: full path when live */
  int line;
} frame;

/* Selected frame per cursor position: a stop or a motion selects #0. */
static int selected;
static size_t selected_at = (size_t)-1;

static bool live(dbg *d) {
  return d->co && d->prog == PROG_PAUSED && lua_status(d->co) == LUA_YIELD &&
         d->cur >= d->live_from;
}

static int parse_stack(dbg *d, const char *stack, const sdb_event *e, frame *fs);

/* The user frames of the paused thread, innermost first, named as `where`
** names them (lsdb_user_stack). */
static int live_frames(dbg *d, frame *fs) {
  frame named[MAX_FRAMES];
  const char *stack = lsdb_user_stack(d->co);
  int nn = stack ? parse_stack(d, stack, NULL, named) : 0;
  lua_Debug ar;
  int n = 0;
  for (int level = 0; n < MAX_FRAMES && lua_getstack(d->co, level, &ar); level++) {
    if (!lua_getinfo(d->co, "Sl", &ar)) continue;
    if (ar.source[0] != '@' || ar.currentline <= 0) continue;   /* as `where` */
    fs[n].level = level;
    fs[n].name = n < nn ? named[n].name : "?";
    fs[n].file = sdb_intern(ar.source + 1);
    fs[n].line = ar.currentline;
    n++;
  }
  return n;
}

/* A file named by its base name in a recorded stack: the event's own
** file, or the program's folder, when that names it. */
static const char *resolve(dbg *d, const char *base, const sdb_event *e) {
  if (e && sdb_event_site(e)->file && !strcmp(dbg_basename(sdb_event_site(e)->file), base)) return sdb_event_site(e)->file;
  const char *prog = dbg_program(d);
  const char *slash = prog ? strrchr(prog, '/') : NULL;
  if (slash) {
    const char *p = sdb_internf("%.*s/%s", (int)(slash - prog), prog, base);
    if (sdb_srcfile_count(p) >= 0) return p;
  }
  return sdb_intern(base);
}

/* The frames `where` recorded for the cursor's event. */
static int recorded_frames(dbg *d, frame *fs) {
  const sdb_event *e = sdb_view_event(dbg_view(d));
  if (!e) return 0;
  const char *stack = e->seq < d->nstacks ? d->stacks[e->seq] : NULL;
  if (!stack) {
    if (!sdb_event_site(e)->file) return 0;
    fs[0] = (frame){-1, sdb_event_site(e)->func ? sdb_event_site(e)->func : "?", sdb_event_site(e)->file, sdb_event_site(e)->line};
    return 1;
  }
  return parse_stack(d, stack, e, fs);
}

/* "#0  model at nonzero.lua:6\n#1  main chunk at nonzero.lua:12" */
static int parse_stack(dbg *d, const char *stack, const sdb_event *e, frame *fs) {
  int n = 0;
  for (const char *p = stack; *p && n < MAX_FRAMES;) {
    const char *eol = strchr(p, '\n');
    size_t len = eol ? (size_t)(eol - p) : strlen(p);
    const char *sp = memchr(p, ' ', len);
    const char *at = NULL;
    for (const char *q = p; q + 4 <= p + len; q++)
      if (!strncmp(q, " at ", 4)) at = q;
    const char *colon = at ? memchr(at, ':', (size_t)(p + len - at)) : NULL;
    if (sp && at && colon) {
      while (*sp == ' ') sp++;
      fs[n].level = -1;
      fs[n].name = sdb_intern_n(sp, (size_t)(at - sp));
      fs[n].file = resolve(d, sdb_intern_n(at + 4, (size_t)(colon - at - 4)), e);
      fs[n].line = atoi(colon + 1);
      n++;
    }
    p += len + (eol ? 1 : 0);
  }
  return n;
}

static int frames(dbg *d, frame *fs, bool *is_live) {
  *is_live = live(d);
  if (selected_at != d->cur) {
    selected = 0;
    selected_at = d->cur;
  }
  return *is_live ? live_frames(d, fs) : recorded_frames(d, fs);
}

static void show_frame(dbg *d, const frame *f, int i) {
  printf("#%d  %s at %s:%d\n", i, f->name, dbg_basename(f->file), f->line);
  const char *text = sdb_srcfile_line_raw(f->file, f->line);
  if (text) printf("%d\t%s\n", f->line, text);
  /* `list` goes on around this frame's line, as gdb's does */
  d->list_file = f->file;
  d->list_next = f->line > 5 ? f->line - 5 : 1;
}

static int no_frames(dbg *d, const char *cmd) {
  repl_error(d->s, "%s: no stack: %s", cmd,
             sdb_view_event(dbg_view(d)) ? "no Lua code was running at this event"
                                         : "the program has not started (`run`, or `step`)");
  return -1;
}

static int select_frame(dbg *d, const char *cmd, int want) {
  frame fs[MAX_FRAMES];
  bool is_live;
  int n = frames(d, fs, &is_live);
  if (!n) return no_frames(d, cmd);
  if (want < 0) {
    repl_error(d->s, "Bottom (innermost) frame selected; you cannot go down.");
    return -1;
  }
  if (want >= n) {
    if (!strcmp(cmd, "up")) repl_error(d->s, "Initial frame selected; you cannot go up.");
    else repl_error(d->s, "%s: no frame %d (the stack has %d, #0 to #%d)", cmd, want, n, n - 1);
    return -1;
  }
  selected = want;
  selected_at = d->cur;
  show_frame(d, &fs[want], want);
  return 0;
}

static int count_arg(dbg *d, const char *cmd, const repl_args *a, int dflt, int *out) {
  *out = dflt;
  if (!a->argc) return 0;
  char *end;
  long v = strtol(a->argv[0], &end, 10);
  if (*end || v < 0 || v > MAX_FRAMES) {
    repl_error(d->s, "%s: expected a frame count, got '%s'", cmd, a->argv[0]);
    return -1;
  }
  *out = (int)v;
  return 0;
}

static int cmd_frame(repl_session *s, const repl_cmd *c, const repl_args *a) {
  dbg *d = dbg_of(s);
  int n;
  frame fs[MAX_FRAMES];
  bool is_live;
  int nf = frames(d, fs, &is_live);
  if (count_arg(d, c->name, a, selected, &n)) return -1;
  if (!nf) return no_frames(d, c->name);
  return select_frame(d, c->name, n);
}

static int cmd_up(repl_session *s, const repl_cmd *c, const repl_args *a) {
  dbg *d = dbg_of(s);
  frame fs[MAX_FRAMES];
  bool is_live;
  frames(d, fs, &is_live);
  int n;
  if (count_arg(d, c->name, a, 1, &n)) return -1;
  return select_frame(d, c->name, selected + n);
}

static int cmd_down(repl_session *s, const repl_cmd *c, const repl_args *a) {
  dbg *d = dbg_of(s);
  frame fs[MAX_FRAMES];
  bool is_live;
  frames(d, fs, &is_live);
  int n;
  if (count_arg(d, c->name, a, 1, &n)) return -1;
  return select_frame(d, c->name, selected - n);
}

/* --- values ------------------------------------------------------------------- */

static const char *value_text(lua_State *L, int idx) {
  repl_host_format(L, idx, REPL_FMT_META | REPL_FMT_QUOTE);
  return lua_tostring(L, -1);
}

static int cmd_info_locals(repl_session *s, const repl_cmd *c, const repl_args *a) {
  (void)a;
  dbg *d = dbg_of(s);
  frame fs[MAX_FRAMES];
  bool is_live;
  int n = frames(d, fs, &is_live);
  if (!is_live) {
    if (d->co && d->prog == PROG_PAUSED && d->cur < d->live_from)
      repl_error(s, "%s: the cursor is at event %zu, before the program's stop (event %zu): "
                    "its locals are gone (`goto end` returns to the paused program)", c->name,
                 d->cur ? d->cur - 1 : 0, d->live_from ? d->live_from - 1 : 0);
    else if (d->replay)
      repl_error(s, "%s: no live frame (replaying: the events keep the stack, not the locals)",
                 c->name);
    else
      repl_error(s, "%s: no live frame (the program is not paused: `run`, then stop at a "
                    "breakpoint)", c->name);
    return -1;
  }
  if (!n) return no_frames(d, c->name);
  lua_State *L = s->L, *co = d->co;
  lua_Debug ar;
  if (!lua_getstack(co, fs[selected].level, &ar)) return no_frames(d, c->name);
  /* an error is reported after its stack unwound: the stop names the
  ** function that raised it, whose locals are gone; say whose these are */
  const sdb_event *e = d->cur ? sdb_view_event(dbg_view(d)) : NULL;
  if (e && e->kind == SDB_EV_ERROR && sdb_event_site(e)->func && fs[selected].name &&
      strcmp(sdb_event_site(e)->func, fs[selected].name))
    printf("(%s's frame has unwound: the error was raised at %s:%d; the locals of #%d %s)\n",
           sdb_event_site(e)->func, dbg_basename(sdb_event_site(e)->file ? sdb_event_site(e)->file : "?"), sdb_event_site(e)->line, selected,
           fs[selected].name);
  int shown = 0;
  int top = lua_gettop(L);
  for (int i = 1;; i++) {
    const char *name = lua_getlocal(co, &ar, i);
    if (!name) break;
    lua_xmove(co, L, 1);
    if (name[0] != '(') {   /* (temporary), (for state), (C temporary) */
      printf("%s = %s\n", name, value_text(L, -1));
      lua_pop(L, 1);
      shown++;
    }
    lua_pop(L, 1);
  }
  lua_settop(L, top);
  if (!shown) printf("No locals.\n");
  return 0;
}

/* --- print of Lua in the selected frame ------------------------------------------- */

/* Does the expression's first name name a local or an upvalue of the
** selected live frame? Then `print` evaluates it as Lua there. */
static bool names_frame_variable(dbg *d, const char *text, lua_Debug *ar) {
  while (*text == ' ' || *text == '(' || *text == '{' || *text == '-' || *text == '#') text++;
  size_t n = 0;
  while ((text[n] >= 'a' && text[n] <= 'z') || (text[n] >= 'A' && text[n] <= 'Z') ||
         text[n] == '_' || (n && text[n] >= '0' && text[n] <= '9'))
    n++;
  if (!n) return false;
  /* a symbol of this step is the debugger's: `print s0 + 1` stays symbolic
  ** even where the program has a local named s0 */
  sdb_view_sym in;
  const sdb_expr *sym = sdb_sym(sdb_intern_n(text, n));
  if (sym && sdb_view_symbol(dbg_view(d), sym, &in)) return false;
  const char *name;
  for (int i = 1; (name = lua_getlocal(d->co, ar, i)); i++) {
    lua_pop(d->co, 1);
    if (strlen(name) == n && !strncmp(name, text, n)) return true;
  }
  lua_getinfo(d->co, "f", ar);
  for (int i = 1; (name = lua_getupvalue(d->co, -1, i)); i++) {
    lua_pop(d->co, 1);
    if (strlen(name) == n && !strncmp(name, text, n)) {
      lua_pop(d->co, 1);
      return true;
    }
  }
  lua_pop(d->co, 1);
  return false;
}

int dbg_frame_print(dbg *d, const char *text) {
  if (!live(d) || !*text) return 1;
  frame fs[MAX_FRAMES];
  bool is_live;
  int n = frames(d, fs, &is_live);
  lua_Debug ar;
  if (!n || !lua_getstack(d->co, fs[selected].level, &ar)) return 1;
  if (!names_frame_variable(d, text, &ar)) return 1;
  lua_State *L = d->s->L, *co = d->co;
  int top = lua_gettop(L);
  /* the frame's variables, then the globals: locals shadow upvalues */
  lua_newtable(L);
  lua_getinfo(co, "f", &ar);
  const char *name;
  for (int i = 1; (name = lua_getupvalue(co, -1, i)); i++) {
    lua_xmove(co, L, 1);
    lua_setfield(L, -2, name);
  }
  lua_pop(co, 1);
  for (int i = 1; (name = lua_getlocal(co, &ar, i)); i++) {
    lua_xmove(co, L, 1);
    if (name[0] != '(') lua_setfield(L, -2, name);
    else lua_pop(L, 1);
  }
  lua_newtable(L);
  lua_pushglobaltable(L);
  lua_setfield(L, -2, "__index");
  lua_setmetatable(L, -2);
  int env = lua_gettop(L);
  const char *code = lua_pushfstring(L, "return %s", text);
  if (luaL_loadbuffer(L, code, strlen(code), "=print") != LUA_OK) {
    repl_error(d->s, "print: %s", lua_tostring(L, -1));
    lua_settop(L, top);
    return -1;
  }
  lua_pushvalue(L, env);
  lua_setupvalue(L, -2, 1);
  int base = lua_gettop(L) - 1;
  if (repl_host_pcall(L, 0, LUA_MULTRET) != LUA_OK) {
    repl_error(d->s, "print: %s", lua_tostring(L, -1));
    lua_settop(L, top);
    return -1;
  }
  /* as Lua's print: strings as they are, tables by their contents */
  int nres = lua_gettop(L) - base;
  for (int i = 0; i < nres; i++) {
    int at = base + 1 + i;
    if (i) fputs("\t", stdout);
    repl_host_format(L, at, 0);
    fputs(lua_tostring(L, -1), stdout);
    lua_pop(L, 1);
  }
  putchar('\n');
  lua_settop(L, top);
  return 0;
}

/* repl_hooks.frame_lua: a Lua line at the prompt that is an expression
** about the selected frame's variables runs in that frame (the stock
** prompt would see only globals: `x:meta()` at a breakpoint was an error
** about a nil global). Statements stay global Lua. */
int dbg_frame_lua(repl_session *s, const char *line) {
  dbg *d = dbg_of(s);
  if (!d || !live(d)) return 1;
  lua_State *L = s->L;
  const char *code = lua_pushfstring(L, "return %s", line);
  bool expr = luaL_loadbuffer(L, code, strlen(code), "=frame") == LUA_OK;
  lua_pop(L, 2);
  return expr ? dbg_frame_print(d, line) : 1;
}

static const repl_cmd frame_cmds[] = {
  { "frame", "f", "stack", "frame [N]",
    "show the selected Lua frame, or select frame N",
    "Show the selected frame of the paused program (#0, the innermost, after\n"
    "each stop) with its source line, or select frame N as `where` numbers\n"
    "them; `info locals` and `print` of a local then read that frame, and\n"
    "`list` lists around its line. While the program is paused at its\n"
    "latest event the frames are live; at other steps and in a replay they\n"
    "are the stack recorded with the event, without locals.\n"
    "\nExample:\n"
    "  (shapedb) frame 1\n"
    "  #1  main chunk at nonzero.lua:12\n"
    "  12\tlocal out = compiled(shapedb.tensor{5, 2}, shapedb.tensor{7})\n",
    cmd_frame, REPL_COMPLETE_NONE, NULL, 0, 1, false },
  { "up", NULL, "stack", "up [N]",
    "select the frame N levels out (the caller)",
    "Select the frame N (default 1) levels out from the selected one, toward\n"
    "the main chunk, and show it.\n",
    cmd_up, REPL_COMPLETE_NONE, NULL, 0, 1, false },
  { "down", NULL, "stack", "down [N]",
    "select the frame N levels in (the callee)",
    "Select the frame N (default 1) levels in from the selected one, toward\n"
    "#0, and show it.\n",
    cmd_down, REPL_COMPLETE_NONE, NULL, 0, 1, false },
};

static const repl_cmd frame_info_cmds[] = {
  { "locals", NULL, "stack", "info locals",
    "the local variables of the selected frame",
    "The locals of the selected frame of the paused program, innermost\n"
    "scope last, as `name = value`: tensors by their metadata (f32[s0, 2]),\n"
    "SymInts as expressions, tables by their contents. `print NAME...`\n"
    "evaluates Lua there (`print x:meta()`).\n"
    "\nExample:\n"
    "  (shapedb) info locals\n"
    "  x = f32[5, 2]\n"
    "  y = f32[7]\n",
    cmd_info_locals, REPL_COMPLETE_NONE, NULL, 0, 0, false },
};

void dbg_frames_init(void) {
  repl_cmd_register(frame_cmds, sizeof frame_cmds / sizeof frame_cmds[0]);
  repl_cmd_register_sub("info", frame_info_cmds, sizeof frame_info_cmds / sizeof frame_info_cmds[0]);
}
