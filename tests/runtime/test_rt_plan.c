/* test_rt_plan.c - planning and execution machinery: dynamic dims (actual sizes, output shapes,
 * same-symbol mismatch and bound errors), command-buffer replay counters (one recording for every
 * size; WEBNNC_REPLAY=0: one per size), buffer reuse (peak below the sum of tensors; inputs bound
 * once survive later runs), wnrt_warm (no recording, inputs left as they were), reshape as a view
 * (no dispatch), reductions with an element-wise epilogue in one dispatch (plan_reduce.c),
 * missing-kernel error; the environment overrides the planner and kernels read (rt_env.c: a numeric
 * override applies when set, not empty and in range, else the default, so a script's `NAME=` does
 * not read as 0; a switch is off for "0", on for any other value, the default when unset or empty). */
#include <stdlib.h>
#include <string.h>

#include "rt_env.h"
#include "rt_test_util.h"
#include "webnn.h"


static int bind2(WnrtModel *m, int64_t sx, int64_t sy, const float *xv, const float *yv) {
    if (wnrt_bind_input(m, "x", xv, (uint64_t)sx * 16, 2, (int64_t[]){sx, 4}) < 0) return -1;
    return wnrt_bind_input(m, "y", yv, (uint64_t)sy * 16, 2, (int64_t[]){sy, 4});
}

/* Runs sizes 3, 3, 5, 3 and checks outputs and the recording counters (replay: the model was
 * loaded with WEBNNC_REPLAY unset, else =0). */
static void run_sizes(WnrtModel *m, bool replay, WnrtStats *st_out) {
    float xv[64], yv[64], out[64];
    for (int i = 0; i < 64; i++) xv[i] = (float)i - 10, yv[i] = 1;
    WnrtStats st;
    for (int run = 0; run < 4; run++) {
        int64_t seq = run == 2 ? 5 : 3;
        ck_assert_msg(bind2(m, seq, seq, xv, yv) == 0 && wnrt_run(m) == 0, "%s", diag_message());
        WnrtTensorInfo info;
        ck_assert_int_eq(wnrt_output_info(m, 0, &info), 0);
        ck_assert_int_eq(info.rank, 2);
        ck_assert_int_eq(info.shape[0], seq);
        ck_assert_int_eq(info.shape[1], 4);
        ck_assert_int_eq(wnrt_read_output(m, 0, out, sizeof out), 0);
        for (int i = 0; i < seq * 4; i++) ck_assert_float_eq(out[i], xv[i] + 1 > 0 ? xv[i] + 1 : 0);
        wnrt_stats(m, &st);
        ck_assert(st.replay == replay);
        if (replay) { /* one recording; later runs rewrite its parameters (a new size: every node's and
                       * every input / output copy's, which a discrete GPU has) */
            ck_assert_int_eq(st.recordings, 1);
            ck_assert_int_eq(st.replays, run);
            ck_assert_int_eq(st.params_written, run == 1 ? 0 : 5 + st.io_dispatches);
        } else { /* one per size, replayed when a size repeats */
            ck_assert_int_eq(st.recordings, run < 2 ? 1 : 2);
            ck_assert_int_eq(st.replays, run == 0 ? 0 : run == 1 ? 1 : run == 2 ? 1 : 2);
        }
        ck_assert_int_eq(st.runs, run + 1);
    }
    *st_out = st;
}

START_TEST(replay_off_records_per_size) {
    Graph *g = rt_relu_chain();
    WnrtModel *m = rt_load_with_env(g, "WEBNNC_REPLAY", "0");
    ck_assert_msg(m != NULL, "%s", diag_message());
    WnrtStats st;
    run_sizes(m, false, &st);
    ck_assert_int_eq(st.dispatches - st.io_dispatches, 5);
    wnrt_free(m);
    graph_free(g);
}
END_TEST

/* Host-staged inputs and outputs (WEBNNC_FORCE_STAGING=1, what a discrete GPU does): the two
 * inputs and the output move through io_copy dispatches, which the stats count apart. */
