/* runtime.c - the public runtime API (webnnc_runtime.h): context, model load/free, run with
 * recording cache (one command buffer per dispatch plan, replayed for every size with that plan
 * after rewriting its parameters, replay.h; with WEBNNC_REPLAY=0 one per bound size set, replayed
 * when sizes repeat; a few are kept, least recently used is re-recorded), output readback and
 * statistics. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bind.h"
#include "profile.h"
#include "rt_model.h"

WnrtContext *wnrt_create(int device_index) {
    WnrtContext *c = calloc(1, sizeof *c);
    if (!c) { diag_error("out of memory"); return NULL; }
    c->dev = vkdev_open(device_index);
    if (!c->dev) { free(c); return NULL; }
    return c;
}

const WnrtDeviceInfo *wnrt_context_device(const WnrtContext *ctx) { return &ctx->dev->info; }

void wnrt_destroy(WnrtContext *ctx) {
    if (!ctx) return;
    vkdev_close(ctx->dev);
    free(ctx);
}

WnrtModel *wnrt_load(WnrtContext *ctx, Graph *g) {
    WnrtModel *m = calloc(1, sizeof *m);
    if (!m) { diag_error("out of memory"); return NULL; }
    m->ctx = ctx;
    m->dev = ctx->dev;
    m->g = g;
    size_t nv = (size_t)g->n_values + 1, nn = (size_t)g->n_nodes + 1, ni = (size_t)g->n_inputs + 1;
    m->fam = calloc(nn, sizeof *m->fam);
    m->root = calloc(nv, sizeof *m->root);
    m->mem = calloc(nv, sizeof *m->mem);
    m->staging = calloc(nv, sizeof *m->staging);
    m->bound = calloc(ni, sizeof *m->bound);
    m->in_shape = calloc(ni, sizeof *m->in_shape);
    m->sym = calloc((size_t)g->n_symbols + 1, sizeof *m->sym);
    m->now_shapes = calloc(nv, sizeof *m->now_shapes);
    m->replay = m->stats.replay = wnrt_replay_env_enabled();
    m->pool = vk_mempool_create(m->dev, MEM_DEVICE);
    m->const_pool = vk_mempool_create(m->dev, MEM_DEVICE);
    if (!m->fam || !m->root || !m->mem || !m->staging || !m->bound || !m->in_shape || !m->sym || !m->now_shapes || !m->pool || !m->const_pool) {
        if (!diag_has_error()) diag_error("out of memory");
        wnrt_free(m);
        return NULL;
    }
    for (int i = 0; i < g->n_nodes; i++) g->nodes[i]->index = i;
    VkFenceCreateInfo fi = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    VkResult r = vkCreateFence(m->dev->device, &fi, NULL, &m->fence);
    if (r != VK_SUCCESS) {
        vkdev_fail("vkCreateFence", r);
        wnrt_free(m);
        return NULL;
    }
    if (plan_model(m) < 0) {
        wnrt_free(m);
        return NULL;
    }
    m->cur = -1;
    m->pipelines_ready = m->dev->pipelines_created;
    return m;
}

/* Frees what recording r holds but its parameter slots (the next recording there reuses them). */
static void free_recording(WnrtModel *m, Recording *r) {
    for (int i = 0; i < RT_MAX_PIECES; i++)
        if (r->cb[i]) vkFreeCommandBuffers(m->dev->device, m->dev->cmd_pool, 1, &r->cb[i]);
    free(r->sym);
    free(r->shapes);
    wnrt_replay_trace_free(&r->trace);
    ReplaySlots params = r->params;
    memset(r, 0, sizeof *r);
    r->params = params;
}

