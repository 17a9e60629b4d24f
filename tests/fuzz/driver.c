/*
** driver.c — runs a libFuzzer target without libFuzzer, for `make test`
** (gcc, no clang needed): every file of the target's seed corpus
** (tests/fuzz/NAME/, plus any directories named on the command line),
** then a fixed number of deterministic mutations of them (bit flips,
** byte insertions and deletions, splices, repeated chunks), printing TAP.
** A crash, a sanitizer report or a failed check inside the target
** (abort) ends the run, which prove reports as a failed file.
**
**   smoke_NAME [DIR...]        SHAPEDB_TESTS locates tests/fuzz/NAME;
**                              FUZZ_SHARED (compile time) adds a directory
**                              of $SHAPEDB_SHARED
**   FUZZ_SMOKE_RUNS=N          mutations (default FUZZ_RUNS, 2000 unless
**                              the Makefile says fewer for a slow target)
*/
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#ifndef FUZZ_NAME
#error "FUZZ_NAME names the target's corpus directory"
#endif

typedef struct { uint8_t *p; size_t n; } blob;
static blob *seeds;
static size_t nseeds, capseeds;

#define FUZZ_MAX_INPUT (64 * 1024)

static void add_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return;
  uint8_t *buf = malloc(FUZZ_MAX_INPUT);
  size_t n = buf ? fread(buf, 1, FUZZ_MAX_INPUT, f) : 0;
  fclose(f);
  if (!buf) return;
  if (nseeds == capseeds) {
    capseeds = capseeds ? 2 * capseeds : 64;
    seeds = realloc(seeds, capseeds * sizeof *seeds);
    if (!seeds) abort();
  }
  seeds[nseeds++] = (blob){buf, n};
}

static int by_name(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Files of dir in name order, so runs are reproducible. */
static void add_dir(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) return;
  char **names = NULL;
  size_t n = 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (e->d_name[0] == '.') continue;
    names = realloc(names, (n + 1) * sizeof *names);
    size_t len = strlen(dir) + strlen(e->d_name) + 2;
    names[n] = malloc(len);
    snprintf(names[n++], len, "%s/%s", dir, e->d_name);
  }
  closedir(d);
  if (n) qsort(names, n, sizeof *names, by_name);
  for (size_t i = 0; i < n; i++) {
    struct stat st;
    if (stat(names[i], &st) == 0 && S_ISREG(st.st_mode)) add_file(names[i]);
    free(names[i]);
  }
  free(names);
}

/* On a crash, the input that caused it goes to /tmp/fuzz-crash-NAME, to
** be replayed with `smoke_NAME DIR` or the libFuzzer binary, and kept as
** a regression seed. */
static const uint8_t *volatile cur;
static volatile size_t cur_n;

static void on_crash(int sig) {
  const char *path = "/tmp/fuzz-crash-" FUZZ_NAME;
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd >= 0) {
    if (cur_n && write(fd, (const void *)cur, cur_n) < 0) {}
    close(fd);
    const char msg[] = "fuzz driver: the crashing input is in /tmp/fuzz-crash-" FUZZ_NAME "\n";
    if (write(2, msg, sizeof msg - 1) < 0) {}
  }
  signal(sig, SIG_DFL);
  raise(sig);
}

/* An input that takes over 10 s is a hang, reported like a crash. */
static void run(const uint8_t *p, size_t n) {
  cur = p;
  cur_n = n;
  alarm(10);
  LLVMFuzzerTestOneInput(p, n);
  alarm(0);
}

/* xorshift64*: the same mutations on every machine */
static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint64_t next(void) {
  rng ^= rng >> 12;
  rng ^= rng << 25;
  rng ^= rng >> 27;
  return rng * 0x2545F4914F6CDD1Dull;
}
static size_t below(size_t n) { return n ? (size_t)(next() % n) : 0; }

static const char *const tokens[] = {
  "(", ")", "**", "//", "-", "+", "~", "Max(", "Min(", "Eq(", "Mod(", "FloorDiv(",
  ",", "s0", "u1", "9223372036854775807", "0", "\"", "'", " ", "\t", "\n", "{", "}",
  "[", "]", ":", "null", "\xc3\xa9", "\xff", "\0", "\t\t", "V1124 00:00:00.000000 1 a.py:1] ",
};

static size_t mutate(uint8_t *buf, size_t n) {
  int rounds = 1 + (int)below(4);
  for (int r = 0; r < rounds; r++) {
    switch (below(6)) {
    case 0:   /* flip a bit */
      if (n) buf[below(n)] ^= (uint8_t)(1u << below(8));
      break;
    case 1:   /* delete a run */
      if (n) {
        size_t at = below(n), len = 1 + below(n - at < 16 ? n - at : 16);
        memmove(buf + at, buf + at + len, n - at - len);
        n -= len;
      }
      break;
    case 2: { /* insert a token */
      const char *t = tokens[below(sizeof tokens / sizeof *tokens)];
      size_t len = t[0] ? strlen(t) : 1, at = below(n + 1);
      if (n + len > FUZZ_MAX_INPUT) break;
      memmove(buf + at + len, buf + at, n - at);
      memcpy(buf + at, t, len);
      n += len;
      break;
    }
    case 3: { /* repeat a chunk many times (depth, length) */
      if (!n) break;
      size_t at = below(n), len = 1 + below(n - at < 8 ? n - at : 8);
      size_t times = 1 + below(200);
      while (times-- && n + len <= FUZZ_MAX_INPUT) {
        memmove(buf + at + len, buf + at, n - at);
        n += len;
      }
      break;
    }
    case 4: { /* splice in part of another seed */
      blob *o = &seeds[below(nseeds)];
      if (!o->n) break;
      size_t from = below(o->n), len = 1 + below(o->n - from);
      size_t at = below(n + 1);
      if (n + len > FUZZ_MAX_INPUT) break;
      memmove(buf + at + len, buf + at, n - at);
      memcpy(buf + at, o->p + from, len);
      n += len;
      break;
    }
    default:  /* overwrite a byte */
      if (n) buf[below(n)] = (uint8_t)next();
    }
  }
  return n;
}

