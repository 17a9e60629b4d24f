/*
** intern.h — interned strings. sdb_intern returns one stable pointer per
** distinct string, valid until sdb_intern_reset(); event records, sources
** and locations keep such pointers so they never own text.
*/
#ifndef SDB_INTERN_H
#define SDB_INTERN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

const char *sdb_intern(const char *s);              /* NULL -> NULL */
const char *sdb_intern_n(const char *s, size_t n);
/* sdb_intern for strings asked for again and again at the same address
** that are not interned themselves (op names in a static table, the tail
** of an interned target): a cache by address, checked by content. */
const char *sdb_intern_at(const char *s);
/* The interned copy of s[0..n) if there is one, else NULL; adds nothing
** (a word looked up in a map keyed by interned names). */
const char *sdb_intern_lookup(const char *s, size_t n);
const char *sdb_internf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* prefix[0..plen) then n in decimal ("buf12", "add_3"): names made for
** every node and buffer, without printf. plen under 128. */
const char *sdb_intern_num(const char *prefix, size_t plen, unsigned long n);
/* The same; *fresh says whether no one had interned it before (so no map
** keyed by interned names can hold it yet). */
const char *sdb_intern_num_fresh(const char *prefix, size_t plen, unsigned long n, bool *fresh);
void sdb_intern_reset(void);

/* A 32-bit name for an interned string, 0 for NULL: what records a long
** run holds millions of keep instead of a pointer (an event's op). Valid
** until sdb_intern_reset(), as the pointers are. */
typedef uint32_t sdb_iref;
sdb_iref sdb_intern_ref(const char *s);      /* interns s; 0 for NULL or out of memory */
sdb_iref sdb_intern_at_ref(const char *s);   /* the same, cached by address (sdb_intern_at) */

/* The string r names. Inline, as readers of the event stream call it for
** every event they look at: a reference is its chunk's index + 1 in the
** high half and the offset in the chunk in the low; an offset past a
** chunk's size names a long string, kept apart (intern.c). */
#define SDB_INTERN_CHUNK ((size_t)64 * 1024 - 64)   /* with malloc's header: 16 pages */
#define SDB_INTERN_LONGS (0x10000 - SDB_INTERN_CHUNK)   /* long strings per high half */
extern char **sdb_intern_chunks_, **sdb_intern_longs_;
static inline const char *sdb_iref_str(sdb_iref r) {
  if (!r) return NULL;
  size_t hi = (r >> 16) - 1, lo = r & 0xffff;
  return lo < SDB_INTERN_CHUNK ? sdb_intern_chunks_[hi] + lo
                               : sdb_intern_longs_[hi * SDB_INTERN_LONGS + (lo - SDB_INTERN_CHUNK)];
}

#endif
