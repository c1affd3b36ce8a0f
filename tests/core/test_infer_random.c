/* test_infer_random.c - robustness of shape inference and the verifier against malformed nodes:
 * random operand counts, dtypes, ranks, dims (static, symbolic, zero, huge) and random option
 * values/types for every op.  Each insert must either succeed with valid outputs or fail with a
 * diagnostic; never crash (run under the sanitizers in debug CI builds).  Deterministic seed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core_test_util.h"

static uint64_t rng_state;
static uint64_t rnd(void) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}
static int pick(int n) { return (int)(rnd() % (uint64_t)n); }

static const int64_t int_pool[] = {-1, 0, 1, 2, 3, 4, 7, 15, 20, 65536, 2147483647, INT64_MAX};
static const char *const str_pool[] = {"nchw", "nhwc", "oihw", "hwio", "ohwi", "ihwo", "iohw", "hwoi", "floor", "ceil",
                                       "forward", "backward", "both", "zrn", "rzn", "iofg", "ifgo", "constant", "edge",
                                       "reflection", "linear", "nearest-neighbor", "sigmoid", "tanh", "relu", "", "??"};
#define COUNT(a) ((int)(sizeof a / sizeof a[0]))

static Dim random_dim(void) {
    switch (pick(10)) {
    case 0: return dim_symbol(tg, pick(2) ? "seq" : "past", 64);
    case 1: return dim_static(int_pool[pick(COUNT(int_pool))]);
    default: return dim_static(1 + pick(5));
    }
}

static Value *random_operand(void) {
    if (pick(12) == 0) return NULL;
    int rank = pick(6);
    Dim d[WN_MAX_RANK];
    for (int i = 0; i < rank; i++) d[i] = pick(8) ? dim_static(1 + pick(5)) : random_dim();
    char name[32]; /* distinct base names keep graph_unique_name from probing long suffix chains */
    snprintf(name, sizeof name, "r%d", tg->n_values);
    return graph_add_input(tg, name, (DType)pick(DT_COUNT), rank, d);
}

static void random_option(Node *n, const OpOptionSlot *o) {
    int64_t ints[6];
    int count = pick(6);
    for (int i = 0; i < count; i++) ints[i] = pick(3) ? pick(5) : int_pool[pick(COUNT(int_pool))];
    AttrType t = pick(8) ? o->type : (AttrType)"iufbstIFADS"[pick(11)]; /* sometimes the wrong type */
    switch (t) {
    case AT_INT: node_set_int(tg, n, o->key, ints[0] = pick(2) ? pick(4) : int_pool[pick(COUNT(int_pool))]); break;
    case AT_UINT: node_set_uint(tg, n, o->key, pick(2) ? pick(4) : int_pool[pick(COUNT(int_pool))]); break;
    case AT_FLOAT: node_set_float(tg, n, o->key, pick(2) ? pick(5) * 0.5 : -1.0); break;
    case AT_BOOL: node_set_bool(tg, n, o->key, pick(2)); break;
    case AT_STRING: node_set_string(tg, n, o->key, str_pool[pick(COUNT(str_pool))]); break;
    case AT_DTYPE: node_set_dtype(tg, n, o->key, (DType)(pick(DT_COUNT + 2) - 1)); break;
    case AT_INTS: node_set_ints(tg, n, o->key, count, ints); break;
    case AT_SPLITS:
        if (pick(2)) node_set_uint(tg, n, o->key, pick(5));
        else node_set_ints(tg, n, o->key, count, ints);
        break;
    case AT_FLOATS: {
        double f[6];
        for (int i = 0; i < count; i++) f[i] = pick(4) * 0.75 - 0.5;
        node_set_floats(tg, n, o->key, count, f);
        break;
    }
    case AT_STRINGS: {
        const char *s[6];
        for (int i = 0; i < count; i++) s[i] = str_pool[pick(COUNT(str_pool))];
        node_set_strings(tg, n, o->key, count, s);
        break;
    }
    default: {
        Dim d[6];
        for (int i = 0; i < count; i++) d[i] = random_dim();
        node_set_dims(tg, n, o->key, count, d);
        break;
    }
    }
}

START_TEST(random_nodes_never_crash) {
    rng_state = 0x9E3779B97F4A7C15ull;
    int ok = 0, failed = 0, iters = 10000;
    const char *env = getenv("WEBNNC_RANDOM_ITERS"); /* longer soak runs */
    if (env && atoi(env) > 0) iters = atoi(env);
    for (int iter = 0; iter < iters; iter++) {
        const OpInfo *info = op_info((OpId)pick(OP_COUNT));
        Node *n = graph_new_node(tg, info->id, "rand");
        bool variadic = info->n_inputs == 1 && info->inputs[0].variadic;
        int n_in = variadic ? pick(4) : (pick(6) ? info->n_inputs - pick(2) : pick(info->n_inputs + 2));
        if (n_in < 0) n_in = 0;
        for (int i = 0; i < n_in; i++) node_add_input(tg, n, random_operand());
        for (int i = 0; i < info->n_options; i++)
            if (pick(2)) random_option(n, &info->options[i]);
        if (graph_insert_node(tg, n) == 0) {
            ok++;
            ck_assert(!diag_has_error());
            for (int j = 0; j < n->n_outputs; j++) {
                const Value *v = n->outputs[j];
                for (int k = 0; k < v->rank; k++)
                    ck_assert(!dim_is_static(v->shape[k]) || (v->shape[k].v > 0 && v->shape[k].v < ((int64_t)1 << 31)));
            }
            if (n->n_outputs) graph_add_output(tg, n->outputs[0]);
        } else {
            failed++;
            ck_assert(diag_has_error());
            ck_assert(strstr(diag_message(), "node rand (") == diag_message());
            diag_clear();
        }
    }
    /* Both outcomes must be common, or the generator is not exercising the rules. */
    ck_assert_int_gt(ok, 100);
    ck_assert_int_gt(failed, 1000);
    /* Inputs with invalid dims (zero, negative, huge) were generated: the verifier refuses them. */
    ck_assert_int_eq(graph_verify(tg, 0), -1);
    ck_assert(strncmp(diag_message(), "value ", 6) == 0);
    diag_clear();
}
END_TEST

int main(void) {
    Suite *s = suite_create("core-infer-random");
    TCase *tc = t_case("random");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, random_nodes_never_crash);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
