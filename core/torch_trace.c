/*
** torch_trace.c — streaming reader of TORCH_TRACE logs (see torch_trace.h).
**
** A plain file is read in large chunks with read(2), a gzip file (by its
** magic, 1f 8b) through zlib's gzread, and split into lines by hand, and assembled into records
** with one line of lookahead: a record ends where the next header line, or
** the end of the file, begins. Nothing here is fatal except failing to
** open the file; everything odd becomes a problem and reading goes on.
*/
#include "err.h"
#include "torch_trace.h"

#include "buf.h"
#include "cancel.h"
#include "intern.h"
#include "jsonline.h"
#include "map.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <md5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

/* Problems beyond this many are only counted: a log with a broken
** timestamp on every line must not make the list as big as the log. */
#define MAX_PROBLEMS 1000
#define CHUNK (256 * 1024)

struct sdb_tt_reader {
  const char *path;
  const char *file;            /* the path opened (errors name it as zlib did) */
  gzFile gz;                   /* a gzip file, else NULL */
  int fd;                      /* a plain file (read directly: gzread copied it), else -1 */
  bool eof;
  bool nomem;          /* the buffer could not grow: the rest was not read */
  /* input buffer: bytes [pos, len) not yet split into lines */
  char *in;
  size_t pos, len, cap;
  long lineno;                 /* number of the line last returned */
  unsigned long long bytes;
  /* the lookahead: a header line already read, waiting to start a record */
  sdb_buf pending;
  long pending_line;
  /* what the lookahead's parse_header found in it, not parsed again */
  char pending_level;
  long long pending_stamp;
  long pending_pid;
  size_t pending_writer, pending_writer_len, pending_json;
  bool has_pending;
  bool pending_cut;            /* the header line had no '\n': last line */
  /* the record being handed out */
  sdb_tt_record rec;
  sdb_jsonline jl;             /* the record's JSON */
  sdb_buf payload;
  long long last_stamp;
  bool have_stamp;
  /* tables */
  const char **strs;           /* str records: index -> interned name */
  size_t nstrs;
  sdb_tt_problem *probs;
  size_t nprobs, capprobs;
  long dropped_probs;
  sdb_map kinds;               /* interned kind -> count (as intptr) */
  sdb_tt_kind *kindv;          /* filled on demand */
  size_t nkindv;
  sdb_map cids;                /* interned cid string -> index + 1 */
  sdb_tt_compile *comps;
  size_t ncomps, capcomps;
  size_t last_comp;            /* index + 1 of the compile the last id named, or 0 */
  const char *last_writer, *last_kind, *str_kind;   /* interned, to skip a hash */
  size_t last_writer_len;
  long nrecords;
};

/* ---- problems -------------------------------------------------------- */

static void problem(sdb_tt_reader *r, long line, const char *fmt, ...)
  __attribute__((format(printf, 3, 4)));
static void problem(sdb_tt_reader *r, long line, const char *fmt, ...) {
  if (r->nomem) return;   /* what was not read is not the log's problem (a record cut short) */
  if (r->nprobs >= MAX_PROBLEMS) { r->dropped_probs++; return; }
  if (r->nprobs == r->capprobs) {
    size_t cap = r->capprobs ? r->capprobs * 2 : 16;
    sdb_tt_problem *p = sdb_noted(realloc(r->probs, cap * sizeof *p));
    if (!p) { r->dropped_probs++; return; }
    r->probs = p;
    r->capprobs = cap;
  }
  sdb_buf b = SDB_BUF_INIT;
  va_list ap;
  va_start(ap, fmt);
  sdb_buf_vprintf(&b, fmt, ap);
  va_end(ap);
  r->probs[r->nprobs].file = r->path;
  r->probs[r->nprobs].line = line;
  r->probs[r->nprobs].what = sdb_buf_take(&b);
  r->nprobs++;
}

/* ---- lines ----------------------------------------------------------- */

