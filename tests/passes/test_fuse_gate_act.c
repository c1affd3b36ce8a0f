/* test_fuse_gate_act.c - fuse_gated_mlp with the GELU activations (passes/fuse_gate_act.h): an
 * rmsNorm feeding gate and up projections (float [K, N] weights) whose product act(gate) * up uses
 * the spec gelu or the tanh GELU chain in the importer's form and in torch's (x*x*x, constants
 * first, the 0.5 applied last), also with float16-rounded constants.  The fused graph must hold
 * one gatedMlp with that `activation` (fuse_qkv leaving the pair alone) and evaluate to the
 * unfused graph's outputs; a wrong constant, an interior value read elsewhere and a gelu that is
 * not on the gate branch must not fuse.  And decompose_fused: gatedMlp (each activation) and
 * qkvProjection back to spec ops. */
#include <check.h>
#include <math.h>
#include <string.h>

#include "decompose_test_util.h"
#include "core.h"
#include "eval_internal.h"
#include "pass.h"
#include "test_util.h"

enum { K = 32, N = 24, S = 3 };
enum { GELU_ERF, TANH_IMPORTER, TANH_TORCH, TANH_F16_CONSTS, WRONG_CONST, INTERIOR_LEAK, GELU_AFTER_PRODUCT };

static Value *bin(Graph *g, OpId op, Value *a, Value *b) {
    Node *n = dt_node(g, op, 2, (Value *[]){a, b});
    dt_insert(g, n);
    return n->outputs[0];
}

static Value *un(Graph *g, OpId op, Value *a) {
    Node *n = dt_node(g, op, 1, (Value *[]){a});
    dt_insert(g, n);
    return n->outputs[0];
}

static Value *scalar(Graph *g, double v) { return dt_values(g, "c", DT_F32, 0, NULL, &v); }

/* The tanh GELU of x: importer order (pow, x first, 0.5 x times the sum) or torch's. */
static Value *gelu_tanh(Graph *g, Value *x, bool torch, double kappa, double beta, Value **interior) {
    Value *cube = torch ? bin(g, OP_MUL, bin(g, OP_MUL, x, x), x) : bin(g, OP_POW, x, scalar(g, 3));
    Value *a = torch ? bin(g, OP_MUL, scalar(g, kappa), cube) : bin(g, OP_MUL, cube, scalar(g, kappa));
    Value *inner = torch ? bin(g, OP_ADD, a, x) : bin(g, OP_ADD, x, a);
    Value *c = scalar(g, beta);
    Value *t = un(g, OP_TANH, torch ? bin(g, OP_MUL, c, inner) : bin(g, OP_MUL, inner, c));
    *interior = t;
    Value *one_plus = torch ? bin(g, OP_ADD, scalar(g, 1), t) : bin(g, OP_ADD, t, scalar(g, 1));
    if (torch) return bin(g, OP_MUL, bin(g, OP_MUL, x, one_plus), scalar(g, 0.5));
    return bin(g, OP_MUL, bin(g, OP_MUL, x, scalar(g, 0.5)), one_plus);
}

