/*
** test_retrace.c — re-running print_readable graphs through the model:
** graphs written here (nonzero + item + _check_is_size + an unsupported op,
** a cond with lifted symbols, a view of an unbacked size with one wrong
** annotation) and every dynamo_output_graph of the sample TORCH_TRACE logs
** ($SHAPEDB_SHARED/examples/torch_trace): exact summary lines, divergences
** at the edited node, the divergence event, locations from # File:.
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "fx_parse.h"
#include "retrace.h"
#include "srcfile.h"
#include "torch_trace.h"

static const char nonzero_graph[] =
  "class GraphModule(torch.nn.Module):\n"
  "    def forward(self, L_x_: \"f32[s0, 2][2, 1]cpu\", L_y_: \"i64[][]cpu\"):\n"
  "        l_x_ = L_x_\n"
  "        l_y_ = L_y_\n"
  "        \n"
  "        # File: /tmp/m.py:4 in fn, code: idx = x.nonzero()\n"
  "        nonzero: \"i64[u0, 2][1, u0]cpu\" = l_x_.nonzero();  l_x_ = None\n"
  "        \n"
  "        # File: /tmp/m.py:5 in fn, code: n = y.item()\n"
  "        item: \"Sym(u1)\" = l_y_.item();  l_y_ = None\n"
  "        ge: \"Sym(u1 >= 0)\" = item >= 0\n"
  "        _assert_scalar_default = torch.ops.aten._assert_scalar.default(ge, \"Runtime assertion failed for expression u1 >= 0 on node 'ge'\");  ge = _assert_scalar_default = None\n"
  "        _check_is_size = torch._check_is_size(item);  _check_is_size = None\n"
  "        sym_size_int: \"Sym(u0)\" = torch.ops.aten.sym_size.int(nonzero, 0)\n"
  "        view: \"i64[2*u0][1]cpu\" = nonzero.reshape(-1);  nonzero = None\n"
  "        baz: \"f32[u1, 3][3, 1]cpu\" = torch.ops.test.baz(item)\n"
  "        return (view, baz)\n";

static const char cond_graph[] =
  "class GraphModule(torch.nn.Module):\n"
  "    def forward(self, L_x_: \"f32[s0][1]cpu\", L_n_: \"i64[][]cpu\"):\n"
  "        l_x_ = L_x_\n"
  "        l_n_ = L_n_\n"
  "        # File: /tmp/c.py:3 in fn, code: k = n.item()\n"
  "        item: \"Sym(u0)\" = l_n_.item();  l_n_ = None\n"
  "        # File: /tmp/c.py:4 in fn, code: return torch.cond(k > 2, t, f, (x, k))\n"
  "        gt: \"Sym(u0 > 2)\" = item > 2\n"
  "        cond_true_0 = self.cond_true_0\n"
  "        cond_false_0 = self.cond_false_0\n"
  "        cond = torch.ops.higher_order.cond(gt, cond_true_0, cond_false_0, (l_x_, item));  gt = cond_true_0 = cond_false_0 = l_x_ = item = None\n"
  "        getitem: \"f32[s0][1]cpu\" = cond[0];  cond = None\n"
  "        return (getitem,)\n"
  "\n"
  "    class cond_true_0(torch.nn.Module):\n"
  "        def forward(self, l_x_: \"f32[s0][1]cpu\", item: \"Sym(u0)\"):\n"
  "            l_x__1 = l_x_\n"
  "            # File: /tmp/c.py:1 in t, code: return x + k\n"
  "            add: \"f32[s0][1]cpu\" = l_x__1 + item;  l_x__1 = item = None\n"
  "            return (add,)\n"
  "\n"
  "    class cond_false_0(torch.nn.Module):\n"
  "        def forward(self, l_x_: \"f32[s0][1]cpu\", item: \"Sym(u0)\"):\n"
  "            l_x__1 = l_x_\n"
  "            # File: /tmp/c.py:2 in f, code: return x.sin()\n"
  "            sin: \"f32[s0][1]cpu\" = l_x__1.sin();  l_x__1 = None\n"
  "            return (sin,)\n";

static const char view_graph[] =
  "class GraphModule(torch.nn.Module):\n"
  "    def forward(self, L_x_: \"f32[8][1]cpu\", L_n_: \"i64[][]cpu\"):\n"
  "        l_x_ = L_x_\n"
  "        l_n_ = L_n_\n"
  "        item: \"Sym(u0)\" = l_n_.item();  l_n_ = None\n"
  "        _check_is_size = torch._check_is_size(item)\n"
  "        mul: \"Sym(2*u0)\" = item * 2\n"
  "        zeros: \"f32[2*u0][1]cpu\" = torch.zeros(mul)\n"
  "        view: \"f32[u0, 2][2, 1]cpu\" = zeros.view(item, 2)\n"
  "        wrong: \"f32[u0, 3][3, 1]cpu\" = zeros.view(item, 2)\n"
  "        return (view, wrong)\n";

typedef struct run {
  sdb_events *ev;
  sdb_retrace r;
  int rc;
  char *summary;
} run;

static void retrace(const char *text, run *out) {
  sdb_fx_graph *g = NULL;
  sdb_err err = SDB_ERR_INIT;
  if (sdb_fx_parse(text, NULL, &g, &err)) fail_msg("parse: %s", err.msg);
  out->ev = sdb_events_new();
  out->rc = sdb_retrace_run(g, out->ev, NULL, &out->r, &err);
  if (out->rc) fail_msg("retrace: %s", err.msg);
  out->summary = sdb_retrace_summary(&out->r);
  sdb_fx_graph_free(g);
}

static void done(run *r) {
  free(r->summary);
  sdb_retrace_clear(&r->r);
  sdb_events_free(r->ev);
}

static long count_kind(const run *r, sdb_event_kind k) {
  long n = 0;
  for (size_t i = 0; i < sdb_events_count(r->ev); i++)
    if (sdb_events_at(r->ev, i)->kind == k) n++;
  return n;
}

static void test_nonzero_item(void **state) {
  (void)state;
  run r;
  retrace(nonzero_graph, &r);
  assert_string_equal(r.summary, "retrace: 10 nodes, 7 matched, 0 diverged, 1 unsupported ops\n"
                                 "  unsupported op: torch.ops.test.baz (x1)\n");
  assert_int_equal(count_kind(&r, SDB_EV_DIVERGENCE), 0);
  /* nonzero's u0 is bound where PyTorch binds it, at the node's line */
  bool bound = false;
  for (size_t i = 0; i < sdb_events_count(r.ev); i++) {
    const sdb_event *e = sdb_events_at(r.ev, i);
    if (e->kind == SDB_EV_UNBACKED_BINDINGS && !strcmp(sdb_event_text(e), "nonzero")) {
      assert_string_equal(sdb_event_site(e)->file, "/tmp/m.py");
      assert_int_equal(sdb_event_site(e)->line, 4);
      bound = true;
    }
  }
  assert_true(bound);
  /* the note names the op; `list` can show the line from the comment */
  assert_string_equal(sdb_srcfile_line("/tmp/m.py", 5), "n = y.item()");
  assert_non_null(strstr(r.r.graph_text, "baz: \"f32[u1, 3][3, 1]\" = torch.ops.test.baz(item)"));
  done(&r);
}

