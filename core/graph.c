/*
** graph.c — FX-like graphs and their readable printing (see graph.h).
*/
#include "graph.h"
#include "ptrtab.h"
#include "buf.h"
#include "fake.h"
#include "intern.h"
#include "srcfile.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint32_t next_node_id;

const char *sdb_node_op_name(sdb_node_op op) {
  static const char *const names[] = {"placeholder", "call_function", "call_method",
                                      "get_attr", "output"};
  return (unsigned)op < 5 ? names[op] : "?";
}

/* --- args ------------------------------------------------------------------- */

/* Built on zeroed memory: the union's bytes that the kind does not use
** read as zero (a node argument's value is None). */
sdb_arg sdb_arg_node(sdb_node *n) {
  sdb_arg a;
  memset(&a, 0, sizeof a);
  a.kind = SDB_A_NODE;
  a.node = n;
  return a;
}

sdb_arg sdb_arg_const(sdb_value v) {
  sdb_arg a;
  memset(&a, 0, sizeof a);
  a.kind = SDB_A_CONST;
  a.vkind = (uint8_t)v.kind;
  switch (v.kind) {
    case SDB_V_INT: case SDB_V_BOOL: a.expr = v.expr; break;
    case SDB_V_TENSOR: a.tensor = v.tensor; break;
    case SDB_V_LIST: case SDB_V_TUPLE: a.vitems = v.items; a.n = (uint32_t)v.n; break;
    case SDB_V_STR: a.str = v.str; break;
    case SDB_V_FLOAT:
      if ((a.sym_float = v.expr != NULL)) a.expr = v.expr;
      else a.fval = v.fval;
      break;
    default: break;
  }
  return a;
}

sdb_arg sdb_arg_seq(size_t n, bool tuple) {
  sdb_arg a;
  memset(&a, 0, sizeof a);
  a.kind = SDB_A_SEQ;
  a.tuple = tuple;
  /* a count past 32 bits fails as out of memory would: no items */
  a.items = n && n <= UINT32_MAX ? calloc(n, sizeof *a.items) : NULL;
  if (!n || a.items) a.n = (uint32_t)n;
  return a;
}

void sdb_arg_free(sdb_arg *a) {
  if (a->kind == SDB_A_CONST) {
    sdb_value v = sdb_arg_value(a);
    sdb_value_free(&v);
  }
  if (a->kind == SDB_A_SEQ) {
    for (size_t i = 0; i < a->n; i++) sdb_arg_free(&a->items[i]);
    free(a->items);
  }
  a->items = NULL;
  a->n = 0;
}

static void count_users(sdb_arg *a, int delta) {
  if (a->kind == SDB_A_NODE && a->node) a->node->nusers += delta;
  if (a->kind == SDB_A_SEQ)
    for (size_t i = 0; i < a->n; i++) count_users(&a->items[i], delta);
}

/* --- graphs ----------------------------------------------------------------- */

sdb_graph *sdb_graph_new(const char *name) {
  sdb_graph *g = calloc(1, sizeof *g);
  if (!g) return NULL;
  g->name = sdb_intern(name ? name : "GraphModule");
  return g;
}

const sdb_bindings sdb_node_no_bindings = {NULL, 0};

/* --- what few nodes have ---------------------------------------------------------- */

static sdb_ptrtab node_extras = SDB_PTRTAB_INIT;

const sdb_node_extra *sdb_node_extra_of(const sdb_node *n) {
  return n->has_extra ? sdb_ptrtab_get(&node_extras, n) : NULL;
}

/* n's extra, made empty if it had none; NULL on OOM */
static sdb_node_extra *extra_for(sdb_node *n) {
  if (n->has_extra) return sdb_ptrtab_get(&node_extras, n);
  sdb_node_extra *x = calloc(1, sizeof *x);
  if (!x || !sdb_ptrtab_put(&node_extras, n, x)) { free(x); return NULL; }
  n->has_extra = true;
  return x;
}

static void drop_extra(sdb_node *n) {
  if (!n->has_extra) return;
  sdb_node_extra *x = sdb_ptrtab_remove(&node_extras, n);
  n->has_extra = false;
  if (x) sdb_bindings_free(&x->bindings);
  free(x);
}

/* an extra that holds nothing goes */
static void drop_if_empty(sdb_node *n) {
  const sdb_node_extra *x = sdb_node_extra_of(n);
  if (x && !x->bindings.n && !x->source) drop_extra(n);   /* source and sub share the word */
}

bool sdb_node_set_bindings(sdb_node *n, sdb_bindings *b) {
  if (n->has_extra) {
    sdb_node_extra *x = sdb_ptrtab_get(&node_extras, n);
    sdb_bindings_free(&x->bindings);
    x->bindings = (sdb_bindings){NULL, 0};
  }
  if (!b->n) { sdb_bindings_free(b); drop_if_empty(n); return true; }
  sdb_node_extra *x = extra_for(n);
  if (!x) { sdb_bindings_free(b); return false; }
  x->bindings = *b;
  b->v = NULL;
  b->n = 0;
  return true;
}

