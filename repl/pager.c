/*
** pager.c — gdb's pager for long listings at a terminal: after a screen
** of lines, "--Type <RET> for more, q to quit, c to continue without
** paging--". A command's output goes through it while the command runs
** (stdout is swapped for a stream that counts lines); commands that run
** the program are not paged, nor anything when stdout or stdin is not a
** terminal. `set pagination on|off`, `set height N|unlimited`.
*/
#define _GNU_SOURCE   /* fopencookie */
#include "pager.h"
#include "cmd.h"
#include "repl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

static bool pagination = true;
static int height_set = -1;     /* -1: the terminal's; 0: unlimited */

typedef struct pager {
  FILE *real;
  int height, lines;
  bool quit, nopage;
} pager;

static pager pg;
static FILE *saved;

static int screen_height(void) {
  if (height_set >= 0) return height_set;
  struct winsize ws;
  if (ioctl(fileno(saved ? saved : stdout), TIOCGWINSZ, &ws) == 0 && ws.ws_row > 2)
    return ws.ws_row;
  return 24;
}

/* After a screen's worth, ask; the answer decides the rest. */
static void ask(pager *p) {
  fputs("--Type <RET> for more, q to quit, c to continue without paging--", p->real);
  fflush(p->real);
  /* read(2), not stdio: reading stdin through stdio would flush the
  ** line-buffered streams, this one among them, from inside its write */
  char line[64];
  size_t n = 0;
  char c;
  ssize_t r;
  while ((r = read(STDIN_FILENO, &c, 1)) == 1 && c != '\n')
    if (n < sizeof line - 1) line[n++] = c;
  line[n] = 0;
  if (r != 1) {
    p->quit = true;
    fputs("\n", p->real);
    return;
  }
  if (line[0] == 'q' || line[0] == 'Q') {
    p->quit = true;
    fputs("Quit\n", p->real);
  } else if (line[0] == 'c' || line[0] == 'C') {
    p->nopage = true;
  }
  p->lines = 0;
}

static ssize_t pg_write(void *cookie, const char *buf, size_t n) {
  pager *p = cookie;
  for (size_t i = 0; i < n && !p->quit; i++) {
    fputc(buf[i], p->real);
    if (buf[i] == '\n' && !p->nopage && p->height > 0 && ++p->lines >= p->height - 1) ask(p);
  }
  return (ssize_t)n;   /* after q the rest is dropped, not an error */
}

bool repl_pager_begin(repl_session *s) {
  if (!pagination || saved || !s->tty || !isatty(STDOUT_FILENO) || !isatty(STDIN_FILENO))
    return false;
  fflush(stdout);
  memset(&pg, 0, sizeof pg);
  pg.real = stdout;
  saved = stdout;
  pg.height = screen_height();
  cookie_io_functions_t io = { NULL, pg_write, NULL, NULL };
  FILE *f = fopencookie(&pg, "w", io);
  if (!f) {
    saved = NULL;
    return false;
  }
  setvbuf(f, NULL, _IOFBF, 4096);   /* see ask(): never line-buffered */
  stdout = f;
  return true;
}

void repl_pager_end(void) {
  if (!saved) return;
  fflush(stdout);
  fclose(stdout);
  stdout = saved;
  saved = NULL;
}

/* --- set / show ---------------------------------------------------------------- */

static const char *const onoff[] = { "on", "off", NULL };
static const char *const unlimited[] = { "unlimited", NULL };

static int set_pagination(repl_session *s, const repl_cmd *self, const repl_args *a) {
  if (strcmp(a->argv[0], "on") && strcmp(a->argv[0], "off")) {
    repl_error(s, "usage: %s", self->usage);
    return -1;
  }
  pagination = !strcmp(a->argv[0], "on");
  return 0;
}

static int set_height(repl_session *s, const repl_cmd *self, const repl_args *a) {
  if (!strcmp(a->argv[0], "unlimited")) {
    height_set = 0;
    return 0;
  }
  char *end;
  long n = strtol(a->argv[0], &end, 10);
  if (*end || n < 0 || n > 100000) {
    repl_error(s, "usage: %s", self->usage);
    return -1;
  }
  height_set = (int)n;
  return 0;
}

static int show_pagination(repl_session *s, const repl_cmd *self, const repl_args *a) {
  (void)s; (void)self; (void)a;
  printf("pagination: %s\n", pagination ? "on" : "off");
  return 0;
}

static int show_height(repl_session *s, const repl_cmd *self, const repl_args *a) {
  (void)s; (void)self; (void)a;
  if (height_set < 0) printf("height: the terminal's (%d)\n", screen_height());
  else if (height_set == 0) printf("height: unlimited\n");
  else printf("height: %d\n", height_set);
  return 0;
}

static const repl_cmd set_subs[] = {
  { "pagination", NULL, "support", "set pagination on|off",
    "page long listings at a terminal",
    "With pagination on (the default), a command's output at a terminal\n"
    "stops after a screen of lines and asks, as gdb does: RET for more, q\n"
    "to drop the rest, c to go on without stopping. Commands that run the\n"
    "program are not paged, nor any output that is not a terminal.\n"
    "\nExample:\n"
    "  (shapedb) set pagination off\n",
    set_pagination, REPL_COMPLETE_WORDS, onoff, 1, 1, false },
  { "height", NULL, "support", "set height N|unlimited",
    "lines per screen for the pager",
    "The pager asks after N - 1 lines (the terminal's height by default;\n"
    "`unlimited` or 0: never).\n"
    "\nExample:\n"
    "  (shapedb) set height 40\n",
    set_height, REPL_COMPLETE_WORDS, unlimited, 1, 1, false },
};

static const repl_cmd show_subs[] = {
  { "pagination", NULL, "status", "show pagination", "whether long listings are paged",
    "Show the `set pagination` setting.\n\nExample:\n  (shapedb) show pagination\n"
    "  pagination: on\n",
    show_pagination, REPL_COMPLETE_NONE, NULL, 0, 0, false },
  { "height", NULL, "status", "show height", "the pager's lines per screen",
    "Show the `set height` setting.\n\nExample:\n  (shapedb) show height\n"
    "  height: the terminal's (24)\n",
    show_height, REPL_COMPLETE_NONE, NULL, 0, 0, false },
};

void repl_pager_init(void) {
  repl_cmd_register_sub("set", set_subs, sizeof set_subs / sizeof *set_subs);
  repl_cmd_register_sub("show", show_subs, sizeof show_subs / sizeof *show_subs);
}
