/*
** test_ops_views.c — the operator table's (core/ops) views and the ops
** that reshape, join, split and index: view and reshape (contiguous or
** not, the numel check a guard when backed and a runtime assert when
** not), flatten, squeeze, permute, expand, cat, stack, split, select,
** narrow, slicing, gather, scatter, boolean masks. Output metadata and
** strides, guards, memos and PyTorch's error messages against exact
** strings, with test_ops's fixture (ops_fixture.h).
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "buf.h"
#include "event.h"
#include "expr.h"
#include "fake.h"
#include "ops.h"
#include "shape_env.h"
#include "source.h"
#include "symctx.h"
#include "value.h"

#include "ops_fixture.h"

/* ------------------------------------------------------------------------
** Views and reshapes
** ---------------------------------------------------------------------- */

static void test_view_contiguous(void **state) {
  (void)state;
  sdb_fake *x = X("x", SDB_F32, "4,!6");
  sdb_value *v = OP("view", T(x), I(-1));
  STRIDED(v, "f32[6*s0][1]");
  assert_ptr_equal(TEN(v)->storage, x->storage);
  STRIDED(OP("view", T(x), L(3, 2, -1, 3)), "f32[2, s0, 3][3*s0, 3, 1]");
  STRIDED(OP("reshape", T(x), I(-1), I(2)), "f32[3*s0, 2][2, 1]");
  STRIDED(OP("view", T(x), E(x->sizes[0]), I(2), I(3)), "f32[s0, 2, 3][6, 3, 1]");
  /* numel equality is decided statically here: no guard */
  GUARDS("");
  sdb_fake *o = X("o", SDB_F32, "!3,!2");
  META(OP("view_as", T(x), T(TEN(OP("reshape", T(x), I(-1))))), "f32[6*s0]");
  META(OP("reshape_as", T(o), T(TEN(OP("view", T(o), I(6))))), "f32[6]");
  /* 0-dim in and out */
  sdb_fake *s = X("s", SDB_F32, "");
  STRIDED(OP("view", T(s), I(1), I(1)), "f32[1, 1][1, 1]");
  META(OP("reshape", T(TEN(OP("view", T(s), I(1)))), L(0)), "f32[]");
  assert_string_equal(ERR("view", T(x), I(-1), I(-1)), "only one dimension can be inferred");
  assert_string_equal(ERR("view", T(o), I(2), I(3), I(2)), "shape '[2, 3, 2]' is invalid for input of size 6");
  assert_string_equal(ERR("view", T(o), I(-1), I(4)), "shape '[-1, 4]' is invalid for input of size 6");
  assert_string_equal(ERR("view", T(o), I(-2), I(3)),
                      "invalid shape dimension -2. If this was symbolic, it was assumed to not be -1.If this "
                      "was meant to be inferred, please explicitly pass in -1.");
  sdb_fake *z = X("z", SDB_F32, "!0,!3");
  assert_string_equal(ERR("view", T(z), I(-1), I(0)),
                      "cannot reshape tensor of 0 elements into shape [-1, 0] because the unspecified "
                      "dimension size -1 can be any value and is ambiguous");
  assert_string_equal(ERR("view", T(o), S("int32")),
                      "view(): reinterpreting as dtype 'int32' is not supported");
}

/* view/reshape take the numel guard when backed, and PyTorch's message */
static void test_view_guards(void **state) {
  (void)state;
  sdb_fake *x = X("x", SDB_F32, "6");
  META(OP("view", T(x), I(2), I(3)), "f32[2, 3]");
  GUARDS("Eq(s0, 6)");
  sdb_fake *y = X("y", SDB_F32, "10");
  assert_string_equal(ERR("view", T(y), I(2), I(3)), "shape '[2, 3]' is invalid for input of size s1");
  GUARDS("Eq(s0, 6); Ne(s1, 6)");
  /* -1: divisibility guard, a FloorDiv size */
  sdb_fake *w = X("w", SDB_F32, "8");
  META(OP("reshape", T(w), I(-1), I(2)), "f32[(s2//2), 2]");
  GUARDS("Eq(s0, 6); Ne(s1, 6); Eq(Mod(s2, 2), 0)");
  sdb_fake *odd = X("odd", SDB_F32, "7");
  assert_string_equal(ERR("reshape", T(odd), I(-1), I(2)), "shape '[-1, 2]' is invalid for input of size s3");
  GUARDS("Eq(s0, 6); Ne(s1, 6); Eq(Mod(s2, 2), 0); Ne(Mod(s3, 2), 0)");
  /* a static mismatch: PyTorch's message with the number */
  sdb_fake *t = X("t", SDB_F32, "!10");
  assert_string_equal(ERR("view", T(t), I(2), I(3)), "shape '[2, 3]' is invalid for input of size 10");
}

