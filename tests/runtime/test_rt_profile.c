/* test_rt_profile.c - the profiler (webnnc_profile.h, runtime/profile.c) and its aggregation
 * (runtime/profile_agg.c): sums of hand-made steps per node and op type, row order, host phases,
 * steps without GPU times, bad node indices; then real runs on the device: one timed dispatch per
 * recorded dispatch in node order, non-negative ordered times inside the step, host phases inside
 * the step, recordings vs replays, the WEBNNC_NO_TIMESTAMPS path, enable after a run refused. */
#include <stdlib.h>
#include <string.h>

#include "profile_agg.h"
#include "rt_test_util.h"
#include "webnnc_profile.h"


START_TEST(aggregation_sums_and_orders) {
    Graph *g = rt_relu_chain();
    ck_assert_int_eq(g->n_nodes, 5);
    ProfAgg a;
    ck_assert_int_eq(wnrt_prof_agg_init(&a, "decode", g), 0);
    /* step 1: add 10 us, relus 1, 2, 3, 4 us; step 2: same nodes, add 30 us, relu 3 dispatched twice */
    WnrtProfDispatch d1[5] = {{0, 0, 10e3}, {1, 10e3, 11e3}, {2, 11e3, 13e3}, {3, 13e3, 16e3}, {4, 16e3, 20e3}};
    WnrtProfDispatch d2[6] = {{0, 0, 30e3}, {1, 30e3, 31e3}, {2, 31e3, 33e3}, {3, 33e3, 36e3}, {3, 36e3, 37e3}, {4, 37e3, 41e3}};
    WnrtProfStep s1 = {.gpu_timed = true, .n_dispatches = 5, .dispatches = d1, .runs = 1, .recordings = 1, .plan_dispatches = 5};
    s1.host_ns[WNRT_PROF_RECORD] = 100e3;
    s1.host_ns[WNRT_PROF_WAIT] = 25e3;
    WnrtProfStep s2 = {.gpu_timed = true, .n_dispatches = 6, .dispatches = d2, .runs = 1, .plan_dispatches = 6};
    s2.host_ns[WNRT_PROF_WAIT] = 45e3;
    ck_assert_int_eq(wnrt_prof_agg_add(&a, &s1, 150e3), 0);
    ck_assert_int_eq(wnrt_prof_agg_add(&a, &s2, 50e3), 0);
    ck_assert_int_eq(a.steps, 2);
    ck_assert_int_eq(a.runs, 2);
    ck_assert_int_eq(a.recordings, 1);
    ck_assert_int_eq(a.dispatches, 11);
    ck_assert_int_eq(a.plan_dispatches, 11);
    ck_assert(a.gpu_timed);
    ck_assert_double_eq_tol(a.wall_ns, 200e3, 1e-6);
    ck_assert_double_eq_tol(a.gpu_ns, 61e3, 1e-6);
    ck_assert_double_eq_tol(a.host_ns[WNRT_PROF_WAIT], 70e3, 1e-6);
    ck_assert_double_eq_tol(wnrt_prof_agg_host_ns(&a), 170e3, 1e-6);

    ProfRow *rows;
    int n = wnrt_prof_agg_rows(&a, false, &rows);
    ck_assert_int_eq(n, 2); /* add, relu */
    ck_assert_int_eq(rows[0].key, OP_ADD);
    ck_assert_int_eq(rows[0].calls, 2);
    ck_assert_double_eq_tol(rows[0].total_ns, 40e3, 1e-6);
    ck_assert_int_eq(rows[1].key, OP_RELU);
    ck_assert_int_eq(rows[1].calls, 9);
    ck_assert_double_eq_tol(rows[1].total_ns, 21e3, 1e-6);
    free(rows);
    n = wnrt_prof_agg_rows(&a, true, &rows);
    ck_assert_int_eq(n, 5);
    /* node totals: add 10 + 30; relus 1 + 1, 2 + 2, 3 + 3 + 1 (3 calls), 4 + 4 us */
    int order[5] = {0, 4, 3, 2, 1}, calls[5] = {2, 2, 3, 2, 2};
    double want[5] = {40e3, 8e3, 7e3, 4e3, 2e3};
    for (int i = 0; i < 5; i++) {
        ck_assert_int_eq(rows[i].key, order[i]);
        ck_assert_double_eq_tol(rows[i].total_ns, want[i], 1e-6);
        ck_assert_int_eq(rows[i].calls, calls[i]);
    }
    free(rows);

    /* a step without GPU times counts calls only and clears gpu_timed */
    WnrtProfDispatch d3[1] = {{1, -1, -1}};
    WnrtProfStep s3 = {.gpu_timed = false, .n_dispatches = 1, .dispatches = d3, .runs = 1};
    ck_assert_int_eq(wnrt_prof_agg_add(&a, &s3, 10e3), 0);
    ck_assert(!a.gpu_timed);
    ck_assert_int_eq(a.node_calls[1], 3);
    ck_assert_double_eq_tol(a.gpu_ns, 61e3, 1e-6);

    /* a dispatch naming no node of the graph: error, nothing added */
    WnrtProfDispatch d4[1] = {{5, 0, 1}};
    WnrtProfStep s4 = {.gpu_timed = true, .n_dispatches = 1, .dispatches = d4};
    ck_assert_int_eq(wnrt_prof_agg_add(&a, &s4, 1e3), -1);
    ck_assert_msg(strstr(diag_message(), "node 5"), "%s", diag_message());
    ck_assert_int_eq(a.steps, 3);
    wnrt_prof_agg_free(&a);
    graph_free(g);
}
END_TEST

