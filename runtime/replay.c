/* replay.c - one recording for every size within the bounds: dispatch traces (capture), their
 * comparison, the parameter/indirect-argument slots and the io_copy input/output moves
 * (replay.h explains the scheme; record.c and runtime.c drive it). */
#include "replay.h"

#include <stdlib.h>
#include <string.h>

#include "rt_env.h"
#include "rt_model.h"
#include "vk_pipeline.h"

bool wnrt_replay_env_enabled(void) { return wnrt_env_flag("WEBNNC_REPLAY", true); }

int wnrt_replay_note(ReplayTrace *t, VkPipeline p, const KBind *binds, int n_binds, const void *params, uint32_t params_size,
                uint32_t gx, uint32_t gy, uint32_t gz) {
    if (t->n == t->cap) {
        int cap = t->cap ? 2 * t->cap : 256;
        ReplayOp *ops = realloc(t->ops, sizeof *ops * (size_t)cap);
        if (ops) t->ops = ops;
        ReplayArgs *args = ops ? realloc(t->args, sizeof *args * (size_t)cap) : NULL;
        if (!args) {
            diag_error("out of memory");
            return -1;
        }
        t->args = args;
        t->cap = cap;
    }
    ReplayOp *op = &t->ops[t->n];
    ReplayArgs *a = &t->args[t->n++];
    memset(op, 0, sizeof *op);
    op->pipeline = p;
    op->n_binds = n_binds;
    for (int i = 0; i < n_binds; i++) op->binds[i] = binds[i];
    memset(a, 0, sizeof *a);
    if (params_size) memcpy(a->params, params, params_size);
    a->grid[0] = gx;
    a->grid[1] = gy;
    a->grid[2] = gz;
    return 0;
}

void wnrt_replay_trace_free(ReplayTrace *t) {
    free(t->ops);
    free(t->args);
    memset(t, 0, sizeof *t);
}

static bool same_bind(const KBind *a, const KBind *b) {
    return a->buffer == b->buffer && a->offset == b->offset && a->range == b->range && a->write == b->write;
}

bool wnrt_replay_same_plan(const ReplayTrace *a, const ReplayTrace *b) {
    if (a->n != b->n) return false;
    for (int i = 0; i < a->n; i++) {
        const ReplayOp *x = &a->ops[i], *y = &b->ops[i];
        if (x->pipeline != y->pipeline || x->n_binds != y->n_binds) return false;
        for (int k = 0; k < x->n_binds; k++)
            if (!same_bind(&x->binds[k], &y->binds[k])) return false;
    }
    return true;
}

/* A slot is bound as a uniform buffer: 256 bytes covers minUniformBufferOffsetAlignment, which the
 * Vulkan spec caps at 256. */
uint64_t wnrt_replay_slot_stride(const WnrtModel *m) {
    uint64_t align = m->dev->info.min_storage_offset_alignment;
    return align > 256 ? align : 256;
}

/* Slots read over the bus from a host mirror, for tests of that path on unified-memory devices. */
static bool force_mirror(void) { return wnrt_env_flag("WEBNNC_FORCE_STAGING", false); }

int wnrt_replay_reserve(WnrtModel *m, ReplaySlots *s, int n) {
    if (n <= s->cap && s->gpu.buffer) return 0;
    if (!m->param_pool && !(m->param_pool = vk_mempool_create(m->dev, MEM_DEVICE))) return -1;
    int want = n + n / 4 + 16; /* room for a few more dispatches before growing again */
    uint64_t bytes = wnrt_replay_slot_stride(m) * (uint64_t)want;
    vk_mempool_hint(m->param_pool, bytes);
    if (vk_mempool_alloc(m->param_pool, bytes, &s->gpu) < 0) return -1;
    s->host = (MemAlloc){0};
    s->cap = 0;
    if (!s->gpu.map || force_mirror()) {
        if (!m->param_host_pool && !(m->param_host_pool = vk_mempool_create(m->dev, MEM_UPLOAD))) return -1;
        vk_mempool_hint(m->param_host_pool, bytes);
        if (vk_mempool_alloc(m->param_host_pool, bytes, &s->host) < 0) return -1;
        if (!s->host.map) {
            diag_error("vulkan: the parameter buffer's mirror is not host visible");
            return -1;
        }
    }
    memset(s->host.buffer ? s->host.map : s->gpu.map, 0, bytes);
    s->cap = want;
    return 0;
}

/* Slot i of s from now's arguments (and into last, unless NULL). */
static void write_slot(const WnrtModel *m, const ReplaySlots *s, ReplayTrace *last, const ReplayTrace *now, int i) {
    const ReplayArgs *a = &now->args[i];
    uint8_t *slot = (s->host.buffer ? s->host.map : s->gpu.map) + wnrt_replay_slot_stride(m) * (uint64_t)i;
    memcpy(slot, a->params, sizeof a->params);
    memcpy(slot + K_PUSH_MAX, a->grid, sizeof a->grid);
    if (last) last->args[i] = *a;
}