/* with unbacked sizes the numel checks become runtime asserts */
static void test_view_unbacked(void **state) {
  (void)state;
  sdb_fake *x = X("x", SDB_F32, "u8");
  META(OP("view", T(x), I(-1), I(2)), "f32[(u0//2), 2]");
  GUARDS("");
  ASSERTS("Eq(Mod(u0, 2), 0)");
  sdb_fake *y = X("y", SDB_F32, "u6");
  META(OP("reshape", T(y), I(2), I(3)), "f32[2, 3]");
  ASSERTS("Eq(Mod(u0, 2), 0); Eq(u1, 6)");
  GUARDS("");
}

/* non-contiguous inputs: strides from _compute_stride, or a copy */
static void test_view_noncontiguous(void **state) {
  (void)state;
  sdb_fake *x = X("x", SDB_F32, "!2,!3");
  sdb_value *xt = OP("t", T(x));
  STRIDED(xt, "f32[3, 2][1, 3]");
  assert_string_equal(ERR("view", T(TEN(xt)), I(6)),
                      "Cannot view a tensor with shape torch.Size([3, 2]) and strides (1, 3) as a tensor "
                      "with shape (6,)!");
  sdb_value *r = OP("reshape", T(TEN(xt)), I(6));
  STRIDED(r, "f32[6][1]");
  assert_ptr_not_equal(TEN(r)->storage, x->storage);
  /* splitting a dim of a transposed tensor is still a view */
  sdb_value *v = OP("view", T(TEN(xt)), I(3), I(2), I(1));
  STRIDED(v, "f32[3, 2, 1][1, 3, 3]");             /* computeStride: a trailing 1 gets the chunk stride */
  assert_ptr_equal(TEN(v)->storage, x->storage);
  /* a column slice: rows stay apart */
  sdb_fake *y = X("y", SDB_F32, "!4,!6");
  sdb_value *cols = OP("slice", T(y), I(1), I(0), I(3));
  STRIDED(cols, "f32[4, 3][6, 1]");
  STRIDED(OP("view", T(TEN(cols)), I(2), I(2), I(3)), "f32[2, 2, 3][12, 6, 1]");
  STRIDED(OP("reshape", T(TEN(cols)), I(12)), "f32[12][1]");
  GUARDS("");
}

static void test_flatten_unflatten(void **state) {
  (void)state;
  sdb_fake *x = X("x", SDB_F32, "2,3,4");
  sdb_value *f = OP("flatten", T(x));
  STRIDED(f, "f32[s0*s1*s2][1]");
  assert_ptr_equal(TEN(f)->storage, x->storage);
  STRIDED(OP("flatten", T(x), I(1)), "f32[s0, s1*s2][s1*s2, 1]");
  STRIDED(OP("flatten", T(x), I(0), I(1)), "f32[s0*s1, s2][s2, 1]");
  STRIDED(OP("flatten", T(x), I(1), I(1)), "f32[s0, s1, s2][s1*s2, s2, 1]");
  sdb_fake *s = X("s", SDB_F32, "");
  META(OP("flatten", T(s)), "f32[1]");
  assert_string_equal(ERR("flatten", T(x), I(2), I(1)),
                      "flatten() has invalid args: start_dim cannot come after end_dim");
  sdb_fake *y = X("y", SDB_F32, "!6,5");
  STRIDED(OP("unflatten", T(y), I(0), L(2, 2, -1)), "f32[2, 3, s3][3*s3, s3, 1]");
  STRIDED(OP("unflatten", T(y), I(-1), LE(2, y->sizes[1], sdb_int(1))), "f32[6, s3, 1][s3, 1, 1]");
  assert_string_equal(ERR("unflatten", T(y), I(0), L(2, 4, -1)),
                      "unflatten: Provided sizes [4, -1] don't multiply up to the size of dim 0 (6) in the "
                      "input tensor");
  assert_string_equal(ERR("unflatten", T(y), I(0), L(0)), "unflatten: sizes must be non-empty");
  /* symbolic: the divisibility guard of infer_size */
  sdb_fake *z = X("z", SDB_F32, "8");
  META(OP("unflatten", T(z), I(0), L(2, -1, 2)), "f32[(s4//2), 2]");
  GUARDS("Eq(Mod(s4, 2), 0)");
}

