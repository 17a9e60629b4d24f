/*
** nonzero_input.h — the input of the tests' nonzero model, as the Lua
** front end hands it to aot: scripts/nonzero.lua's x, a 5x2 float32 on
** the cpu, its first dimension dynamic (test_view, test_oom), and the
** teardown of its trace.
*/
#ifndef NONZERO_INPUT_H
#define NONZERO_INPUT_H

#include "aot.h"
#include "intern.h"
#include "shape_env.h"
#include "source.h"
#include "symctx.h"
#include "tracer.h"

#include <stdbool.h>
#include <string.h>

/* Fills *in for x, with ctx (its dimension 0 made dynamic). false on OOM. */
static inline bool nonzero_input(sdb_aot_input *in, sdb_symctx *ctx) {
  ctx->sizes[0].dynamic = SDB_DIM_DYNAMIC;
  memset(in, 0, sizeof *in);
  in->argname = sdb_intern("x");
  in->source = sdb_source_local("x");
  in->is_tensor = true;
  in->sizes[0] = 5;
  in->sizes[1] = 2;
  in->ndim = 2;
  in->dtype = SDB_F32;
  in->device = sdb_intern("cpu");
  in->ctx = ctx;
  return in->argname && in->source && in->device;
}

/* Frees the trace's side of the model, the tracer before its graph and
** the mode before the ShapeEnv (each may be NULL). */
static inline void nonzero_free(sdb_fake *x, sdb_tracer *tr, sdb_graph *g, sdb_symctx *ctx,
                                sdb_fake_mode *mode, sdb_shape_env *env) {
  sdb_fake_unref(x);
  sdb_tracer_free(tr);
  sdb_graph_free(g);
  sdb_symctx_free(ctx);
  sdb_fake_mode_free(mode);
  sdb_shape_env_free(env);
}

#endif
