/*
** test_torch_trace.c — the TORCH_TRACE reader on the four real sample logs
** (read from $SHAPEDB_SHARED/examples/torch_trace, never copied) and on
** corrupted copies written to a temporary directory by the tests.
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <zlib.h>

#include "buf.h"
#include "intern.h"
#include "jsonline.h"
#include "torch_trace.h"
#include "torch_trace_import.h"

static char tmpdir[256];

static const char *sample(const char *name) {
  static char path[1024];
  const char *shared = getenv("SHAPEDB_SHARED");
  snprintf(path, sizeof path, "%s/examples/torch_trace/%s", shared ? shared : "../shared", name);
  return path;
}

static char *slurp(const char *path, size_t *n) {
  FILE *f = fopen(path, "rb");
  if (!f) fail_msg("cannot open %s", path);
  sdb_buf b = SDB_BUF_INIT;
  char chunk[65536];
  size_t got;
  while ((got = fread(chunk, 1, sizeof chunk, f)) > 0) sdb_buf_putn(&b, chunk, got);
  fclose(f);
  *n = b.len;
  return sdb_buf_take(&b);
}

static const char *write_tmp(const char *name, const char *data, size_t n) {
  static char path[512];
  snprintf(path, sizeof path, "%s/%s", tmpdir, name);
  FILE *f = fopen(path, "wb");
  if (!f) fail_msg("cannot write %s", path);
  fwrite(data, 1, n, f);
  fclose(f);
  return path;
}

/* Everything a test wants to know about one file, read in one pass. */
typedef struct summary {
  long records;
  sdb_buf kinds;     /* "kind=count " in first-seen order */
  sdb_buf probs;     /* "line: what\n" */
  sdb_buf cids;      /* "[0/0]x12 " */
  long payload_bad;
  sdb_tt_record first_guard;
} summary;

static void read_all(const char *path, summary *s) {
  memset(s, 0, sizeof *s);
  sdb_tt_reader *r;
  sdb_err err = SDB_ERR_INIT;
  if (sdb_tt_open(path, &r, &err)) fail_msg("open %s: %s", path, err.msg);
  const sdb_tt_record *rec;
  int rc;
  while ((rc = sdb_tt_next(r, &rec, &err)) == 1) {
    s->records++;
    if (rec->has_payload && !rec->payload_ok) s->payload_bad++;
  }
  assert_int_equal(rc, 0);
  assert_int_equal(s->records, sdb_tt_nrecords(r));
  for (size_t i = 0; i < sdb_tt_nkinds(r); i++) {
    const sdb_tt_kind *k = sdb_tt_kind_at(r, i);
    sdb_buf_printf(&s->kinds, "%s=%ld ", k->kind, k->count);
  }
  for (size_t i = 0; i < sdb_tt_nproblems(r); i++) {
    const sdb_tt_problem *p = sdb_tt_problem_at(r, i);
    assert_string_equal(p->file, path);
    sdb_buf_printf(&s->probs, "%ld: %s\n", p->line, p->what);
  }
  for (size_t i = 0; i < sdb_tt_ncompiles(r); i++) {
    const sdb_tt_compile *c = sdb_tt_compile_at(r, i);
    char b[64];
    sdb_buf_printf(&s->cids, "%sx%ld ", sdb_tt_cid_str(&c->cid, b, sizeof b), c->records);
  }
  sdb_tt_close(r);
}

static void summary_free(summary *s) {
  sdb_buf_free(&s->kinds);
  sdb_buf_free(&s->probs);
  sdb_buf_free(&s->cids);
}

static void test_links(void **state) {
  (void)state;
  summary s;
  read_all(sample("tlparse_links.log"), &s);
  assert_int_equal(s.records, 12);
  assert_string_equal(sdb_buf_cstr(&s.kinds),
                      "str=3 dynamo_start=1 dynamo_output_graph=1 link=1 aot_forward_graph=1 "
                      "inductor_post_grad_graph=1 inductor_output_code=1 dynamo_guards=1 "
                      "dynamo_cpp_guards_str=1 compilation_metrics=1 ");
  assert_string_equal(sdb_buf_cstr(&s.probs), "");
  assert_int_equal(s.payload_bad, 0);
  assert_string_equal(sdb_buf_cstr(&s.cids), "[0/0]x9 ");
  summary_free(&s);
}

