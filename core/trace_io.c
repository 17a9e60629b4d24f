/*
** trace_io.c — saved traces (see trace_io.h and docs/trace-format.md).
*/
#define _GNU_SOURCE   /* mkstemp, fsync, strdup */
#include "trace_io.h"
#include "buf.h"
#include "cancel.h"
#include "intern.h"
#include "jsonline.h"
#include "srcfile.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <jansson.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

/* --- values ---------------------------------------------------------------- */

/* A JSON string; bytes that are not UTF-8 (Lua strings may hold any) are
** written as '?', since JSON text must be UTF-8. */
/* A value, member or element the writer could not make (out of memory)
** fails the line it is for, and so the save: left out, it would pass for
** a line that never had it. put_json reads and clears the flag. */
static bool json_failed;
static void set(json_t *o, const char *k, json_t *v) {
  if (!v || json_object_set_new(o, k, v)) json_failed = true;
}
static void add(json_t *a, json_t *v) {
  if (!v || json_array_append_new(a, v)) json_failed = true;
}

static json_t *jstr(const char *s) {
  if (!s) return json_null();
  json_t *j = json_string(s);
  if (j) return j;
  char *copy = strdup(s);
  if (!copy) return NULL;
  for (char *p = copy; *p; p++)
    if ((unsigned char)*p >= 0x80) *p = '?';
  j = json_string(copy);
  free(copy);
  return j;
}

static json_t *expr_json(const sdb_expr *e) {
  switch (e->kind) {
    case SDB_INT: return json_integer(e->ival);
    case SDB_SYM: return jstr(e->name);
    case SDB_TRUE: return json_true();
    case SDB_FALSE: return json_false();
    default: break;
  }
  json_t *a = json_array();
  add(a, json_string(sdb_kind_name((sdb_kind)e->kind)));
  add(a, json_integer(e->ival));
  for (uint32_t i = 0; i < e->nargs; i++) add(a, expr_json(e->args[i]));
  return a;
}

static int kind_from_name(const char *name) {
  for (int k = 0; k < SDB_KIND_COUNT; k++)
    if (!strcmp(sdb_kind_name((sdb_kind)k), name)) return k;
  return -1;
}

/* Event lines are read through jsonline.h: cJSON for the plain ASCII
** lines the writer writes (a million-event replay spent 80% of its load in
** json_loadb), jansson for the rest and for its reasons; the header, the
** writer and error messages stay with jansson. */
/* An expression from its tree; NULL with *why set. */
static const sdb_expr *json_expr(const cJSON *j, int depth, const char **why) {
  if (depth > SDB_MAX_DEPTH) { *why = "expression nested too deeply"; return NULL; }
  int64_t v;
  const sdb_expr *leaf = NULL;
  bool is_leaf = true;
  if (sdb_jl_int(j, &v)) leaf = sdb_int(v);
  else if (cJSON_IsTrue(j)) leaf = sdb_true();
  else if (cJSON_IsFalse(j)) leaf = sdb_false();
  else if (cJSON_IsString(j)) leaf = sdb_sym(j->valuestring);
  else is_leaf = false;
  if (is_leaf) {
    if (!leaf) *why = sdb_expr_error();   /* an empty name, or no memory */
    return leaf;
  }
  const cJSON *head = cJSON_IsArray(j) ? j->child : NULL;
  const cJSON *ival = head ? head->next : NULL;
  int64_t iv = 0;
  if (!head || !ival || !cJSON_IsString(head) || !sdb_jl_int(ival, &iv)) {
    *why = "an expression is an integer, a symbol name, true, false or [kind, ival, args...]";
    return NULL;
  }
  int kind = kind_from_name(head->valuestring);
  if (kind < 0 || kind == SDB_INT || kind == SDB_SYM) {
    *why = "unknown expression kind";
    return NULL;
  }
  size_t nargs = sdb_jl_len(j) - 2;
  const sdb_expr *small[8], **args = nargs <= 8 ? small : malloc(nargs * sizeof *args);
  if (!args) { *why = "out of memory"; return NULL; }
  const sdb_expr *r = NULL;
  size_t i = 0;
  for (const cJSON *a = ival->next; i < nargs && a; a = a->next, i++)
    if (!(args[i] = json_expr(a, depth + 1, why))) break;
  if (i == nargs) {
    static const unsigned arity[SDB_KIND_COUNT] = {
      [SDB_POW] = 1, [SDB_FLOORDIV] = 2, [SDB_MOD] = 2, [SDB_EQ] = 2, [SDB_NE] = 2,
      [SDB_LT] = 2, [SDB_LE] = 2, [SDB_NOT] = 1,
    };
    if (arity[kind] && nargs != arity[kind]) *why = "wrong number of arguments in an expression";
    else if (!(r = sdb_rebuild((sdb_kind)kind, iv, args, nargs)))
      *why = sdb_expr_error();
  }
  if (args != small) free(args);
  return r;
}

