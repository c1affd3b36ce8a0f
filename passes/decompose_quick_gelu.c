/* decompose_quick_gelu.c - pass decompose_quick_gelu: replaces every quickGelu (com.microsoft
 * QuickGelu) by x * sigmoid(alpha * x).
 * Emits WebNN spec ops: mul, sigmoid. */
#include "decompose.h"
#include "core.h"
#include "pass.h"

static int build(Dec *d) {
    Value *x = pass_dc_in(d, 0);
    double alpha = node_float(d->ext, "alpha", EXT_QUICK_GELU_ALPHA);
    Value *ax = alpha == 1.0 ? x : pass_dc_binary(d, OP_MUL, x, pass_dc_scalar(d, x->dtype, alpha));
    return pass_dc_result(d, 0, pass_dc_binary(d, OP_MUL, x, pass_dc_unary(d, OP_SIGMOID, ax)));
}

int pass_decompose_quick_gelu(Graph *g, const PassOptions *opt) {
    (void)opt;
    return pass_decompose_all(g, OP_QUICK_GELU, build);
}
