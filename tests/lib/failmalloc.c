/*
** failmalloc.c — a library tests/repl/oom.sh preloads into shapedb: the
** allocation numbered SDB_FAIL_AT (from 0) fails, once, and the others go
** through. Only allocations asked for by shapedb's own code or by Lua
** count: glibc's (stdio, the dynamic loader, readline) always succeed,
** as they are not what is under test. At exit, the count goes to the file
** SDB_FAIL_COUNT names, so the test knows how many there are to fail.
** With SDB_FAIL_TRACE set, the failing call's stack goes to stderr (to
** find where a failure went unreported).
*/
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <execinfo.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);

static long fail_at = -1, count;
static const void *main_base, *lua_base;   /* the objects whose calls count */
static bool ready, busy;

static void setup(void) {
  busy = true;   /* dladdr and getenv must not count themselves */
  const char *s = getenv("SDB_FAIL_AT");
  if (s) fail_at = strtol(s, NULL, 10);
  Dl_info i;
  /* the main program's headers are in its first mapping */
  if (dladdr((const void *)getauxval(AT_PHDR), &i)) main_base = i.dli_fbase;
  void *sym = dlsym(RTLD_DEFAULT, "lua_newstate");
  if (sym && dladdr(sym, &i)) lua_base = i.dli_fbase;
  ready = true;
  busy = false;
}

/* does this allocation, asked for from `from`, fail? */
static bool fails(const void *from) {
  if (busy) return false;
  if (!ready) setup();
  busy = true;
  Dl_info i;
  bool ours = dladdr(from, &i) && i.dli_fbase && (i.dli_fbase == main_base || i.dli_fbase == lua_base);
  bool fail = ours && count++ == fail_at;
  if (fail && getenv("SDB_FAIL_TRACE")) {
    void *frames[24];
    backtrace_symbols_fd(frames, backtrace(frames, 24), 2);
  }
  busy = false;
  return fail;
}

/* a failure sets errno, as glibc's does */
static void *failed(void) {
  errno = ENOMEM;
  return NULL;
}

void *malloc(size_t n) {
  return fails(__builtin_return_address(0)) ? failed() : __libc_malloc(n);
}
void *calloc(size_t k, size_t n) {
  return fails(__builtin_return_address(0)) ? failed() : __libc_calloc(k, n);
}
void *realloc(void *p, size_t n) {
  return n && fails(__builtin_return_address(0)) ? failed() : __libc_realloc(p, n);
}

__attribute__((destructor)) static void report(void) {
  const char *path = getenv("SDB_FAIL_COUNT");
  if (!path) return;
  char line[32];
  int len = snprintf(line, sizeof line, "%ld\n", count);
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  if (fd < 0) return;
  if (write(fd, line, (size_t)len) != len) { /* the test reads no count and says so */ }
  close(fd);
}
