/*
** torch_trace.h — a streaming reader of PyTorch structured trace logs
** (what TORCH_TRACE=/dir writes, the input of tlparse).
**
** One record is a glog header line
**     <L><MMDD> <HH:MM:SS>.<usec> <pid> <path>:<line>] <json>
** followed by zero or more payload lines, each starting with a TAB. The
** JSON object's first key is the record kind, its value the metadata; then
** optional rank, compiled_autograd_id, frame_id, frame_compile_id, attempt,
** an envelope stack, and has_payload (the MD5 of the payload text).
**
** The reader never stops on bad input: a malformed header line, bad JSON,
** an MD5 mismatch, an empty line inside a payload, a timestamp going back,
** a truncated last record — each becomes a problem ("file:line: what") and
** the rest is imported. Plain files are read with read(2), gzip files
** (told by their magic) through zlib.
**
** Ownership: the reader owns every record it hands out; a record (its JSON
** and payload) is valid until the next sdb_tt_next or sdb_tt_close. The
** JSON is read by jsonline.h (cJSON, or jansson where cJSON would read it
** differently): read it with its sdb_jl_* functions, copy what must outlive
** the record with cJSON_Duplicate. Names
** (kinds, interned file names, problems' file) are sdb_intern pointers.
*/
#ifndef SDB_TORCH_TRACE_H
#define SDB_TORCH_TRACE_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>

#include "err.h"

/* A compile id: [!ca/]frame/frame_compile_id[_attempt]. A missing field
** is -1, except attempt which PyTorch treats as 0 when absent. */
typedef struct sdb_tt_cid {
  long ca;          /* compiled_autograd_id, -1 when absent */
  long frame;       /* frame_id, -1 when absent */
  long fcid;        /* frame_compile_id, -1 when absent */
  long attempt;     /* 0 when absent */
} sdb_tt_cid;

typedef struct sdb_tt_record {
  long line;            /* the header's line number, 1-based */
  char level;           /* V I W E C */
  double time;          /* seconds since the start of the month/day stamp */
  long pid;
  const char *writer;   /* interned "torch/...py:4244" */
  const char *kind;     /* interned: the first key */
  const cJSON *root;    /* the whole header object (borrowed; jsonline.h) */
  const cJSON *meta;    /* root[kind] (borrowed) */
  bool has_cid;         /* frame_id or compiled_autograd_id present */
  sdb_tt_cid cid;
  long rank;            /* -1 when absent */
  bool has_payload;     /* the header named an MD5 */
  bool payload_ok;      /* MD5 matched (true when no payload announced) */
  const char *payload;  /* joined payload text ("" when none), borrowed */
  size_t payload_len;
  long payload_lines;   /* the lines joined in it, blank ones kept (0 when none) */
} sdb_tt_record;

typedef struct sdb_tt_problem {
  const char *file;     /* interned */
  long line;
  char *what;           /* owned by the reader */
} sdb_tt_problem;

/* Per-kind record counts, in first-seen order. */
typedef struct sdb_tt_kind {
  const char *kind;     /* interned */
  long count;
} sdb_tt_kind;

/* A compile id as first seen, with how many records carry it. */
typedef struct sdb_tt_compile {
  sdb_tt_cid cid;
  long first_line;
  long records;
} sdb_tt_compile;

typedef struct sdb_tt_reader sdb_tt_reader;

/* Does PATH (plain or gzip) start like a TORCH_TRACE log: its first
** non-empty line a glog header whose text after "] " opens a JSON object? */
bool sdb_tt_sniff(const char *path);
/* Open PATH (plain or gzip). Fails only when the file cannot be opened. */
int sdb_tt_open(const char *path, sdb_tt_reader **out, sdb_err *err);
/* The same, naming the log NAME in problems and errors (a spooled pipe,
** see spool.h, is read from a temporary file under the user's name). */
int sdb_tt_open_as(const char *path, const char *name, sdb_tt_reader **out, sdb_err *err);
/* The next well-formed record: 1 and *rec set, 0 at the end, negative on
** a read error or Ctrl-C (cancel.h) (err filled; what was read so far
** stays valid). */
int sdb_tt_next(sdb_tt_reader *r, const sdb_tt_record **rec, sdb_err *err);
void sdb_tt_close(sdb_tt_reader *r);           /* NULL is a no-op */

const char *sdb_tt_path(const sdb_tt_reader *r);    /* interned */
/* The file name a {"str": [name, idx]} record interned, or NULL. */
const char *sdb_tt_string(const sdb_tt_reader *r, long idx);
size_t sdb_tt_nproblems(const sdb_tt_reader *r);
const sdb_tt_problem *sdb_tt_problem_at(const sdb_tt_reader *r, size_t i);
size_t sdb_tt_nkinds(const sdb_tt_reader *r);
const sdb_tt_kind *sdb_tt_kind_at(const sdb_tt_reader *r, size_t i);
long sdb_tt_kind_count(const sdb_tt_reader *r, const char *kind);
size_t sdb_tt_ncompiles(const sdb_tt_reader *r);
const sdb_tt_compile *sdb_tt_compile_at(const sdb_tt_reader *r, size_t i);
long sdb_tt_nrecords(const sdb_tt_reader *r);  /* records handed out so far */
long sdb_tt_nlines(const sdb_tt_reader *r);    /* lines read so far */
unsigned long long sdb_tt_nbytes(const sdb_tt_reader *r); /* uncompressed bytes */

/* "[0/1]" as PyTorch prints compile ids: "[!3/0/1]" under compiled
** autograd, "[0/1_2]" for attempt 2, "[!3]" for a compiled-autograd-only
** id. Writes at most n bytes into buf and returns buf. */
char *sdb_tt_cid_str(const sdb_tt_cid *c, char *buf, size_t n);
bool sdb_tt_cid_eq(const sdb_tt_cid *a, const sdb_tt_cid *b);
/* Parse "0/1", "[0/1]", "0/1_2", "!3/0/1": 0 ok, negative if malformed. */
int sdb_tt_cid_parse(const char *s, sdb_tt_cid *out);

/* A stack frame of user_stack/stack ({"line", "name", "filename", "loc"}):
** the file name resolved through the interned strings. Returns false when
** FRAME is not a frame object. */
typedef struct sdb_tt_frame {
  const char *file;     /* interned; "<unknown>" when the index is unknown */
  long line;
  const char *name;     /* interned */
  const char *loc;      /* interned source text, may be "" */
} sdb_tt_frame;
bool sdb_tt_frame_get(const sdb_tt_reader *r, const cJSON *frame, sdb_tt_frame *out);

#endif