static void test_cond_lifted(void **state) {
  (void)state;
  run r;
  retrace(cond_graph, &r);
  assert_string_equal(r.summary, "retrace: 12 nodes, 11 matched, 0 diverged, 0 unsupported ops\n");
  assert_non_null(strstr(r.r.graph_text,
    "cond = torch.ops.higher_order.cond(gt, cond_true_0, cond_false_0, (l_x_, s0, item))"));
  /* the operands are lifted as closures: shared ones sorted by name, the
  ** true branch's own suffixed (_merge_graph_inputs) */
  assert_non_null(strstr(r.r.graph_text,
    "def forward(self, l_x_: \"f32[s0][1]\", s0: \"Sym(s0)\", item_true_branch: \"Sym(u0)\"):"));
  done(&r);
}

static void test_view_and_divergence(void **state) {
  (void)state;
  run r;
  retrace(view_graph, &r);
  assert_string_equal(r.summary, "retrace: 8 nodes, 6 matched, 1 diverged, 0 unsupported ops\n");
  assert_int_equal(r.r.ndivs, 1);
  assert_string_equal(r.r.divs[0].node, "wrong");
  assert_int_equal(r.r.divs[0].pline, 10);
  assert_string_equal(r.r.divs[0].what, "sizes");
  assert_string_equal(r.r.divs[0].pytorch, "f32[u0, 3][3, 1]cpu");
  assert_string_equal(r.r.divs[0].shapedb, "f32[u0, 2][2, 1]cpu");
  assert_int_equal(count_kind(&r, SDB_EV_DIVERGENCE), 1);
  char *t = sdb_retrace_divergences_text(&r.r);
  assert_string_equal(t, "1  GraphModule.wrong (payload line 10): sizes differ\n"
                         "     PyTorch  f32[u0, 3][3, 1]cpu\n"
                         "     shapedb  f32[u0, 2][2, 1]cpu\n");
  free(t);
  done(&r);
}

