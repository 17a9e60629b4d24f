/*
** srcfile.c — cached source lines (see srcfile.h).
*/
#include "srcfile.h"
#include "intern.h"
#include "map.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct {
  const char **lines;   /* interned, as written (no newline) */
  int n;                /* -1: unreadable */
  int err;              /* why (errno), when unreadable */
  struct stat st;       /* the file as read: a change in it means re-read */
  bool have_st;
  bool pinned;          /* text given by sdb_srcfile_set_text: never re-read */
} file_lines;

static sdb_map files = SDB_MAP_INIT;   /* interned path -> file_lines* */

/* Split text[0..n) into interned lines; false on out of memory. */
static bool split_lines(file_lines *fl, const char *text, size_t n) {
  int cap_lines = 0;
  size_t i = 0;
  fl->n = 0;
  while (i < n) {
    const char *nl = memchr(text + i, '\n', n - i);
    size_t end = nl ? (size_t)(nl - text) : n, len = end - i;
    if (len && text[i + len - 1] == '\r') len--;
    if (fl->n == cap_lines) {
      cap_lines = cap_lines ? cap_lines * 2 : 64;
      const char **v = realloc(fl->lines, (size_t)cap_lines * sizeof *v);
      if (!v) return false;
      fl->lines = v;
    }
    const char *line = sdb_intern_n(text + i, len);
    if (!line) return false;
    fl->lines[fl->n++] = line;
    i = end + 1;
  }
  return true;
}

/* errno-like code of a path that is a pipe, a socket or a directory */
#define NOT_A_FILE 100000

/* The whole file, or NULL (errno set; EFBIG past the cap, NOT_A_FILE)
** with a read error counted as an error rather than a short file. The
** path comes from the user or from a saved trace: opening a FIFO would
** wait for a writer and reading a terminal for a line, so the open does
** not block, pipes and sockets are refused, and a device with nothing to
** read is a read error (EAGAIN), never a hang. */
static char *slurp(const char *path, size_t *len) {
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return NULL;
  struct stat st;
  if (fstat(fd, &st) != 0) { int e = errno; close(fd); errno = e; return NULL; }
  if (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode) || S_ISDIR(st.st_mode)) {
    close(fd);
    errno = NOT_A_FILE;
    return NULL;
  }
  FILE *f = fdopen(fd, "rb");
  if (!f) { int e = errno; close(fd); errno = e; return NULL; }
  size_t n = 0, cap = 0;
  char *buf = NULL;
  for (;;) {
    if (n == cap) {
      if (cap >= SDB_SRCFILE_MAX) { errno = EFBIG; goto fail; }
      cap = cap ? 2 * cap : 4096;
      if (cap > SDB_SRCFILE_MAX) cap = SDB_SRCFILE_MAX;
      char *nb = realloc(buf, cap + 1);
      if (!nb) goto fail;
      buf = nb;
    }
    size_t got = fread(buf + n, 1, cap - n, f);
    n += got;
    if (got == 0) break;
  }
  if (ferror(f)) { errno = errno ? errno : EIO; goto fail; }
  /* A file exactly at the cap may have more behind it. */
  if (n == SDB_SRCFILE_MAX && getc(f) != EOF) { errno = EFBIG; goto fail; }
  fclose(f);
  *len = n;
  return buf;
fail:
  fclose(f);
  free(buf);
  return NULL;
}

/* Has the file changed since fl was read (size, mtime to the nanosecond,
** inode: an editor that saves by rename gives a new one)? A file that was
** missing and now exists, or the reverse, has changed too. */
static bool changed(const file_lines *fl, const char *path) {
  struct stat st;
  bool have = stat(path, &st) == 0;
  if (have != fl->have_st) return true;
  if (!have) return false;
  return st.st_size != fl->st.st_size || st.st_ino != fl->st.st_ino ||
         st.st_dev != fl->st.st_dev || st.st_mtim.tv_sec != fl->st.st_mtim.tv_sec ||
         st.st_mtim.tv_nsec != fl->st.st_mtim.tv_nsec;
}

/* Read path into fl (its lines and err reset first). The stat is taken
** before the read, so a write racing the read shows as a change next time. */
static void read_into(file_lines *fl, const char *path) {
  free(fl->lines);
  fl->lines = NULL;
  fl->n = -1;
  fl->err = 0;
  fl->pinned = false;
  fl->have_st = stat(path, &fl->st) == 0;
  size_t len;
  char *text = slurp(path, &len);
  if (text) {
    if (!split_lines(fl, text, len)) fl->n = -1;
    free(text);
  } else {
    fl->err = errno;
  }
}

static file_lines *load(const char *path) {
  const char *key = sdb_intern(path);
  if (!key) return NULL;
  file_lines *fl = sdb_map_get(&files, key);
  if (fl) return fl;
  fl = calloc(1, sizeof *fl);
  if (!fl) return NULL;
  read_into(fl, path);
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

int sdb_srcfile_set_text(const char *file, const char *text) {
  const char *key = sdb_intern(file);
  file_lines *fl = key ? calloc(1, sizeof *fl) : NULL;
  if (!fl) return -1;
  fl->pinned = true;
  int cap_lines = 0;
  for (const char *p = text; *p;) {
    const char *nl = strchr(p, '\n');
    size_t len = nl ? (size_t)(nl - p) : strlen(p);
    size_t keep = len;
    while (keep > 0 && p[keep - 1] == '\r') keep--;
    if (fl->n == cap_lines) {
      cap_lines = cap_lines ? cap_lines * 2 : 64;
      const char **v = realloc(fl->lines, (size_t)cap_lines * sizeof *v);
      if (!v) { free(fl->lines); free(fl); return -1; }
      fl->lines = v;
    }
    fl->lines[fl->n++] = sdb_intern_n(p, keep);
    p += len + (nl ? 1 : 0);
  }
  file_lines *old = sdb_map_get(&files, key);
  if (!sdb_map_put(&files, key, fl)) { free(fl->lines); free(fl); return -1; }
  if (old) { free(old->lines); free(old); }
  return 0;
}

int sdb_srcfile_count(const char *file) {
  file_lines *fl = file ? load(file) : NULL;
  return fl ? fl->n : -1;
}

void sdb_srcfile_refresh(bool all) {
  for (size_t i = 0; i < files.len; i++) {
    file_lines *fl = files.vals[i];
    if (all || (!fl->pinned && changed(fl, files.keys[i]))) read_into(fl, files.keys[i]);
  }
}

const char *sdb_srcfile_changed_on_disk(void) {
  for (size_t i = 0; i < files.len; i++) {
    file_lines *fl = files.vals[i];
    if (!fl->pinned && changed(fl, files.keys[i])) return files.keys[i];
  }
  return NULL;
}

void sdb_srcfile_reset(void) {
  for (size_t i = 0; i < files.len; i++) {
    file_lines *fl = files.vals[i];
    free(fl->lines);
    free(fl);
  }
  sdb_map_free(&files);
}

const char *sdb_srcfile_error(const char *file) {
  file_lines *fl = file ? load(file) : NULL;
  if (!fl) return "out of memory";
  if (fl->n >= 0) return NULL;
  if (fl->err == EFBIG) return "file too large (over 16 MiB)";
  if (fl->err == NOT_A_FILE) return "not a regular file (a pipe, a socket or a directory)";
  return fl->err ? strerror(fl->err) : "out of memory";
}
