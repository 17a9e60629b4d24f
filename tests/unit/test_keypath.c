/*
** test_keypath.c — key paths, compute_unbacked_bindings and rebind_unbacked
** on seed 001's and seed 003's examples.
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "fake.h"
#include "keypath.h"
#include "ops.h"

typedef struct {
  sdb_events *ev;
  sdb_shape_env *env;
  sdb_fake_mode *mode;
} fixture;

static int setup(void **state) {
  fixture *f = calloc(1, sizeof *f);
  f->ev = sdb_events_new();
  f->env = sdb_shape_env_new(f->ev, NULL);
  f->mode = sdb_fake_mode_new(f->env, "trace");
  *state = f;
  return 0;
}

static int teardown(void **state) {
  fixture *f = *state;
  sdb_fake_mode_free(f->mode);
  sdb_shape_env_free(f->env);
  sdb_events_free(f->ev);
  free(f);
  return 0;
}

static sdb_fake *input(fixture *f, const char *name, const int64_t *sizes, int n) {
  sdb_fake *t;
  sdb_err err = SDB_ERR_INIT;
  if (sdb_fakify(f->mode, sizes, n, SDB_F32, "cpu", false, sdb_source_local(name), NULL, &t, &err))
    fail_msg("fakify: %s", err.msg);
  return t;
}

static sdb_value call1(fixture *f, const char *op, sdb_fake *x) {
  sdb_value arg = sdb_value_tensor(x), out;
  sdb_args a = {&arg, 1, NULL, 0};
  sdb_err err = SDB_ERR_INIT;
  if (sdb_op_call_name(f->mode, op, &a, &out, &err)) fail_msg("%s: %s", op, err.msg);
  sdb_value_free(&arg);
  return out;
}

static void check_bindings(const sdb_bindings *b, const char *want) {
  char *s = sdb_bindings_str(b);
  assert_string_equal(s, want);
  free(s);
}

static sdb_bindings bindings_of(fixture *f, const sdb_value *v) {
  sdb_bindings b;
  sdb_err err = SDB_ERR_INIT;
  if (sdb_compute_unbacked_bindings(f->env, v, false, &b, &err)) fail_msg("bindings: %s", err.msg);
  return b;
}

/* seed 001: nonzero's output binds u0 at .size()[0] */
static void test_nonzero_binding(void **state) {
  fixture *f = *state;
  int64_t sz[] = {5, 2};
  sdb_fake *x = input(f, "x", sz, 2);
  sdb_value out = call1(f, "nonzero", x);
  char *meta = sdb_fake_meta_str(out.tensor, true);
  assert_string_equal(meta, "i64[u0, 2][1, u0]");
  free(meta);
  assert_int_equal(sdb_pending_count(f->env), 1);
  sdb_bindings b = bindings_of(f, &out);
  check_bindings(&b, "u0: .size()[0]");
  assert_int_equal(sdb_pending_count(f->env), 0);
  char buf[64];
  assert_string_equal(sdb_keypath_call_str(b.v[0].path, buf, sizeof buf), ".size(0)");
  /* u0 in [0, int_oo], size-like: numel s0*s1 has no upper bound */
  const sdb_symbol_info *si = sdb_symbol(f->env, b.v[0].sym);
  assert_true(si->size_like);
  assert_int_equal(si->range.lo, 0);
  assert_true(si->range.hi == SDB_PINF);
  /* a static 3-element tensor bounds it: [0, 3] */
  const sdb_expr *three[] = {sdb_int(3)};
  sdb_fake *st = sdb_fake_new(f->mode, SDB_F32, "cpu", three, 1);
  sdb_value o3 = call1(f, "nonzero", st);
  si = sdb_symbol(f->env, o3.tensor->sizes[0]);
  assert_int_equal(si->range.hi, 3);
  /* its binding's path is the same one, shared: .size()[0] */
  sdb_bindings b3 = bindings_of(f, &o3);
  assert_int_equal(b3.n, 1);
  assert_ptr_equal(b3.v[0].path, b.v[0].path);
  sdb_bindings_free(&b3);
  sdb_pending_clear(f->env);
  sdb_value_free(&o3);
  sdb_fake_unref(st);
  sdb_bindings_free(&b);
  sdb_value_free(&out);
  sdb_fake_unref(x);
}

/* seed 001: a [u0, u1] output where only u1 is fresh binds only u1 */
static void test_only_fresh_symbols_bind(void **state) {
  fixture *f = *state;
  const sdb_expr *u0 = sdb_create_unbacked_symint(f->env);
  sdb_pending_clear(f->env);          /* u0 was bound earlier */
  const sdb_expr *u1 = sdb_create_unbacked_symint(f->env);
  const sdb_expr *sizes[] = {u0, u1};
  sdb_fake *t = sdb_fake_new(f->mode, SDB_F32, "cpu", sizes, 2);
  sdb_value v = sdb_value_tensor(t);
  sdb_bindings b = bindings_of(f, &v);
  check_bindings(&b, "u1: .size()[1]");
  sdb_bindings_free(&b);
  sdb_value_free(&v);
  sdb_fake_unref(t);
}