static Graph *mlp_graph(int form) {
    Graph *g = graph_new("gate_act");
    dt_seed(17);
    Value *x = dt_random(g, "x", DT_F32, 3, (const int64_t[]){1, S, K}, -2, 2);
    Value *w = dt_random(g, "w", DT_F32, 1, (const int64_t[]){K}, 0.5, 1.5);
    Node *norm = dt_node(g, OP_RMS_NORM, 2, (Value *[]){x, w});
    node_set_uint(g, norm, "axis", 2);
    node_set_float(g, norm, "epsilon", 1e-6);
    dt_insert(g, norm);
    Value *h = norm->outputs[0], *interior = NULL;
    Value *gate = bin(g, OP_MATMUL, h, dt_random(g, "wg", DT_F32, 2, (const int64_t[]){K, N}, -0.5, 0.5));
    Value *up = bin(g, OP_MATMUL, h, dt_random(g, "wu", DT_F32, 2, (const int64_t[]){K, N}, -0.5, 0.5));
    Value *y;
    if (form == GELU_ERF) y = bin(g, OP_MUL, un(g, OP_GELU, gate), up);
    else if (form == GELU_AFTER_PRODUCT) y = un(g, OP_GELU, bin(g, OP_MUL, gate, up));
    else {
        bool f16 = form == TANH_F16_CONSTS; /* the constants as float16 rounds them */
        double kappa = form == WRONG_CONST ? 0.05 : f16 ? 0.044708251953125 : 0.044715;
        double beta = f16 ? 0.7978515625 : sqrt(2.0 / M_PI);
        y = bin(g, OP_MUL, up, gelu_tanh(g, gate, form == TANH_TORCH, kappa, beta, &interior));
    }
    graph_add_output(g, y);
    if (form == INTERIOR_LEAK) graph_add_output(g, interior);
    return g;
}

static void same_outputs(Graph *a, Graph *b, double tol) {
    dt_run_pass(a, "fold_constants"), dt_run_pass(b, "fold_constants");
    ck_assert_int_eq(a->n_outputs, b->n_outputs);
    for (int i = 0; i < a->n_outputs; i++) {
        Ten p, q;
        ck_assert(ten_from_value(NULL, a->outputs[i], &p) == 0 && ten_from_value(NULL, b->outputs[i], &q) == 0);
        ck_assert_int_eq(p.count, q.count);
        for (int64_t e = 0; e < p.count; e++) {
            double u = ten_getf(&p, e), v = ten_getf(&q, e);
            ck_assert_msg(fabs(u - v) <= tol * (1 + fabs(u)), "element %lld: %.9g vs %.9g", (long long)e, u, v);
        }
    }
}

/* Runs fuse_qkv then fuse_gated_mlp; returns the gatedMlp node or NULL. */
static Node *fuse(Graph *g) {
    dt_run_pass(g, "fuse_qkv");
    ck_assert_int_eq(dt_count_op(g, OP_QKV_PROJECTION), 0);
    dt_run_pass(g, "fuse_gated_mlp");
    dt_run_pass(g, "dce");
    for (int i = 0; i < g->n_nodes; i++)
        if (g->nodes[i]->op == OP_GATED_MLP) return g->nodes[i];
    return NULL;
}

START_TEST(gelu_forms_fuse) {
    static const struct { int form; const char *activation; } cases[] = {
        {GELU_ERF, "gelu"}, {TANH_IMPORTER, "geluTanh"}, {TANH_TORCH, "geluTanh"}, {TANH_F16_CONSTS, "geluTanh"}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        Graph *ref = mlp_graph(cases[i].form), *fused = mlp_graph(cases[i].form);
        Node *f = fuse(fused);
        ck_assert_msg(f != NULL, "form %d did not fuse", cases[i].form);
        ck_assert_str_eq(node_str(f, "activation", "silu"), cases[i].activation);
        ck_assert_int_eq(graph_node_count(fused), 1);
        same_outputs(ref, fused, cases[i].form == TANH_F16_CONSTS ? 1e-3 : 1e-5);
        graph_free(ref), graph_free(fused);
    }
}
END_TEST

START_TEST(near_misses_stay) {
    static const int forms[] = {WRONG_CONST, INTERIOR_LEAK, GELU_AFTER_PRODUCT};
    for (size_t i = 0; i < sizeof forms / sizeof *forms; i++) {
        Graph *g = mlp_graph(forms[i]);
        dt_run_pass(g, "fuse_gated_mlp");
        ck_assert_msg(dt_count_op(g, OP_GATED_MLP) == 0, "form %d fused", forms[i]);
        graph_free(g);
    }
}
END_TEST

