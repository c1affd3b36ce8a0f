/* profile.c - profiling of runs (webnnc_profile.h, hooks in profile.h): a timestamp query pool with
 * two queries per dispatch (reset, then written before and after the vkCmdDispatch), the node of
 * every dispatch per recorded command buffer, host phase spans, and the per-step results that
 * wnrt_profile_take hands out. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "profile.h"
#include "rt_env.h"

const char *const wnrt_prof_phase_key[WNRT_PROF_NPHASES] = {
#define X(ID, KEY, LABEL) KEY,
    WNRT_PROF_PHASES(X)
#undef X
};
const char *const wnrt_prof_phase_label[WNRT_PROF_NPHASES] = {
#define X(ID, KEY, LABEL) LABEL,
    WNRT_PROF_PHASES(X)
#undef X
};

/* dispatches of one recorded command buffer, in recording order */
typedef struct {
    VkCommandBuffer cb;
    int *nodes;
    int n, cap;
} ProfRecording;

struct Profile {
    VkQueryPool pool; /* VK_NULL_HANDLE: host times only */
    uint32_t slots;   /* dispatches the pool times per run (2 queries each) */
    uint64_t mask;    /* valid timestamp bits */
    double period;    /* ns per tick */
    ProfRecording *rec;
    int n_rec, cap_rec;
    ProfRecording *recording; /* being recorded */
    int phase;
    double phase_begin, submit_begin, wait_end;
    uint64_t *ticks;
    WnrtProfSpan *spans;
    int n_spans, cap_spans;
    WnrtProfDispatch *disp;
    int n_disp, cap_disp;
    int runs, recordings, plan_dispatches, seen_recordings;
};

double wnrt_profile_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* Makes room for `need` elements of `size` bytes in *p (capacity *cap).  0 or -1 + diagnostic. */
static int grow(void **p, int *cap, int need, size_t size) {
    if (need <= *cap) return 0;
    int nc = *cap ? *cap : 64;
    while (nc < need) nc *= 2;
    void *np = realloc(*p, size * (size_t)nc);
    if (!np) {
        diag_error("out of memory");
        return -1;
    }
    *p = np;
    *cap = nc;
    return 0;
}

/* Why the device cannot time dispatches (NULL when it can). */
static const char *no_timestamps(const WnrtModel *m, VkPhysicalDeviceLimits *lim) {
    if (wnrt_env_flag("WEBNNC_NO_TIMESTAMPS", false)) return "WEBNNC_NO_TIMESTAMPS is set";
    VkPhysicalDeviceProperties p;
    vkGetPhysicalDeviceProperties(m->dev->phys, &p);
    *lim = p.limits;
    if (wnrt_timing_bits(m->dev) == 0)
        return lim->timestampComputeAndGraphics ? "the compute queue has no timestamps (timestampValidBits 0)"
                                                : "no timestamps on the compute queue (timestampComputeAndGraphics false, "
                                                  "timestampValidBits 0)";
    if (!(lim->timestampPeriod > 0)) return "the device reports timestampPeriod 0";
    return NULL;
}

int wnrt_profile_enable(WnrtModel *m, const char **why) {
    if (m->n_rec > 0) {
        diag_error("wnrt_profile_enable: call it before the first run");
        return -1;
    }
    if (m->prof) {
        if (why) *why = m->prof->pool ? NULL : "timestamps are off";
        return m->prof->pool ? 1 : 0;
    }
    struct Profile *p = calloc(1, sizeof *p);
    if (!p) {
        diag_error("out of memory");
        return -1;
    }
    p->phase = WNRT_PROF_IDLE;
    m->prof = p;
    VkPhysicalDeviceLimits lim;
    const char *reason = no_timestamps(m, &lim);
    if (!reason) {
        /* room for every dispatch of any plausible recording: nodes x 16 (split dispatches) */
        int live = 0;
        for (int i = 0; i < m->g->n_nodes; i++) live += m->fam[i] != NULL;
        p->slots = (uint32_t)live * 16 + 64;
        VkQueryPoolCreateInfo qi = {.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO, .queryType = VK_QUERY_TYPE_TIMESTAMP,
                                    .queryCount = 2 * p->slots};
        p->ticks = malloc(sizeof *p->ticks * 2 * p->slots);
        if (!p->ticks || vkCreateQueryPool(m->dev->device, &qi, NULL, &p->pool) != VK_SUCCESS) {
            p->pool = VK_NULL_HANDLE;
            reason = "vkCreateQueryPool failed";
        } else {
            uint32_t bits = wnrt_timing_bits(m->dev);
            p->mask = bits >= 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1;
            p->period = lim.timestampPeriod;
        }
    }
    if (why) *why = reason;
    return reason ? 0 : 1;
}

void wnrt_profile_free(WnrtModel *m) {
    struct Profile *p = m->prof;
    if (!p) return;
    if (p->pool) vkDestroyQueryPool(m->dev->device, p->pool, NULL);
    for (int i = 0; i < p->n_rec; i++) free(p->rec[i].nodes);
    free(p->rec);
    free(p->ticks);
    free(p->spans);
    free(p->disp);
    free(p);
    m->prof = NULL;
}

static ProfRecording *find_recording(struct Profile *p, VkCommandBuffer cb) {
    for (int i = 0; i < p->n_rec; i++)
        if (p->rec[i].cb == cb) return &p->rec[i];
    return NULL;
}