/* The next line without its '\n' (and without a '\r' before it); the
** pointer is valid until the next call. Returns false at the end. */
static bool next_line(sdb_tt_reader *r, const char **line, size_t *n, bool *newline) {
  for (;;) {
    char *nl = r->len > r->pos ? memchr(r->in + r->pos, '\n', r->len - r->pos) : NULL;
    if (nl) {
      *line = r->in + r->pos;
      *n = (size_t)(nl - *line);
      r->pos += *n + 1;
      *newline = true;
      if (*n && (*line)[*n - 1] == '\r') (*n)--;
      r->lineno++;
      return true;
    }
    if (r->eof) {
      if (r->pos == r->len) return false;
      *line = r->in + r->pos;
      *n = r->len - r->pos;
      r->pos = r->len;
      *newline = false;
      r->lineno++;
      return true;
    }
    /* compact, grow, refill */
    if (r->pos) {
      memmove(r->in, r->in + r->pos, r->len - r->pos);
      r->len -= r->pos;
      r->pos = 0;
    }
    if (r->cap - r->len < CHUNK) {
      size_t cap = r->cap ? r->cap * 2 : 2 * CHUNK;
      char *in = sdb_noted(realloc(r->in, cap));
      if (!in) {   /* not an end: sdb_tt_next says out of memory */
        r->nomem = true;
        return false;
      }
      r->in = in;
      r->cap = cap;
    }
    if (r->fd >= 0) {
      /* room for the NUL the last line may need (r->cap - r->len >= CHUNK) */
      ssize_t got;
      do got = read(r->fd, r->in + r->len, r->cap - r->len - 1);
      while (got < 0 && errno == EINTR);
      if (got > 0) {
        r->len += (size_t)got;
        r->bytes += (unsigned long long)got;
      } else {
        /* zlib's words for it, as when it read plain files: "PATH: why" */
        if (got < 0) {
          problem(r, r->lineno + 1, "read error: %s: %s (file truncated?)", r->file,
                  strerror(errno));
        }
        r->eof = true;
      }
      continue;
    }
    int got = gzread(r->gz, r->in + r->len, (unsigned)(r->cap - r->len));
    if (got > 0) {
      r->len += (size_t)got;
      r->bytes += (unsigned long long)got;
    } else {
      if (got < 0) {
        int zerr = 0;
        const char *msg = gzerror(r->gz, &zerr);
        problem(r, r->lineno + 1, "read error: %s (file truncated?)", msg ? msg : "unknown");
      } else if (!gzeof(r->gz)) {
        problem(r, r->lineno + 1, "read error (file truncated?)");
      }
      r->eof = true;
    }
  }
}

/* ---- header lines ---------------------------------------------------- */

/* isdigit, without a call for its table (a header is read a byte at a time) */
#define DIGIT(c) ((unsigned)((unsigned char)(c) - '0') < 10u)

static bool digits(const char *s, int n) {
  for (int i = 0; i < n; i++)
    if (!DIGIT(s[i])) return false;
  return true;
}

static long num(const char *s, int n) {
  long v = 0;
  for (int i = 0; i < n; i++) v = v * 10 + (s[i] - '0');
  return v;
}