START_TEST(io_copies_counted_apart) {
    setenv("WEBNNC_FORCE_STAGING", "1", 1);
    Graph *g = rt_relu_chain();
    WnrtModel *m = wnrt_load(rt_ctx, g);
    float xv[12], yv[12], out[12];
    for (int i = 0; i < 12; i++) xv[i] = (float)i - 5, yv[i] = 1;
    ck_assert_msg(m && bind2(m, 3, 3, xv, yv) == 0 && wnrt_run(m) == 0, "%s", diag_message());
    ck_assert_int_eq(wnrt_read_output(m, 0, out, sizeof out), 0);
    for (int i = 0; i < 12; i++) ck_assert_float_eq(out[i], xv[i] + 1 > 0 ? xv[i] + 1 : 0);
    WnrtStats st;
    wnrt_stats(m, &st);
    unsetenv("WEBNNC_FORCE_STAGING");
    ck_assert_int_eq(st.io_dispatches, 3);
    ck_assert_int_eq(st.dispatches, 5 + 3);
    wnrt_free(m);
    graph_free(g);
}
END_TEST

START_TEST(dynamic_dims_and_replay) {
    Graph *g = rt_relu_chain();
    WnrtModel *m = wnrt_load(rt_ctx, g);
    ck_assert_msg(m != NULL, "%s", diag_message());
    float xv[64], yv[64];
    for (int i = 0; i < 64; i++) xv[i] = (float)i - 10, yv[i] = 1;
    WnrtStats st;
    run_sizes(m, true, &st);
    ck_assert_int_eq(st.dispatches - st.io_dispatches, 5);
    /* x, y, add and 4 relus: 7 tensors of 256 bytes; x and y live for the whole run, and the
     * chain ping-pongs between two more: 4 live at most */
    ck_assert(st.intermediate_sum == 7 * 256);
    ck_assert_msg(st.peak_bytes < st.intermediate_sum, "peak %llu, sum %llu", (unsigned long long)st.peak_bytes,
                  (unsigned long long)st.intermediate_sum);
    ck_assert(st.peak_bytes == 4 * 256);

    /* same symbol, different sizes */
    ck_assert_int_eq(bind2(m, 3, 4, xv, yv), 0);
    ck_assert_int_eq(wnrt_run(m), -1);
    ck_assert_msg(strstr(diag_message(), "sequence_length") && strstr(diag_message(), "input y"), "%s", diag_message());
    diag_clear();
    /* bound exceeded */
    ck_assert_int_eq(wnrt_bind_input(m, "x", xv, 17 * 16, 2, (int64_t[]){17, 4}), -1);
    ck_assert_msg(strstr(diag_message(), "input x") && strstr(diag_message(), "<= 16"), "%s", diag_message());
    wnrt_free(m);
    graph_free(g);
}
END_TEST

/* Inputs bound once serve every later run: their buffers are not reused for intermediates
 * (the relu chain's outputs have the inputs' size, so a freed input slot would be taken). */
START_TEST(inputs_survive_runs) {
    Graph *g = rt_relu_chain();
    WnrtModel *m = wnrt_load(rt_ctx, g);
    ck_assert_msg(m != NULL, "%s", diag_message());
    float xv[8 * 4], yv[8 * 4], out[8 * 4];
    for (int i = 0; i < 32; i++) xv[i] = (float)(i % 7) - 2.0f, yv[i] = (float)(i % 5) - 1.5f;
    ck_assert_msg(bind2(m, 8, 8, xv, yv) == 0, "%s", diag_message());
    for (int run = 0; run < 3; run++) {
        ck_assert_msg(wnrt_run(m) == 0, "%s", diag_message());
        ck_assert_int_eq(wnrt_read_output(m, 0, out, sizeof out), 0);
        for (int i = 0; i < 32; i++) {
            float want = xv[i] + yv[i] > 0 ? xv[i] + yv[i] : 0.0f;
            ck_assert_msg(out[i] == want, "run %d element %d: %g, want %g", run, i, out[i], want);
        }
    }
    wnrt_free(m);
    graph_free(g);
}
END_TEST

/* wnrt_warm captures plans without recording or running them and leaves the inputs as they were:
 * unbound inputs stay unbound, bound ones keep their data and sizes. */