static json_t *bound_json(int64_t v, bool is_bool) {
  if (is_bool) return json_boolean(v);
  if (v == SDB_NINF) return json_string("-int_oo");
  if (v == SDB_PINF) return json_string("int_oo");
  return json_integer(v);
}

static bool json_bound(const cJSON *j, int64_t *v, bool *is_bool) {
  if (cJSON_IsBool(j)) { *v = cJSON_IsTrue(j); *is_bool = true; return true; }
  if (sdb_jl_int(j, v)) return true;
  const char *s = sdb_jl_str(j);
  if (s && !strcmp(s, "-int_oo")) { *v = SDB_NINF; return true; }
  if (s && !strcmp(s, "int_oo")) { *v = SDB_PINF; return true; }
  return false;
}

/* --- writing ----------------------------------------------------------------- */

static long fail_after = -1;
void sdb_trace_fail_after(long bytes) { fail_after = bytes; }

typedef struct {
  FILE *f;
  long written;
  int err;          /* errno of the first failure, or 0 */
  sdb_buf line;     /* the line being dumped (put_json) */
} out_t;

static void put(out_t *o, const char *s, size_t n) {
  if (o->err) return;
  if (fail_after >= 0 && o->written + (long)n > fail_after) {
    o->err = EIO;
    return;
  }
  if (fwrite(s, 1, n, o->f) != n) o->err = errno ? errno : EIO;
  o->written += (long)n;
}

/* jansson's dumper, writing into an sdb_buf: json_dumps can run out of
** memory part way and still give a text, with a quote or a key missing
** (dump.c does not check what dumping an object's key returns), where a
** buffer of ours records that an append failed. */
static int dump_to_buf(const char *s, size_t n, void *b) {
  sdb_buf_putn(b, s, n);
  return ((sdb_buf *)b)->failed ? -1 : 0;
}

static void put_json(out_t *o, json_t *j) {
  bool failed = json_failed || !j;
  json_failed = false;
  o->line.len = 0;
  if (!failed && !o->err) {
    failed = json_dump_callback(j, dump_to_buf, &o->line, JSON_COMPACT | JSON_PRESERVE_ORDER);
    sdb_buf_putc(&o->line, '\n');
    failed = failed || o->line.failed;
  }
  json_decref(j);
  if (failed) {
    if (!o->err) o->err = ENOMEM;
  } else {
    put(o, o->line.data, o->line.len);
  }
}


static json_t *event_json(const sdb_event *e, size_t pos, const char *stack) {
  json_t *o = json_object();
  if (!o) return NULL;
  set(o, "seq", json_integer((json_int_t)pos));
  set(o, "event", json_string(sdb_event_name((sdb_event_kind)e->kind)));
  set(o, "phase", json_string(sdb_phase_name((sdb_phase)e->phase)));
  if (e->flags) set(o, "flags", json_integer(e->flags));
  if (sdb_event_site(e)->tracer) set(o, "tracer", jstr(sdb_event_site(e)->tracer));
  if (sdb_event_site(e)->depth) set(o, "depth", json_integer(sdb_event_site(e)->depth));
  if (sdb_event_site(e)->file) set(o, "file", jstr(sdb_event_site(e)->file));
  if (sdb_event_site(e)->line) set(o, "line", json_integer(sdb_event_site(e)->line));
  if (sdb_event_site(e)->func) set(o, "func", jstr(sdb_event_site(e)->func));
  if (sdb_event_op(e)) set(o, "op", jstr(sdb_event_op(e)));
  if (e->op_first) set(o, "op_first", json_true());
  if (sdb_event_sym(e)) set(o, "sym", expr_json(sdb_event_sym(e)));
  if (sdb_event_sym2(e)) set(o, "sym2", expr_json(sdb_event_sym2(e)));
  if (sdb_event_expr(e)) set(o, "expr", expr_json(sdb_event_expr(e)));
  if (sdb_event_has_range(e)) {
    json_t *r = json_array();
    add(r, bound_json(sdb_event_range(e).lo, sdb_event_range(e).is_bool));
    add(r, bound_json(sdb_event_range(e).hi, sdb_event_range(e).is_bool));
    set(o, "range", r);
  }
  if (sdb_event_value(e)) set(o, "value", json_integer(sdb_event_value(e)));
  if (sdb_event_text(e)) set(o, "text", jstr(sdb_event_text(e)));
  const char *detail = sdb_event_detail_once(e);   /* copied by jstr before the next */
  if (detail) set(o, "detail", jstr(detail));
  if (sdb_event_text2(e)) set(o, "text2", jstr(sdb_event_text2(e)));
  if (sdb_event_nsyms(e)) {
    json_t *a = json_array(), *t = sdb_event_texts(e) ? json_array() : NULL;
    for (uint32_t i = 0; i < sdb_event_nsyms(e); i++) {
      add(a, sdb_event_syms(e)[i] ? expr_json(sdb_event_syms(e)[i]) : json_null());
      if (sdb_event_texts(e)) add(t, jstr(sdb_event_texts(e)[i]));
    }
    set(o, "syms", a);
    if (sdb_event_texts(e)) set(o, "texts", t);
  }
  if (stack) set(o, "stack", jstr(stack));
  return o;
}