static void test_export_guard_added(void **state) {
  (void)state;
  summary s;
  read_all(sample("tlparse_export_guard_added.log"), &s);
  assert_int_equal(s.records, 39);
  assert_string_equal(sdb_buf_cstr(&s.kinds),
                      "str=36 expression_created=1 guard_added=1 exported_program=1 ");
  /* the published file has a bare empty line inside the exported_program
  ** payload and its MD5 does not match: both reported, the record kept */
  assert_int_equal(s.payload_bad, 1);
  /* and its timestamps go back once (file order is the truth) */
  assert_string_equal(sdb_buf_cstr(&s.probs),
                      "26: timestamp goes back 0.002000 s (file order kept)\n"
                      "46: empty line inside a payload (kept as an empty payload line)\n"
                      "39: exported_program: payload MD5 3d7ae79af0d54ed5a1148c7a5f268532 "
                      "does not match has_payload ad5752e29c50d388a36417d1031ae0e7 (9 lines)\n");
  assert_string_equal(sdb_buf_cstr(&s.cids), "");
  summary_free(&s);
}

static void test_comp_failure(void **state) {
  (void)state;
  summary s;
  read_all(sample("tlparse_comp_failure.log"), &s);
  assert_int_equal(s.records, 21);
  assert_string_equal(sdb_buf_cstr(&s.probs), "");
  assert_int_equal(s.payload_bad, 0);
  summary_free(&s);
}

static void test_artifacts(void **state) {
  (void)state;
  summary s;
  read_all(sample("tlparse_artifacts.log"), &s);
  assert_int_equal(s.records, 20);
  assert_string_equal(sdb_buf_cstr(&s.probs), "");
  assert_int_equal(s.payload_bad, 0);
  summary_free(&s);
}

static void test_stack_frames(void **state) {
  (void)state;
  sdb_tt_reader *r;
  sdb_err err = SDB_ERR_INIT;
  assert_int_equal(sdb_tt_open(sample("tlparse_export_guard_added.log"), &r, &err), 0);
  const sdb_tt_record *rec;
  bool seen = false;
  while (sdb_tt_next(r, &rec, &err) == 1) {
    if (strcmp(rec->kind, "guard_added") != 0) continue;
    seen = true;
    assert_string_equal(sdb_jl_str(sdb_jl_get(rec->meta, "expr")), "Eq(s0, 3)");
    const cJSON *us = sdb_jl_get(rec->meta, "user_stack");
    sdb_tt_frame f;
    assert_int_equal(sdb_jl_len(us), 3);
    assert_true(sdb_tt_frame_get(r, us->child->next->next, &f));   /* the last, innermost */
    assert_string_equal(f.file, "/data/users/angelayi/pytorch/test/export/test_draft_export.py");
    assert_int_equal(f.line, 297);
    assert_string_equal(f.name, "forward");
    assert_string_equal(f.loc, "assert a.shape[0] == 3");
    assert_string_equal(rec->writer, "torch/_logging/_internal.py:1305");
    assert_int_equal(rec->pid, 3104603);
    assert_int_equal(rec->level, 'V');
  }
  assert_true(seen);
  sdb_tt_close(r);
}