bool sdb_node_set_sub(sdb_node *n, sdb_graph *g) {
  if (n->op != SDB_N_GET_ATTR || (!g && !n->has_extra)) return true;
  sdb_node_extra *x = extra_for(n);
  if (!x) return false;
  x->sub = g;
  drop_if_empty(n);
  return true;
}

static void free_node(sdb_node *n) {
  for (size_t i = 0; i < n->nargs; i++) sdb_arg_free(&n->args[i]);
  sdb_value_free(&n->example);
  drop_extra(n);
  free(n);
}

void sdb_graph_free(sdb_graph *g) {
  if (!g) return;
  for (size_t i = 0; i < g->n; i++) free_node(g->nodes[i]);
  for (size_t i = 0; i < g->nsubs; i++) sdb_graph_free(g->subs[i]);
  free(g->nodes);
  free(g->subs);
  sdb_map_free(&g->base_count);
  sdb_map_free(&g->used);
  sdb_map_free(&g->erased);
  sdb_map_free(&g->sub_used);
  sdb_map_free(&g->sub_next);
  sdb_map_free(&g->dfollow);
  sdb_map_free(&g->dnext);
  free(g);
}

/* Python keywords and the builtins FX refuses as names. */
static bool illegal_name(const char *s) {
  static const char *const words[] = {
    "False", "None", "True", "and", "as", "assert", "async", "await", "break",
    "class", "continue", "def", "del", "elif", "else", "except", "finally", "for",
    "from", "global", "if", "import", "in", "is", "lambda", "nonlocal", "not", "or",
    "pass", "raise", "return", "try", "while", "with", "yield",
    "abs", "all", "any", "bool", "dict", "float", "id", "input", "int", "iter",
    "len", "list", "map", "max", "min", "next", "object", "pow", "print", "range",
    "round", "set", "slice", "sorted", "str", "sum", "tuple", "type", "zip",
    "torch", "self", "inf", "nan", "operator",
  };
  if (strpbrk(s, "_0123456789")) return false;   /* no word has these: most names do */
  for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
    if (words[i][0] == s[0] && !strcmp(words[i], s)) return true;
  return false;
}

/* base + "_" + num, interned: FX's numbered names, one per node. base is
** shorter than 128 bytes. */
static const char *numbered(const char *base, size_t blen, unsigned long num, bool *fresh) {
  char prefix[130];
  memcpy(prefix, base, blen);
  prefix[blen] = '_';
  return sdb_intern_num_fresh(prefix, blen + 1, num, fresh);
}

void sdb_graph_seal(sdb_graph *g) {
  if (!g) return;
  for (size_t i = 0; i < g->nsubs; i++) sdb_graph_seal(g->subs[i]);
  sdb_map_free(&g->used);
  g->sealed = true;
}

const char *sdb_graph_unique_name(sdb_graph *g, const char *candidate) {
  if (g->sealed) {   /* the names taken: the live nodes' and the removed ones' */
    g->sealed = false;
    for (size_t i = 0; i < g->n; i++) sdb_map_put(&g->used, g->nodes[i]->name, (void *)g->nodes[i]->name);
    for (size_t i = 0; i < g->erased.len; i++) sdb_map_put(&g->used, g->erased.keys[i], g->erased.vals[i]);
  }
  char base[128];
  size_t n = 0;
  bool same = candidate != NULL;   /* base is the candidate unchanged */
  const char *p = candidate ? candidate : "";
  for (; *p && n + 1 < sizeof base; p++) {
    char c = *p;
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    base[n++] = ok ? c : '_';
    same &= ok;
  }
  base[n] = '\0';
  if (*p) same = false;
  if (!n) { strcpy(base, "_unnamed"); same = false; }
  if (base[0] >= '0' && base[0] <= '9') {
    memmove(base + 1, base, strlen(base) + 1);
    base[0] = '_';
    same = false;
  }
  /* a trailing _<digits> is a number on the base, as in FX */
  long num = 0;
  bool has_num = false;
  char *us = strrchr(base, '_');
  if (us && us[1] && strspn(us + 1, "0123456789") == strlen(us + 1) && us != base) {
    num = strtol(us + 1, NULL, 10);
    has_num = true;
    *us = '\0';
  }
  size_t blen = strlen(base);
  /* most candidates are op names and hints asked for at the same address */
  const char *ibase = same && !has_num ? sdb_intern_at(candidate) : sdb_intern_n(base, blen);
  /* FX's _Namespace.create_name: the candidate as given (base, or base_N),
  ** else the next number after the base's count, skipping taken names */
  bool fresh = false;   /* interned just now: no map can hold it (a probe saved an op) */
  const char *name = has_num ? numbered(base, blen, (unsigned long)num, &fresh) : ibase;
  if (!num) num = (long)(uintptr_t)sdb_map_get(&g->base_count, ibase);
  while (name && ((!fresh && sdb_map_has(&g->used, name)) || illegal_name(name))) {
    num++;
    name = numbered(base, blen, (unsigned long)num, &fresh);
  }
  /* out of memory: no name, rather than one a later node may be given too */
  if (!name || !sdb_map_put(&g->used, name, (void *)name)) return NULL;
  sdb_map_put(&g->base_count, ibase, (void *)(uintptr_t)num);   /* a hint: a miss only counts again */
  return name;
}