/* Match `<L><MMDD> <HH:MM:SS>.<usec> <pid> <path>:<line>] ` as tlparse's
** regex does. On success sets the stamp (comparable microseconds), pid,
** where the writer is (offset and length) and the offset of the JSON text. */
static bool parse_header(const char *s, size_t n, char *level, long long *stamp, long *pid,
                         size_t *writer_at, size_t *writer_len, size_t *json_at) {
  /* "V0211 16:42:20.546000 " is 22 bytes */
  if (n < 22 || !strchr("VIWEC", s[0]) || !s[0]) return false;
  if (!digits(s + 1, 4) || s[5] != ' ' || !digits(s + 6, 2) || s[8] != ':' ||
      !digits(s + 9, 2) || s[11] != ':' || !digits(s + 12, 2) || s[14] != '.' ||
      !digits(s + 15, 6) || s[21] != ' ')
    return false;
  size_t i = 22;
  while (i < n && s[i] == ' ') i++;
  size_t p0 = i;
  while (i < n && DIGIT(s[i])) i++;
  if (i == p0 || i >= n || s[i] != ' ') return false;
  long p = 0;
  for (size_t k = p0; k < i && k < p0 + 18; k++) p = p * 10 + (s[k] - '0');
  i++;
  /* <path>:<line>] — the path has no ':' (tlparse: [^:]+) */
  size_t w0 = i;
  while (i < n && s[i] != ':' && s[i] != ' ') i++;
  if (i == w0 || i >= n || s[i] != ':') return false;
  i++;
  size_t l0 = i;
  while (i < n && DIGIT(s[i])) i++;
  if (i == l0 || i + 1 >= n || s[i] != ']' || s[i + 1] != ' ') return false;
  *level = s[0];
  long long mon = num(s + 1, 2), day = num(s + 3, 2);
  *stamp = ((((mon * 31 + day) * 24 + num(s + 6, 2)) * 60 + num(s + 9, 2)) * 60 + num(s + 12, 2))
           * 1000000LL + num(s + 15, 6);
  *pid = p;
  *writer_at = w0;
  *writer_len = i - w0;
  *json_at = i + 2;
  return true;
}

/* Is LINE a header? If so it becomes the lookahead, with what parse_header
** found in it (assemble does not parse it again). */
static bool take_header(sdb_tt_reader *r, const char *line, size_t n, bool newline) {
  char lv;
  long long st;
  long pid;
  size_t wa, wl, at;
  if (!parse_header(line, n, &lv, &st, &pid, &wa, &wl, &at)) return false;
  sdb_buf_clear(&r->pending);
  sdb_buf_putn(&r->pending, line, n);
  r->pending_line = r->lineno;
  r->has_pending = true;
  r->pending_cut = !newline;
  r->pending_level = lv;
  r->pending_stamp = st;
  r->pending_pid = pid;
  r->pending_writer = wa;
  r->pending_writer_len = wl;
  r->pending_json = at;
  return true;
}

/* ---- compile ids ----------------------------------------------------- */

static long jint(const cJSON *j, long dflt, bool *present) {
  int64_t v;
  if (!sdb_jl_int(j, &v)) return dflt;
  if (present) *present = true;
  return (long)v;
}

/* The envelope's fields beside the kind, found in one pass */
enum { H_FRAME, H_FCID, H_CA, H_ATTEMPT, H_RANK, H_PAYLOAD, NHEADER };
static const char *const header_names[NHEADER] = {
  "frame_id", "frame_compile_id", "compiled_autograd_id", "attempt", "rank", "has_payload",
};

/* V (>= 0) in decimal at P; returns the end */
static char *put_num(char *p, long v) {
  char d[24];
  int k = 0;
  do d[k++] = (char)('0' + v % 10); while ((v /= 10) > 0);
  while (k) *p++ = d[--k];
  return p;
}

/* by hand: printf made this a tenth of a reader's instructions (every
** record with an id names its compile by it) */
char *sdb_tt_cid_str(const sdb_tt_cid *c, char *buf, size_t n) {
  char s[128], *p = s;
  *p++ = '[';
  if (c->ca >= 0) {
    *p++ = '!';
    p = put_num(p, c->ca);
    if (c->frame >= 0) *p++ = '/';
  }
  if (c->frame >= 0) {
    p = put_num(p, c->frame);
    *p++ = '/';
    p = put_num(p, c->fcid < 0 ? 0 : c->fcid);
  }
  if (c->attempt > 0) {
    *p++ = '_';
    p = put_num(p, c->attempt);
  }
  *p++ = ']';
  if (n) {   /* as snprintf(buf, n, "%s", s) */
    size_t len = (size_t)(p - s) < n - 1 ? (size_t)(p - s) : n - 1;
    memcpy(buf, s, len);
    buf[len] = 0;
  }
  return buf;
}

