/*
** intern.h — interned strings. sdb_intern returns one stable pointer per
** distinct string, valid until sdb_intern_reset(); event records, sources
** and locations keep such pointers so they never own text.
*/
#ifndef SDB_INTERN_H
#define SDB_INTERN_H

#include <stdbool.h>
#include <stddef.h>

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

#endif
