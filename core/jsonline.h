/*
** jsonline.h — one line of JSON, read fast and read right.
**
** Saved traces' event lines and TORCH_TRACE logs' record headers are each
** one JSON object per line, millions of them. cJSON reads them several
** times faster than jansson (a replay's load and an import spent most of
** their time in json_loadb), but it checks no UTF-8, stops at a NUL, keeps
** numbers as doubles and says only where it failed. So a line goes to
** cJSON when it is plain ASCII (as json.dumps and our writer write it) and
** to jansson otherwise; a line cJSON refuses is read again by jansson for
** its reason, in jansson's words; and a line holding an integer a double
** may not hold exactly (2**53 or more) is read again by jansson, its
** integers handed on as cJSON raw text. Either way the caller gets one
** cJSON tree, whose integers sdb_jl_int reads exactly. What still differs
** from jansson's reading: sdb_jl_int takes a number with an integral value
** written as a real ("1e1", "10.0") as an integer, which jansson calls a
** real (json.dumps writes integers as integers), and a cJSON tree keeps
** every member of duplicate keys (read them through sdb_jl_get and
** sdb_jl_repeated, as jansson would).
**
** Ownership: a reader owns an arena; the tree of a line lives until the
** reader's next line (or its free). Never cJSON_Delete it; cJSON_Duplicate
** copies a part to keep (outside sdb_jl_parse, cJSON allocates with
** malloc as usual).
*/
#ifndef SDB_JSONLINE_H
#define SDB_JSONLINE_H

#include <cjson/cJSON.h>
#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arena.h"

typedef struct sdb_jsonline {
  sdb_arena arena;      /* the current line's tree */
  char *next, *end;     /* the block of the arena cJSON's items are cut from */
} sdb_jsonline;
#define SDB_JSONLINE_INIT {SDB_ARENA_INIT, NULL, NULL}

/* Parse S[0, N) (S[N] must be readable: a NUL or the next byte). Returns
** the tree, or NULL with jansson's error in *je (je->text, je->column,
** je->position; all zero on out of memory, with je->text "out of memory"). */
cJSON *sdb_jl_parse(sdb_jsonline *jl, const char *s, size_t n, json_error_t *je);
void sdb_jl_free(sdb_jsonline *jl);

/* jansson's reading of a value, on a tree sdb_jl_parse made:
** an integer (a number with no fraction below 2**53, or raw digits) */
bool sdb_jl_int(const cJSON *j, int64_t *v);
int64_t sdb_jl_int0(const cJSON *j);              /* 0 when not an integer */
const char *sdb_jl_str(const cJSON *j);            /* NULL when not a string */
size_t sdb_jl_len(const cJSON *a);                 /* an array's size; 0 else */
/* O[key] for an object, NULL otherwise. Of duplicate keys the last
** counts, as in jansson and Python's json (PyTorch writes none; a damaged
** log may). */
const cJSON *sdb_jl_get(const cJSON *o, const char *key);
/* OUT[i] = O[NAMES[i]] for n names in one pass over O's members (the last
** of duplicate keys, as sdb_jl_get); NULL where absent or O is no object.
** A record's or an event's fields: a lookup each compared every key again. */
void sdb_jl_fields(const cJSON *o, const char *const *names, int n, const cJSON **out);
/* Does a member of O before ITEM have ITEM's key? Walking an object's
** members as jansson does (each key once, where it first appears, with
** the value sdb_jl_get gives), skip those. */
bool sdb_jl_repeated(const cJSON *o, const cJSON *item);

#endif
