/*
** buf.c — growable text buffer (see buf.h).
*/
#include "buf.h"
#include "err.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Room for extra more bytes and the NUL; the common case (room enough)
** is tested by the callers before calling (half a million calls a 10k-op
** compile). */
static bool reserve(sdb_buf *b, size_t extra) {
  if (b->failed) return false;
  if (b->len + extra + 1 <= b->cap) return true;
  size_t cap = b->cap ? b->cap : 64;
  while (cap < b->len + extra + 1) {
    if (cap > ((size_t)-1) / 2) { b->failed = true; return false; }
    cap *= 2;
  }
  char *p = b->borrowed ? sdb_noted(malloc(cap)) : sdb_noted(realloc(b->data, cap));
  if (!p) { b->failed = true; return false; }
  if (b->borrowed) {   /* out of the caller's storage, text and all */
    memcpy(p, b->data, b->len);
    p[b->len] = '\0';
    b->borrowed = false;
  }
  b->data = p;
  b->cap = cap;
  return true;
}

void sdb_buf_putn(sdb_buf *b, const char *s, size_t n) {
  if ((b->len + n + 1 > b->cap || b->failed) && !reserve(b, n)) return;
  memcpy(b->data + b->len, s, n);
  b->len += n;
  b->data[b->len] = '\0';
}

void sdb_buf_putc(sdb_buf *b, char c) {
  if ((b->len + 2 > b->cap || b->failed) && !reserve(b, 1)) return;
  b->data[b->len++] = c;
  b->data[b->len] = '\0';
}
void sdb_buf_puts(sdb_buf *b, const char *s) { sdb_buf_putn(b, s, strlen(s)); }

void sdb_buf_cat(sdb_buf *b, ...) {
  va_list ap;
  va_start(ap, b);
  for (const char *s; (s = va_arg(ap, const char *));) sdb_buf_puts(b, s);
  va_end(ap);
}

void sdb_strcat2(char *dst, size_t cap, const char *a, const char *b) {
  if (!cap) return;
  size_t na = strlen(a), nb = strlen(b);
  if (na >= cap) na = cap - 1;
  if (nb >= cap - na) nb = cap - na - 1;
  memcpy(dst, a, na);
  memcpy(dst + na, b, nb);
  dst[na + nb] = '\0';
}

void sdb_buf_putu(sdb_buf *b, unsigned long long v) {
  char d[24];
  size_t n = sizeof d;
  do d[--n] = (char)('0' + v % 10); while ((v /= 10) && n > 0);
  sdb_buf_putn(b, d + n, sizeof d - n);
}

void sdb_buf_puti(sdb_buf *b, long long v) {
  if (v < 0) {
    sdb_buf_putc(b, '-');
    sdb_buf_putu(b, 0ull - (unsigned long long)v);   /* LLONG_MIN too */
  } else {
    sdb_buf_putu(b, (unsigned long long)v);
  }
}

void sdb_buf_vprintf(sdb_buf *b, const char *fmt, va_list ap) {
  /* into the room the buffer has; measured and written again only when
  ** the text does not fit */
  va_list aq;
  va_copy(aq, ap);
  size_t room = b->data && !b->failed ? b->cap - b->len : 0;
  int n = vsnprintf(room ? b->data + b->len : NULL, room, fmt, aq);
  va_end(aq);
  if (n < 0) {
    if (room) b->data[b->len] = '\0';
    return;
  }
  if ((size_t)n < room) {
    b->len += (size_t)n;
    return;
  }
  if (room) b->data[b->len] = '\0';   /* the partial text is not part of it */
  if (!reserve(b, (size_t)n)) return;
  vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
  b->len += (size_t)n;
}

void sdb_buf_printf(sdb_buf *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  sdb_buf_vprintf(b, fmt, ap);
  va_end(ap);
}

const char *sdb_buf_cstr(sdb_buf *b) { return b->data ? b->data : ""; }

char *sdb_buf_take(sdb_buf *b) {
  char *s = b->data;
  if (b->borrowed) {
    s = b->failed ? NULL : sdb_noted(malloc(b->len + 1));
    if (s) {
      memcpy(s, b->data, b->len);
      s[b->len] = '\0';
    }
  } else {
    if (!s && !b->failed) s = sdb_noted(calloc(1, 1));
    if (b->failed) { free(s); s = NULL; }
    /* a kept text gives back what doubling left unused (a big graph's or
    ** the wrapper's text could hold twice its size for the whole session) */
    if (s && b->cap > 4096 && b->cap - b->len > b->cap / 4) {
      char *t = realloc(s, b->len + 1);   /* shrinking: on failure s stays, whole */
      if (t) s = t;
    }
  }
  b->data = NULL;
  b->len = b->cap = 0;
  b->failed = b->borrowed = false;
  return s;
}

void sdb_buf_clear(sdb_buf *b) {
  b->len = 0;
  if (b->data) b->data[0] = '\0';
}

void sdb_buf_free(sdb_buf *b) {
  if (!b->borrowed) free(b->data);
  b->data = NULL;
  b->len = b->cap = 0;
  b->failed = b->borrowed = false;
}
