/*
** jsonline.c — one line of JSON through cJSON or jansson (see jsonline.h).
*/
#include "jsonline.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EXACT_LIMIT 9007199254740992.0   /* 2**53 */

/* cJSON's hooks are global and take no context: while sdb_jl_parse runs
** they allocate from this reader's arena, and they are put back to malloc
** before it returns, so cJSON used anywhere else allocates as usual. */
static sdb_jsonline *current;

/* cJSON allocates a block per item and per string, half a million for
** the 10 MiB log: cut them from 8 KiB blocks of the arena, inline */
#define LINE_BLOCK 8192

static void *line_alloc_slow(sdb_jsonline *jl, size_t n) {
  if (n > LINE_BLOCK / 4) return sdb_arena_alloc(&jl->arena, n, 16);
  char *b = sdb_arena_alloc(&jl->arena, LINE_BLOCK, 16);
  if (!b) return NULL;
  jl->next = b + n;
  jl->end = b + LINE_BLOCK;
  return b;
}

static void *line_alloc(size_t n) {
  sdb_jsonline *jl = current;
  n = (n + 15) & ~(size_t)15;
  if ((size_t)(jl->end - jl->next) >= n) {
    void *p = jl->next;
    jl->next += n;
    return p;
  }
  return line_alloc_slow(jl, n);
}

static void line_reset(sdb_jsonline *jl) {
  sdb_arena_reset(&jl->arena);
  jl->next = jl->end = NULL;
}
static void line_free(void *p) { (void)p; }   /* the arena's reset frees */

/* Only bytes 0x20-0x7f: a line cJSON reads as jansson would. cJSON
** stops at a NUL, checks no UTF-8 and takes a raw control character in a
** string, which JSON (and jansson) refuse; json.dumps writes none of
** them, so such a line is rare and goes to jansson (found by make fuzz). */
static bool plain_ascii(const char *s, size_t n) {
  const uint64_t spaces = 0x2020202020202020u, highs = 0x8080808080808080u;
  uint64_t any = 0, low = 0;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {   /* eight bytes at a time */
    uint64_t w;
    memcpy(&w, s + i, 8);
    any |= w;
    low |= (w - spaces) & ~w & highs;   /* nonzero iff a byte of w is < 0x20 */
  }
  for (; i < n; i++) {
    if ((unsigned char)s[i] < 0x20) return false;
    any |= (unsigned char)s[i];
  }
  return !low && !(any & highs);
}

/* What cJSON takes and JSON refuses besides the bytes above: a number
** with a leading zero ("07"), a dot and no digit after it ("1.") or
** before it ("-.5"), read by strtod, and "\u0000" or "\u00zz", a string
** cut at a NUL. Looked for in the raw text, strings and all, where a
** number could start (after a space, ',', ':', '[' or '-': "add_1.relu()"
** in a node's line is no number): a line that merely looks so goes to
** jansson, which decides (found by comparing both readers over the fuzz
** corpus, and by a review's differential fuzzing). */
/* Where a number may start: after ' ', ',', ':', '[' or '-' (was a strchr
** call; the text has no NUL, which strchr would also have matched:
** plain_ascii lets none through) */
static inline bool before_number(char c) {
  return c == ' ' || c == ',' || c == ':' || c == '[' || c == '-';
}

static bool maybe_lenient(const char *s, size_t n) {
  const char *end = s + n;
  for (const char *p = s; (p = memchr(p, '0', (size_t)(end - p))); p++)
    if (p + 1 < end && p[1] >= '0' && p[1] <= '9' &&
        (p == s || before_number(p[-1])))
      return true;
  for (const char *p = s; (p = memchr(p, '.', (size_t)(end - p))); p++) {
    if (p > s && p[-1] == '-') return true;   /* "-.5": strtod reads it */
    if (p + 1 < end && p[1] >= '0' && p[1] <= '9') continue;
    const char *q = p;   /* back over the digits: a number starts after [ ,:[-] */
    while (q > s && q[-1] >= '0' && q[-1] <= '9') q--;
    if (q < p && (q == s || before_number(q[-1]))) return true;
  }
  for (const char *p = s; (p = memchr(p, '\\', (size_t)(end - p))); p++) {
    if (p + 1 < end && p[1] == 'u') {   /* cJSON reads a bad hex digit as 0 */
      if (p + 6 > end || !memcmp(p + 2, "0000", 4)) return true;
      for (int k = 2; k < 6; k++)
        if (!isxdigit((unsigned char)p[k])) return true;
    }
    if (p + 1 < end) p++;   /* an escaped backslash is not the start of another */
  }
  return false;
}

/* Does the tree hold a number a double may not hold exactly? */
static bool inexact(const cJSON *j) {
  for (; j; j = j->next) {
    if (cJSON_IsNumber(j) && !(j->valuedouble > -EXACT_LIMIT && j->valuedouble < EXACT_LIMIT))
      return true;
    if (j->child && inexact(j->child)) return true;
  }
  return false;
}

