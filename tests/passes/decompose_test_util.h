/* decompose_test_util.h - helpers for the decomposition tests: random constants in any dtype,
 * extension-node construction, and the check that compares the CPU reference evaluation of an
 * extension node (lib/eval/eval_ext.c, ORT semantics) with the evaluation of the spec-op graph its
 * decomposition pass emits (folded by fold_constants), after graph_verify(VERIFY_SPEC_ONLY). */
#ifndef WEBNNC_DECOMPOSE_TEST_UTIL_H
#define WEBNNC_DECOMPOSE_TEST_UTIL_H

#include <stdint.h>

#include "core.h"

/* Deterministic pseudo random numbers (xorshift), reseeded per test. */
void dt_seed(uint64_t seed);
double dt_uniform(double lo, double hi);
int64_t dt_int(int64_t lo, int64_t hi); /* inclusive */

/* Constant of dtype dt filled with uniform values in [lo, hi] (integers: rounded down). */
Value *dt_random(Graph *g, const char *name, DType dt, int rank, const int64_t *shape, double lo, double hi);
/* Constant from explicit values. */
Value *dt_values(Graph *g, const char *name, DType dt, int rank, const int64_t *shape, const double *vals);

/* Node of `op` with operands (NULL = absent) inserted into g; fails the test on error. */
Node *dt_node(Graph *g, OpId op, int count, Value *const *ins);
/* Inserts a node built with graph_new_node/node_add_input/node_set_*; fails the test on error. */
void dt_insert(Graph *g, Node *n);

/* Evaluates n with the reference evaluator, runs `pass`, checks that only spec ops remain, folds
 * the graph and compares each output within atol + rtol * |reference|.  Returns the number of
 * spec nodes the decomposition emitted. */
int dt_check(Graph *g, Node *n, const char *pass, double atol, double rtol);

/* A gatherBlockQuantized node over random constants (inserted into g): rows x cols logical values
 * of data_dt (uint8 packs 8/bits values per byte), blockwise scales of float32 / float16 (f16),
 * optional random zero points; gathered along axis 0 and quantized along the last axis, or
 * (swap_axes, int4/uint4 only) the other way round; constant indices with a negative one. */
typedef struct {
    DType data_dt;
    int bits, block;
    int64_t rows, cols; /* logical */
    bool zp, swap_axes, f16;
} DtGbqCase;
Node *dt_gbq_node(Graph *g, const DtGbqCase *c);

/* Runs one pass by name on g; a failure fails the test with the diagnostic. */
void dt_run_pass(Graph *g, const char *pass);
/* Number of live nodes of kind op in g. */
int dt_count_op(const Graph *g, OpId op);

#endif