sdb_graph *sdb_graph_new_sub(sdb_graph *parent, const char *base) {
  /* doubled, not one more each time: a copy per cond was quadratic, and
  ** each old array left a hole in the heap among the nodes made since */
  if (parent->nsubs == parent->capsubs) {
    size_t cap = parent->capsubs ? 2 * parent->capsubs : 4;
    sdb_graph **v = realloc(parent->subs, cap * sizeof *v);
    if (!v) return NULL;
    parent->subs = v;
    parent->capsubs = cap;
  }
  /* submodule names count from 0 per base (cond_true_0, wrap_body_0), in
  ** their own namespace, apart from node names. Names are never freed, so
  ** the first free index per base only grows: start where the last one
  ** was found (a scan from 0 over every subgraph made n conds cubic). */
  char cand[128];
  const char *ibase = sdb_intern(base);
  uintptr_t i = (uintptr_t)sdb_map_get(&parent->sub_next, ibase);
  for (;; i++) {
    snprintf(cand, sizeof cand, "%s_%lu", base, (unsigned long)i);
    if (!sdb_map_has(&parent->sub_used, sdb_intern(cand))) break;
  }
  sdb_graph *g = sdb_graph_new(cand);
  if (!g) return NULL;
  if (!sdb_map_put(&parent->sub_used, g->name, g) ||
      !sdb_map_put(&parent->sub_next, ibase, (void *)(i + 1))) {
    sdb_graph_free(g);
    return NULL;
  }
  parent->subs[parent->nsubs++] = g;
  return g;
}

/* Put n at position at; the insertion point moves with the nodes after it. */
static sdb_node *insert_pos(sdb_graph *g, sdb_node *n, size_t at) {
  if (g->n == g->cap) {
    /* from 8: a cond's branch is a few nodes, and a long run makes
    ** thousands of them (32 was 190 bytes unused in each) */
    size_t cap = g->cap ? g->cap * 2 : 8;
    sdb_node **v = realloc(g->nodes, cap * sizeof *v);
    if (!v) return NULL;
    g->nodes = v;
    g->cap = cap;
  }
  if (g->deferred) {
    /* chained after the cursor, which then moves past it, as insert_at does */
    sdb_node *prev = g->dfront ? NULL : g->dcursor ? g->dcursor : g->dtail;
    bool tail = prev == g->dtail;   /* appended */
    bool chained = prev && prev->id >= g->did0;   /* made while deferred */
    sdb_node *next = !prev ? g->dfirst : chained ? sdb_map_get(&g->dnext, prev)
                                                 : sdb_map_get(&g->dfollow, prev);
    if (!sdb_map_put(&g->dnext, n, next)) return NULL;
    if (!prev) g->dfirst = n;
    else if (chained) sdb_map_put(&g->dnext, prev, n);   /* prev has its entry: no allocation */
    else if (!sdb_map_put(&g->dfollow, prev, n)) return NULL;
    g->nodes[g->n++] = n;
    if (tail) g->dtail = n;
    g->last_placed = n;
    g->last_after = tail ? NULL : prev;
    g->last_first = !tail && !prev;
    if (g->dcursor || g->dfront) g->dcursor = n;
    g->dfront = false;
    return n;
  }
  if (at > g->n) at = g->n;
  g->last_placed = n;
  g->last_after = at < g->n && at > 0 ? g->nodes[at - 1] : NULL;
  g->last_first = at < g->n && at == 0;
  memmove(&g->nodes[at + 1], &g->nodes[at], (g->n - at) * sizeof *g->nodes);
  g->nodes[at] = n;
  g->n++;
  if (g->insert_at >= at) g->insert_at++;
  return n;
}

void sdb_graph_defer(sdb_graph *g) {
  if (g->deferred) return;
  g->dn0 = g->n;
  g->did0 = next_node_id;
  g->dfirst = g->dcursor = NULL;
  g->dtail = g->n ? g->nodes[g->n - 1] : NULL;
  g->dfront = false;
  if (g->insert_at == 0 && g->n) g->dfront = true;
  else if (g->insert_at < g->n) g->dcursor = g->nodes[g->insert_at - 1];
  g->deferred = true;
}

/* Lays the order out in place, from the end: a node there before, j, goes
** after the chains of those before it, so writing at the back never
** reaches nodes[0..j) still to be read (and chained nodes are reached by
** their links, not by where they were appended). */
/* Lays node x at position i; the insertion point goes right after the cursor. */
static void lay(sdb_graph *g, size_t i, sdb_node *x, size_t *at) {
  g->nodes[i] = x;
  if (x == g->dcursor) *at = i + 1;
}