/* a multi-output op: the first output's first size is [0].size()[0] */
static void test_multi_output_path(void **state) {
  fixture *f = *state;
  const sdb_expr *u = sdb_create_unbacked_symint(f->env);
  const sdb_expr *s1[] = {u}, *s2[] = {sdb_int(3)};
  sdb_fake *a = sdb_fake_new(f->mode, SDB_F32, "cpu", s1, 1);
  sdb_fake *b2 = sdb_fake_new(f->mode, SDB_I64, "cpu", s2, 1);
  sdb_value tup = sdb_value_seq(SDB_V_TUPLE, 2);
  tup.items[0] = sdb_value_tensor(a);
  tup.items[1] = sdb_value_tensor(b2);
  sdb_bindings b = bindings_of(f, &tup);
  check_bindings(&b, "u0: [0].size()[0]");
  sdb_err err = SDB_ERR_INIT;
  const sdb_expr *got = sdb_keypath_get(f->env, &tup, b.v[0].path, &err);
  assert_ptr_equal(got, u);
  sdb_bindings_free(&b);
  sdb_value_free(&tup);
  sdb_fake_unref(a);
  sdb_fake_unref(b2);
}

/* item, SymBool, c*u and s*u paths */
static void test_scalar_paths(void **state) {
  fixture *f = *state;
  const sdb_expr *u = sdb_create_unbacked_symint(f->env);
  sdb_value v = sdb_value_int(u);
  sdb_bindings b = bindings_of(f, &v);
  check_bindings(&b, "u0: <value>");
  sdb_bindings_free(&b);

  const sdb_expr *sb = sdb_create_unbacked_symbool(f->env);
  v = sdb_value_bool(sb);
  b = bindings_of(f, &v);
  check_bindings(&b, "u1: .cast_symbool_to_symint_guardless()");
  sdb_err err = SDB_ERR_INIT;
  /* Eq(u1, 1) read as an int is u1 itself, since u1 is in [0, 1] */
  assert_ptr_equal(sdb_keypath_get(f->env, &v, b.v[0].path, &err), sdb_sym("u1"));
  sdb_bindings_free(&b);

  const sdb_expr *u2 = sdb_create_unbacked_symint(f->env);
  const sdb_expr *sizes[] = {sdb_mul(sdb_int(4), u2)};
  sdb_fake *t = sdb_fake_new(f->mode, SDB_F32, "cpu", sizes, 1);
  v = sdb_value_tensor(t);
  b = bindings_of(f, &v);
  check_bindings(&b, "u2: .size()[0].__floordiv__(4)");
  assert_ptr_equal(sdb_keypath_get(f->env, &v, b.v[0].path, &err), u2);
  sdb_keypath parsed;
  assert_true(sdb_keypath_parse(".size()[0].__floordiv__(4)", &parsed));
  char buf[64];
  assert_string_equal(sdb_keypath_str(&parsed, buf, sizeof buf), ".size()[0].__floordiv__(4)");
  assert_false(sdb_keypath_parse(".size[0]", &parsed));
  sdb_bindings_free(&b);
  sdb_value_free(&v);
  sdb_fake_unref(t);
}

/* seed 001: a pending symbol that is not in the output is an error */
static void test_pending_not_found(void **state) {
  fixture *f = *state;
  int64_t sz[] = {5};
  sdb_fake *x = input(f, "x", sz, 1);
  sdb_create_unbacked_symint(f->env);
  sdb_value v = sdb_value_tensor(x);
  sdb_bindings b;
  sdb_err err = SDB_ERR_INIT;
  assert_int_equal(sdb_compute_unbacked_bindings(f->env, &v, false, &b, &err), SDB_E_PENDING_NOT_FOUND);
  assert_string_equal(err.kind, "PendingUnbackedSymbolNotFound");
  assert_string_equal(err.msg,
    "Pending unbacked symbols {u0} not in returned outputs FakeTensor(..., size=(s0,)) ((1,), 0).\n"
    "Did you accidentally call new_dynamic_size() or item() more times than you needed to in "
    "your fake implementation?\n"
    "For more help, see https://docs.google.com/document/d/1RWrH-3wLEpzR9kCS6gGBNen_-Fs-8PVbWWFE5AcgeWE/edit");
  assert_int_equal(sdb_pending_count(f->env), 0);
  sdb_err_clear(&err);
  sdb_bindings_free(&b);
  sdb_value_free(&v);
  sdb_fake_unref(x);
}

