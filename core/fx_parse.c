/*
** fx_parse.c — print_readable text -> sdb_fx_graph. Lines are grouped by
** indentation (a class holds a forward and nested classes; a forward holds
** statements); each statement is tokenized and parsed as a small Python
** expression tree, which is then turned into one FX node. Only the forms
** FX's code generator writes are accepted; anything else is an error that
** names the payload line. The tokenizer and the expression parser are in
** fx_expr.c.
*/
#include "fx_parse.h"
#include "fx_parse_impl.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "fake.h"
#include "intern.h"

const char *sdb_fx_op_name(sdb_fx_op op) {
  switch (op) {
    case SDB_FX_PLACEHOLDER: return "placeholder";
    case SDB_FX_CALL_FUNCTION: return "call_function";
    case SDB_FX_CALL_METHOD: return "call_method";
    case SDB_FX_GET_ATTR: return "get_attr";
    case SDB_FX_OUTPUT: return "output";
  }
  return "?";
}

/* --- lines --------------------------------------------------------------------- */

typedef struct fx_line {
  int no;             /* 1-based payload line */
  int indent;         /* leading spaces; -1 for a blank line */
  const char *s;      /* after the indentation, NUL-terminated (owned copy) */
} fx_line;

typedef struct fx_ctx {
  fx_line *lines;
  size_t nlines;
  size_t pos;
  const char *where;
  sdb_err *err;
  /* The current `# File:` comment, applied to the nodes that follow. */
  const char *file, *fn, *code;
  int line;
} fx_ctx;

int sdb_fp_fail(fx_ctx *c, int lineno, const char *fmt, ...) {
  sdb_buf b = SDB_BUF_INIT;
  va_list ap;
  sdb_buf_printf(&b, "%s line %d: ", c->where, lineno);
  va_start(ap, fmt);
  sdb_buf_vprintf(&b, fmt, ap);
  va_end(ap);
  if (b.failed) {
    sdb_buf_free(&b);
    return sdb_err_set(c->err, SDB_E_OOM, "MemoryError", "out of memory");
  }
  sdb_err_take(c->err, SDB_E_INVALID, "FxParseError", sdb_buf_take(&b));
  c->err->file = sdb_intern(c->where);
  c->err->line = lineno;
  return SDB_E_INVALID;
}

int sdb_fp_oom(fx_ctx *c) {
  return sdb_err_set(c->err, SDB_E_OOM, "MemoryError", "out of memory");
}

static int split_lines(fx_ctx *c, const char *text) {
  size_t cap = 16;
  c->lines = malloc(cap * sizeof *c->lines);
  if (!c->lines) return sdb_fp_oom(c);
  int no = 0;
  const char *p = text;
  while (*p) {
    const char *e = strchr(p, '\n');
    size_t len = e ? (size_t)(e - p) : strlen(p);
    no++;
    if (len && p[len - 1] == '\r') len--;
    size_t ind = 0;
    while (ind < len && p[ind] == ' ') ind++;
    if (c->nlines == cap) {
      fx_line *nl = realloc(c->lines, 2 * cap * sizeof *nl);
      if (!nl) return sdb_fp_oom(c);
      c->lines = nl;
      cap *= 2;
    }
    fx_line *l = &c->lines[c->nlines];
    l->no = no;
    l->s = strndup(p + ind, len - ind);
    if (!l->s) return sdb_fp_oom(c);
    c->nlines++;
    /* A tab in the indentation cannot be measured against spaces. */
    if (ind < len && p[ind] == '\t') return sdb_fp_fail(c, no, "tab in indentation");
    l->indent = ind == len ? -1 : (int)ind;
    if (!e) break;
    p = e + 1;
  }
  return SDB_OK;
}

/* --- graphs -------------------------------------------------------------------- */

static void arg_free(sdb_fx_arg *a) {
  for (size_t i = 0; i < a->n; i++) arg_free(&a->items[i]);
  free(a->items);
  a->items = NULL;
  a->n = 0;
}

static void node_free(sdb_fx_node *n) {
  if (!n) return;
  for (size_t i = 0; i < n->nargs; i++) arg_free(&n->args[i]);
  free(n->args);
  free(n->meta.sizes);
  free(n->meta.strides);
  free(n);
}

void sdb_fx_graph_free(sdb_fx_graph *g) {
  if (!g) return;
  for (size_t i = 0; i < g->n; i++) node_free(g->nodes[i]);
  free(g->nodes);
  for (size_t i = 0; i < g->nsubs; i++) sdb_fx_graph_free(g->subs[i]);
  free(g->subs);
  free(g);
}

static sdb_fx_node *find_node(const sdb_fx_graph *g, const char *name) {
  for (size_t i = g->n; i-- > 0;)
    if (g->nodes[i]->name == name) return g->nodes[i];
  return NULL;
}

sdb_fx_graph *sdb_fx_graph_sub(const sdb_fx_graph *g, const char *name) {
  name = sdb_intern(name);
  for (; g; g = g->parent)
    for (size_t i = 0; i < g->nsubs; i++)
      if (g->subs[i]->name == name) return g->subs[i];
  return NULL;
}

sdb_fx_node *sdb_fx_graph_output(const sdb_fx_graph *g) {
  if (g->n && g->nodes[g->n - 1]->op == SDB_FX_OUTPUT) return g->nodes[g->n - 1];
  return NULL;
}

size_t sdb_fx_graph_count(const sdb_fx_graph *g) {
  size_t n = g->n;
  for (size_t i = 0; i < g->nsubs; i++) n += sdb_fx_graph_count(g->subs[i]);
  return n;
}

