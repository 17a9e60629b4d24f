/*
** spool.c — copy a one-shot input into a temporary file (see spool.h).
*/
#include "spool.h"

#include "cancel.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

bool sdb_spool_needed(const char *path) {
  if (!strcmp(path, "-")) return true;
  struct stat st;
  if (stat(path, &st) != 0) return false;   /* the reader says why */
  return S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode) || S_ISSOCK(st.st_mode);
}

/* Write all of buf, retrying short writes and signals other than Ctrl-C. */
static int write_all(int fd, const char *buf, size_t n) {
  while (n) {
    ssize_t w = write(fd, buf, n);
    if (w < 0) {
      if (errno == EINTR && !sdb_cancelled()) continue;
      return -1;
    }
    buf += w;
    n -= (size_t)w;
  }
  return 0;
}

int sdb_spool(const char *path, char **tmp, sdb_err *err) {
  *tmp = NULL;
  bool std_in = !strcmp(path, "-");
  const char *name = std_in ? "standard input" : path;
  int in = std_in ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
  if (in < 0)
    return sdb_err_set(err, SDB_E_INVALID, "OSError", "%s: %s", path, strerror(errno));
  const char *dir = getenv("TMPDIR");
  if (!dir || dir[0] != '/') dir = "/tmp";
  size_t n = strlen(dir) + 32;
  char *t = malloc(n);
  if (!t) {
    if (!std_in) close(in);
    return sdb_err_set(err, SDB_E_OOM, "MemoryError", "out of memory");
  }
  snprintf(t, n, "%s/shapedb-spool-XXXXXX", dir);
  int out = mkstemp(t);
  if (out < 0) {
    sdb_err_set(err, SDB_E_INVALID, "OSError", "%s: cannot make a temporary copy in %s: %s",
                name, dir, strerror(errno));
    free(t);
    if (!std_in) close(in);
    return err->code;
  }
  static char buf[1 << 16];
  int rc = SDB_OK;
  for (;;) {
    if (sdb_cancelled()) {
      rc = sdb_err_set(err, SDB_E_INVALID, "KeyboardInterrupt", "%s: interrupted while reading",
                       name);
      break;
    }
    ssize_t r = read(in, buf, sizeof buf);
    if (r == 0) break;
    if (r < 0) {
      if (errno == EINTR) continue;   /* Ctrl-C is checked at the top */
      rc = sdb_err_set(err, SDB_E_INVALID, "OSError", "%s: %s", name, strerror(errno));
      break;
    }
    if (write_all(out, buf, (size_t)r) < 0) {
      rc = sdb_err_set(err, SDB_E_INVALID, "OSError", "%s: cannot make a temporary copy in "
                       "%s: %s", name, dir, strerror(errno));
      break;
    }
  }
  if (close(out) != 0 && rc == SDB_OK)
    rc = sdb_err_set(err, SDB_E_INVALID, "OSError", "%s: cannot make a temporary copy in %s: %s",
                     name, dir, strerror(errno));
  if (!std_in) close(in);
  if (rc != SDB_OK) {
    unlink(t);
    free(t);
    return rc;
  }
  *tmp = t;
  return SDB_OK;
}