/* seed 003: memo per epoch; rebind after a retrace keeps replacements */
static void test_epoch_memo_and_rebind(void **state) {
  fixture *f = *state;
  int64_t sz[] = {4, 3};
  sdb_fake *x = input(f, "x", sz, 2);
  sdb_value a = call1(f, "nonzero", x);
  sdb_bindings old = bindings_of(f, &a);
  sdb_value again = call1(f, "nonzero", x);
  assert_ptr_equal(again.tensor->sizes[0], a.tensor->sizes[0]);   /* memo hit: same u0 */
  const sdb_event *last = sdb_events_at(f->ev, sdb_events_count(f->ev) - 1);
  assert_int_equal(last->kind, SDB_EV_MEMO_HIT);
  assert_int_equal(sdb_pending_count(f->env), 0);                  /* nothing new */
  /* a fact about u0: u0 -> s0 (via a backed equality) */
  const sdb_expr *u0 = a.tensor->sizes[0];
  sdb_err err = SDB_ERR_INIT;
  assert_int_equal(sdb_check(f->env, sdb_eq(u0, sdb_sym("s0")), NULL, &err), 0);
  assert_ptr_equal(sdb_simplify(f->env, u0), sdb_sym("s0"));
  /* retrace: bump the epoch, the memo is stale, nonzero allocates u1 */
  sdb_fake_mode_bump_epoch(f->mode);
  sdb_value b = call1(f, "nonzero", x);
  const sdb_expr *u1 = b.tensor->sizes[0];
  assert_string_equal(u1->name, "u1");
  assert_int_equal(sdb_rebind_unbacked(f->env, &old, &b, "aot retrace", &err), 0);
  /* u1 is renamed to u0 and u0's replacement is re-applied to u1 */
  assert_ptr_equal(sdb_resolve_renamed(f->env, u1), u0);
  assert_ptr_equal(sdb_simplify(f->env, u1), sdb_sym("s0"));
  assert_ptr_equal(sdb_simplify(f->env, u0), sdb_sym("s0"));
  /* rebinding the same symbol twice is the memo disaster */
  sdb_bindings same = {0};
  assert_true(sdb_bindings_copy(&same, &old));
  sdb_value c = sdb_value_copy(&a);
  assert_int_equal(sdb_rebind_unbacked(f->env, &same, &c, "x", &err), SDB_E_INVALID);
  assert_non_null(strstr(err.msg, "possible memo disaster"));
  sdb_err_clear(&err);
  sdb_pending_clear(f->env);
  /* an in-place op bumps the version and invalidates the memo too */
  sdb_fake_bump_version(x);
  sdb_value d = call1(f, "nonzero", x);
  assert_string_equal(d.tensor->sizes[0]->name, "u2");
  sdb_bindings_free(&same);
  sdb_bindings_free(&old);
  sdb_value_free(&a);
  sdb_value_free(&again);
  sdb_value_free(&b);
  sdb_value_free(&c);
  sdb_value_free(&d);
  sdb_fake_unref(x);
}

/* Memos live in a table apart, by tensor: set on many tensors (past
** several doublings of the table), each reads back its own, and freeing
** every third one, then the rest in another order, leaves the others'
** memos where a lookup finds them (a removal shifts the slots after it
** back). */
static void test_memos_apart(void **state) {
  fixture *f = *state;
  enum { N = 600 };
  sdb_fake *t[N];
  const sdb_expr *size = sdb_int(3);
  for (int i = 0; i < N; i++) {
    t[i] = sdb_fake_new(f->mode, SDB_F32, "cpu", &size, 1);
    assert_non_null(t[i]);
    assert_false(t[i]->has_memos);
    assert_null(sdb_memo_get(t[i], SDB_MEMO_NONZERO));
    assert_true(sdb_memo_set(t[i], SDB_MEMO_NONZERO, sdb_int(i)));
    assert_true(t[i]->has_memos);
  }
  for (int i = 0; i < N; i++) assert_ptr_equal(sdb_memo_get(t[i], SDB_MEMO_NONZERO), sdb_int(i));
  for (int i = 0; i < N; i += 3) { sdb_fake_unref(t[i]); t[i] = NULL; }
  for (int i = 0; i < N; i++)
    if (t[i]) assert_ptr_equal(sdb_memo_get(t[i], SDB_MEMO_NONZERO), sdb_int(i));
  for (int i = N - 1; i >= 0; i -= 2)
    if (t[i]) { sdb_fake_unref(t[i]); t[i] = NULL; }
  for (int i = 0; i < N; i++)
    if (t[i]) {
      assert_ptr_equal(sdb_memo_get(t[i], SDB_MEMO_NONZERO), sdb_int(i));
      sdb_fake_unref(t[i]);
    }
  /* a tensor made where a freed one was has no memo */
  sdb_fake *fresh = sdb_fake_new(f->mode, SDB_F32, "cpu", &size, 1);
  assert_false(fresh->has_memos);
  assert_null(sdb_memo_get(fresh, SDB_MEMO_NONZERO));
  sdb_fake_unref(fresh);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup_teardown(test_nonzero_binding, setup, teardown),
    cmocka_unit_test_setup_teardown(test_only_fresh_symbols_bind, setup, teardown),
    cmocka_unit_test_setup_teardown(test_multi_output_path, setup, teardown),
    cmocka_unit_test_setup_teardown(test_scalar_paths, setup, teardown),
    cmocka_unit_test_setup_teardown(test_pending_not_found, setup, teardown),
    cmocka_unit_test_setup_teardown(test_epoch_memo_and_rebind, setup, teardown),
    cmocka_unit_test_setup_teardown(test_memos_apart, setup, teardown),
  };
  cmocka_set_message_output(CM_OUTPUT_TAP);
  return cmocka_run_group_tests_name("keypath", tests, NULL, NULL);
}