static int add_node(fx_ctx *c, sdb_fx_graph *g, sdb_fx_node *n) {
  if (g->n == g->cap) {
    size_t cap = g->cap ? 2 * g->cap : 16;
    sdb_fx_node **nn = realloc(g->nodes, cap * sizeof *nn);
    if (!nn) return sdb_fp_oom(c);
    g->nodes = nn;
    g->cap = cap;
  }
  n->graph = g;
  g->nodes[g->n++] = n;
  return SDB_OK;
}

/* --- annotations --------------------------------------------------------------- */

/* Split "a, Max(1, b), c" at top-level commas into interned, trimmed texts. */
static int split_list(fx_ctx *c, int lineno, const char *s, size_t len, const char ***out,
                      int *n) {
  *out = NULL;
  *n = 0;
  size_t i = 0;
  while (i < len && s[i] == ' ') i++;
  if (i == len) return SDB_OK;
  int cap = 0;
  while (i <= len) {
    size_t st = i;
    int depth = 0;
    while (i < len && (depth || s[i] != ',')) {
      if (s[i] == '(' || s[i] == '[') depth++;
      if (s[i] == ')' || s[i] == ']') depth--;
      i++;
    }
    size_t e = i;
    while (st < e && s[st] == ' ') st++;
    while (e > st && s[e - 1] == ' ') e--;
    if (e == st) return sdb_fp_fail(c, lineno, "empty size in annotation");
    if (*n == cap) {
      cap = cap ? 2 * cap : 4;
      const char **nv = realloc(*out, (size_t)cap * sizeof *nv);
      if (!nv) return sdb_fp_oom(c);
      *out = nv;
    }
    (*out)[(*n)++] = sdb_intern_n(s + st, e - st);
    i++;
  }
  return SDB_OK;
}

/* The bracketed list starting at s[0] == '['; sets *end after ']'. */
static int bracket(fx_ctx *c, int lineno, const char *ann, const char *s, const char **end,
                   const char ***out, int *n) {
  int depth = 0;
  const char *q = s;
  for (; *q; q++) {
    if (*q == '[' || *q == '(') depth++;
    if ((*q == ']' || *q == ')') && --depth == 0) break;
  }
  if (*q != ']')
    return sdb_fp_fail(c, lineno, "cannot read annotation \"%s\": unbalanced brackets", ann);
  *end = q + 1;
  return split_list(c, lineno, s + 1, (size_t)(q - s - 1), out, n);
}

static int parse_meta(fx_ctx *c, int lineno, const char *ann, sdb_fx_meta *m) {
  memset(m, 0, sizeof *m);
  m->text = ann;
  if (!strncmp(ann, "Sym(", 4)) {
    size_t len = strlen(ann);
    if (len < 6 || ann[len - 1] != ')')
      return sdb_fp_fail(c, lineno, "cannot read annotation \"%s\"", ann);
    m->kind = SDB_FXM_SYM;
    m->sym = sdb_intern_n(ann + 4, len - 5);
    return SDB_OK;
  }
  const char *br = strchr(ann, '[');
  if (!br) return sdb_fp_fail(c, lineno, "cannot read annotation \"%s\": expected dtype[sizes]", ann);
  char dt[32];
  size_t dl = (size_t)(br - ann);
  if (dl == 0 || dl >= sizeof dt)
    return sdb_fp_fail(c, lineno, "cannot read annotation \"%s\": expected dtype[sizes]", ann);
  memcpy(dt, ann, dl);
  dt[dl] = 0;
  int d = sdb_dtype_from_name(dt);
  /* Only FX's abbreviations (f32, i64, b8, ...): a word like "float" is not one. */
  if (d < 0 || strcmp(sdb_dtype_short((sdb_dtype)d), dt))
    return sdb_fp_fail(c, lineno, "unknown dtype '%s' in annotation \"%s\"", dt, ann);
  m->kind = SDB_FXM_TENSOR;
  m->dtype = d;
  const char *end;
  int rc, ns;
  if ((rc = bracket(c, lineno, ann, br, &end, &m->sizes, &m->ndim))) return rc;
  if (*end == '[') {
    if ((rc = bracket(c, lineno, ann, end, &end, &m->strides, &ns))) return rc;
    if (ns != m->ndim)
      return sdb_fp_fail(c, lineno, "annotation \"%s\" has %d sizes but %d strides", ann, m->ndim,
                     ns);
  }
  if (*end) {
    for (const char *q = end; *q; q++)
      if (!isalnum((unsigned char)*q) && *q != ':' && *q != '_')
        return sdb_fp_fail(c, lineno, "cannot read device '%s' in annotation \"%s\"", end, ann);
    m->device = sdb_intern(end);
  }
  return SDB_OK;
}

/* --- expression -> arguments --------------------------------------------------- */

/* "torch.ops.aten.sym_size.int" for a chain of attributes on a name; NULL
** when the tree is not such a chain. */
static const char *dotted(const ast *a) {
  if (a->k == E_NAME) return a->s;
  if (a->k != E_ATTR) return NULL;
  const char *base = dotted(a->kids[0]);
  if (!base) return NULL;
  return sdb_internf("%s.%s", base, a->s);
}

static const ast *dotted_root(const ast *a) {
  while (a->k == E_ATTR) a = a->kids[0];
  return a;
}

static int to_arg(fx_ctx *c, lexer *L, sdb_fx_graph *g, const ast *a, sdb_fx_arg *out);

