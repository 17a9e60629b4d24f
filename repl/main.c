/*
** main.c — command-line entry of bin/shapedb.
**
**   shapedb [options] [FILE.lua [args...]]
**     -e CHUNK     run a Lua chunk (repeatable, before FILE)
**     --version    print the version
**     --help       print usage
**
** Exit status: 0 on success, 1 when a chunk or script fails, 2 on bad usage.
*/
#include "host.h"

#include <lauxlib.h>
#include <stdio.h>
#include <string.h>

#define SHAPEDB_VERSION "0.1.0"

static void usage(FILE *f) {
  fprintf(f,
    "usage: shapedb [options] [FILE.lua [args...]]\n"
    "  -e CHUNK     run the Lua chunk CHUNK (repeatable; runs before FILE)\n"
    "  --version    print the version and exit\n"
    "  --help       print this help and exit\n"
    "Lua runs with the `shapedb` module loaded as a global.\n");
}

int main(int argc, char **argv) {
  const char *chunks[64];
  int nchunks = 0, script = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) { usage(stdout); return 0; }
    if (!strcmp(a, "--version")) {
      printf("shapedb %s (%s)\n", SHAPEDB_VERSION, LUA_RELEASE);
      return 0;
    }
    if (!strcmp(a, "-e")) {
      if (i + 1 >= argc) {
        fprintf(stderr, "shapedb: '-e' needs an argument\n");
        usage(stderr);
        return 2;
      }
      if (nchunks == 64) { fprintf(stderr, "shapedb: too many -e options\n"); return 2; }
      chunks[nchunks++] = argv[++i];
      continue;
    }
    if (!strcmp(a, "--")) { if (i + 1 < argc) script = i + 1; break; }
    if (a[0] == '-' && a[1]) {
      fprintf(stderr, "shapedb: unknown option '%s'\n", a);
      usage(stderr);
      return 2;
    }
    script = i;
    break;
  }
  lua_State *L = repl_host_new();
  if (!L) { fprintf(stderr, "shapedb: cannot create Lua state\n"); return 1; }
  int status = LUA_OK;
  for (int i = 0; i < nchunks && status == LUA_OK; i++)
    status = repl_host_dostring(L, chunks[i], "=(command line)");
  if (status == LUA_OK && script)
    status = repl_host_dofile(L, argv[script], argv + script, argc - script);
  if (status == LUA_OK && !script && nchunks == 0) usage(stdout);
  repl_host_free(L);
  return status == LUA_OK ? 0 : 1;
}