bool sdb_tt_cid_eq(const sdb_tt_cid *a, const sdb_tt_cid *b) {
  return a->ca == b->ca && a->frame == b->frame && a->fcid == b->fcid && a->attempt == b->attempt;
}

static const char *parse_long(const char *s, long *v) {
  if (!isdigit((unsigned char)*s)) return NULL;
  char *end;
  errno = 0;
  *v = strtol(s, &end, 10);
  return errno ? NULL : end;
}

int sdb_tt_cid_parse(const char *s, sdb_tt_cid *out) {
  sdb_tt_cid c = {-1, -1, -1, 0};
  bool br = *s == '[';
  if (br) s++;
  if (*s == '!') {
    if (!(s = parse_long(s + 1, &c.ca))) return SDB_E_INVALID;
    if (*s == '/') s++;
    else goto tail;
  }
  if (!(s = parse_long(s, &c.frame)) || *s != '/') return SDB_E_INVALID;
  if (!(s = parse_long(s + 1, &c.fcid))) return SDB_E_INVALID;
tail:
  if (*s == '_' && !(s = parse_long(s + 1, &c.attempt))) return SDB_E_INVALID;
  if (br && *s++ != ']') return SDB_E_INVALID;
  if (*s) return SDB_E_INVALID;
  *out = c;
  return SDB_OK;
}

static void note_compile(sdb_tt_reader *r, const sdb_tt_record *rec) {
  /* a compile's records come together: the last one's index, unformatted */
  if (r->last_comp && sdb_tt_cid_eq(&r->comps[r->last_comp - 1].cid, &rec->cid)) {
    r->comps[r->last_comp - 1].records++;
    return;
  }
  char key[96];
  const char *k = sdb_intern(sdb_tt_cid_str(&rec->cid, key, sizeof key));
  void *v = sdb_map_get(&r->cids, k);
  if (v) {
    r->comps[(intptr_t)v - 1].records++;
    r->last_comp = (size_t)(intptr_t)v;
    return;
  }
  if (r->ncomps == r->capcomps) {
    size_t cap = r->capcomps ? r->capcomps * 2 : 16;
    sdb_tt_compile *c = sdb_noted(realloc(r->comps, cap * sizeof *c));
    if (!c) return;
    r->comps = c;
    r->capcomps = cap;
  }
  r->comps[r->ncomps] = (sdb_tt_compile){rec->cid, rec->line, 1};
  r->ncomps++;
  if (sdb_map_put(&r->cids, k, (void *)(intptr_t)r->ncomps)) r->last_comp = r->ncomps;
}

/* ---- records --------------------------------------------------------- */

static void md5_hex(const char *s, size_t n, char out[33]) {
  MD5_CTX ctx;
  unsigned char d[16];
  MD5Init(&ctx);
  MD5Update(&ctx, (const unsigned char *)s, n);
  MD5Final(d, &ctx);
  static const char hex[] = "0123456789abcdef";   /* snprintf per byte: 9% of a read */
  for (int i = 0; i < 16; i++) {
    out[2 * i] = hex[d[i] >> 4];
    out[2 * i + 1] = hex[d[i] & 15];
  }
  out[32] = 0;
}

static void remember_str(sdb_tt_reader *r, const sdb_tt_record *rec) {
  /* {"str": ["/path/file.py", 7]} */
  const cJSON *name = cJSON_IsArray(rec->meta) ? rec->meta->child : NULL;
  int64_t idx;
  if (!sdb_jl_str(name) || !name->next || !sdb_jl_int(name->next, &idx) || idx < 0 ||
      idx > 10000000) {
    problem(r, rec->line, "str record is not [name, index]");
    return;
  }
  size_t i = (size_t)idx;
  if (i >= r->nstrs) {
    size_t n = i + 1 > r->nstrs * 2 ? i + 1 : r->nstrs * 2;
    const char **s = sdb_noted(realloc(r->strs, n * sizeof *s));
    if (!s) return;
    memset(s + r->nstrs, 0, (n - r->nstrs) * sizeof *s);
    r->strs = s;
    r->nstrs = n;
  }
  r->strs[i] = sdb_intern(name->valuestring);
}