#ifdef FUZZ_RECORD
/* Seeds recorded now by the shapedb under test ($SHAPEDB), so they always
** have the current format: each program of FUZZ_RECORD (paths from the
** repository's root) run to its end with --record, and saved paused at
** its first unbacked symbol. They go to a scratch directory, read, and
** are removed. Returns how many were made. */
static size_t record_seeds(const char *tests) {
  const char *shapedb = getenv("SHAPEDB");
  char dir[] = "/tmp/sdb-fuzz-rec-XXXXXX";
  if (!shapedb || !mkdtemp(dir)) return 0;
  size_t before = nseeds;
  char list[] = FUZZ_RECORD, *save = NULL;
  int k = 0;
  for (char *prog = strtok_r(list, " ", &save); prog; prog = strtok_r(NULL, " ", &save), k++) {
    char cmd[8192];
    snprintf(cmd, sizeof cmd,
             "cd '%s/..' && { '%s' --batch --record '%s/%d-end.jsonl' -x run '%s'; "
             "'%s' --batch -x 'break unbacked' -x continue -x 'save %s/%d-paused.jsonl' '%s'; }",
             tests, shapedb, dir, k, prog, shapedb, dir, k, prog);
    char quiet[8300];
    snprintf(quiet, sizeof quiet, "(%s) < /dev/null > /dev/null 2>&1", cmd);
    /* a program that fails still leaves its trace (failed runs are seeds too) */
    if (system(quiet) != 0) {}
  }
  add_dir(dir);
  char rm[128];
  snprintf(rm, sizeof rm, "rm -rf '%s'", dir);
  if (system(rm) != 0) {}
  return nseeds - before;
}
#endif

int main(int argc, char **argv) {
  const char *tests = getenv("SHAPEDB_TESTS");
  char dir[4096];
  snprintf(dir, sizeof dir, "%s/fuzz/%s", tests ? tests : "tests", FUZZ_NAME);
  add_dir(dir);
#ifdef FUZZ_SHARED
  /* real samples in the shared data, read in place (never copied) */
  const char *shared = getenv("SHAPEDB_SHARED");
  char sdir[4096];
  snprintf(sdir, sizeof sdir, "%s/%s", shared ? shared : "../shared", FUZZ_SHARED);
  add_dir(sdir);
#endif
  for (int i = 1; i < argc; i++) add_dir(argv[i]);
#ifdef FUZZ_RECORD
  size_t recorded = record_seeds(tests ? tests : "tests");
#endif
  printf("1..2\n");
  signal(SIGABRT, on_crash);
  signal(SIGSEGV, on_crash);
  signal(SIGBUS, on_crash);
  signal(SIGFPE, on_crash);
  signal(SIGALRM, on_crash);
  for (size_t i = 0; i < nseeds; i++) run(seeds[i].p, seeds[i].n);
#ifdef FUZZ_RECORD
  if (!recorded) {
    printf("not ok 1 - %s: no seed could be recorded (is $SHAPEDB set?)\n", FUZZ_NAME);
    return 1;
  }
  printf("ok 1 - %s: %zu seed inputs from %s, %zu of them recorded now\n", FUZZ_NAME, nseeds,
         dir, recorded);
#else
  printf("ok 1 - %s: %zu seed inputs from %s\n", FUZZ_NAME, nseeds, dir);
#endif
  fflush(stdout);
  const char *env = getenv("FUZZ_SMOKE_RUNS");
#ifndef FUZZ_RUNS
#define FUZZ_RUNS 2000
#endif
  long runs = env ? atol(env) : FUZZ_RUNS;
  uint8_t *buf = malloc(FUZZ_MAX_INPUT);
  if (!buf || !nseeds) {
    printf("not ok 2 - no seeds\n");
    return 1;
  }
  for (long i = 0; i < runs; i++) {
    blob *s = &seeds[below(nseeds)];
    memcpy(buf, s->p, s->n);
    size_t n = mutate(buf, s->n);
    /* the exact bytes in a file of their own, like libFuzzer's inputs */
    uint8_t *in = malloc(n ? n : 1);
    memcpy(in, buf, n);
    run(in, n);
    free(in);
  }
  printf("ok 2 - %s: %ld mutated inputs\n", FUZZ_NAME, runs);
  free(buf);
  for (size_t i = 0; i < nseeds; i++) free(seeds[i].p);
  free(seeds);
  return 0;
}