static int to_args(fx_ctx *c, lexer *L, sdb_fx_graph *g, ast *const *kids, const char *const *kws,
                   size_t n, sdb_fx_arg **out, size_t *nout) {
  *out = NULL;
  *nout = 0;
  if (!n) return SDB_OK;
  sdb_fx_arg *v = calloc(n, sizeof *v);
  if (!v) return sdb_fp_oom(c);
  *out = v;
  for (size_t i = 0; i < n; i++) {
    int rc = to_arg(c, L, g, kids[i], &v[i]);
    *nout = i + 1;
    if (rc) return rc;
    v[i].kw = kws ? kws[i] : NULL;
  }
  return SDB_OK;
}

static int lit_fail(fx_ctx *c, lexer *L, const char *what) {
  return sdb_fp_fail(c, L->lineno, "cannot read node: %s in '%s'", what, L->line);
}

static int to_arg(fx_ctx *c, lexer *L, sdb_fx_graph *g, const ast *a, sdb_fx_arg *out) {
  memset(out, 0, sizeof *out);
  switch (a->k) {
    case E_NONE: out->kind = SDB_FXA_NONE; return SDB_OK;
    case E_BOOL: out->kind = SDB_FXA_BOOL; out->ival = a->ival; return SDB_OK;
    case E_INT: out->kind = SDB_FXA_INT; out->ival = a->ival; return SDB_OK;
    case E_FLOAT: out->kind = SDB_FXA_FLOAT; out->fval = a->fval; return SDB_OK;
    case E_STR: out->kind = SDB_FXA_STR; out->str = a->s; return SDB_OK;
    case E_ELLIPSIS: out->kind = SDB_FXA_ELLIPSIS; return SDB_OK;
    case E_TUPLE:
    case E_LIST: {
      out->kind = a->k == E_TUPLE ? SDB_FXA_TUPLE : SDB_FXA_LIST;
      return to_args(c, L, g, a->kids, NULL, a->n, &out->items, &out->n);
    }
    case E_DICT: {
      /* the values, each named by its key (the keys FX prints are strings) */
      out->kind = SDB_FXA_DICT;
      out->n = a->n / 2;
      if (!out->n) return SDB_OK;
      out->items = calloc(out->n, sizeof *out->items);
      if (!out->items) return sdb_fp_oom(c);
      for (size_t i = 0; i < out->n; i++) {
        const ast *k = a->kids[2 * i];
        if (k->k != E_STR && k->k != E_INT) return lit_fail(c, L, "a dict key that is not a string");
        int rc = to_arg(c, L, g, a->kids[2 * i + 1], &out->items[i]);
        if (rc) return rc;
        out->items[i].kw = k->k == E_STR ? k->s : sdb_internf("%lld", (long long)k->ival);
        out->items[i].kw_int = k->k == E_INT;
      }
      return SDB_OK;
    }
    case E_NAME: {
      sdb_fx_node *n = find_node(g, a->s);
      if (n) {
        out->kind = SDB_FXA_NODE;
        out->node = n;
        return SDB_OK;
      }
      if (!strcmp(a->s, "Ellipsis")) {
        out->kind = SDB_FXA_ELLIPSIS;
        return SDB_OK;
      }
      if (!strcmp(a->s, "inf") || !strcmp(a->s, "nan")) {
        out->kind = SDB_FXA_FLOAT;
        out->fval = a->s[0] == 'i' ? INFINITY : NAN;
        return SDB_OK;
      }
      char what[160];
      snprintf(what, sizeof what, "unknown name '%s'", a->s);
      return lit_fail(c, L, what);
    }
    case E_ATTR: {
      const char *d = dotted(a);
      if (!d) return lit_fail(c, L, "unreadable attribute");
      if (!strncmp(d, "torch.", 6)) {
        int dt = sdb_dtype_from_name(d);
        if (dt >= 0 && !strcmp(sdb_dtype_name((sdb_dtype)dt), d)) {
          out->kind = SDB_FXA_DTYPE;
          out->ival = dt;
          out->str = d;
          return SDB_OK;
        }
      }
      out->kind = SDB_FXA_ATTR;
      out->str = d;
      return SDB_OK;
    }
    case E_CALL: {
      const char *fn = dotted(a->kids[0]);
      if (fn && !strcmp(fn, "slice")) {
        out->kind = SDB_FXA_SLICE;
        out->items = calloc(3, sizeof *out->items);
        if (!out->items) return sdb_fp_oom(c);
        out->n = 3;
        size_t np = a->n - 1;
        if (np < 1 || np > 3) return lit_fail(c, L, "slice() takes 1 to 3 arguments");
        /* slice(stop) or slice(start, stop[, step]) */
        for (size_t i = 0; i < np; i++) {
          size_t slot = np == 1 ? 1 : i;
          int rc = to_arg(c, L, g, a->kids[i + 1], &out->items[slot]);
          if (rc) return rc;
        }
        return SDB_OK;
      }
      if (fn && !strcmp(fn, "device")) {
        const char *type = NULL;
        int64_t index = -1;
        for (size_t i = 1; i < a->n; i++) {
          const ast *k = a->kids[i];
          const char *kw = a->kws[i];
          if (k->k == E_STR && (!kw || !strcmp(kw, "type"))) type = k->s;
          else if (k->k == E_INT && (!kw || !strcmp(kw, "index"))) index = k->ival;
          else return lit_fail(c, L, "unreadable device(...)");
        }
        if (!type) return lit_fail(c, L, "device(...) without a type");
        out->kind = SDB_FXA_DEVICE;
        out->str = index >= 0 ? sdb_internf("%s:%lld", type, (long long)index) : type;
        return SDB_OK;
      }
      if (fn && !strcmp(fn, "float") && a->n == 2 && a->kids[1]->k == E_STR) {
        out->kind = SDB_FXA_FLOAT;
        out->fval = strtod(a->kids[1]->s, NULL);
        return SDB_OK;
      }
      char what[200];
      snprintf(what, sizeof what, "a call to %s inside an argument", fn ? fn : "an expression");
      return lit_fail(c, L, what);
    }
    case E_UN:
    case E_BIN:
    case E_INDEX:
      return lit_fail(c, L, "an operator inside an argument");
  }
  return lit_fail(c, L, "unreadable argument");
}

