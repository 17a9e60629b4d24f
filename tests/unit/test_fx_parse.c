/*
** test_fx_parse.c — the print_readable reader on graphs written here (nonzero
** + item + _check, cond with nested bodies and lifted symbols, literals of
** every kind) and on the dynamo_output_graph payloads of the sample
** TORCH_TRACE logs ($SHAPEDB_SHARED/examples/torch_trace), read through
** core/torch_trace; bad input names the payload line.
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "fake.h"
#include "fx_parse.h"
#include "torch_trace.h"

static sdb_fx_graph *parse_ok(const char *text) {
  sdb_fx_graph *g = NULL;
  sdb_err err = SDB_ERR_INIT;
  if (sdb_fx_parse(text, NULL, &g, &err)) fail_msg("parse: %s", err.msg);
  return g;
}

static char *parse_err(const char *text) {
  sdb_fx_graph *g = NULL;
  sdb_err err = SDB_ERR_INIT;
  int rc = sdb_fx_parse(text, NULL, &g, &err);
  assert_int_equal(rc, SDB_E_INVALID);
  assert_null(g);
  return err.msg;
}

static void check_node(const sdb_fx_node *n, const char *want) {
  char *s = sdb_fx_node_str(n);
  assert_string_equal(s, want);
  free(s);
}

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
  "        _assert_scalar_default = torch.ops.aten._assert_scalar.default(ge, "
  "\"Runtime assertion failed for expression u1 >= 0 on node 'ge'\");  ge = _assert_scalar_default = None\n"
  "        _check_is_size = torch._check_is_size(item);  _check_is_size = None\n"
  "        sym_size_int: \"Sym(u0)\" = torch.ops.aten.sym_size.int(nonzero, 0)\n"
  "        # No stacktrace found for following nodes\n"
  "        view: \"i64[2*u0][1]cpu\" = nonzero.view(-1);  nonzero = None\n"
  "        zeros: \"f32[u1, 3][3, 1]cuda:0\" = torch.zeros((item, 3), dtype = torch.float32, "
  "device = device(type='cuda', index=0))\n"
  "        getitem: \"i64[u0][2]cpu\" = view[slice(None, None, 2)]\n"
  "        return (view, zeros, getitem)\n";

static void test_nonzero_graph(void **state) {
  (void)state;
  sdb_fx_graph *g = parse_ok(nonzero_graph);
  assert_string_equal(g->name, "GraphModule");
  assert_int_equal(g->n, 12);
  check_node(g->nodes[0], "l_x_ = placeholder[L_x_]() : f32[s0, 2][2, 1]cpu");
  assert_int_equal(g->nodes[0]->meta.kind, SDB_FXM_TENSOR);
  assert_int_equal(g->nodes[0]->meta.dtype, SDB_F32);
  assert_int_equal(g->nodes[0]->meta.ndim, 2);
  assert_string_equal(g->nodes[0]->meta.sizes[0], "s0");
  assert_string_equal(g->nodes[0]->meta.strides[0], "2");
  assert_string_equal(g->nodes[0]->meta.device, "cpu");
  assert_int_equal(g->nodes[1]->meta.ndim, 0);
  check_node(g->nodes[2], "nonzero = call_method[nonzero](l_x_) : i64[u0, 2][1, u0]cpu");
  assert_string_equal(g->nodes[2]->file, "/tmp/m.py");
  assert_int_equal(g->nodes[2]->line, 4);
  assert_string_equal(g->nodes[2]->fn, "fn");
  assert_string_equal(g->nodes[2]->code, "idx = x.nonzero()");
  assert_int_equal(g->nodes[2]->pline, 7);
  check_node(g->nodes[3], "item = call_method[item](l_y_) : Sym(u1)");
  assert_int_equal(g->nodes[3]->meta.kind, SDB_FXM_SYM);
  assert_string_equal(g->nodes[3]->meta.sym, "u1");
  check_node(g->nodes[4], "ge = call_function[operator.ge](item, 0) : Sym(u1 >= 0)");
  check_node(g->nodes[5], "_assert_scalar_default = call_function[torch.ops.aten._assert_scalar.default]"
                          "(ge, 'Runtime assertion failed for expression u1 >= 0 on node 'ge'')");
  assert_int_equal(g->nodes[5]->line, 5);
  check_node(g->nodes[6], "_check_is_size = call_function[torch._check_is_size](item)");
  check_node(g->nodes[7], "sym_size_int = call_function[torch.ops.aten.sym_size.int](nonzero, 0) : Sym(u0)");
  check_node(g->nodes[8], "view = call_method[view](nonzero, -1) : i64[2*u0][1]cpu");
  assert_null(g->nodes[8]->file);
  check_node(g->nodes[9], "zeros = call_function[torch.zeros]((item, 3), dtype = torch.float32, "
                          "device = device(type='cuda:0')) : f32[u1, 3][3, 1]cuda:0");
  assert_int_equal(g->nodes[9]->args[1].kind, SDB_FXA_DTYPE);
  assert_int_equal(g->nodes[9]->args[1].ival, SDB_F32);
  assert_string_equal(g->nodes[9]->meta.device, "cuda:0");
  check_node(g->nodes[10], "getitem = call_function[operator.getitem](view, slice(None, None, 2)) : i64[u0][2]cpu");
  sdb_fx_node *out = sdb_fx_graph_output(g);
  assert_non_null(out);
  check_node(out, "output = output[output]((view, zeros, getitem))");
  assert_ptr_equal(out->args[0].items[0].node, g->nodes[8]);
  sdb_fx_graph_free(g);
}

static const char cond_graph[] =
  "class GraphModule(torch.nn.Module):\n"
  "    def forward(self, L_x_: \"f32[s0][1]cpu\", L_n_: \"i64[][]cpu\"):\n"
  "        l_x_ = L_x_\n"
  "        l_n_ = L_n_\n"
  "        item: \"Sym(u0)\" = l_n_.item();  l_n_ = None\n"
  "        gt: \"Sym(u0 > 2)\" = item > 2\n"
  "        cond_true_0 = self.cond_true_0\n"
  "        cond_false_0 = self.cond_false_0\n"
  "        cond = torch.ops.higher_order.cond(gt, cond_true_0, cond_false_0, [l_x_, item]);  "
  "gt = cond_true_0 = cond_false_0 = l_x_ = item = None\n"
  "        getitem: \"f32[s0][1]cpu\" = cond[0];  cond = None\n"
  "        return (getitem,)\n"
  "        \n"
  "    class cond_true_0(torch.nn.Module):\n"
  "        def forward(self, l_x_: \"f32[s0][1]cpu\", item: \"Sym(u0)\"):\n"
  "            l_x__1 = l_x_\n"
  "            add: \"f32[s0][1]cpu\" = l_x__1 + item;  l_x__1 = item = None\n"
  "            return (add,)\n"
  "            \n"
  "    class cond_false_0(torch.nn.Module):\n"
  "        def forward(self, l_x_: \"f32[s0][1]cpu\", item: \"Sym(u0)\"):\n"
  "            l_x__1 = l_x_\n"
  "            neg: \"f32[s0][1]cpu\" = -l_x__1;  l_x__1 = None\n"
  "            return (neg,)\n";

static void test_cond_graph(void **state) {
  (void)state;
  sdb_fx_graph *g = parse_ok(cond_graph);
  assert_int_equal(g->nsubs, 2);
  check_node(g->nodes[4], "cond_true_0 = get_attr[cond_true_0]()");
  check_node(g->nodes[6], "cond = call_function[torch.ops.higher_order.cond]"
                          "(gt, cond_true_0, cond_false_0, [l_x_, item])");
  check_node(g->nodes[7], "getitem = call_function[operator.getitem](cond, 0) : f32[s0][1]cpu");
  sdb_fx_graph *t = sdb_fx_graph_sub(g, "cond_true_0");
  assert_non_null(t);
  assert_ptr_equal(t->parent, g);
  assert_int_equal(t->n, 4);
  check_node(t->nodes[1], "item = placeholder[item]() : Sym(u0)");
  check_node(t->nodes[2], "add = call_function[operator.add](l_x__1, item) : f32[s0][1]cpu");
  sdb_fx_graph *f = sdb_fx_graph_sub(t, "cond_false_0");
  assert_non_null(f);
  check_node(f->nodes[2], "neg = call_function[operator.neg](l_x__1) : f32[s0][1]cpu");
  assert_int_equal(sdb_fx_graph_count(g), 9 + 4 + 4);
  sdb_fx_graph_free(g);
}

static void test_literals(void **state) {
  (void)state;
  sdb_fx_graph *g = parse_ok(
    "class GraphModule(torch.nn.Module):\n"
    "    def forward(self, L_x_: \"bf16[3, 4][4, 1]cpu\"):\n"
    "        l_x_ = L_x_\n"
    "        a = torch.ops.aten.full.default([3], 1.5, dtype = torch.int64, layout = torch.strided, "
    "pin_memory = False)\n"
    "        b = l_x_[(Ellipsis, None, slice(1, None, None))]\n"
    "        c = torch.clamp(l_x_, min = -2.5, max = float('inf'))\n"
    "        d = operator.getitem(l_x_, -1)\n"
    "        return (a, b, c, d)\n");
  check_node(g->nodes[1], "a = call_function[torch.ops.aten.full.default]([3], 1.5, dtype = torch.int64, "
                          "layout = torch.strided, pin_memory = False)");
  assert_int_equal(g->nodes[1]->args[3].kind, SDB_FXA_ATTR);
  check_node(g->nodes[2], "b = call_function[operator.getitem](l_x_, (Ellipsis, None, slice(1, None, None)))");
  check_node(g->nodes[3], "c = call_function[torch.clamp](l_x_, min = -2.5, max = inf)");
  check_node(g->nodes[4], "d = call_function[operator.getitem](l_x_, -1)");
  sdb_fx_graph_free(g);
  /* a dict argument (flex_attention's kernel options); an older log's
  ** parameter typed but with no shape */
  g = parse_ok(
    "class GraphModule(torch.nn.Module):\n"
    "    def forward(self, L_x_ : torch.Tensor, L_n_ : int):\n"
    "        e = torch.ops.higher_order.flex_attention(L_x_, {'PRESCALE_QK': False, "
    "'BLOCK_M': 128, 3: (1, 2)}, {})\n"
    "        return (e,)\n");
  assert_int_equal(g->nodes[0]->meta.kind, SDB_FXM_NONE);
  assert_string_equal(g->nodes[1]->name, "L_n_");
  check_node(g->nodes[2], "e = call_function[torch.ops.higher_order.flex_attention](L_x_, "
                          "{'PRESCALE_QK': False, 'BLOCK_M': 128, 3: (1, 2)}, {})");
  assert_int_equal(g->nodes[2]->args[1].kind, SDB_FXA_DICT);
  assert_int_equal(g->nodes[2]->args[1].n, 3);
  sdb_fx_graph_free(g);
  /* pytree codegen of aot graphs: a signature over several lines with
  ** comments, declared inputs (also several on one line), the flattening
  ** line, a submodule's parameter, a return over several lines */
  g = parse_ok(
    "class <lambda>(torch.nn.Module):\n"
    "    def forward(\n"
    "        self,\n"
    "        primals,  # the inputs\n"
    "        tangents,\n"
    "    ):\n"
    "        primals_1: \"f32[s0][1]cpu\"  # PlainAOTInput(idx=0)\n"
    "        primals_2: \"f32[4][1]cpu\"; tangents_1: \"f32[s0][1]cpu\"; \n"
    "        primals_1, primals_2, tangents_1, = fx_pytree.tree_flatten_spec([primals, tangents], "
    "self._in_spec)\n"
    "        w: \"f32[3][1]cpu\" = self.fc1.weight\n"
    "        sin: \"f32[s0][1]cpu\" = torch.ops.aten.sin.default(primals_1);  primals_1 = None\n"
    "        return pytree.tree_unflatten([\n"
    "            sin,\n"
    "            tangents_1,\n"
    "        ], self._out_spec)\n");
  assert_string_equal(g->name, "<lambda>");
  assert_int_equal(g->n, 6);
  check_node(g->nodes[0], "primals_1 = placeholder[primals_1]() : f32[s0][1]cpu");
  check_node(g->nodes[1], "primals_2 = placeholder[primals_2]() : f32[4][1]cpu");
  check_node(g->nodes[2], "tangents_1 = placeholder[tangents_1]() : f32[s0][1]cpu");
  check_node(g->nodes[3], "w = get_attr[fc1.weight]() : f32[3][1]cpu");
  check_node(g->nodes[5], "output = output[output]((sin, tangents_1))");
  sdb_fx_graph_free(g);
}