/* The whole text of a file through srcfile's cache, or NULL. */
static char *file_text(const char *file) {
  int n = sdb_srcfile_count(file);
  if (n < 0) return NULL;
  size_t len = 1;
  for (int i = 1; i <= n; i++) len += strlen(sdb_srcfile_line_raw(file, i)) + 1;
  char *t = malloc(len), *p = t;
  if (!t) {
    json_failed = true;   /* not a file left out: a save that failed */
    return NULL;
  }
  for (int i = 1; i <= n; i++) {
    const char *l = sdb_srcfile_line_raw(file, i);
    size_t k = strlen(l);
    memcpy(p, l, k);
    p += k;
    *p++ = '\n';
  }
  *p = 0;
  return t;
}

static json_t *header_json(const sdb_trace_meta *m, const sdb_events *s, size_t from,
                           size_t to) {
  json_t *h = json_object();
  set(h, "format", json_string(SDB_TRACE_FORMAT));
  set(h, "version", json_integer(SDB_TRACE_VERSION));
  set(h, "shapedb", jstr(m->shapedb ? m->shapedb : "?"));
  char when[32];
  time_t now = time(NULL);
  struct tm tm;
  gmtime_r(&now, &tm);
  strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
  set(h, "written", json_string(m->written ? m->written : when));
  set(h, "program", jstr(m->program));
  json_t *args = json_array();
  for (size_t i = 0; i < m->nargs; i++) add(args, jstr(m->args[i]));
  set(h, "args", args);
  set(h, "end", jstr(m->end ? m->end : "finished"));
  if (m->error) set(h, "error", jstr(m->error));
  set(h, "events", json_integer((json_int_t)(to - from)));
  if (m->options) set(h, "options", json_loads(m->options, 0, NULL));   /* ours: valid */
  /* the sources: the caller's, then every file named, in order first named */
  json_t *src = json_array(), *seen = json_object();
  for (size_t i = 0; i < m->nsources; i++) {
    json_t *f = json_object();
    set(f, "file", jstr(m->sources[i].file));
    set(f, "text", jstr(m->sources[i].text));
    add(src, f);
    /* a file name need not be UTF-8 (its "file" value is made so by jstr) */
    json_object_set_new_nocheck(seen, m->sources[i].file, json_true());
  }
  for (size_t i = from; i <= to; i++) {
    const char *file = i < to ? sdb_event_site(sdb_events_at(s, i))->file : m->program;
    if (!file || json_object_get(seen, file)) continue;
    json_object_set_new_nocheck(seen, file, json_true());
    char *text = file_text(file);
    if (!text) continue;
    json_t *f = json_object();
    set(f, "file", jstr(file));
    set(f, "text", jstr(text));
    free(text);
    add(src, f);
  }
  json_decref(seen);
  set(h, "sources", src);
  return h;
}