static void count_kind(sdb_tt_reader *r, const char *kind) {
  intptr_t n = (intptr_t)sdb_map_get(&r->kinds, kind);
  sdb_map_put(&r->kinds, kind, (void *)(n + 1));
}

/* Turn the header at r->pending into r->rec: parse its JSON, then read its
** payload lines. Returns false when the header's JSON is unusable (the
** record is skipped, its payload lines consumed). */
static bool assemble(sdb_tt_reader *r) {
  sdb_tt_record *rec = &r->rec;
  const char *h = sdb_buf_cstr(&r->pending);
  size_t hn = r->pending.len, at = r->pending_json;
  long long stamp = r->pending_stamp;
  memset(rec, 0, sizeof *rec);
  rec->line = r->pending_line;
  rec->rank = -1;
  rec->cid = (sdb_tt_cid){-1, -1, -1, 0};
  rec->payload_ok = true;
  if (!r->pending.failed) {
    rec->level = r->pending_level;
    rec->pid = r->pending_pid;
    /* records come from a few writers: the last one's name is not hashed again */
    const char *w = h + r->pending_writer;
    size_t wl = r->pending_writer_len;
    if (r->last_writer && wl == r->last_writer_len && !memcmp(w, r->last_writer, wl)) {
      rec->writer = r->last_writer;
    } else if ((rec->writer = sdb_intern_n(w, wl))) {
      r->last_writer = rec->writer;
      r->last_writer_len = wl;
    }
  } else {   /* out of memory copying it: what is left of it, as it reads */
    size_t wa, wl;
    at = 0;
    stamp = 0;
    if (parse_header(h, hn, &rec->level, &stamp, &rec->pid, &wa, &wl, &at))
      rec->writer = sdb_intern_n(h + wa, wl);
  }
  rec->time = (double)stamp / 1e6;
  if (r->have_stamp && stamp < r->last_stamp)
    problem(r, rec->line, "timestamp goes back %.6f s (file order kept)",
            (double)(r->last_stamp - stamp) / 1e6);
  r->last_stamp = stamp;
  r->have_stamp = true;

  json_error_t jerr;
  const cJSON *root = sdb_jl_parse(&r->jl, h + at, hn - at, &jerr);
  const cJSON *f[NHEADER];
  sdb_jl_fields(root, header_names, NHEADER, f);
  bool ok = true;
  if (!root) {
    problem(r, rec->line, "bad JSON: %s (column %d)%s", jerr.text, jerr.column + (int)at,
            r->pending_cut ? "; the file ends inside this line (truncated)" : "");
    ok = false;
  } else if (!cJSON_IsObject(root) || !root->child) {
    problem(r, rec->line, "bad record: the JSON is not an object with a kind");
    ok = false;   /* f is all NULL: an array or {} has no fields */
  } else {
    const char *k = root->child->string;   /* as the writer: runs of one kind */
    if (r->last_kind && !strcmp(k, r->last_kind)) rec->kind = r->last_kind;
    else if ((rec->kind = sdb_intern(k))) r->last_kind = rec->kind;
    rec->meta = sdb_jl_get(root, root->child->string);   /* the last of duplicates */
    rec->root = root;
    bool present = false;
    rec->cid.frame = jint(f[H_FRAME], -1, &present);
    rec->cid.fcid = jint(f[H_FCID], -1, &present);
    rec->cid.ca = jint(f[H_CA], -1, &present);
    rec->cid.attempt = jint(f[H_ATTEMPT], 0, NULL);
    /* a negative id reads as none, as it prints (found by fuzzing) */
    if (rec->cid.frame < 0) rec->cid.frame = -1;
    if (rec->cid.fcid < 0) rec->cid.fcid = -1;
    if (rec->cid.ca < 0) rec->cid.ca = -1;
    /* PyTorch writes frame_id and frame_compile_id together. A damaged
    ** record with only one reads as if the other were 0, which is how its
    ** id prints, so `info graph ID` finds it again (found by fuzzing). */
    if ((rec->cid.frame < 0) != (rec->cid.fcid < 0)) {
      if (rec->cid.frame < 0) rec->cid.frame = 0;
      if (rec->cid.fcid < 0) rec->cid.fcid = 0;
    }
    if (rec->cid.attempt < 0) rec->cid.attempt = 0;
    rec->has_cid = present;
    rec->rank = jint(f[H_RANK], -1, NULL);
  }
  const char *want = NULL;
  const cJSON *hp = f[H_PAYLOAD];
  if (hp) {
    if (sdb_jl_str(hp) && strlen(hp->valuestring) == 32) want = hp->valuestring;
    else problem(r, rec->line, "has_payload is not an MD5 hex digest");
  }

  /* payload lines: TAB-prefixed; bare empty lines between them are
  ** tolerated (real logs have them) and reported once per record */
  sdb_buf_clear(&r->payload);
  r->has_pending = false;
  long npay = 0, blanks = 0, blank_at = 0;
  bool reported_blank = false;
  const char *line;
  size_t n;
  bool newline = true;
  while (next_line(r, &line, &n, &newline)) {
    if (n && line[0] == '\t') {
      for (; blanks; blanks--) {
        if (npay++) sdb_buf_putc(&r->payload, '\n');
      }
      if (blank_at && !reported_blank) {
        problem(r, blank_at, "empty line inside a payload (kept as an empty payload line)");
        reported_blank = true;
      }
      blank_at = 0;
      if (npay++) sdb_buf_putc(&r->payload, '\n');
      sdb_buf_putn(&r->payload, line + 1, n - 1);
      continue;
    }
    if (n == 0) {
      if (!blanks) blank_at = r->lineno;
      blanks++;
      continue;
    }
    if (take_header(r, line, n, newline)) break;
    /* the line is not NUL-terminated at n: print at most n of it */
    problem(r, r->lineno, "bad header line: %.*s%s", (int)(n > 60 ? 60 : n), line, n > 60 ? "..." : "");
  }
  rec->payload = sdb_buf_cstr(&r->payload);
  rec->payload_len = r->payload.len;
  rec->payload_lines = npay;
  if (want) {
    rec->has_payload = true;
    char got[33];
    md5_hex(rec->payload, rec->payload_len, got);
    if (strcmp(got, want) != 0) {
      rec->payload_ok = false;
      if (!npay)
        problem(r, rec->line, "%s: payload announced but missing (truncated?)",
                rec->kind ? rec->kind : "record");
      else if (!newline && !r->has_pending)
        problem(r, rec->line, "%s: payload cut short at line %ld: the file ends inside it "
                "(truncated)", rec->kind ? rec->kind : "record", r->lineno);
      else
        problem(r, rec->line, "%s: payload MD5 %s does not match has_payload %s (%ld lines)",
                rec->kind ? rec->kind : "record", got, want, npay);
    }
  } else if (npay && ok) {
    problem(r, rec->line, "%s: payload lines without has_payload", rec->kind);
  }
  if (r->payload.failed) {
    problem(r, rec->line, "out of memory reading the payload");
    ok = false;
  }
  return ok;
}