static void test_unsqueeze_squeeze(void **state) {
  (void)state;
  sdb_fake *x = X("x", SDB_F32, "3,4");
  sdb_value *u = OP("unsqueeze", T(x), I(1));
  STRIDED(u, "f32[s0, 1, s1][s1, s1, 1]");
  assert_ptr_equal(TEN(u)->storage, x->storage);
  STRIDED(OP("unsqueeze", T(x), I(-1)), "f32[s0, s1, 1][s1, 1, 1]");
  STRIDED(OP("unsqueeze", T(x), I(0)), "f32[1, s0, s1][s0*s1, s1, 1]");
  assert_string_equal(ERR("unsqueeze", T(x), I(3)),
                      "Dimension out of range (expected to be in range of [-3, 2], but got 3)");
  sdb_fake *y = X("y", SDB_F32, "1,5,1");
  META(OP("clone", T(y)), "f32[1, s2, 1]");
  STRIDED(OP("squeeze", T(y)), "f32[s2][1]");
  STRIDED(OP("squeeze", T(y), I(0)), "f32[s2, 1][1, 1]");
  STRIDED(OP("squeeze", T(y), L(2, 0, 2)), "f32[s2][1]");
  META(OP("squeeze", T(y), I(1)), "f32[1, s2, 1]");        /* s2 >= 2: stays */
  sdb_fake *ub = X("ub", SDB_F32, "u1,!1");
  META(OP("squeeze", T(ub)), "f32[u0]");                   /* u0 is not known to be 1 */
  GUARDS("");
}

static void test_permute_transpose(void **state) {
  (void)state;
  sdb_fake *x = X("x", SDB_F32, "2,3,4");
  sdb_value *p = OP("permute", T(x), I(2), I(0), I(1));
  STRIDED(p, "f32[s2, s0, s1][1, s1*s2, s2]");
  assert_ptr_equal(TEN(p)->storage, x->storage);
  STRIDED(OP("permute", T(x), L(3, -1, 1, 0)), "f32[s2, s1, s0][1, s2, s1*s2]");
  assert_string_equal(ERR("permute", T(x), I(0), I(1)),
                      "permute(sparse_coo): number of dimensions in the tensor input does not match the "
                      "length of the desired ordering of dimensions i.e. input.dim() = 3 is not equal to "
                      "len(dims) = 2");
  assert_string_equal(ERR("permute", T(x), I(0), I(1), I(-3)), "permute(): duplicate dims are not allowed.");
  STRIDED(OP("transpose", T(x), I(0), I(2)), "f32[s2, s1, s0][1, s2, s1*s2]");
  STRIDED(OP("transpose", T(x), I(-1), I(-2)), "f32[s0, s2, s1][s1*s2, 1, s2]");
  assert_string_equal(ERR("t", T(x)), "t() expects a tensor with <= 2 dimensions, but self is 3D");
  sdb_fake *v = X("v", SDB_F32, "5");
  STRIDED(OP("t", T(v)), "f32[s3][1]");
  STRIDED(OP("movedim", T(x), I(0), I(-1)), "f32[s1, s2, s0][s2, 1, s1*s2]");
  STRIDED(OP("movedim", T(x), L(2, 0, 1), L(2, 2, 0)), "f32[s1, s2, s0][s2, 1, s1*s2]");
  assert_string_equal(ERR("movedim", T(x), L(2, 0, 1), L(1, 2)),
                      "movedim: Invalid source or destination dims: source (2 dims) should contain the same "
                      "number of dims as destination (1 dims)");
  sdb_value *as = OP("as_strided", T(x), L(2, 2, 2), L(2, 1, 2), I(3));
  STRIDED(as, "f32[2, 2][1, 2]");
  OFFSET(as, "3");
  assert_ptr_equal(TEN(as)->storage, x->storage);
  GUARDS("");
}

