/*
** buf.h — a growable byte buffer for building text (printers, error
** messages, saved traces). Owns its memory; sdb_buf_free releases it and
** leaves an empty buffer. On OOM the buffer is marked failed and further
** appends are ignored, so callers check once, at the end.
*/
#ifndef SDB_BUF_H
#define SDB_BUF_H

#include <stdarg.h>
#include <stddef.h>
#include <stdbool.h>

typedef struct sdb_buf {
  char *data;     /* NUL-terminated when len > 0 or after sdb_buf_cstr */
  size_t len;
  size_t cap;
  bool failed;    /* an allocation failed; contents are truncated */
  bool borrowed;  /* data is the caller's storage (sdb_buf_on), not ours */
} sdb_buf;

#define SDB_BUF_INIT {NULL, 0, 0, false, false}

/* A buffer that starts in the caller's storage (an array on the stack)
** and moves to the heap only if the text outgrows it: for texts made and
** dropped, or interned, by the call (a malloc each was a tenth of the
** allocations of a compile). sdb_buf_take copies it out; sdb_buf_free
** frees only what moved to the heap. */
static inline sdb_buf sdb_buf_on(char *storage, size_t cap) {
  storage[0] = '\0';
  return (sdb_buf){storage, 0, cap, false, true};
}

void sdb_buf_putc(sdb_buf *b, char c);
void sdb_buf_puts(sdb_buf *b, const char *s);
void sdb_buf_putn(sdb_buf *b, const char *s, size_t n);
/* A decimal integer, as "%lld" / "%llu" write it (printers of expressions
** write one per constant; printf is the dearer way). */
void sdb_buf_puti(sdb_buf *b, long long v);
/* The strings given, up to a NULL, one after another (the lines printed
** for every node: printf is the dearer way). */
void sdb_buf_cat(sdb_buf *b, ...);
/* a then b into dst, cut to cap bytes with the NUL (names, targets). */
void sdb_strcat2(char *dst, size_t cap, const char *a, const char *b);
void sdb_buf_putu(sdb_buf *b, unsigned long long v);
void sdb_buf_printf(sdb_buf *b, const char *fmt, ...)
  __attribute__((format(printf, 2, 3)));
void sdb_buf_vprintf(sdb_buf *b, const char *fmt, va_list ap);
const char *sdb_buf_cstr(sdb_buf *b);   /* "" for an empty buffer */
char *sdb_buf_take(sdb_buf *b);         /* hand the string to the caller */
void sdb_buf_clear(sdb_buf *b);         /* len = 0, keep memory */
void sdb_buf_free(sdb_buf *b);

#endif