int sdb_tt_next(sdb_tt_reader *r, const sdb_tt_record **out, sdb_err *err) {
  *out = NULL;
  for (;;) {
    if (sdb_cancelled())   /* Ctrl-C: the records before this line stay */
      return sdb_err_set(err, SDB_E_INVALID, "KeyboardInterrupt", "%s:%ld: interrupted (%zu "
                         "records read)", r->path, r->lineno + 1, (size_t)r->nrecords), -1;
    if (r->nomem)   /* not an end of the log: the rest of it was not read */
      return sdb_err_set(err, SDB_E_OOM, "MemoryError", "%s:%ld: out of memory reading the log",
                         r->path, r->lineno + 1), -1;
    if (!r->has_pending) {
      /* find the first header; anything before it is a bad line */
      const char *line;
      size_t n;
      bool newline;
      for (;;) {
        if (!next_line(r, &line, &n, &newline)) {
          if (r->nomem) break;
          return 0;
        }
        if (n && take_header(r, line, n, newline)) break;
        if (n == 0) problem(r, r->lineno, "empty line outside a payload");
        else if (line[0] == '\t') problem(r, r->lineno, "payload line with no record");
        else problem(r, r->lineno, "bad header line: %.*s%s", (int)(n > 60 ? 60 : n), line, n > 60 ? "..." : "");
      }
      if (r->nomem) continue;
    }
    if (!assemble(r)) continue;
    r->nrecords++;
    count_kind(r, r->rec.kind);
    if (!r->str_kind) r->str_kind = sdb_intern("str");
    if (r->rec.kind == r->str_kind) remember_str(r, &r->rec);
    if (r->rec.has_cid) note_compile(r, &r->rec);
    *out = &r->rec;
    return 1;
  }
}