static void test_cid_strings(void **state) {
  (void)state;
  char b[64];
  sdb_tt_cid c;
  assert_int_equal(sdb_tt_cid_parse("0/1", &c), 0);
  assert_string_equal(sdb_tt_cid_str(&c, b, sizeof b), "[0/1]");
  assert_int_equal(sdb_tt_cid_parse("[2/0_1]", &c), 0);
  assert_int_equal(c.attempt, 1);
  assert_string_equal(sdb_tt_cid_str(&c, b, sizeof b), "[2/0_1]");
  assert_int_equal(sdb_tt_cid_parse("!3/0/1", &c), 0);
  assert_string_equal(sdb_tt_cid_str(&c, b, sizeof b), "[!3/0/1]");
  assert_int_equal(sdb_tt_cid_parse("!3", &c), 0);
  assert_string_equal(sdb_tt_cid_str(&c, b, sizeof b), "[!3]");
  assert_true(sdb_tt_cid_parse("0", &c) < 0);
  assert_true(sdb_tt_cid_parse("0/x", &c) < 0);
  assert_true(sdb_tt_cid_parse("[0/1", &c) < 0);
}

static void test_missing_file(void **state) {
  (void)state;
  sdb_tt_reader *r;
  sdb_err err = SDB_ERR_INIT;
  assert_true(sdb_tt_open("/nonexistent/x.log", &r, &err) < 0);
  assert_string_equal(err.msg, "/nonexistent/x.log: No such file or directory");
  sdb_err_clear(&err);
}

/* ---- corrupted copies ------------------------------------------------ */

/* Replace the first occurrence of FROM by TO in a copy of SRC. */
static char *edit(const char *src, size_t n, const char *from, const char *to, size_t *out_n) {
  const char *at = strstr(src, from);
  if (!at) fail_msg("edit: '%s' not found", from);
  sdb_buf b = SDB_BUF_INIT;
  sdb_buf_putn(&b, src, (size_t)(at - src));
  sdb_buf_puts(&b, to);
  size_t rest = (size_t)(at - src) + strlen(from);
  sdb_buf_putn(&b, src + rest, n - rest);
  *out_n = b.len;
  return sdb_buf_take(&b);
}

static void test_bad_header_and_json(void **state) {
  (void)state;
  size_t n, m;
  char *src = slurp(sample("tlparse_links.log"), &n);
  /* line 2 ("str" record) loses its level letter; line 4's JSON breaks */
  char *a = edit(src, n, "\nV0516 11:47:27.901000 139733182882816 torch/_logging/structured.py",
                 "\n0516 11:47:27.901000 139733182882816 torch/_logging/structured.py", &m);
  summary s;
  read_all(write_tmp("bad_header.log", a, m), &s);
  assert_int_equal(s.records, 11);
  assert_string_equal(sdb_buf_cstr(&s.probs),
                      "2: bad header line: 0516 11:47:27.901000 139733182882816 "
                      "torch/_logging/structur...\n");
  summary_free(&s);
  free(a);
  a = edit(src, n, "{\"dynamo_start\": {", "{\"dynamo_start\": {{", &m);
  read_all(write_tmp("bad_json.log", a, m), &s);
  assert_int_equal(s.records, 11);
  assert_true(strstr(sdb_buf_cstr(&s.probs), ": bad JSON: ") != NULL);
  assert_true(strncmp(sdb_buf_cstr(&s.probs), "4: bad JSON: ", 13) == 0);
  summary_free(&s);
  free(a);
  free(src);
}

static void test_md5_mismatch(void **state) {
  (void)state;
  size_t n, m;
  char *src = slurp(sample("tlparse_links.log"), &n);
  char *a = edit(src, n, "\tclass GraphModule", "\tclass GraphModulX", &m);
  summary s;
  read_all(write_tmp("md5.log", a, m), &s);
  assert_int_equal(s.records, 12);
  assert_int_equal(s.payload_bad, 1);
  assert_true(strstr(sdb_buf_cstr(&s.probs), "dynamo_output_graph: payload MD5 ") != NULL);
  summary_free(&s);
  free(a);
  free(src);
}

