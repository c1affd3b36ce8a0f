/* plan_matvec.c - plan-level rewrites of matmul with a constant (optionally dequantized)
 * right operand into the row-major mat-vec kernel; see plan_matvec.h for the patterns. */
#include "plan_matvec.h"

#include <stdlib.h>
#include <string.h>

#include "k_matvec.h"
#include "rt_env.h"

#define CHAIN_MAX 8 /* transpose / reshape / identity nodes walked between the constant and matmul */

struct FusePlan {
    void **owned; /* per value: re-laid-out bytes */
};

static int get_bits(const void *p, int bits, uint64_t i) {
    const uint8_t *b = p;
    return bits == 4 ? (b[i / 2] >> (4 * (i % 2))) & 15 : b[i];
}

void plan_transpose_bits(const void *src, void *dst, int bits, int64_t rows, int64_t cols) {
    if (bits == 4) {
        memset(dst, 0, (size_t)((rows * cols + 1) / 2));
        uint8_t *o = dst;
        for (int64_t r = 0; r < rows; r++)
            for (int64_t c = 0; c < cols; c++) {
                uint64_t to = (uint64_t)(c * rows + r);
                o[to / 2] |= (uint8_t)(get_bits(src, 4, (uint64_t)(r * cols + c)) << (4 * (to % 2)));
            }
        return;
    }
    size_t es = (size_t)bits / 8;
    const uint8_t *s = src;
    uint8_t *o = dst;
    /* 32x32 tiles keep both sides in cache */
    for (int64_t r0 = 0; r0 < rows; r0 += 32)
        for (int64_t c0 = 0; c0 < cols; c0 += 32)
            for (int64_t r = r0; r < rows && r < r0 + 32; r++)
                for (int64_t c = c0; c < cols && c < c0 + 32; c++)
                    memcpy(o + (size_t)(c * rows + r) * es, s + (size_t)(r * cols + c) * es, es);
}

static bool static_2d(const Value *v) {
    return v->rank == 2 && dim_is_static(v->shape[0]) && dim_is_static(v->shape[1]) && v->shape[0].v > 0 && v->shape[1].v > 0;
}

/* A matched chain: the source value (constant or dequantizeLinear output) and the nodes between. */
typedef struct {
    const Value *src;
    bool transposed; /* src is [N, K] (else [K, N]) */
    int n_nodes;
    const Node *nodes[CHAIN_MAX + 1];
} Chain;

/* Walks from matmul operand b through single-use transpose / reshape / identity nodes. */
static bool walk_chain(const Value *b, const int *uses, Chain *c) {
    memset(c, 0, sizeof *c);
    const Value *cur = b;
    while (cur->producer && c->n_nodes < CHAIN_MAX) {
        const Node *p = cur->producer;
        if (p->op != OP_TRANSPOSE && p->op != OP_RESHAPE && p->op != OP_IDENTITY) break;
        const Value *in = p->n_inputs > 0 ? p->inputs[0] : NULL;
        if (uses[cur->id] != 1 || (cur->flags & VF_OUTPUT) || !in || !static_2d(in) || !static_2d(cur)) return false;
        if (p->op == OP_TRANSPOSE) {
            const int64_t *perm;
            int np = node_ints(p, "permutation", &perm);
            bool swap = np < 0 || (np == 2 && perm[0] == 1 && perm[1] == 0);
            if (!swap && !(np == 2 && perm[0] == 0 && perm[1] == 1)) return false;
            if (swap) c->transposed = !c->transposed;
        } else if (in->shape[0].v != cur->shape[0].v || in->shape[1].v != cur->shape[1].v) {
            return false; /* a reshape that changes the 2-D shape */
        }
        c->nodes[c->n_nodes++] = p;
        cur = in;
    }
    c->src = cur;
    return static_2d(cur);
}

/* Scale / zero-point blocks of a dequantizeLinear over q [R, C] (scale right-aligned, blockwise)
 * as (block, stride) per q dim. */
