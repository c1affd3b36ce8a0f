/* plan_residual.c - plan-level rewrite that moves the skip sum of a quantized normalized
 * projection into the matmulNBits that produces its input:
 *
 *   y = matmulNBits(a, ...);  qkvProjection / gatedMlp(y, skip, skipBias?, ...)
 *                             (or (r, y, ...): the ORT-GenAI builder's order, the residual first)
 *
 * becomes, wherever ext_residual_folds(M) holds for the recording's M activation rows (decode):
 * matmulNBits writes y + skip (+ skipBias) (rounded to y's dtype, then summed in f32; the row
 * mat-vec's residual epilogue, k_matvec.h) and the projection normalizes its input as it is, its
 * sum output a copy of it.  Each of the projection's row groups used to load and add the skip for
 * its own rows (H200, Qwen2-0.5B decode: gatedMlp 11.8 -> 11.0 us, qkvProjection 7.5 -> 7.3).
 * Only where the projection re-reads enough skip bytes to pay for the epilogue (worth_it).  Other
 * recordings (prefill) run both nodes as they are.  The sum is rounded to the activation
 * dtype before it is normalized, as the unfused add -> rmsNorm rounds it.  Conditions, as for the
 * other rewrites (plan_matvec.h): y has the projection as its only consumer and is no graph output;
 * both nodes are open; matmulNBits takes the row mat-vec (ext_nbits_residual_ok); skip has y's
 * shape and dtype.  Neither node is absorbed: the dispatch count stays.  WEBNNC_NO_FUSE=1 disables
 * it. */

#include "core.h"
#include "k_ext_nbits.h"
#include "rt_env.h"
#include "rt_model.h"

/* The matmulNBits whose output y is one of the two summed operands of projection n (input `slot`,
 * FP_INPUT or FP_SKIP) and can add the other one (`r`); NULL if none. */
static const Node *producer_of(const WnrtModel *m, const Node *n, const int *uses, int slot) {
    const Value *y = n->inputs[slot], *r = n->inputs[slot == FP_INPUT ? FP_SKIP : FP_INPUT];
    const Value *sb = n->n_inputs > FP_SKIP_BIAS ? n->inputs[FP_SKIP_BIAS] : NULL;
    const Node *p = y ? y->producer : NULL;
    if (!r || !p || p->op != OP_MATMUL_NBITS || p->n_outputs != 1 || uses[y->id] != 1 || (y->flags & VF_OUTPUT) ||
        !plan_node_open(m, p) || !ext_nbits_residual_ok(p))
        return NULL;
    if ((y->dtype != DT_F16 && y->dtype != DT_F32) || r->dtype != y->dtype || !value_same_shape(r, y) ||
        (sb && (sb->dtype != y->dtype || y->rank < 1 || value_max_elements(sb) != (uint64_t)y->shape[y->rank - 1].v)))
        return NULL;
    return p;
}

/* Where it pays: the skip the projection's row groups re-read, its output columns x K elements,
 * against the matmulNBits epilogue's cost (H200, timestamped per call).  Qwen2-0.5B: gatedMlp (4864
 * x 896 f16, 8.7 MB) 11.79 -> 11.07 us for o_proj 6.41 -> 6.55; qkvProjection (1152 x 896, 2.1
 * MB) 7.51 -> 7.34 for down_proj 8.44 -> 8.61; SmolLM-135M (gatedMlp 1.8 MB, qkv 1.1 MB) gained
 * 0.07 us on each and lost 0.14-0.22 on the matmulNBits, 1.7% of its decode rate.
 * WEBNNC_RESIDUAL_MIN_KIB overrides it (0: wherever it applies). */
#define RESIDUAL_MIN_KIB 4096

static bool worth_it(const Node *n, DType dt) {
    uint64_t cols = (uint64_t)node_int(n, "n", 0) / (n->op == OP_GATED_MLP ? 2 : 1), k = (uint64_t)node_int(n, "k", 0);
    uint64_t min_kib = (uint64_t)wnrt_env_long("WEBNNC_RESIDUAL_MIN_KIB", 0, 1 << 30, RESIDUAL_MIN_KIB);
    return cols * k * dtype_storage_bytes(dt, 1) >= min_kib * 1024;
}

const Node *plan_residual_producer(const WnrtModel *m, const Node *n, const int *uses, int *slot) {
    if ((n->op != OP_QKV_PROJECTION && n->op != OP_GATED_MLP) || node_int(n, "bits", 0) == 0 || n->n_inputs <= FP_SKIP ||
        !n->inputs[FP_INPUT])
        return NULL;
    const Node *p = producer_of(m, n, uses, *slot = FP_INPUT);
    return p ? p : producer_of(m, n, uses, *slot = FP_SKIP);
}

int plan_residual_pair(WnrtModel *m, PlanRewriteStore *store, const Node *n, const Node *p, int slot,
                       const KernelFamily *prod_fam, const void *params, size_t param_size) {
    /* the projection's input is the product (+ the other operand) and its skip the other
     * operand: swapped where the product was the skip (the sum x + skip is symmetric, so
     * recordings that do not fold compute the same) */
    const Value *other = n->inputs[slot == FP_INPUT ? FP_SKIP : FP_INPUT];
    PlanRewrite prod = {.fam = prod_fam, .n_inputs = 7, .label = WNRT_REWRITE_ADDS_SKIP};
    for (int k = 0; k < p->n_inputs && k < 5; k++) prod.inputs[k] = p->inputs[k];
    prod.inputs[5] = other;
    prod.inputs[6] = n->n_inputs > FP_SKIP_BIAS ? n->inputs[FP_SKIP_BIAS] : NULL;
    PlanRewrite proj = {.fam = &kfam_fused_folded, .n_inputs = n->n_inputs, .label = WNRT_REWRITE_READS_SUM};
    for (int k = 0; k < n->n_inputs; k++) proj.inputs[k] = n->inputs[k];
    proj.inputs[FP_INPUT] = n->inputs[slot];
    proj.inputs[FP_SKIP] = other;
    return plan_rewrite_node(m, store, p->index, &prod, params, param_size) < 0 ||
                   plan_rewrite_node(m, store, n->index, &proj, params, param_size) < 0
               ? -1
               : 0;
}

static int visit(WnrtModel *m, const Node *n, const int *uses) {
    int slot;
    const Node *p = plan_residual_producer(m, n, uses, &slot);
    char none = 0;
    if (!p || !worth_it(n, n->inputs[FP_INPUT]->dtype)) return 0;
    return plan_residual_pair(m, &m->residual_plan, n, p, slot, &kfam_ext_nbits_residual, &none, sizeof none);
}

int plan_residual_rewrite(WnrtModel *m) { return plan_visit_open_nodes(m, false, visit); }