static void test_truncated(void **state) {
  (void)state;
  size_t n;
  char *src = slurp(sample("tlparse_links.log"), &n);
  /* cut in the middle of the inductor_output_code payload */
  const char *at = strstr(src, "inductor_output_code");
  assert_non_null(at);
  const char *cut = strchr(strchr(at, '\n') + 1, '\n') + 5;
  summary s;
  read_all(write_tmp("trunc.log", src, (size_t)(cut - src)), &s);
  assert_int_equal(s.records, 9);
  assert_int_equal(s.payload_bad, 1);
  assert_string_equal(sdb_buf_cstr(&s.probs),
                      "43: inductor_output_code: payload cut short at line 45: "
                      "the file ends inside it (truncated)\n");
  summary_free(&s);
  /* cut inside a header line */
  at = strstr(src, "{\"dynamo_guards\"");
  read_all(write_tmp("trunc2.log", src, (size_t)(at - src) + 10), &s);
  assert_int_equal(s.records, 9);
  assert_string_equal(sdb_buf_cstr(&s.probs),
                      "128: bad JSON: premature end of input near '\"dynamo_g' (column 78); "
                      "the file ends inside this line (truncated)\n");
  summary_free(&s);
  free(src);
}

static void test_time_goes_back(void **state) {
  (void)state;
  size_t n, m;
  char *src = slurp(sample("tlparse_links.log"), &n);
  /* the first record is stamped an hour later than the rest */
  char *a = edit(src, n, "V0516 11:", "V0516 12:", &m);
  summary s;
  read_all(write_tmp("time.log", a, m), &s);
  assert_int_equal(s.records, 12);
  assert_string_equal(sdb_buf_cstr(&s.probs), "2: timestamp goes back 3600.000000 s (file order kept)\n");
  summary_free(&s);
  free(a);
  free(src);
}

static void test_gzip(void **state) {
  (void)state;
  size_t n;
  char *src = slurp(sample("tlparse_comp_failure.log"), &n);
  char path[512];
  snprintf(path, sizeof path, "%s/comp_failure.log.gz", tmpdir);
  gzFile gz = gzopen(path, "wb");
  assert_non_null(gz);
  assert_int_equal(gzwrite(gz, src, (unsigned)n), (int)n);
  gzclose(gz);
  summary s, t;
  read_all(path, &s);
  read_all(sample("tlparse_comp_failure.log"), &t);
  assert_int_equal(s.records, 21);
  assert_string_equal(sdb_buf_cstr(&s.kinds), sdb_buf_cstr(&t.kinds));
  assert_string_equal(sdb_buf_cstr(&s.probs), "");
  summary_free(&s);
  summary_free(&t);
  /* a truncated gzip stream: reported, what was read is kept */
  size_t gn;
  char *g = slurp(path, &gn);
  read_all(write_tmp("cut.log.gz", g, gn / 2), &s);
  assert_true(s.records > 0);
  assert_true(strstr(sdb_buf_cstr(&s.probs), "truncated") != NULL);
  summary_free(&s);
  free(g);
  free(src);
}

/* ---- the import into events ------------------------------------------ */

static char *events_text(sdb_events *ev) {
  sdb_buf b = SDB_BUF_INIT;
  for (size_t i = 0; i < sdb_events_count(ev); i++) {
    char *f = sdb_event_format(sdb_events_at(ev, i));
    sdb_buf_printf(&b, "%s\n", f);
    free(f);
  }
  return sdb_buf_take(&b);
}