static const char *bin_target(const char *op) {
  static const struct { const char *op, *target; } t[] = {
    {"+", "operator.add"}, {"-", "operator.sub"}, {"*", "operator.mul"},
    {"/", "operator.truediv"}, {"//", "operator.floordiv"}, {"%", "operator.mod"},
    {"**", "operator.pow"}, {"@", "operator.matmul"}, {"==", "operator.eq"},
    {"!=", "operator.ne"}, {"<", "operator.lt"}, {"<=", "operator.le"},
    {">", "operator.gt"}, {">=", "operator.ge"}, {"&", "operator.and_"},
    {"|", "operator.or_"}, {"^", "operator.xor"}, {"<<", "operator.lshift"},
    {">>", "operator.rshift"}, {"and", "operator.and_"}, {"or", "operator.or_"},
  };
  for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
    if (!strcmp(t[i].op, op)) return t[i].target;
  return NULL;
}

/* Fill node n (op, target, args) from the right-hand side a. */
static int rhs_to_node(fx_ctx *c, lexer *L, sdb_fx_graph *g, const ast *a, sdb_fx_node *n) {
  int rc;
  switch (a->k) {
    case E_ATTR: {
      /* self.cond_true_0, or a parameter of a submodule: self.fc1.weight */
      const ast *root = dotted_root(a);
      const char *d = dotted(a);
      if (root->k == E_NAME && !strcmp(root->s, "self") && d) {
        n->op = SDB_FX_GET_ATTR;
        n->target = a->kids[0] == root ? a->s : sdb_intern(d + 5);
        return n->target ? SDB_OK : sdb_fp_oom(c);
      }
      return lit_fail(c, L, "expected a call, an operator or self.<attribute>");
    }
    case E_CALL: {
      const ast *fn = a->kids[0];
      const ast *root = dotted_root(fn);
      if (fn->k == E_ATTR && root == fn->kids[0] && root->k == E_NAME && find_node(g, root->s)) {
        /* x.method(args): call_method with self first. */
        n->op = SDB_FX_CALL_METHOD;
        n->target = fn->s;
        n->args = calloc(a->n, sizeof *n->args);
        if (!n->args) return sdb_fp_oom(c);
        n->nargs = 1;
        if ((rc = to_arg(c, L, g, root, &n->args[0]))) return rc;
        for (size_t i = 1; i < a->n; i++) {
          rc = to_arg(c, L, g, a->kids[i], &n->args[i]);
          n->nargs = i + 1;
          if (rc) return rc;
          n->args[i].kw = a->kws[i];
        }
        return SDB_OK;
      }
      const char *d = dotted(fn);
      if (!d || (root->k == E_NAME && find_node(g, root->s)))
        return lit_fail(c, L, "expected a function name before '('");
      n->op = SDB_FX_CALL_FUNCTION;
      n->target = d;
      return to_args(c, L, g, a->kids + 1, a->kws + 1, a->n - 1, &n->args, &n->nargs);
    }
    case E_BIN:
      n->op = SDB_FX_CALL_FUNCTION;
      n->target = bin_target(a->s);
      return to_args(c, L, g, a->kids, NULL, 2, &n->args, &n->nargs);
    case E_UN:
      n->op = SDB_FX_CALL_FUNCTION;
      n->target = !strcmp(a->s, "-")   ? "operator.neg"
                  : !strcmp(a->s, "+") ? "operator.pos"
                  : !strcmp(a->s, "~") ? "operator.invert"
                                       : "operator.not_";
      return to_args(c, L, g, a->kids, NULL, 1, &n->args, &n->nargs);
    case E_INDEX:
      n->op = SDB_FX_CALL_FUNCTION;
      n->target = "operator.getitem";
      return to_args(c, L, g, a->kids, NULL, 2, &n->args, &n->nargs);
    default:
      return lit_fail(c, L, "expected a call, an operator or an attribute");
  }
}

/* --- statements ---------------------------------------------------------------- */

static void set_loc(fx_ctx *c, sdb_fx_node *n) {
  n->file = c->file;
  n->line = c->line;
  n->fn = c->fn;
  n->code = c->code;
}

/* `# File: /p/m.py:12 in fn, code: y = x.sin()` (FX's stack-trace comment). */
static void read_comment(fx_ctx *c, const char *s) {
  s++;
  while (*s == ' ') s++;
  if (!strncmp(s, "No stacktrace found", 19)) {
    c->file = c->fn = c->code = NULL;
    c->line = 0;
    return;
  }
  if (strncmp(s, "File: ", 6)) return;
  s += 6;
  const char *in = strstr(s, " in ");
  if (!in) return;
  const char *colon = in;
  while (colon > s && colon[-1] != ':') colon--;
  if (colon == s) return;
  c->file = sdb_intern_n(s, (size_t)(colon - 1 - s));
  c->line = atoi(colon);
  const char *fn = in + 4;
  const char *code = strstr(fn, ", code: ");
  if (code) {
    c->fn = sdb_intern_n(fn, (size_t)(code - fn));
    c->code = sdb_intern(code + 8);
  } else {
    c->fn = sdb_intern(fn);
    c->code = NULL;
  }
}