/* PyTorch's symbol names need not be ours: u7 here is our u0, s9 our s0;
** a name used for two different symbols of ours is a divergence. */
static void test_renaming(void **state) {
  (void)state;
  run r;
  retrace("class GraphModule(torch.nn.Module):\n"
          "    def forward(self, L_x_: \"f32[s9][1]cpu\"):\n"
          "        l_x_ = L_x_\n"
          "        nonzero: \"i64[u7, 1][1, u7]cpu\" = l_x_.nonzero()\n"
          "        nonzero_1: \"i64[u7, 1][1, u7]cpu\" = l_x_.nonzero()\n"
          "        sin: \"f32[s9][1]cpu\" = l_x_.sin()\n"
          "        return (nonzero, nonzero_1, sin)\n", &r);
  /* a second nonzero of the same tensor is memoized: the same u0 */
  assert_string_equal(r.summary, "retrace: 4 nodes, 4 matched, 0 diverged, 0 unsupported ops\n");
  done(&r);
  retrace("class GraphModule(torch.nn.Module):\n"
          "    def forward(self, L_x_: \"f32[s9][1]cpu\", L_y_: \"f32[s9][1]cpu\"):\n"
          "        l_x_ = L_x_\n"
          "        l_y_ = L_y_\n"
          "        add: \"f32[s9][1]cpu\" = l_x_ + l_y_\n"
          "        return (add,)\n", &r);
  assert_string_equal(r.summary, "retrace: 3 nodes, 3 matched, 0 diverged, 0 unsupported ops\n");
  done(&r);
}

static void test_sample_logs(void **state) {
  (void)state;
  const char *shared = getenv("SHAPEDB_SHARED");
  if (!shared) shared = "../shared";
  static const struct { const char *log, *want; } cases[] = {
    {"tlparse_links.log", "retrace: 6 nodes, 6 matched, 0 diverged, 0 unsupported ops\n"},
    {"tlparse_comp_failure.log", "retrace: 2 nodes, 2 matched, 0 diverged, 0 unsupported ops\n"},
    {"tlparse_artifacts.log", "retrace: 3 nodes, 3 matched, 0 diverged, 0 unsupported ops\n"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char path[4096];
    snprintf(path, sizeof path, "%s/examples/torch_trace/%s", shared, cases[i].log);
    sdb_tt_reader *rd;
    sdb_err err = SDB_ERR_INIT;
    if (sdb_tt_open(path, &rd, &err)) fail_msg("%s: %s", path, err.msg);
    const sdb_tt_record *rec;
    int graphs = 0;
    while (sdb_tt_next(rd, &rec, &err) == 1) {
      if (strcmp(rec->kind, "dynamo_output_graph")) continue;
      run r;
      retrace(rec->payload, &r);
      assert_string_equal(r.summary, cases[i].want);
      done(&r);
      graphs++;
    }
    assert_int_equal(graphs, 1);
    sdb_tt_close(rd);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_nonzero_item),
    cmocka_unit_test(test_cond_lifted),
    cmocka_unit_test(test_view_and_divergence),
    cmocka_unit_test(test_renaming),
    cmocka_unit_test(test_sample_logs),
  };
  cmocka_set_message_output(CM_OUTPUT_TAP);
  return cmocka_run_group_tests_name("retrace", tests, NULL, NULL);
}