int wnrt_profile_record_begin_(WnrtModel *m, VkCommandBuffer cb) {
    struct Profile *p = m->prof;
    ProfRecording *r = find_recording(p, cb);
    if (!r) {
        if (grow((void **)&p->rec, &p->cap_rec, p->n_rec + 1, sizeof *p->rec) < 0) return -1;
        r = &p->rec[p->n_rec++];
        memset(r, 0, sizeof *r);
        r->cb = cb;
    }
    r->n = 0;
    p->recording = r;
    return 0;
}

int wnrt_profile_dispatch_begin_(WnrtModel *m, VkCommandBuffer cb, const Node *n) {
    struct Profile *p = m->prof;
    ProfRecording *r = p->recording;
    if (!r || r->cb != cb) {
        diag_node_error(n, "internal: profiled dispatch outside a recording");
        return -1;
    }
    if (grow((void **)&r->nodes, &r->cap, r->n + 1, sizeof *r->nodes) < 0) return -1;
    r->nodes[r->n] = n->index;
    if (p->pool && (uint32_t)r->n < p->slots) {
        vkCmdResetQueryPool(cb, p->pool, 2 * (uint32_t)r->n, 2);
        vkCmdWriteTimestamp(cb, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, p->pool, 2 * (uint32_t)r->n);
    }
    return 0;
}

void wnrt_profile_dispatch_end_(WnrtModel *m, VkCommandBuffer cb) {
    struct Profile *p = m->prof;
    ProfRecording *r = p->recording;
    if (!r || r->cb != cb) return;
    if (p->pool && (uint32_t)r->n < p->slots)
        vkCmdWriteTimestamp(cb, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, p->pool, 2 * (uint32_t)r->n + 1);
    r->n++;
}

void wnrt_profile_phase_(WnrtModel *m, int phase) {
    struct Profile *p = m->prof;
    double now = wnrt_profile_now_ns();
    if (p->phase != WNRT_PROF_IDLE && grow((void **)&p->spans, &p->cap_spans, p->n_spans + 1, sizeof *p->spans) == 0)
        p->spans[p->n_spans++] = (WnrtProfSpan){p->phase, p->phase_begin, now};
    if (p->phase == WNRT_PROF_SUBMIT) p->submit_begin = p->phase_begin;
    if (p->phase == WNRT_PROF_WAIT) p->wait_end = now;
    p->phase = phase;
    p->phase_begin = now;
}

int wnrt_profile_run_done_(WnrtModel *m, VkCommandBuffer cb, int dispatches) {
    struct Profile *p = m->prof;
    ProfRecording *r = find_recording(p, cb);
    p->recording = NULL;
    p->runs++;
    p->plan_dispatches += dispatches;
    p->recordings += m->stats.recordings - p->seen_recordings;
    p->seen_recordings = m->stats.recordings;
    if (!r) return 0;
    if (grow((void **)&p->disp, &p->cap_disp, p->n_disp + r->n, sizeof *p->disp) < 0) return -1;
    uint32_t timed = p->pool ? ((uint32_t)r->n < p->slots ? (uint32_t)r->n : p->slots) : 0;
    if (timed) {
        VkResult vr = vkGetQueryPoolResults(m->dev->device, p->pool, 0, 2 * timed, sizeof *p->ticks * 2 * timed, p->ticks,
                                            sizeof *p->ticks, VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT);
        if (vr != VK_SUCCESS) return vkdev_fail("vkGetQueryPoolResults", vr);
    }
    /* the GPU clock on the host's: the last dispatch ends when the wait does (the fence follows
     * it closely), unless that would start the first before the submit */
    double span = timed ? (double)((p->ticks[2 * timed - 1] - p->ticks[0]) & p->mask) * p->period : 0;
    double origin = p->wait_end - span > p->submit_begin ? p->wait_end - span : p->submit_begin;
    for (int i = 0; i < r->n; i++) {
        WnrtProfDispatch *d = &p->disp[p->n_disp++];
        d->node = r->nodes[i];
        d->begin_ns = d->end_ns = -1;
        if ((uint32_t)i >= timed) continue;
        d->begin_ns = origin + (double)((p->ticks[2 * i] - p->ticks[0]) & p->mask) * p->period;
        d->end_ns = origin + (double)((p->ticks[2 * i + 1] - p->ticks[0]) & p->mask) * p->period;
    }
    return 0;
}

int wnrt_profile_take(WnrtModel *m, WnrtProfStep *out) {
    struct Profile *p = m->prof;
    memset(out, 0, sizeof *out);
    if (!p) {
        diag_error("wnrt_profile_take: profiling is not enabled");
        return -1;
    }
    wnrt_profile_phase_(m, WNRT_PROF_IDLE);
    out->gpu_timed = p->pool != VK_NULL_HANDLE;
    for (int i = 0; i < p->n_spans; i++) out->host_ns[p->spans[i].phase] += p->spans[i].end_ns - p->spans[i].begin_ns;
    out->n_spans = p->n_spans;
    out->spans = p->spans;
    out->n_dispatches = p->n_disp;
    out->dispatches = p->disp;
    out->runs = p->runs;
    out->recordings = p->recordings;
    out->plan_dispatches = p->plan_dispatches;
    for (int i = 0; i < p->n_disp && out->gpu_timed; i++)
        if (p->disp[i].begin_ns < 0) out->gpu_timed = false; /* more dispatches than the pool times */
    p->n_spans = p->n_disp = p->runs = p->recordings = p->plan_dispatches = 0;
    return 0;
}
