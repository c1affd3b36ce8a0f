/* decompose_rms_norm.c - pass decompose_rms_norm: replaces every rmsNorm (SimplifiedLayerNormalization)
 * and skipRmsNorm (com.microsoft SkipSimplifiedLayerNormalization) by
 *   y = x / sqrt(reduceMean(x * x, axes >= axis) + epsilon) * scale
 * computed in float32 when stashType is 1 (rmsNorm) and always for skipRmsNorm, as ONNX Runtime's
 * CPU kernels do (float16 operands are cast up, the result cast down once).  skipRmsNorm first forms
 * s = input + skip (+ bias) in float32, normalizes the unrounded s, and returns s rounded to the
 * input dtype as its second output.
 * Emits WebNN spec ops: cast, add, mul, reduceMean, sqrt, div (and reshape for a flat scale). */
#include "decompose.h"
#include "core.h"
#include "pass.h"

/* x (already in the compute dtype) normalized over axes >= axis, times scale. */
static Value *rms_core(Dec *d, Value *x, Value *scale, int axis, double eps) {
    if (!x || !scale) return NULL;
    DType ct = x->dtype;
    Value *ms = pass_dc_reduce_mean(d, pass_dc_binary(d, OP_MUL, x, x), axis);
    Value *rms = pass_dc_unary(d, OP_SQRT, pass_dc_binary(d, OP_ADD, ms, pass_dc_scalar(d, ct, eps)));
    Value *y = pass_dc_binary(d, OP_DIV, x, rms);
    bool suffix = scale->rank <= x->rank - axis;
    for (int i = 0; suffix && i < scale->rank; i++)
        suffix = dim_equal(scale->shape[scale->rank - 1 - i], x->shape[x->rank - 1 - i]);
    if (!suffix || scale->rank != x->rank - axis) /* flat or differently shaped scale: x.shape[axis:] */
        scale = pass_dc_reshape(d, scale, x->rank - axis, x->shape + axis);
    return pass_dc_binary(d, OP_MUL, y, pass_dc_cast(d, scale, ct));
}

static int build_rms(Dec *d) {
    Value *x = pass_dc_in(d, 0), *scale = pass_dc_in(d, 1);
    DType ct = node_int(d->ext, "stashType", 1) == 1 ? DT_F32 : x->dtype;
    double eps = node_float(d->ext, "epsilon", EXT_RMS_NORM_EPSILON);
    Value *y = rms_core(d, pass_dc_cast(d, x, ct), scale, (int)node_int(d->ext, "axis", 0), eps);
    return pass_dc_result(d, 0, pass_dc_cast(d, y, scale->dtype));
}

static int build_skip(Dec *d) {
    Value *x = pass_dc_in(d, 0), *bias = pass_dc_in(d, 3);
    DType t = x->dtype;
    Value *s = pass_dc_binary(d, OP_ADD, pass_dc_cast(d, x, DT_F32), pass_dc_cast(d, pass_dc_in(d, 1), DT_F32));
    if (bias) s = pass_dc_binary(d, OP_ADD, s, pass_dc_cast(d, bias, DT_F32));
    double eps = node_float(d->ext, "epsilon", EXT_RMS_NORM_EPSILON);
    if (pass_dc_result(d, 0, pass_dc_cast(d, rms_core(d, s, pass_dc_in(d, 2), x->rank - 1, eps), t)) < 0) return -1;
    return d->ext->n_outputs > 1 ? pass_dc_result(d, 1, pass_dc_cast(d, s, t)) : 0;
}

int pass_decompose_rms_norm(Graph *g, const PassOptions *opt) {
    (void)opt;
    return pass_decompose_all(g, OP_RMS_NORM, build_rms) < 0 ? -1 : pass_decompose_all(g, OP_SKIP_RMS_NORM, build_skip);
}