/* jansson's tree as cJSON, integers as raw text (exact). NULL on OOM. */
static cJSON *from_jansson(json_t *j) {
  cJSON *c = NULL;
  switch (json_typeof(j)) {
    case JSON_OBJECT: {
      const char *k;
      json_t *v;
      if (!(c = cJSON_CreateObject())) return NULL;
      json_object_foreach(j, k, v) {
        cJSON *item = from_jansson(v);
        if (!item) return NULL;   /* the arena frees the rest */
        cJSON_AddItemToObject(c, k, item);
      }
      return c;
    }
    case JSON_ARRAY: {
      size_t i;
      json_t *v;
      if (!(c = cJSON_CreateArray())) return NULL;
      json_array_foreach(j, i, v) {
        cJSON *item = from_jansson(v);
        if (!item) return NULL;
        cJSON_AddItemToArray(c, item);
      }
      return c;
    }
    case JSON_STRING: return cJSON_CreateString(json_string_value(j));
    case JSON_INTEGER: {
      char b[32];
      snprintf(b, sizeof b, "%" JSON_INTEGER_FORMAT, json_integer_value(j));
      return cJSON_CreateRaw(b);
    }
    case JSON_REAL: return cJSON_CreateNumber(json_real_value(j));
    case JSON_TRUE: return cJSON_CreateTrue();
    case JSON_FALSE: return cJSON_CreateFalse();
    default: return cJSON_CreateNull();
  }
}

cJSON *sdb_jl_parse(sdb_jsonline *jl, const char *s, size_t n, json_error_t *je) {
  static const cJSON_Hooks hooks = { line_alloc, line_free };
  line_reset(jl);
  current = jl;
  cJSON_InitHooks((cJSON_Hooks *)&hooks);
  cJSON *cj = NULL;
  /* cJSON finds the end by the NUL after the text */
  if (!s[n] && plain_ascii(s, n) && !maybe_lenient(s, n)) {
    cj = cJSON_ParseWithLengthOpts(s, n + 1, NULL, true);
    /* jansson (flags 0) takes only an object or an array at the top */
    if (cj && (inexact(cj) || !(cJSON_IsObject(cj) || cJSON_IsArray(cj)))) {
      line_reset(jl);
      cj = NULL;
    }
  }
  if (!cj) {
    json_t *o = json_loadb(s, n, 0, je);
    if (o) {
      if (!(cj = from_jansson(o))) {
        memset(je, 0, sizeof *je);
        snprintf(je->text, sizeof je->text, "out of memory");
      }
      json_decref(o);
    }
  }
  cJSON_InitHooks(NULL);
  current = NULL;
  return cj;
}

void sdb_jl_free(sdb_jsonline *jl) {
  sdb_arena_free(&jl->arena);
  jl->next = jl->end = NULL;
}

bool sdb_jl_int(const cJSON *j, int64_t *v) {
  if (cJSON_IsRaw(j)) {
    char *end;
    errno = 0;
    long long x = strtoll(j->valuestring, &end, 10);
    if (errno || end == j->valuestring || *end) return false;
    *v = x;
    return true;
  }
  if (!cJSON_IsNumber(j)) return false;
  double d = j->valuedouble;
  if (!(d > -EXACT_LIMIT && d < EXACT_LIMIT) || d != (double)(int64_t)d) return false;
  *v = (int64_t)d;
  return true;
}

int64_t sdb_jl_int0(const cJSON *j) {
  int64_t v = 0;
  return sdb_jl_int(j, &v) ? v : 0;
}

const char *sdb_jl_str(const cJSON *j) { return cJSON_IsString(j) ? j->valuestring : NULL; }

size_t sdb_jl_len(const cJSON *a) {
  size_t n = 0;
  if (cJSON_IsArray(a))
    for (const cJSON *c = a->child; c; c = c->next) n++;
  return n;
}

const cJSON *sdb_jl_get(const cJSON *o, const char *key) {
  if (!cJSON_IsObject(o)) return NULL;
  const cJSON *hit = NULL;
  for (const cJSON *c = o->child; c; c = c->next)
    if (c->string && !strcmp(c->string, key)) hit = c;
  return hit;
}

void sdb_jl_fields(const cJSON *o, const char *const *names, int n, const cJSON **out) {
  for (int i = 0; i < n; i++) out[i] = NULL;
  if (!cJSON_IsObject(o)) return;
  for (const cJSON *c = o->child; c; c = c->next) {
    const char *k = c->string;
    if (!k) continue;
    for (int i = 0; i < n; i++)
      if (names[i][0] == k[0] && !strcmp(names[i], k)) {
        out[i] = c;
        break;
      }
  }
}

bool sdb_jl_repeated(const cJSON *o, const cJSON *item) {
  if (!item->string) return false;
  for (const cJSON *c = o->child; c && c != item; c = c->next)
    if (c->string && !strcmp(c->string, item->string)) return true;
  return false;
}