/* ---- open/close and accessors ---------------------------------------- */

bool sdb_tt_sniff(const char *path) {
  gzFile gz = gzopen(path, "rb");
  if (!gz) return false;
  char buf[4096];
  bool yes = false;
  while (gzgets(gz, buf, sizeof buf)) {
    size_t n = strlen(buf);
    while (n && (buf[n - 1] == '\n' || buf[n - 1] == '\r')) n--;
    if (!n) continue;
    char lv;
    long long st;
    long pid;
    size_t wa, wl, at;
    yes = parse_header(buf, n, &lv, &st, &pid, &wa, &wl, &at) && buf[at] == '{';
    break;
  }
  gzclose(gz);
  return yes;
}

int sdb_tt_open(const char *path, sdb_tt_reader **out, sdb_err *err) {
  return sdb_tt_open_as(path, path, out, err);
}

int sdb_tt_open_as(const char *path, const char *name, sdb_tt_reader **out, sdb_err *err) {
  *out = NULL;
  sdb_tt_reader *r = sdb_noted(calloc(1, sizeof *r));
  if (!r) return sdb_err_set(err, SDB_E_OOM, "MemoryError", "out of memory");
  r->path = sdb_intern(name);
  r->fd = -1;
  /* a plain file is read with read(2): gzread copied it through its own
  ** buffer (9% of an import). gzip by its magic, as zlib tells; anything
  ** that cannot be read at offset 0 (a pipe, a directory) goes to zlib
  ** as before, which says what is wrong with it. */
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    int e = errno;
    free(r);
    return sdb_err_set(err, SDB_E_INVALID, "FileNotFoundError", "%s: %s", name,
                       e ? strerror(e) : "cannot open");
  }
  unsigned char magic[2];
  ssize_t m = pread(fd, magic, 2, 0);
  if (m >= 0 && !(m == 2 && magic[0] == 0x1f && magic[1] == 0x8b) && (r->file = sdb_noted(strdup(path)))) {
    r->fd = fd;
    *out = r;
    return SDB_OK;
  }
  close(fd);
  r->gz = gzopen(path, "rb");
  if (!r->gz) {
    int e = errno;
    free(r);
    return sdb_err_set(err, SDB_E_INVALID, "FileNotFoundError", "%s: %s", name,
                       e ? strerror(e) : "cannot open");
  }
  gzbuffer(r->gz, CHUNK);
  *out = r;
  return SDB_OK;
}