START_TEST(warm_leaves_inputs_alone) {
    Graph *g = rt_relu_chain();
    WnrtModel *m = wnrt_load(rt_ctx, g);
    ck_assert_msg(m != NULL, "%s", diag_message());
    const int64_t sizes[3] = {3, 0, 1}; /* 3 rows, the bound (16), 1 row */
    ck_assert_int_eq(wnrt_warm(m, 3, sizes), 3);
    WnrtStats st;
    wnrt_stats(m, &st);
    ck_assert_int_eq(st.recordings, 0);
    ck_assert_int_eq(st.runs, 0);
    ck_assert_int_eq(wnrt_run(m), -1);
    ck_assert_msg(strstr(diag_message(), "was not bound"), "%s", diag_message());
    diag_clear();
    float xv[8 * 4], yv[8 * 4], out[8 * 4];
    for (int i = 0; i < 32; i++) xv[i] = (float)(i % 7) - 2.0f, yv[i] = (float)(i % 5) - 1.5f;
    ck_assert_msg(bind2(m, 8, 8, xv, yv) == 0, "%s", diag_message());
    ck_assert_int_eq(wnrt_warm(m, 3, sizes), 3);
    ck_assert_msg(wnrt_run(m) == 0, "%s", diag_message());
    WnrtTensorInfo info;
    ck_assert_int_eq(wnrt_output_info(m, 0, &info), 0);
    ck_assert_int_eq(info.shape[0], 8);
    ck_assert_int_eq(wnrt_read_output(m, 0, out, sizeof out), 0);
    for (int i = 0; i < 32; i++) ck_assert_float_eq(out[i], xv[i] + yv[i] > 0 ? xv[i] + yv[i] : 0.0f);
    wnrt_free(m);
    graph_free(g);
}
END_TEST

START_TEST(reshape_is_a_view) {
    Graph *g = graph_new("t");
    Value *x = tu_input(g, "x", DT_F32, 2, (int64_t[]){2, 3});
    Node *r = tu_node(g, OP_RESHAPE, 1, x);
    node_set_dims(g, r, "newShape", 1, (Dim[]){dim_static(6)});
    Value *flat = graph_finish(g, r);
    graph_add_output(g, graph_finish(g, tu_node(g, OP_NEG, 1, flat)));
    WnrtModel *m = wnrt_load(rt_ctx, g);
    ck_assert_msg(m != NULL, "%s", diag_message());
    float xv[6] = {1, 2, 3, 4, 5, 6}, out[6];
    ck_assert_msg(wnrt_bind_input(m, "x", xv, sizeof xv, 2, (int64_t[]){2, 3}) == 0 && wnrt_run(m) == 0, "%s", diag_message());
    ck_assert_int_eq(wnrt_read_output(m, 0, out, sizeof out), 0);
    for (int i = 0; i < 6; i++) ck_assert_float_eq(out[i], -xv[i]);
    WnrtStats st;
    wnrt_stats(m, &st);
    ck_assert_int_eq(st.dispatches - st.io_dispatches, 1);
    wnrt_free(m);
    graph_free(g);
}
END_TEST

/* ---- reductions with an element-wise epilogue (runtime/plan_reduce.c) --------------------------- */

typedef struct {
    OpId reduce, binary; /* binary OP_ADD / OP_SUB / OP_MUL, or OP_COUNT: none */
    bool const_first;
    DType in, cast_to;   /* cast_to DT_INVALID: no cast */
    const void *c;       /* the constant (dtype in) */
    bool sum_is_output;  /* the reduction is a graph output too: nothing to fuse */
} EpiCase;

/* x [2, 5] -> reduce over axis 1 -> [binary with c] -> [cast]; runs it and returns the dispatch count
 * (graph inputs / outputs apart); out: output 0. */
static int run_epilogue(const EpiCase *t, const void *x, void *out, uint64_t out_bytes, bool no_fuse) {
    Graph *g = graph_new("t");
    Value *xv = tu_input(g, "x", t->in, 2, (int64_t[]){2, 5});
    Node *r = tu_node(g, t->reduce, 1, xv);
    node_set_ints(g, r, "axes", 1, (int64_t[]){1});
    Value *y = graph_finish(g, r), *sum = y;
    if (t->binary != OP_COUNT) {
        Value *c = graph_add_const_copy(g, "c", t->in, 1, (int64_t[]){1}, t->c, dtype_storage_bytes(t->in, 1));
        y = graph_finish(g, t->const_first ? tu_node(g, t->binary, 2, c, y) : tu_node(g, t->binary, 2, y, c));
    }
    if (t->cast_to != DT_INVALID) {
        Node *n = tu_node(g, OP_CAST, 1, y);
        node_set_dtype(g, n, "to", t->cast_to);
        y = graph_finish(g, n);
    }
    graph_add_output(g, y);
    if (t->sum_is_output) graph_add_output(g, sum);
    WnrtModel *m = rt_load_with_env(g, "WEBNNC_NO_FUSE", no_fuse ? "1" : NULL);
    ck_assert_msg(m != NULL, "%s", diag_message());
    ck_assert_msg(wnrt_bind_input(m, "x", x, dtype_storage_bytes(t->in, 10), 2, (int64_t[]){2, 5}) == 0 && wnrt_run(m) == 0,
                  "%s", diag_message());
    ck_assert_int_eq(wnrt_read_output(m, 0, out, out_bytes), 0);
    /* the reduction (and the binary op) absorbed into the last node, when fused */
    bool fused = !no_fuse && !t->sum_is_output;
    const Node *last = y->producer;
    ck_assert_int_eq(wnrt_node_absorbed_into(m, r->index), fused && last != r ? last->index : -1);
    if (t->binary != OP_COUNT && t->cast_to != DT_INVALID)
        ck_assert_int_eq(wnrt_node_absorbed_into(m, last->inputs[0]->producer->index), fused ? last->index : -1);
    ck_assert_int_eq(wnrt_node_absorbed_into(m, last->index), -1);
    WnrtStats st;
    wnrt_stats(m, &st);
    wnrt_free(m);
    graph_free(g);
    return st.dispatches - st.io_dispatches;
}