/* The inputs of a graph printed with pytree codegen (aot joint graphs):
**     def forward(self, primals, tangents):
**         primals_1: "f32[16, 10][10, 1]cuda:0"  # PlainAOTInput(idx=0)
**         arg2_1: "f32[8, 10][10, 1]cpu"; arg3_1: "f32[10, 20][20, 1]cpu";
**         primals_1, tangents_1, = fx_pytree.tree_flatten_spec([primals, tangents], self._in_spec)
** Each declaration is an input (a placeholder); the containers in the def
** line are not, and the flattening line binds nothing new. 1: not such a
** line. */
static int parse_pytree_inputs(fx_ctx *c, sdb_fx_graph *g, const fx_line *ln) {
  lexer L = {c, ln->no, ln->s, ln->s, {0}, 0};
  int rc;
  if ((rc = sdb_fp_lex_next(&L))) return rc;
  if (L.t.k != T_NAME) return 1;
  lexer start = L;
  if ((rc = sdb_fp_lex_next(&L))) return rc;
  if (is_op(&L, ",")) {
    /* a, b, = fx_pytree.tree_flatten_spec(...) */
    if (!strstr(ln->s, "= fx_pytree.tree_flatten_spec(")) return 1;
    L = start;
    while (L.t.k == T_NAME) {
      sdb_fx_node *p = find_node(g, L.t.str);
      if (!p || p->op != SDB_FX_PLACEHOLDER)
        return sdb_fp_fail(c, ln->no, "cannot read node: '%s' is unpacked from the inputs but was "
                       "not declared in '%s'", L.t.str, ln->s);
      if ((rc = sdb_fp_lex_next(&L))) return rc;
      if (!is_op(&L, ",")) break;
      if ((rc = sdb_fp_lex_next(&L))) return rc;
    }
    /* the containers flattened (`[primals, tangents]`) are no inputs */
    const char *lst = strstr(ln->s, "tree_flatten_spec([");
    const char *end = lst ? strchr(lst, ']') : NULL;
    if (!end) return sdb_fp_fail(c, ln->no, "cannot read node: expected tree_flatten_spec([...], ...) "
                             "in '%s'", ln->s);
    lst += 19;
    size_t k = 0;
    for (size_t i = 0; i < g->n; i++) {
      sdb_fx_node *p = g->nodes[i];
      bool container = false;
      size_t nl = strlen(p->name);
      for (const char *q = lst; p->op == SDB_FX_PLACEHOLDER && q < end && !container;) {
        while (q < end && (*q == ' ' || *q == ',')) q++;
        size_t w = strcspn(q, ", ]");
        container = w == nl && !strncmp(q, p->name, nl);
        q += w;
      }
      if (container) node_free(p);
      else g->nodes[k++] = p;
    }
    g->n = k;
    return SDB_OK;
  }
  if (!is_op(&L, ":")) return 1;
  /* declarations: NAME: "ANN" [; NAME: "ANN"]... [# comment] */
  lexer look = L;
  if ((rc = sdb_fp_lex_next(&look))) return rc;
  if (look.t.k != T_STR) return 1;
  if ((rc = sdb_fp_lex_next(&look))) return rc;
  if (look.t.k != T_END && !is_op(&look, ";")) return 1;
  L = start;
  while (L.t.k == T_NAME) {
    sdb_fx_node *n = calloc(1, sizeof *n);
    if (!n) return sdb_fp_oom(c);
    n->op = SDB_FX_PLACEHOLDER;
    n->name = n->target = L.t.str;
    n->pline = ln->no;
    if ((rc = sdb_fp_lex_next(&L)) || (rc = sdb_fp_expect_op(&L, ":")) ||
        (L.t.k != T_STR ? (rc = sdb_fp_tok_fail(&L, "a quoted annotation")) : 0) ||
        (rc = parse_meta(c, ln->no, L.t.str, &n->meta)) || (rc = sdb_fp_lex_next(&L)) ||
        (rc = add_node(c, g, n))) {
      node_free(n);
      return rc;
    }
    if (!is_op(&L, ";")) break;
    if ((rc = sdb_fp_lex_next(&L))) return rc;
  }
  return L.t.k == T_END ? SDB_OK : sdb_fp_tok_fail(&L, "the end of the line");
}

