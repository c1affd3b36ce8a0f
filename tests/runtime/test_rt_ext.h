/* test_rt_ext.h - shared oracle harness of the extension-op kernel tests (test_rt_ext*.c): random
 * constant operands, and a check that runs one node on the Vulkan runtime and compares every output
 * with the CPU reference evaluator (lib/eval: eval_ext.c, eval_gqa.c, eval_fused.c), which
 * implements the ORT semantics independently of the kernels. */
#ifndef TEST_RT_EXT_H
#define TEST_RT_EXT_H

#include "rt_test_util.h"

/* Constant with uniform random values in [lo, hi] (floats: f32/f16; integers: rounded down;
 * uint8: random bytes when lo == hi == 0). */
Value *ext_rand(Graph *g, const char *name, DType dt, int rank, const int64_t *shape, unsigned *seed, double lo,
                double hi);
/* Constant from int64 values converted to dt (integers) or doubles (floats). */
Value *ext_ints(Graph *g, const char *name, DType dt, int rank, const int64_t *shape, const int64_t *v);

/* Makes every output of n (already inserted) a graph output, evaluates n with the CPU reference,
 * runs g on the runtime, and asserts |got - want| <= atol + rtol * |want| for every element of
 * every output (rtol/atol apply to float outputs; integer outputs must match exactly).  label
 * names the case in failures.  Returns the largest error seen over outputs, relative to
 * atol + rtol * |want| (<= 1 on success). */
double ext_check(Graph *g, Node *n, double rtol, double atol, const char *label);
/* Runs g again (its outputs already set, as after ext_check) on the runtime, reads output k into out
 * (bytes), and returns the nodes' dispatches of the run (webnnc_profile.h n_dispatches: not the
 * graph's input / output copies, which a device without host-visible device memory adds). */
int ext_run_dispatches(Graph *g, int k, void *out, uint64_t bytes, const char *label);

#endif