static bool quant_blocks(const Value *q, const Value *scale, int64_t block[2], int64_t stride[2]) {
    int64_t sd[2] = {1, 1};
    if (scale->rank > 2) return false;
    for (int i = 0; i < scale->rank; i++) {
        if (!dim_is_static(scale->shape[i]) || scale->shape[i].v <= 0) return false;
        sd[2 - scale->rank + i] = scale->shape[i].v;
    }
    for (int d = 0; d < 2; d++) {
        if (q->shape[d].v % sd[d]) return false;
        block[d] = q->shape[d].v / sd[d];
    }
    stride[0] = sd[1];
    stride[1] = 1;
    return true;
}

static bool all_zero(const Value *v) {
    const uint8_t *p = v->data;
    for (uint64_t i = 0; i < v->nbytes; i++)
        if (p[i]) return false;
    return true;
}

/* Re-lays out constant v ([K, N] -> [N, K]) into owned storage; false if out of memory. */
static bool relayout(WnrtModel *m, const Value *v, int bits) {
    if (m->fuse->owned[v->id]) return true;
    void *dst = malloc(v->nbytes ? v->nbytes : 1);
    if (!dst) return false;
    plan_transpose_bits(v->data, dst, bits, v->shape[0].v, v->shape[1].v);
    m->fuse->owned[v->id] = dst;
    m->const_data[v->id] = dst;
    return true;
}

/* The paired scale words of k_matvec.h (KMatvecRows.sz_paired) for 4-bit zero points z of the same
 * shape as the float16 scales s: float16 scale | float16 -(4 + zp / 16) << 16, zp offset to unsigned
 * (^ 8 when signed), uploaded as s's storage (twice its bytes); false if out of memory. */
static bool pair_scales(WnrtModel *m, const Value *s, const Value *z, bool is_signed) {
    uint64_t n = s->nbytes / 2;
    uint32_t *dst = malloc(n ? n * 4 : 4);
    if (!dst) return false;
    const uint16_t *scale = s->data;
    const uint8_t *zb = z->data;
    for (uint64_t i = 0; i < n; i++) {
        uint32_t zp = ((uint32_t)zb[i / 2] >> (4 * (i % 2))) & 15u;
        if (is_signed) zp ^= 8u;
        /* -(4 + zp / 16) as float16: sign, exponent 2 (biased 17), mantissa zp * 16 (of 1024) */
        dst[i] = scale[i] | (0xC400u | zp << 4) << 16;
    }
    m->fuse->owned[s->id] = dst;
    m->const_data[s->id] = dst;
    m->const_bytes[s->id] = n * 4;
    return true;
}