int wnrt_replay_write(const WnrtModel *m, const ReplaySlots *s, ReplayTrace *last, const ReplayTrace *now) {
    int written = 0;
    for (int i = 0; i < now->n; i++) {
        if (last && memcmp(&last->args[i], &now->args[i], sizeof now->args[i]) == 0) continue;
        write_slot(m, s, last, now, i);
        written++;
    }
    return written;
}

int wnrt_replay_diff(const ReplayTrace *last, const ReplayTrace *now, ReplayDirty *d) {
    d->n = 0;
    for (int i = 0; i < now->n && i < last->n; i++) {
        if (memcmp(&last->args[i], &now->args[i], sizeof now->args[i]) == 0) continue;
        if (d->n == d->cap) {
            int nc = d->cap ? 2 * d->cap : 256;
            int *ni = realloc(d->index, sizeof *ni * (size_t)nc);
            if (!ni) {
                diag_error("out of memory");
                return -1;
            }
            d->index = ni;
            d->cap = nc;
        }
        d->index[d->n++] = i;
    }
    return 0;
}

int wnrt_replay_write_dirty(const WnrtModel *m, const ReplaySlots *s, ReplayTrace *last, const ReplayTrace *now,
                            const ReplayDirty *d) {
    for (int k = 0; k < d->n; k++) write_slot(m, s, last, now, d->index[k]);
    return d->n;
}

void wnrt_replay_upload(const WnrtModel *m, VkCommandBuffer cb, const ReplaySlots *s) {
    if (!s->host.buffer) return;
    /* the previous submit's reads of the slots are done before they are overwritten */
    VkMemoryBarrier before = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                              .srcAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_INDIRECT_COMMAND_READ_BIT,
                              .dstAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT};
    vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_DRAW_INDIRECT_BIT,
                         VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 1, &before, 0, NULL, 0, NULL);
    VkBufferCopy c = {.srcOffset = s->host.offset, .dstOffset = s->gpu.offset,
                      .size = wnrt_replay_slot_stride(m) * (uint64_t)s->cap};
    vkCmdCopyBuffer(cb, s->host.buffer, s->gpu.buffer, 1, &c);
    VkMemoryBarrier after = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER, .srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
                             .dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_INDIRECT_COMMAND_READ_BIT};
    vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_DRAW_INDIRECT_BIT,
                         0, 1, &after, 0, NULL, 0, NULL);
}

int wnrt_replay_io(KernelCtx *kc, WnrtModel *m, int64_t (*shapes)[WN_MAX_RANK], ReplayIo io) {
    Graph *g = m->g;
    bool in = io != REPLAY_IO_OUT;
    int cnt = in ? g->n_inputs : g->n_outputs;
    int shader = -1;
    for (int i = 0; i < cnt; i++) {
        const Value *v = in ? g->inputs[i] : g->outputs[i];
        const MemAlloc *s = &m->staging[v->id];
        if (!s->buffer || wnrt_kv_skips_io(m, v) || (io == REPLAY_IO_LOOP_IN && wnrt_loop_writes_input(m, i))) continue;
        if (shader < 0 && (shader = vk_shader_lookup("io_copy", DT_U32, DT_U32)) < 0) {
            diag_error("internal: the io_copy shader is missing");
            return -1;
        }
        KTensor t;
        wnrt_tensor_of(m, v, shapes[v->id], &t);
        uint64_t bound_words = (s->size + 3) / 4, words = (dtype_storage_bytes(v->dtype, t.numel) + 3) / 4;
        /* pieces of at most one binding's range; their count follows the bound, not the run */
        uint64_t align = wnrt_replay_slot_stride(m), piece = m->dev->info.max_storage_buffer_range / align * align / 4;
        uint32_t wg = 256;
        for (uint64_t w0 = 0; w0 < bound_words; w0 += piece) {
            uint64_t cap = bound_words - w0 < piece ? bound_words - w0 : piece;
            uint32_t n = words <= w0 ? 0 : (uint32_t)(words - w0 < cap ? words - w0 : cap);
            KBind stage = {s->buffer, s->offset + 4 * w0, 4 * cap, !in};
            KBind dev = {t.buffer, t.offset + 4 * w0, 4 * cap, in};
            KBind b[2] = {in ? stage : dev, in ? dev : stage};
            if (kc_dispatch_1d(kc, NULL, shader, &wg, 1, &n, sizeof n, b, 2, (n + wg - 1) / wg) < 0) return -1;
        }
    }
    return 0;
}