static void test_errors(void **state) {
  (void)state;
  char *m = parse_err("def forward(self, x):\n    return (x,)\n");
  assert_string_equal(m, "payload line 1: not a GraphModule: expected "
                         "'class GraphModule(torch.nn.Module):', found 'def forward(self, x):'");
  free(m);
  m = parse_err("\n\n");
  assert_string_equal(m, "payload line 1: not a GraphModule: the payload is empty");
  free(m);
  m = parse_err("class GraphModule(torch.nn.Module):\n"
                "    def forward(self, L_x_: \"f32[3][1]cpu\"):\n"
                "        l_x_ = L_x_\n"
                "        sin: \"f32[3][1]cpu\" = l_x_.sin(;  l_x_ = None\n"
                "        return (sin,)\n");
  assert_string_equal(m, "payload line 4: cannot read node: expected a value, found ';' in "
                         "'sin: \"f32[3][1]cpu\" = l_x_.sin(;  l_x_ = None'");
  free(m);
  m = parse_err("class GraphModule(torch.nn.Module):\n"
                "    def forward(self, L_x_: \"q32[3][1]cpu\"):\n"
                "        return (L_x_,)\n");
  assert_string_equal(m, "payload line 2: unknown dtype 'q32' in annotation \"q32[3][1]cpu\"");
  free(m);
  m = parse_err("class GraphModule(torch.nn.Module):\n"
                "    def forward(self, L_x_: \"f32[3][1]cpu\"):\n"
                "        y: \"f32[3][1]cpu\" = L_x_.sin()\n"
                "        z: \"f32[3][1]cpu\" = torch.cos(w)\n"
                "        return (z,)\n");
  assert_string_equal(m, "payload line 4: cannot read node: unknown name 'w' in "
                         "'z: \"f32[3][1]cpu\" = torch.cos(w)'");
  free(m);
  m = parse_err("class GraphModule(torch.nn.Module):\n"
                "    def forward(self, L_x_: \"f32[3][1]cpu\"):\n"
                "        y = L_x_.sin()\n");
  assert_string_equal(m, "payload line 2: forward of GraphModule has no return statement");
  free(m);
}