static int parse_statement(fx_ctx *c, sdb_fx_graph *g, const fx_line *ln) {
  int rc = parse_pytree_inputs(c, g, ln);
  if (rc <= 0) return rc;
  lexer L = {c, ln->no, ln->s, ln->s, {0}, 0};
  ast *rhs = NULL;
  sdb_fx_node *n = calloc(1, sizeof *n);
  if (!n) return sdb_fp_oom(c);
  n->pline = ln->no;
  set_loc(c, n);
  if ((rc = sdb_fp_lex_next(&L))) goto fail;
  if (is_name(&L, "return")) {
    n->op = SDB_FX_OUTPUT;
    n->name = sdb_intern("output");
    n->target = n->name;
    if ((rc = sdb_fp_lex_next(&L))) goto fail;
    if (L.t.k == T_END) {
      n->nargs = 0;
    } else {
      if ((rc = sdb_fp_parse_expr(&L, &rhs))) goto fail;
      /* pytree codegen: return pytree.tree_unflatten([a, b], self._out_spec) */
      if (rhs->k == E_CALL && rhs->n >= 2 && dotted(rhs->kids[0]) &&
          !strcmp(dotted(rhs->kids[0]), "pytree.tree_unflatten")) {
        ast *lst = rhs->kids[1];
        rhs->kids[1] = NULL;
        sdb_fp_ast_free(rhs);
        rhs = lst;
        if (rhs->k == E_LIST) rhs->k = E_TUPLE;
      }
      n->args = calloc(1, sizeof *n->args);
      if (!n->args) {
        rc = sdb_fp_oom(c);
        goto fail;
      }
      n->nargs = 1;
      if ((rc = to_arg(c, &L, g, rhs, &n->args[0]))) goto fail;
    }
  } else {
    if (L.t.k != T_NAME) {
      rc = sdb_fp_tok_fail(&L, "a node name");
      goto fail;
    }
    n->name = L.t.str;
    if ((rc = sdb_fp_lex_next(&L))) goto fail;
    if (is_op(&L, ":")) {
      if ((rc = sdb_fp_lex_next(&L))) goto fail;
      if (L.t.k != T_STR) {
        rc = sdb_fp_tok_fail(&L, "a quoted annotation");
        goto fail;
      }
      if ((rc = parse_meta(c, ln->no, L.t.str, &n->meta)) || (rc = sdb_fp_lex_next(&L))) goto fail;
    }
    if ((rc = sdb_fp_expect_op(&L, "=")) || (rc = sdb_fp_parse_expr(&L, &rhs))) goto fail;
    /* `l_x_ = L_x_`: Dynamo's placeholders are named l_x_ with target L_x_. */
    if (rhs->k == E_NAME) {
      sdb_fx_node *p = find_node(g, rhs->s);
      if (!p || p->op != SDB_FX_PLACEHOLDER) {
        rc = lit_fail(c, &L, "an assignment of a name that is not an input");
        goto fail;
      }
      p->name = n->name;
      if (!p->file) {
        p->file = n->file;
        p->line = n->line;
        p->fn = n->fn;
        p->code = n->code;
      }
      if (n->meta.kind != SDB_FXM_NONE) {
        free(p->meta.sizes);
        free(p->meta.strides);
        p->meta = n->meta;
        n->meta.sizes = n->meta.strides = NULL;
      }
      sdb_fp_ast_free(rhs);
      node_free(n);
      return SDB_OK;
    }
    if ((rc = rhs_to_node(c, &L, g, rhs, n))) goto fail;
  }
  /* `;  a = b = None` after a node only drops references. */
  if (is_op(&L, ";")) {
    while (L.t.k != T_END) {
      if ((rc = sdb_fp_lex_next(&L))) goto fail;
      if (L.t.k == T_NAME || is_op(&L, "=") || is_op(&L, ";")) continue;
      if (L.t.k != T_END) {
        rc = sdb_fp_tok_fail(&L, "'name = None'");
        goto fail;
      }
    }
  }
  if (L.t.k != T_END) {
    rc = sdb_fp_tok_fail(&L, "the end of the line");
    goto fail;
  }
  sdb_fp_ast_free(rhs);
  return add_node(c, g, n);
fail:
  sdb_fp_ast_free(rhs);
  node_free(n);
  return rc;
}

/* `def forward(self, L_x_: "f32[5]", s0: "Sym(s0)"):` -> placeholders. */
static int parse_def(fx_ctx *c, sdb_fx_graph *g, const fx_line *ln) {
  lexer L = {c, ln->no, ln->s, ln->s, {0}, 0};
  int rc;
  if ((rc = sdb_fp_lex_next(&L))) return rc;
  if (!is_name(&L, "def")) return sdb_fp_tok_fail(&L, "'def forward(self, ...):'");
  if ((rc = sdb_fp_lex_next(&L))) return rc;
  if (!is_name(&L, "forward")) return sdb_fp_tok_fail(&L, "'forward'");
  if ((rc = sdb_fp_lex_next(&L)) || (rc = sdb_fp_expect_op(&L, "("))) return rc;
  if (!is_name(&L, "self")) return sdb_fp_tok_fail(&L, "'self'");
  if ((rc = sdb_fp_lex_next(&L))) return rc;
  while (is_op(&L, ",")) {
    if ((rc = sdb_fp_lex_next(&L))) return rc;
    if (is_op(&L, ")")) break;
    if (L.t.k != T_NAME) return sdb_fp_tok_fail(&L, "a parameter name");
    sdb_fx_node *n = calloc(1, sizeof *n);
    if (!n) return sdb_fp_oom(c);
    n->op = SDB_FX_PLACEHOLDER;
    n->name = n->target = L.t.str;
    n->pline = ln->no;
    if ((rc = add_node(c, g, n))) {
      node_free(n);
      return rc;
    }
    if ((rc = sdb_fp_lex_next(&L))) return rc;
    if (is_op(&L, ":")) {
      if ((rc = sdb_fp_lex_next(&L))) return rc;
      if (L.t.k == T_NAME) {
        /* older logs: `L_x_ : torch.Tensor`, a type with no shape */
        do {
          if ((rc = sdb_fp_lex_next(&L))) return rc;
          if (!is_op(&L, ".")) break;
          if ((rc = sdb_fp_lex_next(&L))) return rc;
        } while (L.t.k == T_NAME);
        continue;
      }
      if (L.t.k != T_STR) return sdb_fp_tok_fail(&L, "a quoted annotation");
      if ((rc = parse_meta(c, ln->no, L.t.str, &n->meta)) || (rc = sdb_fp_lex_next(&L))) return rc;
    }
  }
  if ((rc = sdb_fp_expect_op(&L, ")"))) return rc;
  if (is_op(&L, "->")) {
    /* A return annotation: skip to the colon. */
    while (L.t.k != T_END && !is_op(&L, ":"))
      if ((rc = sdb_fp_lex_next(&L))) return rc;
  }
  if ((rc = sdb_fp_expect_op(&L, ":"))) return rc;
  if (L.t.k != T_END) return sdb_fp_tok_fail(&L, "the end of the line");
  return SDB_OK;
}