static void test_import_export_log(void **state) {
  (void)state;
  sdb_events *ev = sdb_events_new();
  sdb_tti *t;
  sdb_err err = SDB_ERR_INIT;
  assert_int_equal(sdb_tti_import(sample("tlparse_export_guard_added.log"), ev, &t, &err), 0);
  char *s = events_text(ev);
  assert_string_equal(s,
    "trace  test_draft_export.py:297 phase_start trace ([-/-])\n"
    "trace  test_draft_export.py:297 tracer_push [-/-]\n"
    "trace  test_draft_export.py:297 create_symbol s0 (no hint) for ? "
    "(mentioned in expression_created)\n"
    "trace  test_draft_export.py:297 create_symbol s0 (no hint) for L['args'][0][0].size()[0] "
    "(source from guard_added)\n"
    "trace  test_draft_export.py:297 guard_added Eq(s0, 3)\n"
    "trace  test_draft_export.py:302 note exported_program: 9 lines "
    "(`info graph -/- exported_program`)\n"
    "trace  -                tracer_pop [-/-]\n"
    "trace  -                phase_end trace\n");
  free(s);
  const char *why;
  s = sdb_tti_tree(t, "Eq(s0, 3)", &why);
  assert_string_equal(s,
    "Eq(s0, 3)   guard eval at test_draft_export.py:297 in forward (guard_added, line 27)\n"
    "└─ eq(s0, 3) -> Eq(s0, 3)   (expression_created, id 140311800656080)\n"
    "   └─ s0: L['args'][0][0].size()[0]   (id 140311800650992)\n");
  free(s);
  assert_null(sdb_tti_tree(t, "Eq(s1, 3)", &why));
  assert_string_equal(why, "no guard of the log has this expression");
  sdb_tti_counts n = sdb_tti_totals(t);
  assert_int_equal(n.compiles, 1);
  assert_int_equal(n.symbols, 1);
  assert_int_equal(n.unbacked, 0);
  assert_int_equal(n.guards, 1);
  assert_int_equal(n.graphs, 1);
  assert_int_equal(n.expressions, 1);
  const sdb_tti_compile *c = sdb_tti_find(t, "-/-");
  assert_non_null(c);
  assert_non_null(sdb_tti_graph_find(c, "exported_program"));
  sdb_tti_free(t);
  sdb_events_free(ev);
}

static void test_import_failure_and_guards(void **state) {
  (void)state;
  sdb_events *ev = sdb_events_new();
  sdb_tti *t;
  sdb_err err = SDB_ERR_INIT;
  assert_int_equal(sdb_tti_import(sample("tlparse_comp_failure.log"), ev, &t, &err), 0);
  char *s = sdb_tti_compiles_text(t);
  assert_string_equal(s,
    "[0/0]    fn (test_misc.py:10755)  failed: BackendCompilerFailed: backend='broken_backend' "
    "raised: RuntimeError: broken backend\n"
    "         symbols 0 (0 unbacked), guards 0, runtime asserts 0, specializations 0, graphs 1\n");
  free(s);
  sdb_tti_free(t);
  sdb_events_free(ev);
  ev = sdb_events_new();
  assert_int_equal(sdb_tti_import(sample("tlparse_links.log"), ev, &t, &err), 0);
  const sdb_tti_compile *c = sdb_tti_find(t, "0/0");
  assert_non_null(c);
  assert_string_equal(c->status, "ok");
  assert_string_equal(c->func, "forward");
  assert_string_equal(c->installed_from, "dynamo_cpp_guards_str");
  assert_int_equal(c->ninstalled, 13);   /* the TENSOR_MATCH, ID_MATCH... lines */
  assert_int_equal(c->ngraphs, 6);
  sdb_tti_free(t);
  sdb_events_free(ev);
}

static int make_tmp(void **state) {
  (void)state;
  snprintf(tmpdir, sizeof tmpdir, "/tmp/sdb_tt_XXXXXX");
  return mkdtemp(tmpdir) ? 0 : -1;
}

static int rm_tmp(void **state) {
  (void)state;
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
  return system(cmd) == 0 ? 0 : -1;
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_links),
    cmocka_unit_test(test_export_guard_added),
    cmocka_unit_test(test_comp_failure),
    cmocka_unit_test(test_artifacts),
    cmocka_unit_test(test_stack_frames),
    cmocka_unit_test(test_cid_strings),
    cmocka_unit_test(test_missing_file),
    cmocka_unit_test(test_bad_header_and_json),
    cmocka_unit_test(test_md5_mismatch),
    cmocka_unit_test(test_truncated),
    cmocka_unit_test(test_time_goes_back),
    cmocka_unit_test(test_gzip),
    cmocka_unit_test(test_import_export_log),
    cmocka_unit_test(test_import_failure_and_guards),
  };
  cmocka_set_message_output(CM_OUTPUT_TAP);
  int rc = cmocka_run_group_tests(tests, make_tmp, rm_tmp);
  sdb_sites_reset();
  sdb_intern_reset();
  sdb_expr_reset();
  return rc;
}