int sdb_trace_write(const char *path, const sdb_trace_meta *m, const sdb_events *s,
                    size_t from, size_t to, const char *const *stacks, size_t nstacks,
                    sdb_err *err) {
  if (sdb_events_lost(s)) {   /* a history with holes is no trace of the run */
    size_t k = sdb_events_lost(s);
    return sdb_err_set(err, SDB_E_OOM, "MemoryError",
                       "cannot write %s: %zu event%s of the run could not be kept (out of memory)",
                       path, k, k == 1 ? "" : "s"), -1;
  }
  /* the temporary file goes beside the target, so the rename is atomic */
  size_t n = strlen(path);
  char *tmp = malloc(n + 16);
  if (!tmp) return sdb_err_set(err, SDB_E_OOM, "OSError", "out of memory"), -1;
  snprintf(tmp, n + 16, "%s.tmp.XXXXXX", path);
  int fd = mkstemp(tmp);
  if (fd < 0) {
    int e = errno;
    char *dir = strdup(path);
    sdb_err_set(err, SDB_E_INVALID, "OSError", "cannot write %s: %s (creating a file in %s)%s",
                path, strerror(e), dir ? dirname(dir) : "its folder",
                access(path, F_OK) == 0 ? "; the old file is unchanged" : "");
    free(dir);
    free(tmp);
    return -1;
  }
  /* mkstemp makes it 0600: give it the old file's mode, else the umask's */
  struct stat st;
  mode_t mode;
  if (stat(path, &st) == 0) {
    mode = st.st_mode & 07777;
  } else {
    mode_t mask = umask(0);
    umask(mask);
    mode = 0666 & ~mask;
  }
  fchmod(fd, mode);
  out_t o = { fdopen(fd, "w"), 0, 0, SDB_BUF_INIT };
  if (!o.f) { o.err = errno; close(fd); }
  unsigned long lost = sdb_tstore_losses();
  if (o.f) {
    put_json(&o, header_json(m, s, from, to));
    for (size_t i = from; i < to && !o.err; i++) {
      const sdb_event *e = sdb_events_at(s, i);
      put_json(&o, event_json(e, i - from, i < nstacks && stacks ? stacks[i] : NULL));
    }
    if (!o.err && fflush(o.f) != 0) o.err = errno;
    if (!o.err && fsync(fileno(o.f)) != 0) o.err = errno;
    if (fclose(o.f) != 0 && !o.err) o.err = errno;
  }
  sdb_buf_free(&o.line);
  /* a line there was no memory to read was written as "?": not a trace */
  if (!o.err && sdb_tstore_losses() != lost) o.err = ENOMEM;
  if (!o.err && rename(tmp, path) != 0) o.err = errno;
  if (o.err) {
    unlink(tmp);
    sdb_err_set(err, SDB_E_INVALID, "OSError", "cannot write %s: %s%s", path, strerror(o.err),
                access(path, F_OK) == 0 ? "; the old file is unchanged" : "");
    free(tmp);
    return -1;
  }
  free(tmp);
  return 0;
}

/* --- reading ----------------------------------------------------------------- */

void sdb_trace_meta_clear(sdb_trace_meta *m) {
  free(m->shapedb);
  free(m->written);
  free(m->program);
  for (size_t i = 0; i < m->nargs; i++) free(m->args[i]);
  free(m->args);
  free(m->end);
  free(m->error);
  for (size_t i = 0; i < m->nsources; i++) {
    free(m->sources[i].file);
    free(m->sources[i].text);
  }
  free(m->sources);
  free(m->options);
  memset(m, 0, sizeof *m);
}

void sdb_trace_report_clear(sdb_trace_report *r) {
  free(r->unknown_kinds);
  free(r->warning);
  memset(r, 0, sizeof *r);
}

bool sdb_trace_sniff(const char *path) {
  FILE *f = fopen(path, "r");
  if (!f) return false;
  char buf[256];
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = 0;
  /* a JSON object: ours, or an error of ours (TORCH_TRACE lines start
  ** with a glog prefix) */
  return buf[0] == '{';
}

static char *dup_str(json_t *j) {
  const char *s = json_string_value(j);
  return s ? strdup(s) : NULL;
}

/* *out: a copy of h's string field k, NULL when it has none; false when
** out of memory (a header read in part would pass for the whole one) */
static bool dup_field(json_t *h, const char *k, char **out) {
  const char *s = json_string_value(json_object_get(h, k));
  *out = s ? strdup(s) : NULL;
  return !s || *out;
}

/* j's text as the writer writes it, through dump_to_buf; NULL when out of
** memory */
static char *dump_checked(json_t *j) {
  sdb_buf b = SDB_BUF_INIT;
  bool failed = json_dump_callback(j, dump_to_buf, &b, JSON_COMPACT | JSON_PRESERVE_ORDER) != 0;
  char *r = failed || b.failed ? NULL : sdb_buf_take(&b);
  sdb_buf_free(&b);
  return r;
}