static int run_once(WnrtModel *m, int64_t seq) {
    float v[64] = {0};
    if (wnrt_bind_input(m, "x", v, (uint64_t)seq * 16, 2, (int64_t[]){seq, 4}) < 0 ||
        wnrt_bind_input(m, "y", v, (uint64_t)seq * 16, 2, (int64_t[]){seq, 4}) < 0 || wnrt_run(m) < 0)
        return -1;
    return wnrt_read_output(m, 0, v, sizeof v);
}

/* Checks one step of `runs` runs of the relu chain measured between t0 and t1. */
static void check_step(const WnrtProfStep *s, int runs, int recordings, double t0, double t1) {
    ck_assert_int_eq(s->runs, runs);
    ck_assert_int_eq(s->recordings, recordings);
    ck_assert_int_eq(s->n_dispatches, 5 * runs);
    ck_assert_int_eq(s->plan_dispatches, 5 * runs);
    double host = 0, prev_end = -1;
    for (int i = 0; i < s->n_spans; i++) {
        ck_assert(s->spans[i].begin_ns >= t0 && s->spans[i].end_ns <= t1 && s->spans[i].begin_ns <= s->spans[i].end_ns);
        host += s->spans[i].end_ns - s->spans[i].begin_ns;
    }
    ck_assert(host <= t1 - t0);
    ck_assert(s->host_ns[WNRT_PROF_WAIT] > 0 && s->host_ns[WNRT_PROF_BIND] > 0 && s->host_ns[WNRT_PROF_READBACK] > 0);
    ck_assert(recordings ? s->host_ns[WNRT_PROF_RECORD] > 0 : 1);
    for (int i = 0; i < s->n_dispatches; i++) {
        const WnrtProfDispatch *d = &s->dispatches[i];
        ck_assert_int_eq(d->node, i % 5); /* node order: add, relu, relu, relu, relu */
        if (!s->gpu_timed) {
            ck_assert(d->begin_ns == -1 && d->end_ns == -1);
            continue;
        }
        ck_assert_msg(d->begin_ns >= t0 && d->end_ns <= t1 + 1e6 && d->begin_ns <= d->end_ns, "dispatch %d: %.0f..%.0f in %.0f..%.0f",
                      i, d->begin_ns, d->end_ns, t0, t1);
        if (i % 5) ck_assert(d->begin_ns >= prev_end); /* serialized within a run */
        prev_end = d->end_ns;
    }
}