void sdb_graph_undefer(sdb_graph *g) {
  if (!g->deferred) return;
  size_t w = g->n, at = g->n;
  bool any = g->dfollow.len > 0;
  for (size_t j = g->dn0; j-- > 0;) {
    sdb_node *x = g->nodes[j];
    const sdb_node *f = any ? sdb_map_get(&g->dfollow, x) : NULL;
    size_t k = 0;
    for (const sdb_node *c = f; c; c = sdb_map_get(&g->dnext, c)) k++;
    if (k > w - j - 1) k = w - j - 1;   /* never past the room left (a broken chain) */
    w -= k;
    size_t i = w;
    for (sdb_node *c = (sdb_node *)f; c && i < w + k; c = sdb_map_get(&g->dnext, c)) lay(g, i++, c, &at);
    lay(g, --w, x, &at);
  }
  size_t k = 0;   /* the chain at the very start fills what is left */
  for (sdb_node *c = g->dfirst; c && k < w; c = sdb_map_get(&g->dnext, c)) lay(g, k++, c, &at);
  if (g->dfront) at = 0;
  g->insert_at = at;
  g->deferred = false;
  g->dfirst = g->dtail = g->dcursor = NULL;
  g->dfront = false;
  sdb_map_free(&g->dfollow);
  sdb_map_free(&g->dnext);
}

/* A node and room for nargs arguments and nkw keyword names after it, one
** block (a separate argument array cost a malloc header and rounding per
** node). */
static sdb_node *new_node(sdb_node_op op, const char *name, const char *target, size_t nargs,
                          size_t nkw) {
  sdb_node *n = calloc(1, sizeof *n + nargs * sizeof(sdb_arg) + nkw * sizeof(const char *));
  if (!n) return NULL;
  n->id = next_node_id++;
  n->op = op;
  n->name = name;
  n->name_ref = sdb_intern_ref(name);   /* just interned: mostly the interner's cache answers */
  n->target = sdb_intern_at(target);
  if (!name || !n->name_ref || (target && !n->target)) {   /* out of memory */
    free(n);
    return NULL;
  }
  return n;
}

sdb_node *sdb_graph_placeholder_at(sdb_graph *g, size_t pos, const char *name,
                                   const char *target, const sdb_value *example,
                                   const sdb_source *src) {
  sdb_graph_undefer(g);   /* a position in `nodes` needs them in order */
  sdb_node *n = new_node(SDB_N_PLACEHOLDER, sdb_graph_unique_name(g, name), target ? target : name, 0, 0);
  if (!n) return NULL;
  if (example && !sdb_value_copy_checked(&n->example, example)) { free_node(n); return NULL; }
  sdb_node_extra *x = src ? extra_for(n) : NULL;
  if (src && !x) { free_node(n); return NULL; }
  if (x) x->source = src;
  size_t np = sdb_graph_num_placeholders(g);
  if (!insert_pos(g, n, pos < np ? pos : np)) { free_node(n); return NULL; }
  return n;
}

sdb_node *sdb_graph_placeholder(sdb_graph *g, const char *name, const char *target,
                                const sdb_value *example, const sdb_source *src) {
  return sdb_graph_placeholder_at(g, sdb_graph_num_placeholders(g), name, target, example, src);
}

static sdb_node *call_at(sdb_graph *g, size_t at, sdb_node_op op, const char *target,
                         const char *name_hint, sdb_arg *args, size_t nargs,
                         const char *const *kws, size_t nkw, const sdb_value *example) {
  sdb_node *n = nkw <= nargs && nkw <= SDB_NODE_MAX_KW
                    ? new_node(op, sdb_graph_unique_name(g, name_hint), target, nargs, nkw)
                    : NULL;
  if (!n) {
    for (size_t i = 0; i < nargs; i++) sdb_arg_free(&args[i]);
    free(args);
    return NULL;
  }
  if (nargs) memcpy(n->args, args, nargs * sizeof *args);   /* they move in; their array goes */
  free(args);
  n->nargs = nargs;
  n->nkw = (uint8_t)nkw;
  if (nkw) memcpy((void *)sdb_node_kwnames(n), kws, nkw * sizeof *kws);
  for (size_t i = 0; i < nargs; i++) count_users(&n->args[i], +1);
  if ((example && !sdb_value_copy_checked(&n->example, example)) || !insert_pos(g, n, at)) {
    for (size_t i = 0; i < nargs; i++) count_users(&n->args[i], -1);
    free_node(n);
    return NULL;
  }
  return n;
}

sdb_node *sdb_graph_call(sdb_graph *g, sdb_node_op op, const char *target,
                         const char *name_hint, sdb_arg *args, size_t nargs,
                         const sdb_value *example) {
  return call_at(g, g->insert_at, op, target, name_hint, args, nargs, NULL, 0, example);
}

static sdb_node *call_after(sdb_graph *g, const sdb_node *after, sdb_node_op op,
                            const char *target, const char *name_hint, sdb_arg *args,
                            size_t nargs, const char *const *kws, size_t nkw,
                            const sdb_value *example) {
  if (g->deferred) {
    sdb_node *cur = g->dcursor;
    bool front = g->dfront;
    g->dcursor = (sdb_node *)after;
    g->dfront = false;
    sdb_node *n = call_at(g, g->n, op, target, name_hint, args, nargs, kws, nkw, example);
    /* the cursor stays after the same node, or after n if it was `after` */
    g->dcursor = cur == after && n ? n : cur;
    g->dfront = front;
    return n;
  }
  size_t at = g->n;
  for (size_t i = 0; i < g->n; i++)
    if (g->nodes[i] == after) { at = i + 1; break; }
  return call_at(g, at, op, target, name_hint, args, nargs, kws, nkw, example);
}