static int read_header(json_t *h, sdb_trace_meta *m, const char **why, char *buf,
                       size_t cap) {
  const char *fmt = json_string_value(json_object_get(h, "format"));
  if (!json_is_object(h) || !fmt || strcmp(fmt, SDB_TRACE_FORMAT)) {
    *why = "not a shapedb trace (its first line has no \"format\": \"" SDB_TRACE_FORMAT "\")";
    return -1;
  }
  json_t *v = json_object_get(h, "version");
  if (!json_is_integer(v)) { *why = "missing field \"version\""; return -1; }
  m->version = (int)json_integer_value(v);
  m->shapedb = dup_str(json_object_get(h, "shapedb"));
  if (m->version > SDB_TRACE_VERSION || m->version < 1) {
    snprintf(buf, cap, "format version %d is %s than this shapedb reads (%d)%s%s", m->version,
             m->version < 1 ? "older" : "newer", SDB_TRACE_VERSION,
             m->shapedb ? "; it was written by shapedb " : "", m->shapedb ? m->shapedb : "");
    *why = buf;
    return -1;
  }
  static const char nomem[] = "out of memory";
  if (!dup_field(h, "written", &m->written) || !dup_field(h, "program", &m->program) ||
      !dup_field(h, "end", &m->end) || !dup_field(h, "error", &m->error)) {
    *why = nomem;
    return -1;
  }
  json_t *ev = json_object_get(h, "events");
  m->events = json_is_integer(ev) ? (size_t)json_integer_value(ev) : 0;
  json_t *args = json_object_get(h, "args");
  size_t na = json_array_size(args);
  if (na && !(m->args = calloc(na, sizeof *m->args))) { *why = nomem; return -1; }
  for (size_t i = 0; i < na; i++) {
    json_t *a = json_array_get(args, i);
    if (!json_is_string(a)) continue;
    if (!(m->args[m->nargs] = dup_str(a))) { *why = nomem; return -1; }
    m->nargs++;
  }
  json_t *opt = json_object_get(h, "options");   /* not an object or array: left out, as jansson does */
  if ((json_is_object(opt) || json_is_array(opt)) && !(m->options = dump_checked(opt))) {
    *why = nomem;
    return -1;
  }
  json_t *src = json_object_get(h, "sources");
  size_t ns = json_array_size(src);
  if (ns && !(m->sources = calloc(ns, sizeof *m->sources))) { *why = nomem; return -1; }
  for (size_t i = 0; i < ns; i++) {
    json_t *f = json_array_get(src, i);
    const char *file = json_string_value(json_object_get(f, "file"));
    const char *text = json_string_value(json_object_get(f, "text"));
    if (!file || !text) {
      *why = !file ? "a source without its field \"file\"" : "a source without its field \"text\"";
      return -1;
    }
    sdb_trace_source *to = &m->sources[m->nsources];
    to->file = strdup(file);
    to->text = strdup(text);
    m->nsources++;   /* counted either way: sdb_trace_meta_clear frees both */
    if (!to->file || !to->text) { *why = nomem; return -1; }
  }
  return 0;
}

/* Fields each kind cannot do without (the view reads them unchecked). */
static const char *required(sdb_event_kind k, sdb_event_in *e) {
  switch (k) {
    case SDB_EV_CREATE_SYMBOL: case SDB_EV_CREATE_UNBACKED: case SDB_EV_RANGE_REFINED:
    case SDB_EV_SIZE_LIKE: case SDB_EV_MEMO_HIT: case SDB_EV_SYMBOL_BOUND:
    case SDB_EV_COND_OUTPUT_SYMBOL:
      return sdb_more_sym(e->more) ? NULL : "sym";
    case SDB_EV_RENAMED:
      return !sdb_more_sym(e->more) ? "sym" : !sdb_more_sym2(e->more) ? "sym2" : NULL;
    case SDB_EV_REPLACEMENT_ADDED:
      return !sdb_more_sym(e->more) ? "sym" : !sdb_more_expr(e->more) ? "expr" : NULL;
    case SDB_EV_GUARD_ADDED: case SDB_EV_RUNTIME_ASSERT:
      return sdb_more_expr(e->more) ? NULL : "expr";
    case SDB_EV_NODE_PLACED: case SDB_EV_NODE_ERASED: case SDB_EV_UNBACKED_BINDINGS:
    case SDB_EV_TRACER_PUSH: case SDB_EV_TRACER_POP: case SDB_EV_BUFFER_LOWERED:
      return e->text ? NULL : "text";
    default:
      return NULL;
  }
}

/* Fields the view and the REPL read as symbols (their name), which a live
** run only ever fills with one: a trace that puts 3 or Max(s0, 2) there is
** refused at its line rather than crashing `info pending` later. */
static const char *not_symbol(sdb_event_kind k, const sdb_event_in *e) {
  switch (k) {
    case SDB_EV_CREATE_SYMBOL: case SDB_EV_CREATE_UNBACKED: case SDB_EV_RANGE_REFINED:
    case SDB_EV_SIZE_LIKE: case SDB_EV_MEMO_HIT: case SDB_EV_SYMBOL_BOUND:
    case SDB_EV_COND_OUTPUT_SYMBOL: case SDB_EV_REPLACEMENT_ADDED:
      return sdb_more_sym(e->more)->kind != SDB_SYM ? "sym" : NULL;
    case SDB_EV_RENAMED:
      return sdb_more_sym(e->more)->kind != SDB_SYM    ? "sym"
             : sdb_more_sym2(e->more)->kind != SDB_SYM ? "sym2"
                                                       : NULL;
    default:
      return NULL;
  }
}