/* The case fused and unfused: the same output bytes; one dispatch fused (unless the reduction is
 * an output), one per node unfused. */
static void check_epilogue(const EpiCase *t, const void *x, void *out, uint64_t out_bytes) {
    uint8_t ref[64];
    int nodes = 1 + (t->binary != OP_COUNT) + (t->cast_to != DT_INVALID), fused = t->sum_is_output ? nodes : 1;
    ck_assert_int_eq(run_epilogue(t, x, ref, out_bytes, true), nodes);
    ck_assert_int_eq(run_epilogue(t, x, out, out_bytes, false), fused);
    ck_assert_msg(memcmp(ref, out, out_bytes) == 0, "fused and unfused outputs differ");
}

START_TEST(reduce_epilogue_one_dispatch) {
    /* the ORT-GenAI mask chain: reduceSum(int64) - 1 -> int32, the sums past 2^31 (cast keeps the low bits) */
    int64_t mask[10] = {1, 1, 1, 0, 0, 3000000000, 1000000000, 1, 1, 7}, one = 1;
    int32_t seqlens[2];
    EpiCase t = {OP_REDUCE_SUM, OP_SUB, false, DT_I64, DT_I32, &one, false};
    int32_t xi[10] = {3, -4, 9, 0, 1, -7, -2, -9, -3, -8}, ten = 10, yi[2];
    check_epilogue(&t, mask, seqlens, sizeof seqlens);
    ck_assert_int_eq(seqlens[0], 2);
    ck_assert_int_eq(seqlens[1], (int32_t)(uint32_t)(uint64_t)(4000000009 - 1));
    /* the constant first, no cast: 10 - max */
    t = (EpiCase){OP_REDUCE_MAX, OP_SUB, true, DT_I32, DT_INVALID, &ten, false};
    check_epilogue(&t, xi, yi, sizeof yi);
    ck_assert_int_eq(yi[0], 1);
    ck_assert_int_eq(yi[1], 12);
    /* add: min + 10 */
    t = (EpiCase){OP_REDUCE_MIN, OP_ADD, false, DT_I32, DT_INVALID, &ten, false};
    check_epilogue(&t, xi, yi, sizeof yi);
    ck_assert_int_eq(yi[0], 6);
    ck_assert_int_eq(yi[1], 1);
    /* float: mean * 0.1 -> float16, each step rounded as the unfused nodes round it */
    float xf[10] = {0.1f, 0.2f, 0.3f, 0.4f, 0.5f, 100, 200, 300, 400, 500.5f}, tenth = 0.1f;
    uint16_t yh[2];
    t = (EpiCase){OP_REDUCE_MEAN, OP_MUL, false, DT_F32, DT_F16, &tenth, false};
    check_epilogue(&t, xf, yh, sizeof yh);
    ck_assert_float_eq_tol(wn_f16_to_f32(yh[1]), 30.01f, 0.01f);
    /* a cast alone; an int32 sum widened to int64 */
    int64_t yl[2];
    t = (EpiCase){OP_REDUCE_SUM, OP_COUNT, false, DT_I32, DT_I64, NULL, false};
    check_epilogue(&t, xi, yl, sizeof yl);
    ck_assert_int_eq(yl[0], 9);
    ck_assert_int_eq(yl[1], -29);
    /* the reduction is also a graph output: left alone, both outputs right */
    t = (EpiCase){OP_REDUCE_SUM, OP_ADD, false, DT_I64, DT_I32, &one, true};
    check_epilogue(&t, mask, seqlens, sizeof seqlens);
    ck_assert_int_eq(seqlens[0], 4);
}
END_TEST

