/*
** arena.h — memory freed all at once: blocks carved from 16-page chunks.
**
** For the many small things that live as long as their owner (expression
** nodes, interned strings, an event stream's node lines and symbol lists):
** a malloc each cost its header and rounding (a 20-byte line took 32) and
** a free each at the end. An allocation larger than a quarter chunk gets a
** chunk of its own, linked behind the current one, so the current chunk's
** free space is not thrown away.
*/
#ifndef SDB_ARENA_H
#define SDB_ARENA_H

#include <stddef.h>

typedef struct sdb_arena_chunk sdb_arena_chunk;
typedef struct sdb_arena {
  sdb_arena_chunk *head;    /* the chunk being carved, then the older ones */
  sdb_arena_chunk *spare;   /* emptied by sdb_arena_reset, used before malloc */
} sdb_arena;
#define SDB_ARENA_INIT {NULL, NULL}

/* n bytes aligned to align (a power of two, at most 16); NULL on OOM. */
void *sdb_arena_alloc(sdb_arena *a, size_t n, size_t align);
/* A copy of s (NULL for NULL or on OOM). */
char *sdb_arena_strdup(sdb_arena *a, const char *s);
/* Frees every block; the arena is empty and usable again. */
void sdb_arena_free(sdb_arena *a);
/* Frees every block but keeps the standard chunks for the next blocks:
** memory given back to the system and taken again costs a page fault per
** 4 KiB, which was a third of building a table of fresh expressions. */
void sdb_arena_reset(sdb_arena *a);

#endif
