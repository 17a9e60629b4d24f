/*
** probe.h — questions about expressions at a stop, with no live program.
**
** The debugger stops at a step of the event stream; what it knows there is
** an sdb_view (view.h). A probe is a ShapeEnv rebuilt from that view: every
** symbol of the current compile as the view last saw it (name, unbacked or
** backed with its hint, type, latest range, size-like), the replacements in
** force, the guards and runtime asserts re-added as facts (in event order),
** then hypothetical facts — the REPL's `assume` list — in order. The
** ShapeEnv's own reasoning (replacements, ranges, axioms, divisibility)
** then answers the REPL's three commands:
**
**   print EXPR    its simplified value, range, and whether it is known
**   why EXPR      why it is (or is not) statically known: the ranges and
**                 facts involved, and a counterexample from a bounded search
**   assume FACT   what a torch._check(FACT) here would change: the pending
**                 questions it settles, ranges, replacements
**
** Expressions are shown in sympy's spelling (sdb_expr_str). A relation in
** one integer symbol is shown solved for it ("simplified": Eq(507 - u0, 0)
** is Eq(u0, 507)); that form is only a spelling, never fed back.
**
** Text formats (tests/unit/test_probe.c pins each; "R" is a range such as
** [0, int_oo], clauses are joined by "; "):
**
** A reason — why something is decided — is one or more clauses:
**   s1 is replaced by s0 (solve)                  a replacement used
**   u0 is in [0, 10] (size-like)                  the range(s) decide it
**   Ne(u0, 5) holds (runtime assert, f.lua:8)     one fact decides it
**                   (guard, f.lua:3) / (assumed) / (..., event N) w/o file
**   it follows from several facts together
**   it is a constant
**
** sdb_probe_print:
**   True                                          known
**     statically known: REASON
**   u0 + 1                                        not known (simplified)
**     [s1 is replaced by s0 (solve); ]range [1, 11]; not statically known (unbacked u0)
**     ...; not statically known; backed: hint 10  (every symbol backed)
** (booleans show no range line part.)
**
** sdb_probe_why, known:
**   u0 >= 0 is statically known True at this step: REASON.
** not known:
**   Eq(507 - u0, 0) is not statically known at this step.
**     simplified: Eq(u0, 507)                     only when it differs
**     s1 is replaced by s0 (solve)                each replaced symbol of EXPR
**     u0: unbacked int, range [0, int_oo], size-like, created by nonzero at nonzero.lua:6
**     s0: backed int, hint 5, range [2, int_oo], source L['x'].size()[0]
**     facts about u0: u0 <= 10 (runtime assert, nonzero.lua:7); ...  (or "none")
**     true  when u0 = 507                         booleans: one line per side,
**     false when u0 = 0                           or "no assignment tried makes
**                                                 it true (N tried)"
**     either torch._check(Eq(u0, 507)) or torch._check(Ne(u0, 507)) would settle it; `assume` tries one here
**   integers show two values instead: "u0 + 1 is 1 when u0 = 0" and
**   "u0 + 1 is 2 when u0 = 1" (or "u0 + 1 is 1 in every assignment tried (N tried)");
**   with only backed symbols the last line is instead
**     backed: with the hints (s0 = 5) it is False; evaluating it adds a guard, not an error
**
** sdb_probe_assume_report:
**   assume u0 >= 20:
**     settles u0 > 3: True
**     still undecided: Eq(u0, 507)
**     already known: u0 >= 0 is True
**     no open questions at this step              (when there are none)
**     range of u0: [0, int_oo] -> [20, int_oo]
**     u0 is replaced by 507 (trivial_lhs)
**     ranges and replacements unchanged           (when neither changed)
**     in the program: torch._check(u0 >= 20)
** or, when FACT was already known:
**   assume u0 >= 0:
**     already statically known True: REASON; torch._check would add nothing
**
** Contradictions (sdb_probe_new): "FACT contradicts what is known at this
** step: REASON", or for a fact on backed symbols that their hints make
** false: "...: with the hints (s0 = 5) it is False".
**
** Ownership: a probe copies what it needs from the view (strings and
** expressions are interned), so the view may move or die first. Texts are
** malloc'ed; the caller frees them. NULL (or false, -1) on OOM.
*/
#ifndef SDB_PROBE_H
#define SDB_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "expr.h"
#include "shape_env.h"
#include "lua_spell.h"
#include "view.h"