sdb_node *sdb_graph_call_after(sdb_graph *g, const sdb_node *after, sdb_node_op op,
                               const char *target, const char *name_hint,
                               sdb_arg *args, size_t nargs, const sdb_value *example) {
  return call_after(g, after, op, target, name_hint, args, nargs, NULL, 0, example);
}

sdb_node *sdb_graph_call_kw(sdb_graph *g, const sdb_node *after, sdb_node_op op,
                            const char *target, const char *name_hint, sdb_arg *args, size_t nargs,
                            const char *const *kws, size_t nkw, const sdb_value *example) {
  if (after) return call_after(g, after, op, target, name_hint, args, nargs, kws, nkw, example);
  return call_at(g, g->insert_at, op, target, name_hint, args, nargs, kws, nkw, example);
}

sdb_node *sdb_graph_output(sdb_graph *g, sdb_arg *args, size_t nargs) {
  sdb_graph_insert_at_end(g);
  sdb_node *n = sdb_graph_call(g, SDB_N_OUTPUT, "output", "output", args, nargs, NULL);
  if (n) n->impure = true;
  return n;
}

sdb_node *sdb_graph_output_node(const sdb_graph *g) {
  return g->n && g->nodes[g->n - 1]->op == SDB_N_OUTPUT ? g->nodes[g->n - 1] : NULL;
}

void sdb_graph_insert_after(sdb_graph *g, const sdb_node *after) {
  if (g->deferred) {
    g->dfront = !after;
    g->dcursor = (sdb_node *)after;
    return;
  }
  if (!after) { g->insert_at = 0; return; }
  for (size_t i = 0; i < g->n; i++)
    if (g->nodes[i] == after) { g->insert_at = i + 1; return; }
  g->insert_at = g->n;
}

void sdb_graph_insert_at_end(sdb_graph *g) {
  g->insert_at = g->n;
  g->dcursor = NULL;
  g->dfront = false;
}

int sdb_graph_set_placeholders(sdb_graph *g, sdb_node *const *order, size_t n) {
  sdb_graph_undefer(g);
  size_t np = sdb_graph_num_placeholders(g);
  if (n != np) return -1;
  for (size_t i = 0; i < n; i++) {
    bool found = false;
    for (size_t k = 0; k < np && !found; k++) found = g->nodes[k] == order[i];
    if (!found) return -1;
  }
  for (size_t i = 0; i < n; i++) g->nodes[i] = order[i];
  return 0;
}

size_t sdb_graph_num_placeholders(const sdb_graph *g) {
  size_t i = 0;
  while (i < g->n && g->nodes[i]->op == SDB_N_PLACEHOLDER) i++;
  return i;
}

size_t sdb_graph_dce(sdb_graph *g) {
  sdb_graph_undefer(g);
  size_t removed = 0;
  for (bool changed = true; changed;) {
    changed = false;
    /* from the end, so a node whose last user goes is seen in the same
    ** pass; the survivors are compacted once per pass (a memmove per
    ** removed node made this quadratic) */
    size_t below = 0;   /* removed nodes before insert_at */
    for (size_t i = g->n; i-- > 0;) {
      sdb_node *n = g->nodes[i];
      if (n->nusers || n->impure || n->op == SDB_N_PLACEHOLDER || n->op == SDB_N_OUTPUT) continue;
      if (g->on_erase) g->on_erase(g->erase_ud, n, "dead code");
      sdb_map_put(&g->erased, n->name, (void *)n->name);
      for (size_t k = 0; k < n->nargs; k++) count_users(&n->args[k], -1);
      if (g->insert_at > i) below++;
      free_node(n);
      g->nodes[i] = NULL;
      removed++;
      changed = true;
    }
    if (!changed) break;
    size_t w = 0;
    for (size_t i = 0; i < g->n; i++)
      if (g->nodes[i]) g->nodes[w++] = g->nodes[i];
    g->n = w;
    g->insert_at -= below;
  }
  return removed;
}

void sdb_graph_on_erase(sdb_graph *g, sdb_erase_fn fn, void *ud) {
  g->on_erase = fn;
  g->erase_ud = ud;
}

const sdb_node *sdb_node_anchor(const sdb_graph *g, const sdb_node *n, bool *at_start) {
  /* recorded by insert_pos for the last node only (a scan for n made
  ** mid-graph insertions quadratic, and a field per node cost 8 bytes of
  ** every node for a question asked once) */
  bool last = g && g->last_placed == n;
  *at_start = last && g->last_first;
  return last ? g->last_after : NULL;
}