static void test_expand(void **state) {
  (void)state;
  sdb_fake *x = X("x", SDB_F32, "3,1");
  sdb_value *e = OP("expand", T(x), I(-1), I(4));
  STRIDED(e, "f32[s0, 4][1, 0]");
  assert_ptr_equal(TEN(e)->storage, x->storage);
  STRIDED(OP("expand", T(x), L(3, 2, -1, 5)), "f32[2, s0, 5][0, 1, 0]");
  STRIDED(OP("expand", T(x), I(1), I(-1), I(1)), "f32[1, s0, 1][s0, 1, 1]");
  sdb_fake *y = X("y", SDB_F32, "3,6");
  STRIDED(OP("expand_as", T(x), T(y)), "f32[s0, s1][1, 0]");
  GUARDS("");
  assert_string_equal(ERR("expand", T(x), I(-1), I(-1), I(1)),
                      "The expanded size of the tensor (-1) isn't allowed in a leading, non-existing dimension 0");
  sdb_fake *c = X("c", SDB_F32, "!3");
  assert_string_equal(ERR("expand", T(c), I(4)),
                      "The expanded size of the tensor (4) must match the existing size (3) at non-singleton "
                      "dimension 0.  Target sizes: [4].  Tensor sizes: [3]");
  assert_string_equal(ERR("expand", T(y), I(4)),
                      "expand(torch.FloatTensor{[s0, s1]}, size=[4]): the number of sizes provided (1) must be "
                      "greater or equal to the number of dimensions in the tensor (2)");
}

/* a non-1 dim must match the target: a guard when backed */
static void test_expand_guards(void **state) {
  (void)state;
  no_duck();
  sdb_fake *x = X("x", SDB_F32, "3"), *y = X("y", SDB_F32, "3");
  STRIDED(OP("expand", T(x), E(y->sizes[0])), "f32[s0][1]");
  GUARDS("Eq(s0, s1)");
  sdb_fake *z = X("z", SDB_F32, "4");
  assert_string_equal(ERR("expand_as", T(x), T(z)),
                      "The expanded size of the tensor (s2) must match the existing size (s0) at non-singleton "
                      "dimension 0.  Target sizes: [s2].  Tensor sizes: [s0]");
  GUARDS("Eq(s0, s1); Ne(s0, s2)");
  sdb_fake *u = X("u", SDB_F32, "u3");
  STRIDED(OP("expand", T(u), E(x->sizes[0])), "f32[s0][1]");    /* u0 is replaced by s0 */
  ASSERTS("Eq(s0, u0)");
}

static void test_contiguous_flip_roll(void **state) {
  (void)state;
  sdb_fake *x = X("x", SDB_F32, "3,4");
  assert_ptr_equal(TEN(OP("contiguous", T(x))), x);
  sdb_value *xt = OP("transpose", T(x), I(0), I(1));
  sdb_value *c = OP("contiguous", T(TEN(xt)));
  STRIDED(c, "f32[s1, s0][s0, 1]");
  assert_ptr_not_equal(TEN(c)->storage, x->storage);
  STRIDED(OP("clone", T(TEN(xt))), "f32[s1, s0][1, s1]");
  STRIDED(OPK("clone", K({"memory_format", S("torch.contiguous_format")}), T(TEN(xt))), "f32[s1, s0][s0, 1]");
  sdb_value *f = OP("flip", T(x), L(1, 0));
  STRIDED(f, "f32[s0, s1][s1, 1]");
  assert_ptr_not_equal(TEN(f)->storage, x->storage);
  META(OP("flip", T(x), I(0), I(1)), "f32[s0, s1]");
  assert_string_equal(ERR("flip", T(x), L(2, 0, -2)), "dim 0 appears multiple times in the list of dims");
  META(OP("roll", T(x), I(1)), "f32[s0, s1]");
  META(OP("roll", T(x), L(2, 1, 2), L(2, 0, 1)), "f32[s0, s1]");
  assert_string_equal(ERR("roll", T(x), L(2, 1, 2), I(0)),
                      "shifts and dimensions must align. shifts: 2, dims:1");
  GUARDS("");
}