static bool next_nonblank(fx_ctx *c) {
  while (c->pos < c->nlines && c->lines[c->pos].indent < 0) c->pos++;
  return c->pos < c->nlines;
}

/* `class NAME(torch.nn.Module):` at the current line. */
static int class_name(fx_ctx *c, const fx_line *ln, const char **name) {
  const char *s = ln->s;
  if (strncmp(s, "class ", 6)) return 1;
  s += 6;
  const char *p = strchr(s, '(');
  if (!p || strcmp(p, "(torch.nn.Module):")) return 1;
  /* aot graphs are printed as `class <lambda>(torch.nn.Module):` */
  bool lambda = p - s == 8 && !strncmp(s, "<lambda>", 8);
  for (const char *q = s; q < p && !lambda; q++)
    if (!isalnum((unsigned char)*q) && *q != '_') return 1;
  if (p == s) return 1;
  *name = sdb_intern_n(s, (size_t)(p - s));
  return *name ? 0 : sdb_fp_oom(c);
}

/* Bracket depth change of a line, outside strings and before a comment;
** *comment is set to where a `#` comment starts (or the end). */
static int bracket_balance(const char *s, const char **comment) {
  int depth = 0;
  char q = 0;
  for (; *s; s++) {
    if (q) {
      if (*s == '\\' && s[1]) s++;
      else if (*s == q) q = 0;
    } else if (*s == '\'' || *s == '"') {
      q = *s;
    } else if (*s == '#') {
      break;
    } else if (*s == '(' || *s == '[' || *s == '{') {
      depth++;
    } else if (*s == ')' || *s == ']' || *s == '}') {
      depth--;
    }
  }
  *comment = s;
  return depth;
}

/* The statement starting at line i, which Python may print over several
** lines while a bracket is open (a long `def forward(`, aot's
** `return pytree.tree_unflatten([...], self._out_spec)`), as one line
** without its comments; *last is its final line. A single line is
** returned as it is. NULL on OOM. */
static const fx_line *logical_line(fx_ctx *c, size_t i, size_t *last, sdb_buf *b,
                                   fx_line *joined) {
  const fx_line *ln = &c->lines[i];
  const char *cm;
  int depth = bracket_balance(ln->s, &cm);
  *last = i;
  /* Python breaks a line after an open bracket or a comma only */
  const char *e = cm;
  while (e > ln->s && e[-1] == ' ') e--;
  if (depth <= 0 || e == ln->s || !strchr("([{,", e[-1])) return ln;
  sdb_buf_putn(b, ln->s, (size_t)(cm - ln->s));
  while (depth > 0 && *last + 1 < c->nlines) {
    const fx_line *more = &c->lines[++*last];
    if (more->indent < 0) continue;
    depth += bracket_balance(more->s, &cm);
    while (b->len && b->data[b->len - 1] == ' ') b->len--;
    if (b->len && b->data[b->len - 1] != '(' && b->data[b->len - 1] != '[') sdb_buf_putc(b, ' ');
    sdb_buf_putn(b, more->s, (size_t)(cm - more->s));
  }
  while (b->len && b->data[b->len - 1] == ' ') b->len--;
  sdb_buf_cstr(b);
  if (b->failed) return NULL;
  *joined = (fx_line){ln->no, ln->indent, b->data};
  return joined;
}

static int parse_class(fx_ctx *c, sdb_fx_graph *parent, int depth, sdb_fx_graph **out) {
  const fx_line *cl = &c->lines[c->pos];
  const char *name;
  int rc = class_name(c, cl, &name);
  if (rc > 0)
    return sdb_fp_fail(c, cl->no,
                   "not a GraphModule: expected 'class GraphModule(torch.nn.Module):', found '%s'",
                   cl->s);
  if (rc) return rc;
  if (depth > FX_MAX_DEPTH) return sdb_fp_fail(c, cl->no, "classes nested too deeply");
  sdb_fx_graph *g = calloc(1, sizeof *g);
  if (!g) return sdb_fp_oom(c);
  g->name = name;
  g->pline = cl->no;
  g->parent = parent;
  *out = g;
  int ci = cl->indent;
  c->pos++;
  bool have_forward = false;
  while (next_nonblank(c)) {
    const fx_line *ln = &c->lines[c->pos];
    if (ln->indent <= ci) break;
    if (ln->s[0] == '#') {
      c->pos++;
      continue;
    }
    if (!strncmp(ln->s, "class ", 6)) {
      sdb_fx_graph *sub;
      sdb_fx_graph **ns = realloc(g->subs, (g->nsubs + 1) * sizeof *ns);
      if (!ns) return sdb_fp_oom(c);
      g->subs = ns;
      rc = parse_class(c, g, depth + 1, &sub);
      g->subs[g->nsubs++] = sub;
      if (rc) return rc;
      continue;
    }
    if (have_forward)
      return sdb_fp_fail(c, ln->no, "cannot read '%s': expected a nested class after forward", ln->s);
    size_t last;
    sdb_buf b = SDB_BUF_INIT;
    fx_line storage;
    const fx_line *def = logical_line(c, c->pos, &last, &b, &storage);
    rc = def ? parse_def(c, g, def) : sdb_fp_oom(c);
    sdb_buf_free(&b);
    if (rc) return rc;
    have_forward = true;
    int di = ln->indent;
    c->pos = last + 1;
    c->file = c->fn = c->code = NULL;
    c->line = 0;
    while (next_nonblank(c)) {
      const fx_line *st = &c->lines[c->pos];
      if (st->indent <= di) break;
      if (st->s[0] == '#') {
        read_comment(c, st->s);
        c->pos++;
        continue;
      }
      sdb_buf sb = SDB_BUF_INIT;
      const fx_line *one = logical_line(c, c->pos, &last, &sb, &storage);
      rc = one ? parse_statement(c, g, one) : sdb_fp_oom(c);
      sdb_buf_free(&sb);
      if (rc) return rc;
      c->pos = last + 1;
    }
    if (!sdb_fx_graph_output(g))
      return sdb_fp_fail(c, ln->no, "forward of %s has no return statement", g->name);
  }
  if (!have_forward) return sdb_fp_fail(c, cl->no, "class %s has no forward", g->name);
  return SDB_OK;
}