bool sdb_node_placed_event(const sdb_graph *g, const sdb_node *n, sdb_buf *b,
                           sdb_event_in *e, sdb_event_more *more) {
  const char *line = sdb_node_line(b, n);
  bool first;
  const sdb_node *after = sdb_node_anchor(g, n, &first);
  *e = (sdb_event_in){0};
  e->kind = SDB_EV_NODE_PLACED;
  e->text = n->name;
  e->detail = line;
  e->value = n->id;
  *more = (sdb_event_more){.text2 = after ? after->name : NULL};
  e->more = more;   /* dropped when NULL: most nodes are appended */
  e->flags = first ? SDB_EVF_AT_START : 0;
  return line != NULL;
}

/* --- printing ---------------------------------------------------------------- */

static void put_expr(sdb_buf *b, const sdb_expr *e, sdb_shape_env *env) {
  unsigned long noted = sdb_nomem_count;
  const sdb_expr *s = env ? sdb_simplify(env, e) : e;
  if (!s && sdb_nomem_count == noted) s = e;   /* not simplified (an overflow): as it is */
  char *t = s ? sdb_expr_str(s) : NULL;
  if (t) sdb_buf_puts(b, t);
  else b->failed = true;   /* out of memory: the text says it is incomplete
                           ** (e unsimplified would pass for the right one) */
  free(t);
}

static void annotation(sdb_buf *b, const sdb_value *v, bool strides, sdb_shape_env *env) {
  if (v->kind == SDB_V_TENSOR) {
    sdb_buf_putc(b, '"');
    sdb_fake_meta_put(b, v->tensor, strides);
    sdb_buf_putc(b, '"');
  } else if ((v->kind == SDB_V_INT || v->kind == SDB_V_BOOL || v->kind == SDB_V_FLOAT) &&
             v->expr && !sdb_is_const(v->expr)) {
    sdb_buf_puts(b, "\"Sym(");
    put_expr(b, v->expr, env);
    sdb_buf_puts(b, ")\"");
  }
}

char *sdb_value_annotation(const sdb_value *v, bool strides) {
  sdb_buf b = SDB_BUF_INIT;
  annotation(&b, v, strides, v->kind == SDB_V_TENSOR && v->tensor->mode ? v->tensor->mode->env : NULL);
  return sdb_buf_take(&b);
}

/* Python's repr of a str: single quotes unless the text has one. */
static void put_py_str(sdb_buf *b, const char *s) {
  char q = strchr(s, '\'') && !strchr(s, '"') ? '"' : '\'';
  sdb_buf_putc(b, q);
  for (const char *p = s; *p; p++) {
    if (*p == '\\' || *p == q) sdb_buf_putc(b, '\\');
    if (*p == '\n') { sdb_buf_puts(b, "\\n"); continue; }
    sdb_buf_putc(b, *p);
  }
  sdb_buf_putc(b, q);
}

/* Python repr of a constant argument. */
static void put_const(sdb_buf *b, const sdb_value *v, const char *kw) {
  switch (v->kind) {
    case SDB_V_NONE: sdb_buf_puts(b, "None"); break;
    case SDB_V_INT: case SDB_V_BOOL: put_expr(b, v->expr, NULL); break;
    case SDB_V_FLOAT: {
      char num[64];
      snprintf(num, sizeof num, "%.17g", v->fval);
      if (!strpbrk(num, ".eEn")) strcat(num, ".0");   /* Python prints 2.0, not 2 */
      else snprintf(num, sizeof num, "%g", v->fval);
      sdb_buf_puts(b, num);
      break;
    }
    case SDB_V_STR:
      if (kw && !strcmp(kw, "dtype") && sdb_dtype_from_name(v->str) >= 0)
        sdb_buf_puts(b, sdb_dtype_name((sdb_dtype)sdb_dtype_from_name(v->str)));
      else
        put_py_str(b, v->str ? v->str : "");
      break;
    default: sdb_buf_puts(b, "?"); break;
  }
}

/* kw: the argument's keyword name, or NULL */
static void put_arg(sdb_buf *b, const sdb_arg *a, const char *kw) {
  if (kw) {
    sdb_buf_puts(b, kw);
    sdb_buf_puts(b, " = ");
  }
  switch (a->kind) {
    case SDB_A_NODE: sdb_buf_puts(b, a->node ? a->node->name : "?"); break;
    case SDB_A_CONST: {
      sdb_value v = sdb_arg_value(a);
      put_const(b, &v, kw);
      break;
    }
    case SDB_A_SEQ:
      sdb_buf_putc(b, a->tuple ? '(' : '[');
      for (size_t i = 0; i < a->n; i++) {
        if (i) sdb_buf_puts(b, ", ");
        put_arg(b, &a->items[i], NULL);
      }
      if (a->tuple && a->n == 1) sdb_buf_putc(b, ',');
      sdb_buf_putc(b, a->tuple ? ')' : ']');
      break;
  }
}

static void put_args(sdb_buf *b, const sdb_node *n, size_t from) {
  for (size_t i = from; i < n->nargs; i++) {
    if (i > from) sdb_buf_puts(b, ", ");
    put_arg(b, &n->args[i], sdb_node_kw(n, i));
  }
}