/* ------------------------------------------------------------------------
** Joining, splitting, indexing
** ---------------------------------------------------------------------- */

static void test_cat_stack(void **state) {
  (void)state;
  sdb_fake *x = X("x", SDB_F32, "3,!2"), *y = X("y", SDB_F32, "5,!2");
  sdb_value *c = OP("cat", LT(2, x, y));
  STRIDED(c, "f32[s0 + s1, 2][2, 1]");
  assert_ptr_not_equal(TEN(c)->storage, x->storage);
  META(OP("cat", LT(3, x, y, x), I(-2)), "f32[2*s0 + s1, 2]");
  sdb_fake *xi = X("xi", SDB_I64, "3,!2");
  META(OP("cat", LT(2, xi, x), I(1)), "f32[s0, 4]");
  /* a 1-D empty tensor is skipped (legacy) */
  sdb_fake *e = X("e", SDB_F32, "!0");
  META(OP("cat", LT(3, e, x, e), I(1)), "f32[s0, 2]");
  META(OP("cat", LT(2, e, e)), "f32[0]");
  GUARDS("");
  sdb_fake *z = X("z", SDB_F32, "!4,!3"), *zz = X("zz", SDB_F32, "!4,!2");
  assert_string_equal(ERR("cat", LT(2, z, zz), I(0)),
                      "Sizes of tensors must match except in dimension 0. Expected 3 in dimension 1 but got 2 "
                      "for tensor number 1 in the list");
  sdb_fake *v = X("v", SDB_F32, "!3");
  assert_string_equal(ERR("cat", LT(2, z, v)),
                      "Number of dimensions of tensors must match.  Expected 2-D tensors, but got 1-D for "
                      "tensor number 1 in the list");
  sdb_fake *t3 = X("t3", SDB_F32, "!4,!3,!1");
  assert_string_equal(ERR("cat", LT(2, z, t3)),
                      "Number of dimensions of tensors must match.  Expected 2-D tensors, but got 3-D for "
                      "tensor number 1 in the list");
  assert_string_equal(ERR("cat", LT(0)), "cat expects at least one tensor, but received zero!");
  sdb_fake *s = X("s", SDB_F32, "");
  assert_string_equal(ERR("cat", LT(2, s, s)), "zero-dimensional tensor (at position 0) cannot be concatenated");
  /* stack */
  META(OP("stack", LT(2, x, x)), "f32[2, s0, 2]");
  META(OP("stack", LT(3, x, x, xi), I(-1)), "f32[s0, 2, 3]");
  META(OP("stack", LT(2, x, x), I(1)), "f32[s0, 2, 2]");
  assert_string_equal(ERR("stack", LT(2, z, zz)),
                      "stack expects each tensor to be equal size, but got [4, 3] at entry 0 and [4, 2] at entry 1");
  assert_string_equal(ERR("stack", LT(0)), "stack expects a non-empty TensorList");
  GUARDS("");
}

/* cat's other dims must match: a guard when backed */
static void test_cat_guards(void **state) {
  (void)state;
  no_duck();
  sdb_fake *x = X("x", SDB_F32, "3,4"), *y = X("y", SDB_F32, "3,5");
  META(OP("cat", LT(2, x, y), I(1)), "f32[s0, s1 + s3]");
  GUARDS("Eq(s0, s2)");
  /* a symbolic 1-D tensor is not empty (s >= 2): it must match */
  sdb_fake *v = X("v", SDB_F32, "7");
  assert_string_equal(ERR("cat", LT(2, x, v)),
                      "Number of dimensions of tensors must match.  Expected 2-D tensors, but got 1-D for "
                      "tensor number 1 in the list");
  sdb_fake *s2 = X("s2", SDB_F32, "3,4");
  META(OP("stack", LT(2, x, s2)), "f32[2, s0, s1]");
  GUARDS("Eq(s0, s2); Eq(s0, s5); Eq(s1, s6)");
}

