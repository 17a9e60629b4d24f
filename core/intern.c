/*
** intern.c — a global open-addressing table of strings (see intern.h).
*/
#include "intern.h"
#include "err.h"
#include "buf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The strings' bytes, in chunks of their own (a malloc per string cost
** its header and rounding: a name like "add_12" took 32 bytes, and a
** tenth of the time of interning one). A string is named by a 32-bit
** reference (sdb_iref), 0 meaning an empty slot: its chunk's index + 1 in
** the high half and its offset in the chunk in the low. A string longer
** than a quarter chunk is a malloc of its own, in `longs`: its reference's
** low half is past any offset in a chunk, LONGS of them to each high half,
** so long strings never use up the chunks' indexes. Room for 4 GiB of
** short strings and 4M long ones. */
#define CHUNK SDB_INTERN_CHUNK
#define LONGS SDB_INTERN_LONGS
_Static_assert(CHUNK <= 0xffff, "an offset in a chunk is the reference's low 16 bits");
char **sdb_intern_chunks_, **sdb_intern_longs_;   /* read by sdb_iref_str */
static size_t nchunks, capchunks, nlongs, caplongs;
static size_t used;                       /* of the last chunk */

static char *at_ref(uint32_t ref) { return (char *)sdb_iref_str(ref); }

static bool push(char ***v, size_t *n, size_t *cap, char *p) {
  if (*n == *cap) {
    size_t c = *cap ? 2 * *cap : 16;
    char **w = sdb_noted(realloc(*v, c * sizeof *w));
    if (!w) return false;
    *v = w;
    *cap = c;
  }
  (*v)[(*n)++] = p;
  return true;
}

/* Room for n bytes; *ref names it. NULL on OOM, or when the references
** run out (see above). */
static char *str_alloc(size_t n, uint32_t *ref) {
  if (n > CHUNK / 4) {
    if (nlongs == 0xffff * LONGS) return NULL;
    char *p = sdb_noted(malloc(n));
    if (!p || !push(&sdb_intern_longs_, &nlongs, &caplongs, p)) { free(p); return NULL; }
    size_t i = nlongs - 1;
    *ref = (uint32_t)((i / LONGS + 1) << 16 | (CHUNK + i % LONGS));
    return p;
  }
  if (!nchunks || CHUNK - used < n) {
    if (nchunks == 0xffff) return NULL;
    char *c = sdb_noted(malloc(CHUNK));
    if (!c || !push(&sdb_intern_chunks_, &nchunks, &capchunks, c)) { free(c); return NULL; }
    used = 0;
  }
  *ref = (uint32_t)(nchunks << 16 | used);
  char *p = sdb_intern_chunks_[nchunks - 1] + used;
  used += n;
  return p;
}

/* A slot keeps its string's hash: probing compares hashes first, and
** growing does not rehash the text. 8 bytes, the string named by its
** reference: the table of a million-op run holds millions of names (at
** 16 bytes a slot, with a pointer, it was 8% of the run's memory). The
** table fills to three quarters before it doubles (probes compare the
** hash, so the longer runs cost little). */
typedef struct slot { uint32_t h, ref; } slot;
static slot *slots;
static size_t cap, len;

/* eight bytes at a time (names and paths are short; this runs for every
** event) */
static uint32_t hash_str(const char *s, size_t n) {
  uint64_t h = 0x9E3779B97F4A7C15u ^ (uint64_t)n;
  for (; n >= 8; s += 8, n -= 8) {
    uint64_t w;
    memcpy(&w, s, 8);
    h = (h ^ w) * 0xff51afd7ed558ccdu;
    h ^= h >> 32;
  }
  uint64_t w = 0;
  memcpy(&w, s, n);
  h = (h ^ w) * 0xc4ceb9fe1a85ec53u;
  h ^= h >> 29;
  return (uint32_t)h;
}

static int grow(void) {
  size_t ncap = cap ? cap * 2 : 256;
  slot *t = sdb_noted(calloc(ncap, sizeof *t));
  if (!t) return -1;
  for (size_t i = 0; i < cap; i++) {
    if (!slots[i].ref) continue;
    size_t j = slots[i].h & (ncap - 1);
    while (t[j].ref) j = (j + 1) & (ncap - 1);
    t[j] = slots[i];
  }
  free(slots);
  slots = t;
  cap = ncap;
  return 0;
}

/* Most strings handed in were interned already (node names, tracer
** paths, files): a direct-mapped set of interned pointers answers those
** without hashing the text, and their references (sdb_intern_ref) without
** a probe. Only a pointer that intern returned goes in,
** so a hit is an interned string (they live until sdb_intern_reset). */
#define KNOWN_SIZE 1024
static struct { const char *p; uint32_t ref; } known[KNOWN_SIZE];   /* and its reference */

/* Every bit of the address counts: strings are packed in their chunks, two
** or three to 16 bytes, and a hash of p >> 4 gave neighbours one slot, so
** a name evicted the one interned just before it. */
static size_t known_slot(const char *p) {
  return (size_t)(((uint64_t)(uintptr_t)p * 0x9E3779B97F4A7C15u) >> 54);   /* 10 bits */
}

static void remember(const char *c, uint32_t ref) {
  size_t k = known_slot(c);
  known[k].p = c;
  known[k].ref = ref;
}