typedef struct {
  const char **texts;
  const sdb_expr **syms;
  const cJSON *stack;
  sdb_event_more more;     /* the event's rarer fields */
} parsed;

/* The location fields of consecutive events are mostly the same strings:
** each is compared with the previous line's (interned) value before it is
** hashed and looked up again. */
enum { L_TRACER, L_FILE, L_FUNC, L_OP, NLAST };

static const char *intern_last(const char *s, const char **last) {
  if (!s) return NULL;
  if (!*last || strcmp(s, *last)) *last = sdb_intern(s);
  return *last;
}

/* An event line's fields, found in one pass over its keys (a lookup per
** field compared every key again: a quarter of a replay's load). The last
** of duplicate keys counts, whichever reader read the line (jsonline.h). */
enum {
  F_EVENT, F_PHASE, F_FLAGS, F_DEPTH, F_TRACER, F_FILE, F_LINE, F_FUNC, F_OP, F_OP_FIRST, F_SYM,
  F_SYM2, F_EXPR, F_RANGE, F_VALUE, F_TEXT, F_DETAIL, F_TEXT2, F_SYMS, F_TEXTS, F_STACK, NFIELDS
};
static const char *const field_names[NFIELDS] = {
  "event", "phase", "flags", "depth", "tracer", "file", "line", "func", "op", "op_first", "sym",
  "sym2", "expr", "range", "value", "text", "detail", "text2", "syms", "texts", "stack",
};

/* One event line into *e. 0; 1 for an unknown kind (name in *why); -1 with
** *why. The syms/texts arrays are malloc'ed into p. */
static int parse_event(const cJSON *o, sdb_event_in *e, parsed *p, const char **last,
                       const char **why, char *buf, size_t cap) {
  memset(e, 0, sizeof *e);
  if (!cJSON_IsObject(o)) { *why = "an event line must be a JSON object"; return -1; }
  const cJSON *f[NFIELDS];
  sdb_jl_fields(o, field_names, NFIELDS, f);
  const char *name = sdb_jl_str(f[F_EVENT]);
  if (!name) { *why = "missing field \"event\""; return -1; }
  int kind = sdb_event_from_name(name);
  if (kind < 0) { *why = name; return 1; }
  e->kind = (uint8_t)kind;
  const char *ph = sdb_jl_str(f[F_PHASE]);
  if (!ph) { snprintf(buf, cap, "%s: missing field \"phase\"", name); *why = buf; return -1; }
  int phase = sdb_phase_from_name(ph);
  if (phase < 0) { snprintf(buf, cap, "%s: unknown phase \"%.40s\"", name, ph); *why = buf; return -1; }
  e->phase = (uint8_t)phase;
  e->flags = (uint8_t)sdb_jl_int0(f[F_FLAGS]);
  sdb_event_set_site(e, sdb_site_get(intern_last(sdb_jl_str(f[F_TRACER]), &last[L_TRACER]),
                                     (int32_t)sdb_jl_int0(f[F_DEPTH]),
                                     intern_last(sdb_jl_str(f[F_FILE]), &last[L_FILE]),
                                     (int32_t)sdb_jl_int0(f[F_LINE]),
                                     intern_last(sdb_jl_str(f[F_FUNC]), &last[L_FUNC])));
  sdb_event_set_op(e, intern_last(sdb_jl_str(f[F_OP]), &last[L_OP]));
  e->op_first = cJSON_IsTrue(f[F_OP_FIRST]);
  static const char *const efields[] = { "sym", "sym2", "expr" };
  sdb_event_more *m = &p->more;
  memset(m, 0, sizeof *m);
  const sdb_expr **eslots[] = { &m->sym, &m->sym2, &m->expr };
  for (int i = 0; i < 3; i++) {
    const cJSON *j = f[F_SYM + i];
    if (!j || cJSON_IsNull(j)) continue;
    const char *w = NULL;
    if (!(*eslots[i] = json_expr(j, 1, &w))) {
      snprintf(buf, cap, "%s: bad \"%s\": %s", name, efields[i], w ? w : "?");
      *why = buf;
      return -1;
    }
  }
  const cJSON *r = f[F_RANGE];
  if (r) {
    bool b1 = false, b2 = false;
    if (sdb_jl_len(r) != 2 || !json_bound(r->child, &m->range.lo, &b1) ||
        !json_bound(r->child->next, &m->range.hi, &b2) || b1 != b2) {
      snprintf(buf, cap, "%s: bad \"range\": expected [lo, hi] (integers, \"-int_oo\", "
               "\"int_oo\", or two booleans)", name);
      *why = buf;
      return -1;
    }
    m->range.is_bool = b1;
    m->has_range = true;
  }
  e->value = sdb_jl_int0(f[F_VALUE]);
  e->text = sdb_jl_str(f[F_TEXT]);
  e->detail = sdb_jl_str(f[F_DETAIL]);
  m->text2 = sdb_jl_str(f[F_TEXT2]);
  const cJSON *syms = f[F_SYMS], *texts = f[F_TEXTS];
  size_t ns = sdb_jl_len(syms);
  if (texts && sdb_jl_len(texts) != ns) {
    snprintf(buf, cap, "%s: \"texts\" must have as many entries as \"syms\"", name);
    *why = buf;
    return -1;
  }
  if (ns) {
    p->syms = calloc(ns, sizeof *p->syms);
    p->texts = texts ? calloc(ns, sizeof *p->texts) : NULL;
    if (!p->syms || (texts && !p->texts)) { *why = "out of memory"; return -1; }
    const cJSON *j = syms->child, *t = texts ? texts->child : NULL;
    for (size_t i = 0; i < ns; i++, j = j->next, t = t ? t->next : NULL) {
      const char *w = NULL;
      /* every entry a symbol: the view and `info` print their names */
      if (!cJSON_IsString(j)) w = "a symbol name expected";
      else p->syms[i] = json_expr(j, 1, &w);
      if (!p->syms[i]) {
        snprintf(buf, cap, "%s: bad \"syms\" entry %zu: %s", name, i, w ? w : "?");
        *why = buf;
        return -1;
      }
      if (p->texts) p->texts[i] = sdb_jl_str(t);
    }
    m->syms = p->syms;
    m->texts = p->texts;
    m->nsyms = (uint32_t)ns;
  }
  if (m->sym || m->expr || m->sym2 || m->text2 || m->has_range || m->nsyms) e->more = m;
  const char *missing = required((sdb_event_kind)kind, e);
  if (missing) {
    snprintf(buf, cap, "%s: missing field \"%s\"", name, missing);
    *why = buf;
    return -1;
  }
  const char *bad = not_symbol((sdb_event_kind)kind, e);
  if (bad) {
    snprintf(buf, cap, "%s: bad \"%s\": a symbol name expected", name, bad);
    *why = buf;
    return -1;
  }
  p->stack = f[F_STACK];
  return 0;
}