START_TEST(missing_kernel_and_inputs) {
    Graph *g = graph_new("t");
    Value *x = tu_input(g, "x", DT_F32, 1, (int64_t[]){4});
    Node *n = tu_node(g, OP_CAST, 1, x); /* a dtype pair without a kernel: cast to int4 */
    node_set_dtype(g, n, "to", DT_I4);
    Value *y = graph_finish(g, n);
    ck_assert_msg(y != NULL, "%s", diag_message());
    graph_add_output(g, y);
    ck_assert(wnrt_load(rt_ctx, g) == NULL);
    ck_assert_msg(strstr(diag_message(), "no kernel for op cast (dtype float32 -> int4) at node"), "%s", diag_message());
    graph_free(g);
    diag_clear();

    g = graph_new("t");
    x = tu_input(g, "x", DT_F32, 1, (int64_t[]){4});
    graph_add_output(g, graph_finish(g, tu_node(g, OP_RELU, 1, x)));
    WnrtModel *m = wnrt_load(rt_ctx, g);
    ck_assert(m != NULL);
    ck_assert_int_eq(wnrt_run(m), -1); /* x not bound */
    ck_assert_msg(strstr(diag_message(), "input x was not bound"), "%s", diag_message());
    diag_clear();
    float xv[4] = {0};
    ck_assert_int_eq(wnrt_bind_input(m, "nope", xv, 16, 1, (int64_t[]){4}), -1);
    ck_assert_int_eq(wnrt_bind_input(m, "x", xv, 12, 1, (int64_t[]){4}), -1); /* wrong byte count */
    wnrt_free(m);
    graph_free(g);
}
END_TEST

#define ENV_VAR "WEBNNC_TEST_ENV_OVERRIDE"

START_TEST(numeric_override) {
    unsetenv(ENV_VAR);
    ck_assert_int_eq(wnrt_env_long(ENV_VAR, 0, 64, 7), 7);
    setenv(ENV_VAR, "", 1);
    ck_assert_int_eq(wnrt_env_long(ENV_VAR, 0, 64, 7), 7);
    setenv(ENV_VAR, "0", 1);
    ck_assert_int_eq(wnrt_env_long(ENV_VAR, 0, 64, 7), 0);
    setenv(ENV_VAR, "32", 1);
    ck_assert_int_eq(wnrt_env_long(ENV_VAR, 0, 64, 7), 32);
    setenv(ENV_VAR, "65", 1);
    ck_assert_int_eq(wnrt_env_long(ENV_VAR, 0, 64, 7), 7);
    setenv(ENV_VAR, "-1", 1);
    ck_assert_int_eq(wnrt_env_long(ENV_VAR, 0, 64, 7), 7);
    unsetenv(ENV_VAR);
}
END_TEST

START_TEST(switch_override) {
    unsetenv(ENV_VAR);
    ck_assert(wnrt_env_flag(ENV_VAR, true));
    ck_assert(!wnrt_env_flag(ENV_VAR, false));
    setenv(ENV_VAR, "", 1);
    ck_assert(wnrt_env_flag(ENV_VAR, true));
    setenv(ENV_VAR, "0", 1);
    ck_assert(!wnrt_env_flag(ENV_VAR, true));
    setenv(ENV_VAR, "1", 1);
    ck_assert(wnrt_env_flag(ENV_VAR, false));
    unsetenv(ENV_VAR);
}
END_TEST

int main(void) {
    Suite *s = suite_create("runtime-plan");
    TCase *tc = tcase_create("plan");
    tcase_add_checked_fixture(tc, rt_setup, rt_teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, dynamic_dims_and_replay);
    tcase_add_test(tc, io_copies_counted_apart);
    tcase_add_test(tc, inputs_survive_runs);
    tcase_add_test(tc, replay_off_records_per_size);
    tcase_add_test(tc, warm_leaves_inputs_alone);
    tcase_add_test(tc, reshape_is_a_view);
    tcase_add_test(tc, reduce_epilogue_one_dispatch);
    tcase_add_test(tc, missing_kernel_and_inputs);
    suite_add_tcase(s, tc);
    TCase *env = tcase_create("env");
    tcase_add_test(env, numeric_override);
    tcase_add_test(env, switch_override);
    suite_add_tcase(s, env);
    return rt_main(s);
}