static void test_split_chunk_unbind(void **state) {
  (void)state;
  sdb_fake *x = X("x", SDB_F32, "!5,!2");
  sdb_value *sp = OP("split", T(x), I(2));
  check_text(sp, "(f32[2, 2], f32[2, 2], f32[1, 2])");
  OFFSET(&sp->items[0], "0");
  OFFSET(&sp->items[1], "4");
  OFFSET(&sp->items[2], "8");
  assert_ptr_equal(TEN(&sp->items[2])->storage, x->storage);
  check_text(OP("split", T(x), L(2, 3, 2)), "(f32[3, 2], f32[2, 2])");
  sdb_value *col = OP("split", T(x), I(1), I(1));
  check_text(col, "(f32[5, 1], f32[5, 1])");
  STRIDED(&col->items[1], "f32[5, 1][2, 1]");
  OFFSET(&col->items[1], "1");
  assert_string_equal(ERR("split", T(x), L(2, 3, 3)),
                      "split_with_sizes expects split_sizes to sum exactly to 5 (input tensor's size at "
                      "dimension 0), but got split_sizes=[3, 3]");
  check_text(OP("chunk", T(x), I(2)), "(f32[3, 2], f32[2, 2])");
  sdb_fake *six = X("six", SDB_F32, "!6");
  check_text(OP("chunk", T(six), I(4)), "(f32[2], f32[2], f32[2])");
  assert_string_equal(ERR("chunk", T(six), I(0)), "chunk expects `chunks` to be greater than 0, got: 0");
  sdb_value *ub = OP("unbind", T(x), I(1));
  check_text(ub, "(f32[5], f32[5])");
  STRIDED(&ub->items[1], "f32[5][2]");
  OFFSET(&ub->items[1], "1");
  GUARDS("");
  /* symbolic: the number of pieces is an int, so it is guarded on */
  sdb_fake *s = X("s", SDB_F32, "5");
  sdb_value *ss = OP("split", T(s), I(2));
  check_text(ss, "(f32[2], f32[2], f32[s0 - 4])");
  GUARDS("Eq(((s0 + 1)//2), 3)");
  check_text(OP("unbind", T(TEN(OP("view", T(x), I(-1))))), "(f32[], f32[], f32[], f32[], f32[], f32[], f32[], f32[], f32[], f32[])");
  sdb_fake *t = X("t", SDB_F32, "3");
  check_text(OP("unbind", T(t)), "(f32[], f32[], f32[])");
  GUARDS("Eq(((s0 + 1)//2), 3); Eq(s1, 3)");
  /* unbacked: the number of pieces is data-dependent */
  sdb_fake *u = X("u", SDB_F32, "u3");
  const char *m = ERR("unbind", T(u));
  assert_true(!strncmp(m, "Could not extract specialized integer from data-dependent expression u0 (unhinted: u0).", 85));
}