/* Every dynamo_output_graph payload of the sample logs parses; the node
** lists are pinned for the two with source comments. */
static void test_sample_logs(void **state) {
  (void)state;
  const char *shared = getenv("SHAPEDB_SHARED");
  if (!shared) shared = "../shared";
  static const struct { const char *log, *want; } cases[] = {
    {"tlparse_links.log",
     "l_x_ = placeholder[L_x_]() : f32[2][1]cpu\n"
     "g_global_state_tensor_ = placeholder[G_global_state_tensor_]() : f32[2][1]cpu\n"
     "l__self___param = get_attr[L__self___param]() : f32[2][1]cpu @ /home/jjwu/tmp.py:8\n"
     "y = call_function[torch.sin](l__self___param) : f32[2][1]cpu @ /home/jjwu/tmp.py:8\n"
     "add = call_function[operator.add](y, l_x_) : f32[2][1]cpu @ /home/jjwu/tmp.py:9\n"
     "add_1 = call_function[operator.add](add, g_global_state_tensor_) : f32[2][1]cpu @ /home/jjwu/tmp.py:9\n"
     "output = output[output]((add_1,)) @ /home/jjwu/tmp.py:9\n"},
    {"tlparse_comp_failure.log",
     "l_x_ = placeholder[L_x_]() : f32[4, 4][4, 1]cpu\n"
     "sin = call_method[sin](l_x_) : f32[4, 4][4, 1]cpu @ /data/users/xmfan/a/pytorch/test/dynamo/test_misc.py:10756\n"
     "output = output[output]((sin,)) @ /data/users/xmfan/a/pytorch/test/dynamo/test_misc.py:10756\n"},
    {"tlparse_artifacts.log", NULL},
    {"tlparse_export_guard_added.log", NULL},
  };
  int graphs = 0;
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char path[4096];
    snprintf(path, sizeof path, "%s/examples/torch_trace/%s", shared, cases[i].log);
    sdb_tt_reader *r;
    sdb_err err = SDB_ERR_INIT;
    if (sdb_tt_open(path, &r, &err)) fail_msg("%s: %s", path, err.msg);
    const sdb_tt_record *rec;
    int rc;
    while ((rc = sdb_tt_next(r, &rec, &err)) == 1) {
      if (strcmp(rec->kind, "dynamo_output_graph")) continue;
      sdb_fx_graph *g = NULL;
      if (sdb_fx_parse(rec->payload, cases[i].log, &g, &err))
        fail_msg("%s:%ld: %s", path, rec->line, err.msg);
      graphs++;
      if (cases[i].want) {
        char all[4096] = "";
        for (size_t k = 0; k < g->n; k++) {
          char *s = sdb_fx_node_str(g->nodes[k]);
          size_t len = strlen(all);
          if (g->nodes[k]->file)
            snprintf(all + len, sizeof all - len, "%s @ %s:%d\n", s, g->nodes[k]->file,
                     g->nodes[k]->line);
          else
            snprintf(all + len, sizeof all - len, "%s\n", s);
          free(s);
        }
        assert_string_equal(all, cases[i].want);
      }
      sdb_fx_graph_free(g);
    }
    assert_int_equal(rc, 0);
    sdb_tt_close(r);
  }
  assert_int_equal(graphs, 3);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_nonzero_graph),
    cmocka_unit_test(test_cond_graph),
    cmocka_unit_test(test_literals),
    cmocka_unit_test(test_errors),
    cmocka_unit_test(test_sample_logs),
  };
  cmocka_set_message_output(CM_OUTPUT_TAP);
  return cmocka_run_group_tests_name("fx_parse", tests, NULL, NULL);
}