START_TEST(device_runs_are_profiled) {
    Graph *g = rt_relu_chain();
    WnrtModel *m = wnrt_load(rt_ctx, g);
    ck_assert_msg(m != NULL, "%s", diag_message());
    const char *why = "unset";
    int gpu = wnrt_profile_enable(m, &why);
    ck_assert_msg(gpu == 1, "lavapipe and GPUs have compute timestamps: %s", why ? why : "");
    ck_assert(why == NULL);
    WnrtProfStep s;
    double t0 = wnrt_profile_now_ns();
    ck_assert_msg(run_once(m, 3) == 0, "%s", diag_message());
    double t1 = wnrt_profile_now_ns();
    ck_assert_int_eq(wnrt_profile_take(m, &s), 0);
    ck_assert(s.gpu_timed);
    check_step(&s, 1, 1, t0, t1);
    /* two runs in one step: a replay of the same size, then a new size (replayed from the same
     * recording; with WEBNNC_REPLAY=0 a new recording) */
    WnrtStats st0, st1;
    wnrt_stats(m, &st0);
    t0 = wnrt_profile_now_ns();
    ck_assert_int_eq(run_once(m, 3), 0);
    ck_assert_int_eq(run_once(m, 7), 0);
    t1 = wnrt_profile_now_ns();
    wnrt_stats(m, &st1);
    ck_assert_int_eq(st1.recordings - st0.recordings, st1.replay ? 0 : 1);
    ck_assert_int_eq(wnrt_profile_take(m, &s), 0);
    check_step(&s, 2, st1.recordings - st0.recordings, t0, t1);
    /* an empty step */
    ck_assert_int_eq(wnrt_profile_take(m, &s), 0);
    ck_assert(s.runs == 0 && s.n_dispatches == 0 && s.n_spans == 0);
    wnrt_free(m);
    graph_free(g);
}
END_TEST

START_TEST(no_timestamps_and_misuse) {
    Graph *g = rt_relu_chain();
    WnrtModel *m = wnrt_load(rt_ctx, g);
    ck_assert_msg(m != NULL, "%s", diag_message());
    WnrtProfStep s;
    ck_assert_int_eq(wnrt_profile_take(m, &s), -1); /* not enabled */
    ck_assert_msg(strstr(diag_message(), "not enabled"), "%s", diag_message());
    diag_clear();
    setenv("WEBNNC_NO_TIMESTAMPS", "1", 1);
    const char *why = NULL;
    ck_assert_int_eq(wnrt_profile_enable(m, &why), 0);
    unsetenv("WEBNNC_NO_TIMESTAMPS");
    ck_assert(why && strstr(why, "WEBNNC_NO_TIMESTAMPS"));
    double t0 = wnrt_profile_now_ns();
    ck_assert_int_eq(run_once(m, 2), 0);
    double t1 = wnrt_profile_now_ns();
    ck_assert_int_eq(wnrt_profile_take(m, &s), 0);
    ck_assert(!s.gpu_timed);
    check_step(&s, 1, 1, t0, t1);
    wnrt_free(m);
    /* enabling after the first run is refused */
    m = wnrt_load(rt_ctx, g);
    ck_assert_int_eq(run_once(m, 2), 0);
    ck_assert_int_eq(wnrt_profile_enable(m, &why), -1);
    ck_assert_msg(strstr(diag_message(), "before the first run"), "%s", diag_message());
    wnrt_free(m);
    graph_free(g);
}
END_TEST

int main(void) {
    Suite *s = suite_create("runtime-profile");
    TCase *tc = tcase_create("profile");
    tcase_add_checked_fixture(tc, rt_setup, rt_teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, aggregation_sums_and_orders);
    tcase_add_test(tc, device_runs_are_profiled);
    tcase_add_test(tc, no_timestamps_and_misuse);
    suite_add_tcase(s, tc);
    return rt_main(s);
}