static void note_unknown(sdb_trace_report *rep, const char *name) {
  if (!*name) name = "\"\"";   /* an empty kind, shown as such (searching for "" never ended) */
  rep->unknown++;
  if (rep->unknown_kinds) {
    /* each name once */
    size_t n = strlen(name);
    for (const char *p = rep->unknown_kinds; (p = strstr(p, name)); p += n)
      if ((p == rep->unknown_kinds || p[-1] == ' ') && (p[n] == ',' || !p[n])) return;
  }
  size_t old = rep->unknown_kinds ? strlen(rep->unknown_kinds) : 0;
  char *k = realloc(rep->unknown_kinds, old + strlen(name) + 3);
  if (!k) return;
  sprintf(k + old, "%s%s", old ? ", " : "", name);
  rep->unknown_kinds = k;
}

/* jansson's wording, shortened: its "near '...'" tail repeats the line */
static const char *json_reason(const json_error_t *je, size_t len, char *buf, size_t cap) {
  /* a line cut short, wherever it is */
  if ((size_t)je->position >= len || strstr(je->text, "premature end of input") ||
      strstr(je->text, "near end of file"))
    return "unexpected end of input";
  snprintf(buf, cap, "%s", je->text);
  char *near = strstr(buf, " near ");
  if (near) *near = 0;
  return buf;
}

int sdb_trace_read(const char *path, sdb_events *out, sdb_trace_meta *meta,
                   sdb_trace_stack_fn on_stack, void *ud, sdb_trace_report *rep,
                   sdb_err *err) {
  return sdb_trace_read_as(path, path, out, meta, on_stack, ud, rep, err);
}