/* s[0..n) holds no NUL; *fresh (if given) says whether it was new; *ref
** (if given) is its reference */
static const char *intern_len_ref(const char *s, size_t n, bool *fresh, uint32_t *ref_out) {
  if (fresh) *fresh = false;
  if (len * 4 >= cap * 3 && grow() != 0) return NULL;
  uint32_t h = hash_str(s, n);
  size_t j = h & (cap - 1);
  for (; slots[j].ref; j = (j + 1) & (cap - 1)) {
    if (slots[j].h != h) continue;
    char *c = at_ref(slots[j].ref);
    if (strncmp(c, s, n) == 0 && c[n] == '\0') {
      remember(c, slots[j].ref);   /* handed on: likely asked again */
      if (ref_out) *ref_out = slots[j].ref;
      return c;
    }
  }
  uint32_t ref;
  char *c = str_alloc(n + 1, &ref);
  if (!c) return NULL;
  memcpy(c, s, n);
  c[n] = '\0';
  slots[j].ref = ref;
  slots[j].h = h;
  len++;
  remember(c, ref);
  if (fresh) *fresh = true;
  if (ref_out) *ref_out = ref;
  return c;
}

static const char *intern_len_fresh(const char *s, size_t n, bool *fresh) {
  return intern_len_ref(s, n, fresh, NULL);
}

static const char *intern_len(const char *s, size_t n) { return intern_len_ref(s, n, NULL, NULL); }

const char *sdb_intern_lookup(const char *s, size_t n) {
  if (!s || !cap) return NULL;
  n = strnlen(s, n);
  uint32_t h = hash_str(s, n);
  for (size_t j = h & (cap - 1); slots[j].ref; j = (j + 1) & (cap - 1)) {
    if (slots[j].h != h) continue;
    const char *c = at_ref(slots[j].ref);
    if (strncmp(c, s, n) == 0 && c[n] == '\0') return c;
  }
  return NULL;
}

const char *sdb_intern_n(const char *s, size_t n) {
  if (!s) return NULL;
  /* Interned strings are C strings: a NUL inside the n bytes ends it
  ** (comparing past it read beyond a shorter slot; found by fuzzing). */
  return intern_len(s, strnlen(s, n));
}

const char *sdb_intern(const char *s) {
  if (!s) return NULL;
  if (known[known_slot(s)].p == s) return s;   /* an interned string, whole */
  return intern_len(s, strlen(s));
}

sdb_iref sdb_intern_ref(const char *s) {
  if (!s) return 0;
  size_t k = known_slot(s);
  if (known[k].p == s) return known[k].ref;
  uint32_t ref = 0;
  return intern_len_ref(s, strlen(s), NULL, &ref) ? ref : 0;
}

#define AT_SIZE 512
static struct { const char *raw, *in; uint32_t ref; } at_cache[AT_SIZE];

/* the interned copy of s, cached by address; *ref its reference */
static const char *intern_at(const char *s, uint32_t *ref) {
  size_t h = (size_t)(((uintptr_t)s >> 3) * 2654435761u) & (AT_SIZE - 1);
  if (at_cache[h].raw == s && strcmp(at_cache[h].in, s) == 0) {
    *ref = at_cache[h].ref;
    return at_cache[h].in;
  }
  *ref = 0;
  const char *in = intern_len_ref(s, strlen(s), NULL, ref);
  if (in) {   /* NULL (out of memory) is not remembered */
    at_cache[h].raw = s;
    at_cache[h].in = in;
    at_cache[h].ref = *ref;
  }
  return in;
}

const char *sdb_intern_at(const char *s) {
  uint32_t ref;
  return s ? intern_at(s, &ref) : NULL;
}

sdb_iref sdb_intern_at_ref(const char *s) {
  uint32_t ref = 0;
  if (s) intern_at(s, &ref);
  return ref;
}

const char *sdb_internf(const char *fmt, ...) {
  /* on the stack when it fits (names and details: a lowering makes two a
  ** buffer), on the heap otherwise */
  char small[256];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(small, sizeof small, fmt, ap);
  va_end(ap);
  if (n < 0) return NULL;
  if ((size_t)n < sizeof small) return sdb_intern_n(small, (size_t)n);
  sdb_buf b = SDB_BUF_INIT;
  va_start(ap, fmt);
  sdb_buf_vprintf(&b, fmt, ap);
  va_end(ap);
  const char *r = sdb_intern(sdb_buf_cstr(&b));
  sdb_buf_free(&b);
  return r;
}

const char *sdb_intern_num_fresh(const char *prefix, size_t plen, unsigned long n, bool *fresh) {
  char buf[160], digits[24];
  size_t nd = 0;
  if (plen > 128) plen = 128;
  do digits[nd++] = (char)('0' + n % 10); while ((n /= 10) && nd < sizeof digits);
  memcpy(buf, prefix, plen);
  for (size_t i = 0; i < nd; i++) buf[plen + i] = digits[nd - 1 - i];
  /* the prefix may hold a NUL: interned strings end at the first */
  return intern_len_fresh(buf, strnlen(buf, plen + nd), fresh);
}

const char *sdb_intern_num(const char *prefix, size_t plen, unsigned long n) {
  return sdb_intern_num_fresh(prefix, plen, n, NULL);
}

void sdb_intern_reset(void) {
  memset(known, 0, sizeof known);
  memset(at_cache, 0, sizeof at_cache);
  for (size_t i = 0; i < nchunks; i++) free(sdb_intern_chunks_[i]);
  for (size_t i = 0; i < nlongs; i++) free(sdb_intern_longs_[i]);
  free(sdb_intern_chunks_);
  free(sdb_intern_longs_);
  sdb_intern_chunks_ = sdb_intern_longs_ = NULL;
  nchunks = capchunks = nlongs = caplongs = used = 0;
  free(slots);
  slots = NULL;
  cap = len = 0;
}