START_TEST(silu_stays_default) { /* the silu form keeps no activation option (byte-identical output) */
    Graph *g = graph_new("silu");
    dt_seed(3);
    Value *x = dt_random(g, "x", DT_F32, 3, (const int64_t[]){1, S, K}, -2, 2);
    Node *norm = dt_node(g, OP_RMS_NORM, 2, (Value *[]){x, dt_random(g, "w", DT_F32, 1, (const int64_t[]){K}, 0.5, 1.5)});
    node_set_uint(g, norm, "axis", 2);
    dt_insert(g, norm);
    Value *gate = bin(g, OP_MATMUL, norm->outputs[0], dt_random(g, "wg", DT_F32, 2, (const int64_t[]){K, N}, -1, 1));
    Value *up = bin(g, OP_MATMUL, norm->outputs[0], dt_random(g, "wu", DT_F32, 2, (const int64_t[]){K, N}, -1, 1));
    graph_add_output(g, bin(g, OP_MUL, un(g, OP_SILU, gate), up));
    Node *f = fuse(g);
    ck_assert(f != NULL);
    ck_assert_ptr_null(node_attr(f, "activation"));
    graph_free(g);
}
END_TEST

/* decompose_fused: gatedMlp with each activation (int4 and float weights, skip with the sum output)
 * and qkvProjection lower to spec ops that evaluate to the reference. */
static Node *normed_projection(Graph *g, OpId op, bool nbits, const char *activation) {
    enum { BLOCK = 16, KB = K / BLOCK };
    dt_seed(5);
    int64_t shape[3] = {1, S, K};
    Value *x = dt_random(g, "x", DT_F32, 3, shape, -2, 2), *skip = dt_random(g, "skip", DT_F32, 3, shape, -2, 2);
    Value *scale = dt_random(g, "gamma", DT_F32, 1, (const int64_t[]){K}, 0.5, 1.5);
    Value *w = nbits ? dt_random(g, "w", DT_U8, 3, (const int64_t[]){N, KB, BLOCK / 2}, 0, 255)
                     : dt_random(g, "w", DT_F32, 2, (const int64_t[]){K, N}, -0.5, 0.5);
    Value *scales = nbits ? dt_random(g, "s", DT_F32, 2, (const int64_t[]){N, KB}, -0.2, 0.2) : NULL;
    Value *bias = dt_random(g, "bias", DT_F32, 1, (const int64_t[]){N}, -1, 1);
    Node *n = dt_node(g, op, 8, (Value *[]){x, skip, NULL, scale, w, scales, NULL, bias});
    node_set_uint(g, n, "k", K);
    node_set_uint(g, n, "n", N);
    if (nbits) node_set_uint(g, n, "bits", 4), node_set_uint(g, n, "blockSize", BLOCK);
    node_set_bool(g, n, "outputSum", true);
    if (op == OP_QKV_PROJECTION) node_set_ints(g, n, "splits", 3, (const int64_t[]){12, 8, 4});
    if (activation) node_set_string(g, n, "activation", activation);
    dt_insert(g, n);
    return n;
}

START_TEST(decompose_each_activation) {
    static const char *const acts[] = {NULL, "gelu", "geluTanh"};
    for (int nbits = 0; nbits < 2; nbits++) {
        for (int a = 0; a < 3; a++) {
            Graph *g = graph_new("dec");
            dt_check(g, normed_projection(g, OP_GATED_MLP, nbits, acts[a]), "decompose_fused", 1e-5, 1e-5);
            graph_free(g);
        }
        Graph *g = graph_new("dec");
        dt_check(g, normed_projection(g, OP_QKV_PROJECTION, nbits, NULL), "decompose_fused", 1e-5, 1e-5);
        graph_free(g);
    }
}
END_TEST

static Suite *suite(void) {
    Suite *s = suite_create("fuse_gate_act");
    TCase *tc = tcase_create("gate_act");
    tcase_add_test(tc, gelu_forms_fuse);
    tcase_add_test(tc, near_misses_stay);
    tcase_add_test(tc, silu_stays_default);
    tcase_add_test(tc, decompose_each_activation);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) {
    diag_clear();
    return tu_run_suite(suite());
}
