/*
** srcfile.c — cached source lines (see srcfile.h).
*/
#include "srcfile.h"
#include "intern.h"
#include "map.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  const char **lines;   /* interned, as written (no newline) */
  int n;
} file_lines;

static sdb_map files = SDB_MAP_INIT;   /* interned path -> file_lines* */

static file_lines *load(const char *path) {
  const char *key = sdb_intern(path);
  if (!key) return NULL;
  file_lines *fl = sdb_map_get(&files, key);
  if (fl) return fl;
  fl = calloc(1, sizeof *fl);
  if (!fl) return NULL;
  fl->n = -1;
  FILE *f = fopen(path, "r");
  if (f) {
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    int cap_lines = 0;
    fl->n = 0;
    while ((len = getline(&line, &cap, f)) >= 0) {
      while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r')) len--;
      if (fl->n == cap_lines) {
        cap_lines = cap_lines ? cap_lines * 2 : 64;
        const char **v = realloc(fl->lines, (size_t)cap_lines * sizeof *v);
        if (!v) break;
        fl->lines = v;
      }
      fl->lines[fl->n++] = sdb_intern_n(line, (size_t)len);
    }
    free(line);
    fclose(f);
  }
  if (!sdb_map_put(&files, key, fl)) { free(fl->lines); free(fl); return NULL; }
  return fl;
}

const char *sdb_srcfile_line_raw(const char *file, int line) {
  file_lines *fl = file ? load(file) : NULL;
  if (!fl || line < 1 || line > fl->n) return NULL;
  return fl->lines[line - 1];
}

const char *sdb_srcfile_line(const char *file, int line) {
  const char *s = sdb_srcfile_line_raw(file, line);
  if (!s) return NULL;
  while (*s == ' ' || *s == '\t') s++;
  size_t n = strlen(s);
  while (n && (s[n - 1] == ' ' || s[n - 1] == '\t')) n--;
  return n ? sdb_intern_n(s, n) : NULL;
}

int sdb_srcfile_count(const char *file) {
  file_lines *fl = file ? load(file) : NULL;
  return fl ? fl->n : -1;
}

void sdb_srcfile_reset(void) {
  for (size_t i = 0; i < files.len; i++) {
    file_lines *fl = files.vals[i];
    free(fl->lines);
    free(fl);
  }
  sdb_map_free(&files);
}