static void test_select_narrow_slice(void **state) {
  (void)state;
  sdb_fake *x = X("x", SDB_F32, "!3,!4");
  sdb_value *s = OP("select", T(x), I(0), I(1));
  STRIDED(s, "f32[4][1]");
  OFFSET(s, "4");
  assert_ptr_equal(TEN(s)->storage, x->storage);
  OFFSET(OP("select", T(x), I(0), I(-1)), "8");
  sdb_value *sc = OP("select", T(x), I(1), I(2));
  STRIDED(sc, "f32[3][4]");
  OFFSET(sc, "2");
  assert_string_equal(ERR("select", T(x), I(0), I(3)),
                      "select(): index 3 out of range for tensor of size [3, 4] at dimension 0");
  assert_string_equal(ERR("select", T(TEN(OP("sum", T(x)))), I(0), I(0)),
                      "select() cannot be applied to a 0-dim tensor.");
  sdb_value *n = OP("narrow", T(x), I(1), I(1), I(2));
  STRIDED(n, "f32[3, 2][4, 1]");
  OFFSET(n, "1");
  OFFSET(OP("narrow", T(x), I(0), I(-2), I(2)), "4");
  assert_string_equal(ERR("narrow", T(x), I(0), I(2), I(2)), "start (2) + length (2) exceeds dimension size (3).");
  assert_string_equal(ERR("narrow", T(x), I(0), I(-4), I(1)),
                      "start out of range (expected to be in range of [-3, 3], but got -4)");
  assert_string_equal(ERR("narrow", T(x), I(0), I(0), I(-1)), "narrow(): length must be non-negative.");
  /* slices clamp */
  sdb_fake *y = X("y", SDB_F32, "!10");
  sdb_value *sl = OP("slice", T(y), I(0), I(1), I(8), I(2));
  STRIDED(sl, "f32[4][2]");
  OFFSET(sl, "1");
  META(OP("slice", T(y), I(0), I(-2)), "f32[2]");
  META(OP("slice", T(y), I(0), I(3), I(100)), "f32[7]");
  META(OP("slice", T(y), I(0), I(7), I(3)), "f32[0]");
  META(OP("slice", T(y), I(0), I(-100), I(-8)), "f32[2]");
  GUARDS("");
  /* symbolic sizes, as fake_impls' _compute_slice_index: a bound that
  ** guard_or_false places in range is taken as it is (a guard on the hint,
  ** 3 <= s0), one known in range needs none */
  sdb_fake *z = X("z", SDB_F32, "6,!4");
  sdb_value *zs = OP("slice", T(z), I(0), I(1), I(3));
  STRIDED(zs, "f32[2, 4][4, 1]");
  OFFSET(zs, "4");
  GUARDS("3 <= s0");
  META(OP("slice", T(z), I(0), I(2)), "f32[s0 - 2, 4]");
  META(OP("slice", T(z), I(0), I(-1)), "f32[1, 4]");
  META(OPK("slice", K({"end", E(z->sizes[0])}), T(z)), "f32[s0, 4]");
  GUARDS("3 <= s0");
  sdb_value *zn = OP("narrow", T(z), I(0), I(1), I(2));
  META(zn, "f32[2, 4]");
  GUARDS("3 <= s0");   /* narrow's 1 <= s0 - 2 follows from it */
  sdb_fake *w = X("w", SDB_F32, "7,!4");
  META(OP("narrow", T(w), I(0), I(1), I(2)), "f32[2, 4]");
  GUARDS("3 <= s0; 1 <= s1 - 2");   /* Le(start, size - length), as built */
  /* a data-dependent index: an unbacked storage offset */
  sdb_fake *idx = X("idx", SDB_I64, "");
  sdb_value *it = OP("item", T(idx));
  sdb_value *sd = OP("select", T(x), I(0), E(it->expr));
  META(sd, "f32[4]");
  OFFSET(sd, "u1");
  sdb_value *sp = OP("select", T(x), I(0), E(sdb_add(it->expr, sdb_int(0))));
  OFFSET(sp, "u2");
}

static void test_index_gather_scatter(void **state) {
  (void)state;
  sdb_fake *x = X("x", SDB_F32, "3,4"), *i = X("i", SDB_I64, "5");
  META(OP("index_select", T(x), I(0), T(i)), "f32[s2, s1]");
  sdb_fake *i2 = X("i2", SDB_I64, "!2,5");
  META(OP("index_select", T(x), I(1), T(TEN(OP("view", T(i2), I(-1))))), "f32[s0, 2*s2]");
  assert_string_equal(ERR("index_select", T(x), I(0), T(i2)), "index_select(): Index is supposed to be a vector");
  assert_string_equal(ERR("index_select", T(x), I(0), T(TEN(OP("sum", T(x), I(0))))),
                      "index_select(): Expected dtype int32 or int64 for index");
  sdb_fake *g = X("g", SDB_I64, "!2,!2");
  META(OP("gather", T(x), I(1), T(g)), "f32[2, 2]");
  assert_string_equal(ERR("gather", T(x), I(1), T(i)),
                      "Index tensor must have the same number of dimensions as input tensor");
  META(OP("scatter", T(x), I(0), T(g), T(x)), "f32[s0, s1]");
  META(OPK("scatter", K({"value", Fl(1.0)}), T(x), I(0), T(g)), "f32[s0, s1]");
  /* advanced indexing with integer tensors */
  META(OP("index", T(x), LT(1, i)), "f32[s2, s1]");
  META(OP("index", T(x), LV(2, N(), T(i))), "f32[s0, s2]");
  sdb_fake *j = X("j", SDB_I64, "!1");
  META(OP("index", T(x), LT(2, i, j)), "f32[s2]");
  GUARDS("");
}