int sdb_trace_read_as(const char *fpath, const char *path, sdb_events *out,
                      sdb_trace_meta *meta, sdb_trace_stack_fn on_stack, void *ud,
                      sdb_trace_report *rep, sdb_err *err) {
  memset(meta, 0, sizeof *meta);
  memset(rep, 0, sizeof *rep);
  FILE *f = fopen(fpath, "r");
  if (!f) return sdb_err_set(err, SDB_E_INVALID, "OSError", "%s: %s", path, strerror(errno)), -1;
  char *line = NULL;
  size_t cap = 0;
  ssize_t len;
  long lineno = 0;
  int rc = 0;
  char buf[256], jbuf[200];
  const char *seen[NLAST] = { NULL };   /* intern_last */
  sdb_jsonline jl = SDB_JSONLINE_INIT;
  while ((len = getline(&line, &cap, f)) >= 0) {
    lineno++;
    if (sdb_cancelled()) {   /* Ctrl-C: what was read so far stays */
      sdb_err_set(err, SDB_E_INVALID, "KeyboardInterrupt", "%s:%ld: interrupted (the %zu events "
                  "before it are loaded)", path, lineno, rep->loaded);
      rc = -1;
      break;
    }
    bool complete = len > 0 && line[len - 1] == '\n';
    int c = fgetc(f);
    bool last = c == EOF;
    if (!last) ungetc(c, f);
    while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r')) line[--len] = 0;
    if (len == 0 && last && lineno > 1) break;   /* a trailing empty line */
    json_error_t je;
    json_t *o = NULL;
    cJSON *cj = NULL;
    sdb_event_in e;
    parsed p = { 0 };
    int k;
    /* the header through jansson (read_header takes its tree) */
    if (lineno > 1) cj = sdb_jl_parse(&jl, line, (size_t)len, &je);
    else o = json_loadb(line, (size_t)len, 0, &je);
    const char *why = NULL;
    if (!cj && !o && !strcmp(je.text, "out of memory")) {
      sdb_err_set(err, SDB_E_OOM, "MemoryError", "%s:%ld: out of memory", path, lineno);
      rc = -1;
      break;
    }
    if (!cj && !o) {
      const char *reason = json_reason(&je, (size_t)len, jbuf, sizeof jbuf);
      if (last && !complete && lineno > 1) {
        char *w = malloc(strlen(path) + strlen(reason) + 160);
        if (w) sprintf(w, "%s:%ld: invalid JSON: %s (a truncated last line: skipped; the %zu "
                          "events before it are loaded)", path, lineno, reason, rep->loaded);
        rep->warning = w;
        break;
      }
      sdb_err_set(err, SDB_E_INVALID, "ValueError", "%s:%ld: invalid JSON: %s", path, lineno,
                  len == 0 ? "empty line" : reason);
      rc = -1;
      break;
    }
    if (lineno == 1) {
      if (read_header(o, meta, &why, buf, sizeof buf) < 0) {
        bool oom = !strcmp(why, "out of memory");
        sdb_err_set(err, oom ? SDB_E_OOM : SDB_E_INVALID, oom ? "MemoryError" : "ValueError",
                    "%s:1: %s", path, why);
        rc = -1;
      }
      json_decref(o);
      if (rc) break;
      continue;
    }
    /* a name, a site or an expression that could not be made leaves the
    ** event without it: not the event the file holds */
    unsigned long noted = sdb_nomem_count;
    k = parse_event(cj, &e, &p, seen, &why, buf, sizeof buf);
    bool nomem = sdb_nomem_count != noted || (k < 0 && !strcmp(why, "out of memory"));
    if (k == 1 && !nomem) {
      note_unknown(rep, why);
    } else if (k < 0 || nomem) {
      sdb_err_set(err, nomem ? SDB_E_OOM : SDB_E_INVALID, nomem ? "MemoryError" : "ValueError",
                  "%s:%ld: %s", path, lineno, nomem ? "out of memory" : why);
      rc = -1;
    } else {
      long seq = sdb_emit_raw(out, &e);
      if (seq < 0) {
        sdb_err_set(err, SDB_E_OOM, "MemoryError", "%s:%ld: out of memory", path, lineno);
        rc = -1;
      } else {
        rep->loaded++;
        const char *st = sdb_jl_str(p.stack);
        const char *sti = st ? sdb_intern(st) : NULL;
        if (st && !sti) {   /* the event is loaded; its stack is not */
          sdb_err_set(err, SDB_E_OOM, "MemoryError", "%s:%ld: out of memory", path, lineno);
          rc = -1;
        } else if (sti && on_stack) {
          on_stack(ud, (size_t)seq, sti);
        }
      }
    }
    free(p.syms);
    free(p.texts);
    if (rc) break;
  }
  sdb_jl_free(&jl);
  if (rc) rep->bad_line = lineno;
  if (rc == 0 && lineno == 0) {
    sdb_err_set(err, SDB_E_INVALID, "ValueError", "%s:1: not a shapedb trace (the file is empty)",
                path);
    rep->bad_line = 1;
    rc = -1;
  }
  if (rc == 0 && ferror(f)) {
    sdb_err_set(err, SDB_E_INVALID, "OSError", "%s:%ld: %s", path, lineno + 1, strerror(errno));
    rc = -1;
  }
  free(line);
  fclose(f);
  return rc;
}