void wnrt_free(WnrtModel *m) {
    if (!m) return;
    if (m->dev && m->dev->device) vkQueueWaitIdle(m->dev->queue);
    for (int i = 0; i < m->n_rec; i++) free_recording(m, &m->rec[i]);
    if (m->fence) vkDestroyFence(m->dev->device, m->fence, NULL);
    wnrt_loop_free(m);
    wnrt_timing_free(m);
    wnrt_profile_free(m);
    plan_rewrite_store_free(&m->matvec_plan);
    plan_rewrite_store_free(&m->reduce_plan);
    plan_rewrite_store_free(&m->pick_plan);
    plan_rewrite_store_free(&m->residual_plan);
    plan_rewrite_store_free(&m->oproj_plan);
    plan_matvec_free(m);
    plan_rewrite_arrays_free(m);
    wnrt_kv_free(m);
    vk_mempool_destroy(m->pool);
    vk_mempool_destroy(m->const_pool);
    vk_mempool_destroy(m->staging_pool);
    vk_mempool_destroy(m->param_pool);
    vk_mempool_destroy(m->param_host_pool);
    wnrt_replay_trace_free(&m->now);
    free(m->now_shapes);
    free(m->fam);
    free(m->root);
    free(m->mem);
    free(m->staging);
    free(m->bound);
    free(m->in_shape);
    free(m->sym);
    free(m);
}

/* The recording that runs the bound inputs: replay mode compares dispatch plans (the coming run is
 * captured first), the older path symbol values. */
static int find_recording(WnrtModel *m, Recording **out) {
    Graph *g = m->g;
    size_t symbytes = sizeof(int64_t) * (size_t)g->n_symbols;
    *out = NULL;
    if (m->replay && (wnrt_bind_eval_shapes(m, m->now_shapes) < 0 || wnrt_record_capture(m, m->now_shapes, &m->now) < 0))
        return -1;
    for (int i = 0; i < m->n_rec; i++) {
        Recording *r = &m->rec[i];
        if (m->replay ? !wnrt_replay_same_plan(&r->trace, &m->now) : symbytes && memcmp(r->sym, m->sym, symbytes) != 0) continue;
        m->stats.replays++;
        if (m->replay) {
            m->stats.params_written = wnrt_replay_write(m, &r->params, &r->trace, &m->now);
            memcpy(r->shapes, m->now_shapes, sizeof *r->shapes * (size_t)g->n_values);
            memcpy(r->sym, m->sym, symbytes);
        }
        *out = r;
        return 0;
    }
    return 0;
}

static Recording *record_new(WnrtModel *m) {
    Graph *g = m->g;
    size_t symbytes = sizeof(int64_t) * (size_t)g->n_symbols;
    Recording *r;
    if (m->n_rec < RT_MAX_RECORDINGS) {
        r = &m->rec[m->n_rec++];
    } else {
        r = &m->rec[0];
        for (int i = 1; i < m->n_rec; i++)
            if (m->rec[i].last_used < r->last_used) r = &m->rec[i];
        free_recording(m, r);
    }
    r->sym = malloc(symbytes + sizeof(int64_t));
    r->shapes = calloc((size_t)g->n_values + 1, sizeof *r->shapes);
    int rc = -1;
    if (!r->sym || !r->shapes) diag_error("out of memory");
    else {
        memcpy(r->sym, m->sym, symbytes);
        if (m->replay) memcpy(r->shapes, m->now_shapes, sizeof *r->shapes * (size_t)g->n_values);
        rc = m->replay ? 0 : wnrt_bind_eval_shapes(m, r->shapes);
        if (rc == 0 && !m->replay) rc = wnrt_record_capture(m, r->shapes, &m->now); /* the slot count */
        if (rc == 0) rc = wnrt_replay_reserve(m, &r->params, m->now.n);
        /* the slots before the recording: its pieces run as they are recorded */
        if (rc == 0) m->stats.params_written = wnrt_replay_write(m, &r->params, NULL, &m->now);
        if (rc == 0) rc = wnrt_record_commands(m, r, &r->submitted);
        if (rc == 0 && (!wnrt_replay_same_plan(&r->trace, &m->now) ||
                        (m->now.n && memcmp(r->trace.args, m->now.args, sizeof *m->now.args * (size_t)m->now.n) != 0))) {
            diag_error("internal: the recording differs from its capture");
            rc = -1;
        }
    }
    if (rc < 0) {
        if (r->submitted) vkQueueWaitIdle(m->dev->queue); /* pieces in flight */
        free_recording(m, r);
        /* keep the array dense: move the last recording into this slot */
        int idx = (int)(r - m->rec);
        if (idx != m->n_rec - 1) {
            ReplaySlots params = r->params;
            m->rec[idx] = m->rec[m->n_rec - 1];
            memset(&m->rec[m->n_rec - 1], 0, sizeof m->rec[0]);
            m->rec[m->n_rec - 1].params = params;
        }
        m->n_rec--;
        return NULL;
    }
    m->stats.recordings++;
    return r;
}

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int wnrt_run(WnrtModel *m) {
    profile_phase(m, WNRT_PROF_BIND);
    uint64_t t0 = now_ns();
    if (wnrt_bind_resolve_symbols(m) < 0) return -1;
    profile_phase(m, WNRT_PROF_RECORD);
    Recording *r;
    if (find_recording(m, &r) < 0 || (!r && !(r = record_new(m)))) return -1;
    r->last_used = ++m->clock;
    m->cur = (int)(r - m->rec);
    m->stats.dispatches = r->dispatches;
    m->stats.io_dispatches = r->io_dispatches;
    m->stats.barriers = r->barriers;
    m->stats.prepare_ns = now_ns() - t0;
    m->stats.prepare_ns_total += m->stats.prepare_ns;
    m->stats.runs++;
    profile_phase(m, WNRT_PROF_SUBMIT);
    int first = r->submitted; /* a new recording submitted its first pieces while it was made */
    r->submitted = 0;
    if (vkdev_submit_n(m->dev, r->cb + first, r->n_cb - first, m->fence) < 0) return -1;
    profile_phase(m, WNRT_PROF_WAIT);
    int rc = vkdev_wait(m->dev, m->fence);
    m->done_ns = now_ns();
    profile_phase(m, WNRT_PROF_IDLE);
    if (rc == 0) wnrt_loop_after_run(m, r->shapes);
    return rc < 0 ? rc : profile_run_done(m, r->cb[0], r->dispatches - r->io_dispatches);
}

