/*
** render_dot.c — a run's graphs as Graphviz DOT (see render_dot.h).
**
** The view holds each graph as the lines print_readable writes, so edges
** are read back from those lines: an identifier on the right of `=` that
** names another node of the same graph is a use of it. Names inside string
** literals ("Runtime assertion failed for ...") and after a dot (methods,
** `self.cond_true_0`) are not.
*/
#include "render_dot.h"

#include "buf.h"
#include "cancel.h"
#include "map.h"
#include "intern.h"

#include <ctype.h>
#include <errno.h>
#include <string.h>

/* A DOT string body: quotes and backslashes escaped, newlines as \l
** (left-justified lines). */
static void dot_escape(sdb_buf *b, const char *s) {
  for (; *s; s++) {
    if (*s == '"' || *s == '\\') sdb_buf_putc(b, '\\');
    if (*s == '\n') sdb_buf_puts(b, "\\l");
    else sdb_buf_putc(b, *s);
  }
}

/* The compile current at step k (0: before any). Nondecreasing in k. */
static unsigned compile_at(sdb_timeline *t, size_t k) {
  const sdb_view *v = sdb_timeline_seek(t, k);
  return v ? sdb_view_compile(v) : 0;
}

size_t repl_compile_first_step(sdb_timeline *t, size_t step, unsigned c) {
  size_t lo = 0, hi = step + 1;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (compile_at(t, mid) < c) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/* The graph a body was traced from: its key without the last "> part". */
static bool parent_of(const char *key, const char *maybe) {
  const char *gt = strrchr(key, '>');
  if (!gt || gt - key < 2) return false;
  size_t n = (size_t)(gt - 1 - key);
  return strlen(maybe) == n && !strncmp(key, maybe, n);
}

typedef struct dot {
  sdb_buf b;
  const sdb_view *v;
  unsigned compile;
  size_t ngraphs;
} dot;

static void node_id(sdb_buf *b, unsigned compile, size_t graph, size_t node) {
  sdb_buf_printf(b, "c%u_g%zu_n%zu", compile, graph, node);
}

/* The index of the node named `name` in graph g, or -1. */
static long node_index(const sdb_view *v, const char *graph, const char *name) {
  size_t nn = sdb_view_node_count(v, graph);
  for (size_t i = 0; i < nn; i++) {
    sdb_view_node n;
    if (sdb_view_node_at(v, graph, i, &n) && !strcmp(n.name, name)) return (long)i;
  }
  return -1;
}

/* A placeholder's line is `name: "meta"`: no call, no return. */
static bool is_placeholder(const char *line) {
  return line && !strstr(line, " = ") && strncmp(line, "return", 6) != 0;
}

static void node_box(dot *d, size_t g, size_t i, const sdb_view_node *n, int indent) {
  sdb_buf *b = &d->b;
  const char *line = sdb_view_node_line(n) ? sdb_view_node_line(n) : n->name;
  sdb_buf_printf(b, "%*s", indent, "");
  node_id(b, d->compile, g, i);
  sdb_buf_puts(b, " [label=\"");
  dot_escape(b, line);
  sdb_buf_puts(b, "\\l");
  for (uint32_t k = 0; n->bindings && k < sdb_event_nsyms(n->bindings); k++) {
    const char *path = sdb_event_texts(n->bindings) && sdb_event_texts(n->bindings)[k] ? sdb_event_texts(n->bindings)[k] : "";
    sdb_buf_puts(b, "# ");
    dot_escape(b, sdb_event_syms(n->bindings)[k]->name);
    sdb_buf_puts(b, ": ");
    dot_escape(b, *path ? path : "<value>");
    sdb_buf_puts(b, "\\l");
  }
  sdb_buf_puts(b, "\"");
  if (!strncmp(line, "return", 6)) sdb_buf_puts(b, ", shape=plain");
  else if (is_placeholder(line)) sdb_buf_puts(b, ", style=rounded");
  if (n->bindings && sdb_event_nsyms(n->bindings)) sdb_buf_puts(b, ", color=blue");
  sdb_buf_puts(b, "];\n");
}

/* Edges into node i of graph g from the nodes its line uses. */
static void node_edges(dot *d, size_t g, size_t i, const sdb_view_node *n) {
  const char *graph = sdb_view_graph_at(d->v, g);
  const char *nl = sdb_view_node_line(n);
  const char *rhs = nl ? strstr(nl, " = ") : NULL;
  if (!rhs && nl && !strncmp(nl, "return ", 7)) rhs = nl + 6;
  if (!rhs) return;
  sdb_map seen = SDB_MAP_INIT;
  char quote = 0;
  for (const char *p = rhs; *p; p++) {
    if (quote) {
      if (*p == '\\' && p[1]) p++;
      else if (*p == quote) quote = 0;
      continue;
    }
    if (*p == '"' || *p == '\'') { quote = *p; continue; }
    if (!(isalpha((unsigned char)*p) || *p == '_')) continue;
    const char *s = p;
    while (isalnum((unsigned char)p[1]) || p[1] == '_') p++;
    if (s > rhs && s[-1] == '.') continue;
    const char *name = sdb_intern_n(s, (size_t)(p - s + 1));
    if (!strcmp(name, n->name) || sdb_map_has(&seen, name)) continue;
    long from = node_index(d->v, graph, name);
    if (from < 0) continue;
    sdb_map_put(&seen, name, (void *)1);
    sdb_buf_puts(&d->b, "    ");
    node_id(&d->b, d->compile, g, (size_t)from);
    sdb_buf_puts(&d->b, " -> ");
    node_id(&d->b, d->compile, g, i);
    sdb_buf_puts(&d->b, ";\n");
  }
  sdb_map_free(&seen);
}

/* The cluster of graph g, with the clusters of the bodies traced from it. */
static void graph_cluster(dot *d, size_t g, int indent) {
  const char *graph = sdb_view_graph_at(d->v, g);
  sdb_buf_printf(&d->b, "%*ssubgraph cluster_c%u_g%zu {\n", indent, "", d->compile, g);
  sdb_buf_printf(&d->b, "%*s  label=\"", indent, "");
  dot_escape(&d->b, graph);
  sdb_buf_puts(&d->b, "\";\n");
  size_t nn = sdb_view_node_count(d->v, graph);
  for (size_t i = 0; i < nn; i++) {
    sdb_view_node n;
    if (sdb_view_node_at(d->v, graph, i, &n)) node_box(d, g, i, &n, indent + 2);
  }
  for (size_t c = 0; c < d->ngraphs; c++)
    if (parent_of(sdb_view_graph_at(d->v, c), graph)) graph_cluster(d, c, indent + 2);
  sdb_buf_printf(&d->b, "%*s}\n", indent, "");
}

/* Dashed edges from a parent graph's node to the body placeholder of the
** same name it was lifted into. */
static void lift_edges(dot *d, size_t g) {
  const char *graph = sdb_view_graph_at(d->v, g);
  for (size_t p = 0; p < d->ngraphs; p++) {
    const char *parent = sdb_view_graph_at(d->v, p);
    if (!parent_of(graph, parent)) continue;
    size_t nn = sdb_view_node_count(d->v, graph);
    for (size_t i = 0; i < nn; i++) {
      sdb_view_node n;
      if (!sdb_view_node_at(d->v, graph, i, &n) || !is_placeholder(sdb_view_node_line(&n))) continue;
      long from = node_index(d->v, parent, n.name);
      if (from < 0) continue;
      sdb_buf_puts(&d->b, "    ");
      node_id(&d->b, d->compile, p, (size_t)from);
      sdb_buf_puts(&d->b, " -> ");
      node_id(&d->b, d->compile, g, i);
      sdb_buf_puts(&d->b, " [style=dashed, label=\"lifted\"];\n");
    }
  }
}

/* One compile: its view is the state at the last step of the compile. */
static void compile_cluster(dot *d, const sdb_view *v, const char *fn) {
  d->v = v;
  d->compile = sdb_view_compile(v);
  d->ngraphs = sdb_view_graph_count(v);
  sdb_buf_printf(&d->b, "  subgraph cluster_c%u {\n    label=\"compile %u", d->compile, d->compile);
  if (fn) {
    sdb_buf_puts(&d->b, " (");
    dot_escape(&d->b, fn);
    sdb_buf_puts(&d->b, ")");
  }
  sdb_buf_puts(&d->b, "\";\n");
  for (size_t g = 0; g < d->ngraphs; g++) {
    const char *graph = sdb_view_graph_at(v, g);
    bool nested = false;
    for (size_t p = 0; p < d->ngraphs; p++) nested |= parent_of(graph, sdb_view_graph_at(v, p));
    if (!nested) graph_cluster(d, g, 4);
  }
  sdb_buf_puts(&d->b, "  }\n");
  for (size_t g = 0; g < d->ngraphs; g++) {
    const char *graph = sdb_view_graph_at(v, g);
    size_t nn = sdb_view_node_count(v, graph);
    for (size_t i = 0; i < nn; i++) {
      sdb_view_node n;
      if (sdb_view_node_at(v, graph, i, &n)) node_edges(d, g, i, &n);
    }
    lift_edges(d, g);
  }
}

int repl_dot_write(FILE *f, sdb_timeline *t, size_t step, bool all, const char **why) {
  *why = NULL;
  size_t len = sdb_timeline_length(t);
  if (sdb_cancelled()) {   /* Ctrl-C: nothing half-drawn is written */
    *why = "interrupted";
    return -1;
  }
  if (step > len) step = len;
  const sdb_view *at = sdb_timeline_seek(t, step);
  unsigned last = at ? sdb_view_compile(at) : 0;
  unsigned first = all ? 1 : last;
  if (first == 0) first = last;
  dot d = {SDB_BUF_INIT, NULL, 0, 0};
  sdb_buf_puts(&d.b, "digraph shapedb {\n"
                     "  compound=true;\n"
                     "  graph [fontname=\"monospace\", fontsize=11];\n"
                     "  node [shape=box, fontname=\"monospace\", fontsize=10];\n"
                     "  edge [fontname=\"monospace\", fontsize=9];\n");
  size_t drawn = 0;
  unsigned long lost = sdb_tstore_losses();
  for (unsigned c = first; c <= last; c++) {
    /* the compile's last step: before the next one starts, or `step` */
    size_t start = repl_compile_first_step(t, step, c);
    size_t end = c < last ? repl_compile_first_step(t, step, c + 1) - 1 : step;
    const sdb_view *sv = sdb_timeline_seek(t, start);
    const sdb_event *pe = sv ? sdb_view_event(sv) : NULL;
    const char *fn = pe && pe->kind == SDB_EV_PHASE_START ? sdb_event_text(pe) : NULL;
    const sdb_view *v = sdb_timeline_seek(t, end);
    if (!v || !sdb_view_graph_count(v)) continue;
    compile_cluster(&d, v, fn);
    drawn++;
  }
  sdb_buf_puts(&d.b, "}\n");
  int rc = 0;
  if (!drawn) {
    *why = "no graph nodes at this step";
    rc = -1;
  } else if (sdb_tstore_losses() != lost) {   /* a line read as "?": nothing half-drawn */
    *why = "out of memory";
    rc = -1;
  } else if (fwrite(sdb_buf_cstr(&d.b), 1, d.b.len, f) != d.b.len || fflush(f) != 0) {
    rc = -1;
  }
  sdb_buf_free(&d.b);
  return rc;
}