/* FX's magic methods: operator targets print infix. */
static const char *infix_of(const char *target) {
  static const struct { const char *t, *fmt; } ops[] = {
    {"operator.add", "+"}, {"operator.sub", "-"}, {"operator.mul", "*"},
    {"operator.floordiv", "//"}, {"operator.truediv", "/"}, {"operator.mod", "%"},
    {"operator.pow", "**"}, {"operator.eq", "=="}, {"operator.ne", "!="},
    {"operator.lt", "<"}, {"operator.le", "<="}, {"operator.gt", ">"},
    {"operator.ge", ">="}, {"operator.and_", "&"}, {"operator.or_", "|"},
  };
  if (strncmp(target, "operator.", 9)) return NULL;   /* most targets are not */
  for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
    if (!strcmp(ops[i].t, target)) return ops[i].fmt;
  return NULL;
}

static void put_call(sdb_buf *b, const sdb_node *n) {
  const char *inf = n->op == SDB_N_CALL_FUNCTION ? infix_of(n->target) : NULL;
  if (inf && n->nargs == 2) {
    put_arg(b, &n->args[0], sdb_node_kw(n, 0));
    sdb_buf_putc(b, ' ');
    sdb_buf_puts(b, inf);
    sdb_buf_putc(b, ' ');
    put_arg(b, &n->args[1], sdb_node_kw(n, 1));
  } else if (n->op == SDB_N_CALL_FUNCTION && !strcmp(n->target, "operator.getitem") && n->nargs == 2) {
    put_arg(b, &n->args[0], sdb_node_kw(n, 0));
    sdb_buf_putc(b, '[');
    put_arg(b, &n->args[1], sdb_node_kw(n, 1));
    sdb_buf_putc(b, ']');
  } else if (n->op == SDB_N_CALL_FUNCTION && !strcmp(n->target, "operator.neg") && n->nargs == 1) {
    sdb_buf_putc(b, '-');
    put_arg(b, &n->args[0], sdb_node_kw(n, 0));
  } else if (n->op == SDB_N_CALL_METHOD && n->nargs >= 1) {
    put_arg(b, &n->args[0], sdb_node_kw(n, 0));
    sdb_buf_putc(b, '.');
    sdb_buf_puts(b, n->target);
    sdb_buf_putc(b, '(');
    put_args(b, n, 1);
    sdb_buf_putc(b, ')');
  } else if (n->op == SDB_N_GET_ATTR) {
    sdb_buf_printf(b, "self.%s", n->target);
  } else {
    sdb_buf_puts(b, n->target);
    sdb_buf_putc(b, '(');
    put_args(b, n, 0);
    sdb_buf_putc(b, ')');
  }
}

static void node_line(sdb_buf *b, const sdb_node *n, const sdb_print_opts *o, sdb_shape_env *env) {
  if (n->op == SDB_N_OUTPUT) {
    sdb_buf_puts(b, "return ");
    if (n->nargs) put_arg(b, &n->args[0], sdb_node_kw(n, 0));
    else sdb_buf_puts(b, "()");
    return;
  }
  sdb_buf_puts(b, n->name);
  size_t at = b->len;
  sdb_buf_puts(b, ": ");
  annotation(b, &n->example, o && o->strides, env);
  if (b->len == at + 2) { b->len = at; b->data[at] = '\0'; }   /* no annotation: no ': ' */
  sdb_buf_puts(b, " = ");
  put_call(b, n);
}

const char *sdb_node_line(sdb_buf *b, const sdb_node *n) {
  if (b->failed) sdb_buf_free(b);   /* an earlier line ran out of memory: start over */
  sdb_buf_clear(b);
  if (n->op == SDB_N_PLACEHOLDER) {
    sdb_buf_puts(b, n->target);
    size_t at = b->len;
    sdb_buf_puts(b, ": ");
    annotation(b, &n->example, false, NULL);
    if (b->len == at + 2) { b->len = at; b->data[at] = '\0'; }
  } else {
    node_line(b, n, NULL, NULL);
  }
  return b->failed ? NULL : sdb_buf_cstr(b);
}

char *sdb_node_str(const sdb_node *n) {
  sdb_buf b = SDB_BUF_INIT;
  sdb_node_line(&b, n);
  return sdb_buf_take(&b);
}

/* last_use[i]: nodes whose last use is node i, in argument order (FX). */
typedef struct { const sdb_node **v; size_t n, cap; } nodelist;

/* false on OOM (the printed graph then says it is incomplete) */
static bool note_use(const sdb_arg *a, const sdb_node *user, sdb_map *last, nodelist *lists,
                     size_t user_ix) {
  if (a->kind == SDB_A_NODE && a->node && !sdb_map_has(last, a->node)) {
    if (!sdb_map_put(last, a->node, (void *)user)) return false;
    nodelist *l = &lists[user_ix];
    if (l->n == l->cap) {
      size_t cap = l->cap ? l->cap * 2 : 4;
      const sdb_node **v = realloc(l->v, cap * sizeof *v);
      if (!v) return false;
      l->v = v;
      l->cap = cap;
    }
    l->v[l->n++] = a->node;
  } else if (a->kind == SDB_A_SEQ) {
    for (size_t i = 0; i < a->n; i++)
      if (!note_use(&a->items[i], user, last, lists, user_ix)) return false;
  }
  return true;
}