int sdb_fx_parse(const char *text, const char *where, sdb_fx_graph **out, sdb_err *err) {
  fx_ctx c;
  memset(&c, 0, sizeof c);
  c.where = where ? where : "payload";
  c.err = err;
  *out = NULL;
  int rc = split_lines(&c, text ? text : "");
  if (!rc) {
    if (!next_nonblank(&c)) {
      rc = sdb_fp_fail(&c, 1, "not a GraphModule: the payload is empty");
    } else {
      sdb_fx_graph *g = NULL;
      rc = parse_class(&c, NULL, 0, &g);
      if (!rc && next_nonblank(&c))
        rc = sdb_fp_fail(&c, c.lines[c.pos].no, "cannot read '%s' after the GraphModule",
                     c.lines[c.pos].s);
      if (rc) sdb_fx_graph_free(g);
      else *out = g;
    }
  }
  for (size_t i = 0; i < c.nlines; i++) free((char *)c.lines[i].s);
  free(c.lines);
  return rc;
}

/* --- printing ------------------------------------------------------------------ */

static void arg_print_value(sdb_buf *b, const sdb_fx_arg *a);

static void arg_print(sdb_buf *b, const sdb_fx_arg *a) {
  if (a->kw) sdb_buf_printf(b, "%s = ", a->kw);
  arg_print_value(b, a);
}

static void arg_print_value(sdb_buf *b, const sdb_fx_arg *a) {
  switch (a->kind) {
    case SDB_FXA_DICT:
      sdb_buf_putc(b, '{');
      for (size_t i = 0; i < a->n; i++) {
        const sdb_fx_arg *it = &a->items[i];
        sdb_buf_printf(b, it->kw_int ? "%s%s: " : "%s'%s': ", i ? ", " : "", it->kw);
        arg_print_value(b, it);
      }
      sdb_buf_putc(b, '}');
      break;
    case SDB_FXA_NONE: sdb_buf_puts(b, "None"); break;
    case SDB_FXA_BOOL: sdb_buf_puts(b, a->ival ? "True" : "False"); break;
    case SDB_FXA_INT: sdb_buf_printf(b, "%lld", (long long)a->ival); break;
    case SDB_FXA_FLOAT:
      if (isinf(a->fval)) sdb_buf_puts(b, a->fval > 0 ? "inf" : "-inf");
      else if (isnan(a->fval)) sdb_buf_puts(b, "nan");
      else if (a->fval == floor(a->fval) && fabs(a->fval) < 1e16) sdb_buf_printf(b, "%.1f", a->fval);
      else sdb_buf_printf(b, "%.17g", a->fval);
      break;
    case SDB_FXA_STR: sdb_buf_printf(b, "'%s'", a->str); break;
    case SDB_FXA_NODE: sdb_buf_puts(b, a->node->name); break;
    case SDB_FXA_DTYPE:
    case SDB_FXA_ATTR: sdb_buf_puts(b, a->str); break;
    case SDB_FXA_DEVICE: sdb_buf_printf(b, "device(type='%s')", a->str); break;
    case SDB_FXA_ELLIPSIS: sdb_buf_puts(b, "Ellipsis"); break;
    case SDB_FXA_SLICE:
    case SDB_FXA_TUPLE:
    case SDB_FXA_LIST:
      sdb_buf_puts(b, a->kind == SDB_FXA_SLICE ? "slice(" : a->kind == SDB_FXA_TUPLE ? "(" : "[");
      for (size_t i = 0; i < a->n; i++) {
        if (i) sdb_buf_puts(b, ", ");
        arg_print(b, &a->items[i]);
      }
      if (a->kind == SDB_FXA_TUPLE && a->n == 1) sdb_buf_putc(b, ',');
      sdb_buf_putc(b, a->kind == SDB_FXA_LIST ? ']' : ')');
      break;
  }
}

char *sdb_fx_arg_str(const sdb_fx_arg *a) {
  sdb_buf b = SDB_BUF_INIT;
  arg_print(&b, a);
  sdb_buf_cstr(&b);
  if (b.failed) {
    sdb_buf_free(&b);
    return NULL;
  }
  return sdb_buf_take(&b);
}

char *sdb_fx_node_str(const sdb_fx_node *n) {
  sdb_buf b = SDB_BUF_INIT;
  sdb_buf_printf(&b, "%s = %s[%s](", n->name, sdb_fx_op_name(n->op), n->target);
  for (size_t i = 0; i < n->nargs; i++) {
    if (i) sdb_buf_puts(&b, ", ");
    arg_print(&b, &n->args[i]);
  }
  sdb_buf_putc(&b, ')');
  if (n->meta.kind != SDB_FXM_NONE) sdb_buf_printf(&b, " : %s", n->meta.text);
  sdb_buf_cstr(&b);
  if (b.failed) {
    sdb_buf_free(&b);
    return NULL;
  }
  return sdb_buf_take(&b);
}