/* x[mask]: the size of mask.nonzero(), memoized on the mask */
static void test_index_bool_mask(void **state) {
  (void)state;
  sdb_fake *x = X("x", SDB_F32, "!3,!4"), *mask = X("mask", SDB_BOOL, "!3,!4");
  sdb_value *a = OP("index", T(x), LT(1, mask));
  META(a, "f32[u0]");
  check_range(SZ(a, 0), "[0, 12]");
  sdb_value *b = OP("index", T(x), T(mask));
  META(b, "f32[u0]");
  assert_int_equal(count_events(SDB_EV_MEMO_HIT), 1);
  sdb_fake *row = X("row", SDB_BOOL, "!3");
  META(OP("index", T(x), LT(1, row)), "f32[u1, 4]");
  META(OP("nonzero", T(row)), "i64[u1, 1]");
  /* a mask after a full slice; index tensors apart: their dims go first */
  sdb_fake *x3 = X("x3", SDB_F32, "!3,!4,!5"), *m4 = X("m4", SDB_BOOL, "!4"), *i2 = X("i2", SDB_I64, "!2");
  META(OP("index", T(x3), LV(2, N(), T(m4))), "f32[3, u2, 5]");
  META(OP("index", T(x3), LV(3, T(i2), N(), T(i2))), "f32[2, 4]");
  META(OP("index", T(x3), LV(2, N(), T(i2))), "f32[3, 2, 5]");
  assert_string_equal(ERR("index", T(x3), LV(4, T(i2), T(i2), T(i2), T(i2))),
                      "too many indices for tensor of dimension 3 (got 4)");
  sdb_fake *bad = X("bad", SDB_BOOL, "!4");
  assert_string_equal(ERR("index", T(x), LT(1, bad)),
                      "The shape of the mask [4] at index 0 does not match the shape of the indexed tensor "
                      "[3, 4] at index 0");
  GUARDS("");
}

static void test_clone_detach_repeat(void **state) {
  (void)state;
  sdb_fake *x = Xg("x", SDB_F32, "3,4", true);
  sdb_value *c = OP("clone", T(x));
  STRIDED(c, "f32[s0, s1][s1, 1]");
  assert_ptr_not_equal(TEN(c)->storage, x->storage);
  assert_true(TEN(c)->requires_grad);
  sdb_value *d = OP("detach", T(x));
  STRIDED(d, "f32[s0, s1][s1, 1]");
  assert_ptr_equal(TEN(d)->storage, x->storage);
  assert_false(TEN(d)->requires_grad);
  META(OP("repeat", T(x), I(2), I(1), I(3)), "f32[2, s0, 3*s1]");
  META(OP("repeat", T(x), L(2, 1, 1)), "f32[s0, s1]");
  assert_string_equal(ERR("repeat", T(x), I(2)),
                      "Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor");
  META(OP("tile", T(x), I(2)), "f32[s0, 2*s1]");
  META(OP("tile", T(x), L(3, 2, 2, 2)), "f32[2, 2*s0, 2*s1]");
  GUARDS("");
}

int main(void) {
  const struct CMUnitTest tests[] = {
#define T_(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
    T_(test_view_contiguous),
    T_(test_view_guards),
    T_(test_view_unbacked),
    T_(test_view_noncontiguous),
    T_(test_flatten_unflatten),
    T_(test_unsqueeze_squeeze),
    T_(test_permute_transpose),
    T_(test_expand),
    T_(test_expand_guards),
    T_(test_contiguous_flip_roll),
    T_(test_cat_stack),
    T_(test_cat_guards),
    T_(test_split_chunk_unbind),
    T_(test_select_narrow_slice),
    T_(test_index_gather_scatter),
    T_(test_index_bool_mask),
    T_(test_clone_detach_repeat),
#undef T_
  };
  cmocka_set_message_output(CM_OUTPUT_TAP);
  int rc = cmocka_run_group_tests_name("ops_views", tests, NULL, NULL);
  sdb_expr_reset();
  return rc;
}