static sdb_shape_env *graph_env(const sdb_graph *g) {
  for (size_t i = 0; i < g->n; i++) {
    const sdb_value *v = &g->nodes[i]->example;
    if (v->kind == SDB_V_TENSOR && v->tensor->mode && v->tensor->mode->env) return v->tensor->mode->env;
  }
  return NULL;
}

static void print_graph(sdb_buf *b, const sdb_graph *g, const sdb_print_opts *o, int indent) {
  sdb_shape_env *env = graph_env(g);
  const char *pad = "                                                                ";
  int ip = indent < 56 ? indent : 56;
  sdb_buf_printf(b, "%.*sclass %s(torch.nn.Module):\n", ip, pad,
                 !strcmp(g->name, "GraphModule") ? "GraphModule" : g->name);
  sdb_buf_printf(b, "%.*s    def forward(self", ip, pad);
  for (size_t i = 0; i < g->n; i++) {
    const sdb_node *n = g->nodes[i];
    if (n->op != SDB_N_PLACEHOLDER) continue;
    sdb_buf_printf(b, ", %s", n->target);
    sdb_buf ann = SDB_BUF_INIT;
    annotation(&ann, &n->example, o && o->strides, env);
    if (ann.failed) b->failed = true;   /* out of memory: the text says it is incomplete */
    else if (ann.len) sdb_buf_printf(b, ": %s", sdb_buf_cstr(&ann));
    sdb_buf_free(&ann);
  }
  sdb_buf_puts(b, "):\n");
  sdb_map last = SDB_MAP_INIT;
  nodelist *lists = calloc(g->n + 1, sizeof *lists);
  if (!lists) b->failed = true;   /* no `x = None` clearing: the text says it is incomplete */
  for (size_t i = g->n; lists && i-- > 0;)
    for (size_t k = 0; k < g->nodes[i]->nargs; k++)
      if (!note_use(&g->nodes[i]->args[k], g->nodes[i], &last, lists, i)) b->failed = true;
  for (size_t i = 0; i < g->n; i++) {
    const sdb_node *n = g->nodes[i];
    if (n->op == SDB_N_PLACEHOLDER) {
      if (strcmp(n->name, n->target))
        sdb_buf_printf(b, "%.*s        %s = %s\n", ip, pad, n->name, n->target);
      continue;
    }
    if (o && o->locations && sdb_node_at(n) && sdb_node_at(n)->file) {
      const sdb_site *at = sdb_node_at(n);
      const char *code = sdb_srcfile_line(at->file, at->line);
      const char *base = strrchr(at->file, '/');
      sdb_buf_printf(b, "\n%.*s         # File: %s:%d", ip, pad, base ? base + 1 : at->file, at->line);
      if (at->func) sdb_buf_printf(b, " in %s", at->func);
      if (code) sdb_buf_printf(b, ", code: %s", code);
      sdb_buf_putc(b, '\n');
    }
    sdb_buf_printf(b, "%.*s        ", ip, pad);
    node_line(b, n, o, env);
    if (n->op != SDB_N_OUTPUT && lists) {
      nodelist *l = &lists[i];
      bool self_dead = n->nusers == 0;
      if (l->n || self_dead) {
        sdb_buf_puts(b, ";  ");
        for (size_t k = 0; k < l->n; k++) sdb_buf_printf(b, "%s = ", l->v[k]->name);
        if (self_dead) sdb_buf_printf(b, "%s = ", n->name);
        sdb_buf_puts(b, "None");
      }
    }
    sdb_buf_putc(b, '\n');
    if (o && o->bindings && sdb_node_bindings(n)->n) {
      /* under the names the types above use: a symbol the aot retrace
      ** renamed (u2 -> u0) is printed as it is now called */
      sdb_buf_printf(b, "%.*s        # ", ip, pad);
      for (size_t k = 0; k < sdb_node_bindings(n)->n; k++) {
        const sdb_expr *sym = sdb_node_bindings(n)->v[k].sym;
        const sdb_expr *now = env ? sdb_resolve_renamed(env, sym) : sym;
        char ps[256];
        const sdb_keypath *path = sdb_node_bindings(n)->v[k].path;
        sdb_buf_cat(b, k ? ", " : "", now && now->kind == SDB_SYM ? now->name : sym->name, ": ",
                    path->n ? sdb_keypath_str(path, ps, sizeof ps) : "<value>", (const char *)NULL);
      }
      sdb_buf_putc(b, '\n');
    }
  }
  for (size_t i = 0; lists && i <= g->n; i++) free(lists[i].v);
  free(lists);
  sdb_map_free(&last);
  if (o && o->subgraphs)
    for (size_t i = 0; i < g->nsubs; i++) {
      sdb_buf_putc(b, '\n');
      print_graph(b, g->subs[i], o, indent + 4);
    }
}

char *sdb_graph_print(const sdb_graph *g, const sdb_print_opts *opts) {
  sdb_buf b = SDB_BUF_INIT;
  print_graph(&b, g, opts, 0);
  return sdb_buf_take(&b);
}