typedef struct sdb_probe sdb_probe;

/* A ShapeEnv (no event stream) that knows what v knows at its step for the
** current compile, then the facts `assumed` in order. NULL on failure with
** err set: an assumption that contradicts what is known is SDB_E_CONSTRAINT
** ("u0 >= 20 contradicts what is known at this step: u0 is in [0, 10]"); a
** non-boolean assumption or one naming a symbol the view has not seen is
** SDB_E_INVALID; SDB_E_OOM. */
sdb_probe *sdb_probe_new(const sdb_view *v, const sdb_expr *const *assumed, size_t n,
                         sdb_err *err);
void sdb_probe_free(sdb_probe *p);                 /* NULL is a no-op */
sdb_shape_env *sdb_probe_env(sdb_probe *p);        /* owned by the probe */

/* Parse user text (sympy syntax, as sdb_parse takes it) over the view's
** symbols. 0, or -1 with err: SDB_E_INVALID "SyntaxError" with the parser's
** message ("column 5: unexpected end of input"), or "NameError" with
** "unknown symbol u9 at this step". */
int sdb_probe_parse(sdb_probe *p, const char *text, const sdb_expr **out, sdb_err *err);

/* The user's names for symbols (a paused program's locals): the checks
** `why` and `assume` suggest are then written in Lua with them
** (`torch._check(n:gt(2))`) when every symbol has one. */
void sdb_probe_set_namer(sdb_probe *p, sdb_namer fn, void *ud);

/* The texts of `print` and `why` (formats above). */
char *sdb_probe_print(sdb_probe *p, const sdb_expr *e);
char *sdb_probe_why(sdb_probe *p, const sdb_expr *e);

/* An assignment of symbols to values. Free with sdb_probe_assign_free. */
typedef struct sdb_probe_assign {
  const sdb_expr **syms;     /* e's free symbols after replacements, sorted */
  int64_t *vals;             /* parallel to syms */
  size_t n;
  size_t tried;              /* assignments evaluated by the search */
} sdb_probe_assign;

void sdb_probe_assign_free(sdb_probe_assign *a);   /* leaves it empty */
/* "u0 = 507, s0 = 5" (malloc'ed). */
char *sdb_probe_assign_str(const sdb_probe_assign *a);

/* A counterexample search: values for e's free symbols (after
** replacements) within their ranges that satisfy the facts (guards,
** runtime asserts, assumptions whose symbols are all assigned; backed
** symbols not in e take their hints) and make e evaluate to `want` (an
** integer e: nonzero). Candidates per symbol: its hint, range ends and
** ends +-1, 0/1/2/-1, the constants of e and of those facts (+-1, negated,
** divided by coefficients) and each linear relation solved for it; at most
** SDB_PROBE_BUDGET assignments are tried. true and *out filled when one is
** found; false otherwise (out->tried says how many were tried; OOM: 0). */
#define SDB_PROBE_BUDGET 20000
bool sdb_probe_find(sdb_probe *p, const sdb_expr *e, bool want, sdb_probe_assign *out);

/* The undecided questions at this step: the `expr` of the current
** compile's error events (a data-dependent error's condition, a failed
** check's), without repeats; *out belongs to the probe. */
size_t sdb_probe_questions(const sdb_probe *p, const sdb_expr *const **out);

/* `assume`: what adding `fact` changes, comparing a probe without it
** (before) and one with it (after, normally built with before's
** assumptions plus fact): which questions — before's, then `extra` (say,
** what the user asked `why` about) — it settles and to what, range
** changes, new replacements, and the torch._check line for the program. */
char *sdb_probe_assume_report(sdb_probe *before, sdb_probe *after, const sdb_expr *fact,
                              const sdb_expr *const *extra, size_t nextra);

#endif