void sdb_tt_close(sdb_tt_reader *r) {
  if (!r) return;
  if (r->gz) gzclose(r->gz);
  if (r->fd >= 0) close(r->fd);
  free((char *)r->file);
  free(r->in);
  sdb_buf_free(&r->pending);
  sdb_buf_free(&r->payload);
  sdb_jl_free(&r->jl);
  free(r->strs);
  for (size_t i = 0; i < r->nprobs; i++) free(r->probs[i].what);
  free(r->probs);
  sdb_map_free(&r->kinds);
  free(r->kindv);
  sdb_map_free(&r->cids);
  free(r->comps);
  free(r);
}

const char *sdb_tt_path(const sdb_tt_reader *r) { return r->path; }

const char *sdb_tt_string(const sdb_tt_reader *r, long idx) {
  return idx >= 0 && (size_t)idx < r->nstrs ? r->strs[idx] : NULL;
}

size_t sdb_tt_nproblems(const sdb_tt_reader *r) { return r->nprobs; }
const sdb_tt_problem *sdb_tt_problem_at(const sdb_tt_reader *r, size_t i) {
  return i < r->nprobs ? &r->probs[i] : NULL;
}

size_t sdb_tt_nkinds(const sdb_tt_reader *r) { return r->kinds.len; }
const sdb_tt_kind *sdb_tt_kind_at(const sdb_tt_reader *r, size_t i) {
  sdb_tt_reader *m = (sdb_tt_reader *)r;   /* a cache refreshed on demand */
  if (i >= r->kinds.len) return NULL;
  if (m->nkindv < r->kinds.len) {
    sdb_tt_kind *v = sdb_noted(realloc(m->kindv, r->kinds.len * sizeof *v));
    if (!v) return NULL;
    m->kindv = v;
    m->nkindv = r->kinds.len;
  }
  m->kindv[i].kind = r->kinds.keys[i];
  m->kindv[i].count = (long)(intptr_t)r->kinds.vals[i];
  return &m->kindv[i];
}
long sdb_tt_kind_count(const sdb_tt_reader *r, const char *kind) {
  return (long)(intptr_t)sdb_map_get(&r->kinds, sdb_intern(kind));
}

size_t sdb_tt_ncompiles(const sdb_tt_reader *r) { return r->ncomps; }
const sdb_tt_compile *sdb_tt_compile_at(const sdb_tt_reader *r, size_t i) {
  return i < r->ncomps ? &r->comps[i] : NULL;
}
long sdb_tt_nrecords(const sdb_tt_reader *r) { return r->nrecords; }
long sdb_tt_nlines(const sdb_tt_reader *r) { return r->lineno; }
unsigned long long sdb_tt_nbytes(const sdb_tt_reader *r) { return r->bytes; }

bool sdb_tt_frame_get(const sdb_tt_reader *r, const cJSON *frame, sdb_tt_frame *out) {
  if (!cJSON_IsObject(frame)) return false;
  const cJSON *f = NULL, *ln = NULL, *nm = NULL, *loc = NULL;
  for (const cJSON *c = frame->child; c; c = c->next) {   /* the last of duplicates */
    const char *k = c->string;
    if (!k) continue;
    if (!strcmp(k, "filename")) f = c;
    else if (!strcmp(k, "line")) ln = c;
    else if (!strcmp(k, "name")) nm = c;
    else if (!strcmp(k, "loc")) loc = c;
  }
  int64_t v;
  out->file = NULL;
  if (sdb_jl_int(f, &v)) out->file = sdb_tt_string(r, (long)v);
  else if (sdb_jl_str(f)) out->file = sdb_intern(f->valuestring);
  if (!out->file) out->file = sdb_intern("<unknown>");
  out->line = sdb_jl_int(ln, &v) ? (long)v : 0;
  out->name = sdb_intern(sdb_jl_str(nm) ? nm->valuestring : "?");
  out->loc = sdb_intern(sdb_jl_str(loc) ? loc->valuestring : "");
  return true;
}
