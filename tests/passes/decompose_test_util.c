/* decompose_test_util.c - see decompose_test_util.h. */
#include "decompose_test_util.h"

#include <check.h>
#include <math.h>
#include <string.h>

#include "core.h"
#include "eval.h"
#include "eval_internal.h"
#include "pass.h"

static uint64_t state = 88172645463325252ull;

void dt_seed(uint64_t seed) { state = seed * 2654435761ull + 1; }

static uint64_t next(void) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
}

double dt_uniform(double lo, double hi) { return lo + (hi - lo) * (double)(next() >> 11) / 9007199254740992.0; }

int64_t dt_int(int64_t lo, int64_t hi) { return lo + (int64_t)(next() % (uint64_t)(hi - lo + 1)); }

static Value *make_const(Graph *g, const char *name, DType dt, int rank, const int64_t *shape, const double *vals,
                         double lo, double hi) {
    int64_t count = 1;
    for (int i = 0; i < rank; i++) count *= shape[i];
    uint64_t bytes = dtype_storage_bytes(dt, (uint64_t)count);
    void *buf = graph_alloc(g, bytes ? bytes : 1);
    Ten t = {.dt = dt, .rank = rank, .count = count, .data = buf};
    for (int64_t i = 0; i < count; i++) {
        if (vals) ten_setf(&t, i, vals[i]);
        else if (dtype_is_float(dt)) ten_setf(&t, i, dt_uniform(lo, hi));
        else ten_seti(&t, i, dt_int((int64_t)lo, (int64_t)hi));
    }
    Value *v = graph_add_const(g, name, dt, rank, shape, buf, bytes);
    ck_assert_ptr_nonnull(v);
    return v;
}

Value *dt_random(Graph *g, const char *name, DType dt, int rank, const int64_t *shape, double lo, double hi) {
    return make_const(g, name, dt, rank, shape, NULL, lo, hi);
}

Value *dt_values(Graph *g, const char *name, DType dt, int rank, const int64_t *shape, const double *vals) {
    return make_const(g, name, dt, rank, shape, vals, 0, 0);
}

void dt_insert(Graph *g, Node *n) { ck_assert_msg(graph_insert_node(g, n) == 0, "insert: %s", diag_message()); }

Node *dt_node(Graph *g, OpId op, int count, Value *const *ins) {
    Node *n = graph_new_node(g, op, "ext");
    for (int i = 0; i < count; i++) node_add_input(g, n, ins[i]);
    return n;
}

Node *dt_gbq_node(Graph *g, const DtGbqCase *c) {
    DType dt = c->f16 ? DT_F16 : DT_F32, q = c->data_dt;
    bool is_signed = dtype_is_signed(q);
    int64_t per = q == DT_U8 ? 8 / c->bits : 1, nb = (c->cols + c->block - 1) / c->block;
    double lo = is_signed ? -8 : 0, hi = q == DT_U8 ? 255 : (is_signed ? 7 : 15);
    Value *data, *scales, *zp = NULL, *idx;
    int64_t ga = 0, qa = 1;
    if (!c->swap_axes) {
        data = dt_random(g, "data", q, 2, (const int64_t[]){c->rows, c->cols / per}, lo, hi);
        scales = dt_random(g, "scales", dt, 2, (const int64_t[]){c->rows, nb}, -0.5, 0.5);
        if (c->zp)
            zp = q == DT_U8 ? dt_random(g, "zp", DT_U8, 2, (const int64_t[]){c->rows, (nb + per - 1) / per}, 0, 255)
                            : dt_random(g, "zp", q, 2, (const int64_t[]){c->rows, nb}, lo, 7);
        idx = dt_values(g, "idx", DT_I64, 2, (const int64_t[]){2, 2}, (const double[]){0, (double)c->rows - 1, -1, 1});
    } else { /* int4/uint4 data quantized along axis 0, gathered along axis 1 */
        ga = 1, qa = 0;
        data = dt_random(g, "data", q, 2, (const int64_t[]){c->cols, c->rows}, lo, 7);
        scales = dt_random(g, "scales", dt, 2, (const int64_t[]){nb, c->rows}, -0.5, 0.5);
        if (c->zp) zp = dt_random(g, "zp", q, 2, (const int64_t[]){nb, c->rows}, 0, 7);
        idx = dt_values(g, "idx", DT_I32, 1, (const int64_t[]){3}, (const double[]){2, 0, -2});
    }
    Node *n = dt_node(g, OP_GATHER_BLOCK_QUANTIZED, 4, (Value *[]){data, idx, scales, zp});
    node_set_uint(g, n, "bits", c->bits);
    node_set_uint(g, n, "blockSize", c->block);
    node_set_uint(g, n, "gatherAxis", ga);
    node_set_uint(g, n, "quantizeAxis", qa);
    dt_insert(g, n);
    return n;
}

int dt_check(Graph *g, Node *n, const char *pass, double atol, double rtol) {
    int outs = n->n_outputs;
    ck_assert_int_gt(outs, 0);
    const void *ref[8];
    uint64_t ref_bytes[8];
    Value *ref_val[8];
    ck_assert_int_le(outs, 8);
    ck_assert_msg(eval_node(g, n, ref, ref_bytes) == 0, "reference: %s", diag_message());
    for (int i = 0; i < outs; i++) {
        ref_val[i] = n->outputs[i];
        graph_add_output(g, n->outputs[i]);
    }
    int before = g->n_nodes;
    const char *names[] = {pass};
    ck_assert_msg(pass_run_list(g, names, 1, NULL) == 0, "%s: %s", pass, diag_message());
    int emitted = g->n_nodes - before + 1;
    ck_assert_msg(graph_verify(g, VERIFY_SPEC_ONLY) == 0, "verify: %s", diag_message());
    const char *fold[] = {"fold_constants"};
    ck_assert_msg(pass_run_list(g, fold, 1, NULL) == 0, "fold: %s", diag_message());
    for (int i = 0; i < outs; i++) {
        Value *v = g->outputs[g->n_outputs - outs + i];
        ck_assert_msg(v->flags & VF_CONST, "output %d did not fold", i);
        ck_assert_int_eq(v->dtype, ref_val[i]->dtype);
        Ten got, want;
        ck_assert_int_eq(ten_from_value(n, v, &got), 0);
        want = got;
        want.data = (void *)ref[i];
        double worst = 0;
        int64_t at = 0;
        for (int64_t e = 0; e < got.count; e++) {
            double a = ten_getf(&got, e), b = ten_getf(&want, e), err = fabs(a - b) - rtol * fabs(b);
            ck_assert_msg(!isnan(a) && !isnan(b), "NaN at %lld", (long long)e);
            if (err > worst) worst = err, at = e;
        }
        ck_assert_msg(worst <= atol, "output %d element %lld: got %.9g, reference %.9g", i, (long long)at,
                      ten_getf(&got, at), ten_getf(&want, at));
    }
    return emitted;
}

void dt_run_pass(Graph *g, const char *pass) {
    const char *names[] = {pass};
    ck_assert_msg(pass_run_list(g, names, 1, NULL) == 0, "%s: %s", pass, diag_message());
}

int dt_count_op(const Graph *g, OpId op) {
    int c = 0;
    for (int i = 0; i < g->n_nodes; i++) c += !g->nodes[i]->dead && g->nodes[i]->op == op;
    return c;
}
