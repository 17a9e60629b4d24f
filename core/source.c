/*
** source.c — interned sources (see source.h). The table is keyed by the
** interned printed name, which determines the source uniquely.
*/
#include "source.h"
#include "buf.h"
#include "intern.h"
#include "map.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static sdb_map by_name = SDB_MAP_INIT;

static const sdb_source *make(sdb_source_kind kind, const sdb_source *base,
                              int64_t idx, const char *ident, const char *name) {
  const char *iname = sdb_intern(name);
  if (!iname) return NULL;
  sdb_source *s = sdb_map_get(&by_name, iname);
  if (s) return s;
  s = malloc(sizeof *s);
  if (!s) return NULL;
  s->kind = kind;
  s->base = base;
  s->idx = idx;
  s->ident = sdb_intern(ident);
  if (ident && !s->ident) { free(s); return NULL; }
  s->name = iname;
  if (!sdb_map_put(&by_name, iname, s)) { free(s); return NULL; }
  return s;
}

/* Python's repr of a str: single quotes unless the text has one. */
static void py_repr(sdb_buf *b, const char *s) {
  char q = '\'';
  for (const char *p = s; *p; p++)
    if (*p == '\'') q = '"';
  sdb_buf_putc(b, q);
  for (const char *p = s; *p; p++) {
    if (*p == '\\' || *p == q) sdb_buf_putc(b, '\\');
    sdb_buf_putc(b, *p);
  }
  sdb_buf_putc(b, q);
}

static const sdb_source *rooted(sdb_source_kind kind, char scope, const char *name) {
  if (!name) return NULL;
  sdb_buf b = SDB_BUF_INIT;
  sdb_buf_putc(&b, scope);
  sdb_buf_putc(&b, '[');
  py_repr(&b, name);
  sdb_buf_putc(&b, ']');
  /* out of memory: no source, rather than one named by half its name */
  const sdb_source *s = b.failed ? NULL : make(kind, NULL, 0, name, sdb_buf_cstr(&b));
  sdb_buf_free(&b);
  return s;
}

const sdb_source *sdb_source_local(const char *name) { return rooted(SDB_SRC_LOCAL, 'L', name); }
const sdb_source *sdb_source_global(const char *name) { return rooted(SDB_SRC_GLOBAL, 'G', name); }

/* base + suffix, e.g. L['x'] + ".size()[0]" */
static const sdb_source *derived(sdb_source_kind kind, const sdb_source *base,
                                 int64_t i, const char *ident, const char *suffix) {
  if (!base) return NULL;
  sdb_buf b = SDB_BUF_INIT;
  sdb_buf_puts(&b, base->name);
  sdb_buf_puts(&b, suffix);
  const sdb_source *s = b.failed ? NULL : make(kind, base, i, ident, sdb_buf_cstr(&b));
  sdb_buf_free(&b);
  return s;
}

static const sdb_source *indexed(sdb_source_kind kind, const sdb_source *base,
                                 int64_t i, const char *fmt) {
  char suffix[48];
  snprintf(suffix, sizeof suffix, fmt, (long long)i);
  return derived(kind, base, i, NULL, suffix);
}

const sdb_source *sdb_source_size(const sdb_source *base, int64_t i) {
  return indexed(SDB_SRC_SIZE, base, i, ".size()[%lld]");
}
const sdb_source *sdb_source_stride(const sdb_source *base, int64_t i) {
  return indexed(SDB_SRC_STRIDE, base, i, ".stride()[%lld]");
}
const sdb_source *sdb_source_storage_offset(const sdb_source *base) {
  return derived(SDB_SRC_STORAGE_OFFSET, base, 0, NULL, ".storage_offset()");
}
const sdb_source *sdb_source_index(const sdb_source *base, int64_t i) {
  return indexed(SDB_SRC_INDEX, base, i, "[%lld]");
}
const sdb_source *sdb_source_attr(const sdb_source *base, const char *attr) {
  if (!attr) return NULL;
  sdb_buf b = SDB_BUF_INIT;
  sdb_buf_printf(&b, ".%s", attr);
  const sdb_source *s = derived(SDB_SRC_ATTR, base, 0, attr, sdb_buf_cstr(&b));
  sdb_buf_free(&b);
  return s;
}

const sdb_source *sdb_source_constant(const char *name) {
  return name && *name ? make(SDB_SRC_CONSTANT, NULL, 0, name, name) : NULL;
}

const sdb_source *sdb_source_root(const sdb_source *s) {
  while (s && s->base) s = s->base;
  return s;
}

int sdb_source_is_tensor_property(const sdb_source *s) {
  return s && (s->kind == SDB_SRC_SIZE || s->kind == SDB_SRC_STRIDE ||
               s->kind == SDB_SRC_STORAGE_OFFSET);
}

static const char *parse_quoted(const char *p, char *out, size_t cap) {
  char q = *p;
  if (q != '\'' && q != '"') return NULL;
  size_t n = 0;
  for (p++; *p && *p != q; p++) {
    if (*p == '\\' && p[1]) p++;
    if (n + 1 >= cap) return NULL;
    out[n++] = *p;
  }
  if (*p != q) return NULL;
  out[n] = '\0';
  return p + 1;
}

static const char *parse_index(const char *p, int64_t *out) {
  char *end;
  if (*p != '[') return NULL;
  long long v = strtoll(p + 1, &end, 10);
  if (end == p + 1 || *end != ']') return NULL;
  *out = v;
  return end + 1;
}

const sdb_source *sdb_source_parse(const char *name) {
  char ident[256];
  const char *p = name;
  if (!p) return NULL;
  /* a bare identifier is a ConstantSource */
  size_t id = strspn(p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");
  if (id && !p[id] && !(p[0] >= '0' && p[0] <= '9') && !((p[0] == 'L' || p[0] == 'G') && p[1] == '['))
    return sdb_source_constant(p);
  if ((p[0] != 'L' && p[0] != 'G') || p[1] != '[') return NULL;
  char scope = p[0];
  p = parse_quoted(p + 2, ident, sizeof ident);
  if (!p || *p++ != ']') return NULL;
  const sdb_source *s = scope == 'L' ? sdb_source_local(ident) : sdb_source_global(ident);
  while (s && *p) {
    int64_t i;
    if (!strncmp(p, ".size()", 7) && (p = parse_index(p + 7, &i))) s = sdb_source_size(s, i);
    else if (p && !strncmp(p, ".stride()", 9) && (p = parse_index(p + 9, &i))) s = sdb_source_stride(s, i);
    else if (p && !strncmp(p, ".storage_offset()", 17)) { s = sdb_source_storage_offset(s); p += 17; }
    else if (p && *p == '[' && (p = parse_index(p, &i))) s = sdb_source_index(s, i);
    else if (p && *p == '.') {
      size_t n = 0;
      for (p++; (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '_'; p++)
        if (n + 1 < sizeof ident) ident[n++] = *p;
      if (!n) return NULL;
      ident[n] = '\0';
      s = sdb_source_attr(s, ident);
    } else {
      return NULL;
    }
    if (!p) return NULL;
  }
  return s;
}

void sdb_source_reset(void) {
  for (size_t i = 0; i < by_name.len; i++) free(by_name.vals[i]);
  sdb_map_free(&by_name);
}