/* Tries to rewrite matmul node n; returns 1 rewritten, 0 not matched, -1 error. */
static int try_matmul(WnrtModel *m, const Node *n, const int *uses) {
    if (n->n_inputs != 2 || !n->inputs[0] || !n->inputs[1] || n->n_outputs != 1) return 0;
    const Value *a = n->inputs[0], *b = n->inputs[1];
    DType act = a->dtype;
    if ((act != DT_F16 && act != DT_F32) || a->rank < 2 || b->rank != 2 || !static_2d(b)) return 0;
    uint64_t rows = 1;
    for (int d = 0; d < a->rank - 1; d++) {
        if (a->shape[d].v <= 0 || a->shape[d].v > KMV_MAX_M) return 0;
        rows *= (uint64_t)a->shape[d].v;
        if (rows > KMV_MAX_M) return 0;
    }
    int64_t K = b->shape[0].v, N = b->shape[1].v;
    if (K % 16) return 0;
    Chain c;
    if (!walk_chain(b, uses, &c)) return 0;
    KMatvecRows p = {.N = N, .K = K};
    PlanRewrite rw = {.fam = &kfam_matvec_rows, .n_inputs = 2, .inputs = {a}};
    const Value *w = c.src;
    const Node *dq = NULL;
    if (w->flags & VF_CONST) {
        if (w->dtype != act || !w->data) return 0;
        p.bits = dtype_bits(act);
    } else if (w->producer && w->producer->op == OP_DEQUANTIZE_LINEAR && uses[w->id] == 1 && !(w->flags & VF_OUTPUT)) {
        dq = w->producer;
        const Value *q = dq->n_inputs > 0 ? dq->inputs[0] : NULL, *s = dq->n_inputs > 1 ? dq->inputs[1] : NULL;
        const Value *z = dq->n_inputs > 2 ? dq->inputs[2] : NULL;
        if (!q || !s || !(q->flags & VF_CONST) || !(s->flags & VF_CONST) || (z && !(z->flags & VF_CONST)) || !q->data ||
            !static_2d(q) || s->dtype != act)
            return 0;
        if (q->dtype != DT_U4 && q->dtype != DT_I4 && q->dtype != DT_U8 && q->dtype != DT_I8) return 0;
        int64_t block[2], stride[2];
        if (!quant_blocks(q, s, block, stride)) return 0;
        int kd = c.transposed ? 1 : 0; /* q dim holding K */
        p.bits = dtype_bits(q->dtype);
        p.is_signed = dtype_is_signed(q->dtype);
        p.has_scale = true;
        p.has_zp = z && z->data && !all_zero(z);
        p.block_k = block[kd], p.s_k = stride[kd];
        p.block_n = block[1 - kd], p.s_n = stride[1 - kd];
        if (p.block_k % 16) return 0;
        rw.inputs[2] = s;
        rw.n_inputs = 3;
        /* scales and zero points only this product reads, paired for the float16-pair kernel */
        p.sz_paired = p.has_zp && uses[s->id] == 1 && uses[z->id] == 1 && !((s->flags | z->flags) & VF_OUTPUT) &&
                      value_same_shape(s, z) && kmatvec_pairs_scales(&m->dev->info, &p, act);
        if (p.sz_paired && !pair_scales(m, s, z, p.is_signed)) {
            diag_error("out of memory");
            return -1;
        }
        if (p.has_zp && !p.sz_paired) {
            rw.inputs[3] = z;
            rw.n_inputs = 4;
        }
        w = q;
    } else {
        return 0;
    }
    if (!c.transposed) { /* stored [K, N]: re-lay out once; nothing else may read it */
        if (uses[w->id] != 1 || (w->flags & VF_OUTPUT)) return 0;
        if (!relayout(m, w, p.bits)) {
            diag_error("out of memory");
            return -1;
        }
    }
    rw.inputs[1] = w;
    if (plan_rewrite_node(m, &m->matvec_plan, n->index, &rw, &p, sizeof p) < 0) return -1;
    for (int k = 0; k < c.n_nodes; k++) plan_absorb(m, c.nodes[k], n);
    if (dq) plan_absorb(m, dq, n);
    return 1;
}

int plan_matvec_rewrite(WnrtModel *m) {
    if (wnrt_env_flag("WEBNNC_NO_FUSE", false)) return 0;
    Graph *g = m->g;
    bool any = false;
    for (int i = 0; i < g->n_nodes && !any; i++) any = !g->nodes[i]->dead && g->nodes[i]->op == OP_MATMUL;
    if (!any) return 0;
    int *uses = plan_count_uses(g); /* NULL: it said so */
    if (!uses) return -1;
    m->fuse = calloc(1, sizeof *m->fuse);
    if (m->fuse) m->fuse->owned = calloc((size_t)g->n_values + 1, sizeof *m->fuse->owned);
    if (!m->fuse || !m->fuse->owned || plan_rewrite_arrays(m) < 0) {
        free(uses);
        diag_error("out of memory");
        return -1;
    }
    int rc = 0;
    for (int i = 0; i < g->n_nodes && rc >= 0; i++) {
        const Node *n = g->nodes[i];
        if (n->op == OP_MATMUL && plan_node_open(m, n)) rc = try_matmul(m, n, uses);
    }
    free(uses);
    return rc < 0 ? -1 : 0;
}

void plan_matvec_free(WnrtModel *m) {
    if (m->fuse) {
        if (m->fuse->owned)
            for (int i = 0; i <= m->g->n_values; i++) free(m->fuse->owned[i]);
        free(m->fuse->owned);
        free(m->fuse);
    }
    m->fuse = NULL;
}