int wnrt_output_count(const WnrtModel *m) { return m->g->n_outputs; }

int wnrt_output_info(const WnrtModel *m, int index, WnrtTensorInfo *out) {
    if (index < 0 || index >= m->g->n_outputs) {
        diag_error("no output %d (the graph has %d)", index, m->g->n_outputs);
        return -1;
    }
    const Value *v = m->g->outputs[index];
    memset(out, 0, sizeof *out);
    out->name = v->name;
    out->dtype = v->dtype;
    out->rank = v->rank;
    uint64_t n = 1;
    for (int d = 0; d < v->rank; d++) {
        out->shape[d] = m->cur >= 0 ? m->rec[m->cur].shapes[v->id][d] : v->shape[d].v;
        n *= (uint64_t)out->shape[d];
    }
    out->nbytes = dtype_storage_bytes(v->dtype, n);
    return 0;
}

int wnrt_read_output(WnrtModel *m, int index, void *dst, uint64_t capacity) {
    WnrtTensorInfo info;
    if (wnrt_output_info(m, index, &info) < 0) return -1;
    if (m->cur < 0) {
        diag_error("output %s: the model has not run yet", info.name);
        return -1;
    }
    if (capacity < info.nbytes) {
        diag_error("output %s: buffer of %llu bytes is too small (%llu needed)", info.name, (unsigned long long)capacity,
                   (unsigned long long)info.nbytes);
        return -1;
    }
    const Value *v = m->g->outputs[index];
    if (wnrt_kv_skips_io(m, v)) {
        diag_error("output %s is a KV cache kept on the device (wnrt_kv_resident); it is not read back", info.name);
        return -1;
    }
    const MemAlloc *src = m->staging[v->id].buffer ? &m->staging[v->id] : &m->mem[m->root[v->id]];
    if (!src->map) {
        diag_error("internal: output %s has no host-visible memory", info.name);
        return -1;
    }
    profile_phase(m, WNRT_PROF_READBACK);
    memcpy(dst, src->map, info.nbytes);
    profile_phase(m, WNRT_PROF_IDLE);
    return 0;
}

void wnrt_stats(const WnrtModel *m, WnrtStats *out) {
    *out = m->stats;
    out->run_pipelines = m->dev->pipelines_created - m->pipelines_ready;
}
