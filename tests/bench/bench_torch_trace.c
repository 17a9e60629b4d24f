/*
** bench_torch_trace.c — import speed of TORCH_TRACE logs (`make bench`).
**
** Builds a log of about SIZE MiB (default 100) by repeating the real sample
** logs of $SHAPEDB_SHARED/examples/torch_trace, each copy with its own
** frame ids so every copy is new compiles, into a temporary file; then
** times, best of 3: reading the file with no parsing (read(2) into a
** buffer), reading it through zlib's gzread as the reader does, the reader
** alone (records, JSON, MD5 checks), and the full import into an event
** stream. Prints MiB/s for each. Numbers only, never pass/fail.
*/
#include "torch_trace.h"
#include "torch_trace_import.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

/* CPU time of this process: the machine may be shared, and what is
** measured is the work, not the wait (the wall clock is shown too). */
static double cpu(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static char *slurp(const char *path, size_t *n) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long len = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *s = malloc((size_t)len + 1);
  if (s && fread(s, 1, (size_t)len, f) != (size_t)len) { free(s); s = NULL; }
  if (s) s[len] = 0;
  fclose(f);
  *n = (size_t)len;
  return s;
}

/* Write one copy of SRC with `"frame_id": 0` renumbered to ID. */
static size_t put_copy(FILE *out, const char *src, long id) {
  size_t written = 0;
  const char *key = "\"frame_id\": ";
  for (const char *p = src; *p;) {
    const char *hit = strstr(p, key);
    if (!hit) { written += fwrite(p, 1, strlen(p), out); break; }
    hit += strlen(key);
    written += fwrite(p, 1, (size_t)(hit - p), out);
    char *end;
    long old = strtol(hit, &end, 10);
    if (end == hit) { p = hit; continue; }
    written += (size_t)fprintf(out, "%ld", old + id);
    p = end;
  }
  return written;
}

typedef int (*pass_fn)(const char *path, long *records);

static int pass_read(const char *path, long *records) {
  int fd = open(path, O_RDONLY);
  if (fd < 0) return -1;
  static char buf[1 << 18];
  ssize_t got;
  long lines = 0;
  while ((got = read(fd, buf, sizeof buf)) > 0)
    for (char *p = buf; (p = memchr(p, '\n', (size_t)(buf + got - p))); p++) lines++;
  close(fd);
  *records = lines;
  return 0;
}

static int pass_gzread(const char *path, long *records) {
  gzFile gz = gzopen(path, "rb");
  if (!gz) return -1;
  gzbuffer(gz, 1 << 18);
  static char buf[1 << 18];
  int got;
  long lines = 0;
  while ((got = gzread(gz, buf, sizeof buf)) > 0)
    for (char *p = buf; (p = memchr(p, '\n', (size_t)(buf + got - p))); p++) lines++;
  gzclose(gz);
  *records = lines;
  return 0;
}

static int pass_reader(const char *path, long *records) {
  sdb_tt_reader *r;
  sdb_err err = SDB_ERR_INIT;
  if (sdb_tt_open(path, &r, &err)) return -1;
  const sdb_tt_record *rec;
  while (sdb_tt_next(r, &rec, &err) == 1) {}
  *records = sdb_tt_nrecords(r);
  sdb_tt_close(r);
  return 0;
}

static int pass_import(const char *path, long *records) {
  sdb_events *ev = sdb_events_new();
  sdb_tti *t;
  sdb_err err = SDB_ERR_INIT;
  if (sdb_tti_import(path, ev, &t, &err)) {
    sdb_tti_free(t);   /* what was read, when the reading was stopped */
    sdb_err_clear(&err);
    sdb_events_free(ev);
    return -1;
  }
  *records = (long)sdb_events_count(ev);
  sdb_tti_free(t);
  sdb_events_free(ev);
  return 0;
}

int main(int argc, char **argv) {
  double mib = argc > 1 ? atof(argv[1]) : 100;
  const char *shared = getenv("SHAPEDB_SHARED");
  const char *names[] = {"tlparse_links.log", "tlparse_export_guard_added.log",
                         "tlparse_comp_failure.log", "tlparse_artifacts.log"};
  char *src[4];
  for (int i = 0; i < 4; i++) {
    char path[1024];
    size_t n;
    snprintf(path, sizeof path, "%s/examples/torch_trace/%s", shared ? shared : "../shared",
             names[i]);
    if (!(src[i] = slurp(path, &n))) {
      printf("torch_trace import: %s not readable; skipped\n", path);
      return 0;
    }
  }
  char tmpl[] = "/tmp/sdb_bench_trace_XXXXXX";
  int fd = mkstemp(tmpl);
  if (fd < 0) return 1;
  FILE *out = fdopen(fd, "wb");
  size_t total = 0;
  long copy = 0;
  while ((double)total < mib * 1048576.0) {
    total += put_copy(out, src[copy % 4], copy);
    copy++;
  }
  fclose(out);
  for (int i = 0; i < 4; i++) free(src[i]);
  double size = (double)total / 1048576.0;
  printf("TORCH_TRACE import: a %.1f MiB log of %ld copies of the 4 sample logs (best of 3)\n",
         size, copy);
  printf("  %-44s %9s %9s %10s %10s\n", "pass", "cpu s", "wall s", "MiB/s cpu", "items");
  struct { const char *what; pass_fn fn; const char *unit; } passes[] = {
    {"read(2), count lines (no parsing)", pass_read, "lines"},
    {"gzread, count lines (as the reader reads)", pass_gzread, "lines"},
    {"reader: records, JSON, MD5 checks", pass_reader, "records"},
    {"import: events, ShapeEnv facts, graphs", pass_import, "events"},
  };
  for (size_t i = 0; i < sizeof passes / sizeof passes[0]; i++) {
    double best = 1e30, wall = 1e30;
    long items = 0;
    for (int k = 0; k < 3; k++) {
      double t0 = cpu(), w0 = now();
      if (passes[i].fn(tmpl, &items)) { printf("  %s: failed\n", passes[i].what); break; }
      double dt = cpu() - t0, dw = now() - w0;
      if (dt < best) best = dt;
      if (dw < wall) wall = dw;
    }
    printf("  %-44s %9.3f %9.3f %10.1f %10ld %s\n", passes[i].what, best, wall, size / best,
           items, passes[i].unit);
  }
  unlink(tmpl);
  return 0;
}
