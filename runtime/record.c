/* record.c - the kernel context (kernel.h) and command recording: a command buffer with input
 * uploads, every node's dispatches and output readbacks, and the same walk without a command
 * buffer (capture) that gives a run's dispatch trace (replay.h: one recording serves every size
 * with the same trace plan).  Descriptors are pushed at record time (VK_KHR_push_descriptor,
 * present on lavapipe and NVIDIA), so replays cost nothing on the CPU.  Barriers are inserted
 * only before a dispatch that reads or writes a range written since the last barrier, or writes
 * a range read since then (independent dispatches share an epoch). */
#include <stdlib.h>
#include <string.h>

#include "profile.h"
#include "rt_env.h"
#include "rt_model.h"
#include "vk_pipeline.h"

typedef struct {
    VkBuffer buffer;
    uint64_t lo, hi; /* [lo, hi) */
} Range;

struct KernelCtx {
    WnrtModel *m;
    VkDev *dev;
    VkCommandBuffer cb; /* VK_NULL_HANDLE while checking */
    Range *written, *read;
    int n_written, n_read, cap_written, cap_read;
    int dispatches, barriers;
    int io_dispatches;       /* of dispatches, the graph input/output copies (no node) */
    VkPipeline bound_pipeline;
    ReplayTrace *trace;      /* every dispatch is noted here (NULL while checking) */
    const MemAlloc *params;  /* slots of the recording (replay.h) */
    bool replay;             /* bindings at their storage's bound, grids indirect, zero grids kept */
    Recording *pieces;       /* recording in pieces (RT_PIECE_DISPATCHES): this recording's; else NULL */
    int piece_dispatches;    /* dispatches in the current piece */
    int submitted;           /* pieces submitted */
    KFusedPick *pick;        /* the loop's pick offered to this step's logits mat-vec (kernel.h) */
    bool *push_slots;        /* the device loop's recording: slots whose parameters it asks to push (loop.c);
                              * left true only where they were (the shader's block fits, vk_pipeset_push_fits) */
    int n_push_slots;
    int pushed;              /* dispatches recorded with pushed parameters */
};

const WnrtDeviceInfo *kc_device(const KernelCtx *kc) { return &kc->dev->info; }
KFusedPick *kc_fused_pick(const KernelCtx *kc) { return kc->pick; }
void kc_offer_pick(KernelCtx *kc, KFusedPick *p) { kc->pick = p; }

const void *kc_node_params(const KernelCtx *kc, const Node *n) {
    const PlanRewrite *rw = kc->m->rewrite ? kc->m->rewrite[n->index] : NULL;
    return rw ? rw->params : NULL;
}

int kc_has_shader(const KernelCtx *kc, const char *name, DType a, DType b) {
    if (!vk_shader_dtype_ok(kc->dev, a) || !vk_shader_dtype_ok(kc->dev, b)) return -1;
    return vk_shader_lookup(name, a, b);
}

int kc_find_shader(KernelCtx *kc, const Node *n, const char *name, DType a, DType b) {
    int id = kc_has_shader(kc, name, a, b);
    if (id < 0) {
        const char *missing = !vk_shader_dtype_ok(kc->dev, a) || !vk_shader_dtype_ok(kc->dev, b) ? " on this device" : "";
        if (a == b || b == DT_INVALID)
            diag_error("no kernel for op %s (dtype %s) at node %s%s", op_name(n->op), dtype_name(a), node_display_name(n), missing);
        else
            diag_error("no kernel for op %s (dtype %s -> %s) at node %s%s", op_name(n->op), dtype_name(a), dtype_name(b),
                       node_display_name(n), missing);
    }
    return id;
}

int kcheck_shader(KernelCtx *kc, const Node *n, const char *name, DType a, DType b) {
    return kc_find_shader(kc, n, name, a, b) < 0 ? -1 : 0;
}

uint64_t kc_max_binding_elems(const KernelCtx *kc, DType dt) {
    uint64_t range = kc->dev->info.max_storage_buffer_range;
    uint64_t align = kc->dev->info.min_storage_offset_alignment > 256 ? kc->dev->info.min_storage_offset_alignment : 256;
    uint64_t es = dtype_storage_bytes(dt, 1);
    if (range <= align) return 0;
    uint64_t n = (range - align) / es;
    return n > INT32_MAX ? INT32_MAX : n;
}

/* A replayed binding covers the tensor's storage up to its upper bound (within the device's
 * range), so that it is the same for every size. */
static void widen_to_storage(const KernelCtx *kc, const KTensor *t, KBind *b) {
    if (!t->value) return;
    const MemAlloc *a = &kc->m->mem[kc->m->root[t->value->id]];
    if (a->buffer != b->buffer || b->offset < a->offset || a->offset + a->size <= b->offset) return;
    uint64_t range = (a->offset + a->size - b->offset + 3) & ~(uint64_t)3;
    uint64_t mx = kc->dev->info.max_storage_buffer_range & ~(uint64_t)3;
    if (range > mx) range = mx;
    if (range > b->range) b->range = range;
}

int kc_bind_window(KernelCtx *kc, const Node *n, const KTensor *t, int64_t first, int64_t last, bool write, KBind *b,
                   uint32_t *base) {
    uint64_t es = dtype_storage_bytes(t->dtype, 1);
    if (first < 0 || last < first || (uint64_t)last >= (t->numel ? t->numel : 1)) {
        diag_node_error(n, "internal: window [%lld, %lld] outside tensor %s", (long long)first, (long long)last,
                        value_display_name(t->value));
        return -1;
    }
    uint64_t align = kc->dev->info.min_storage_offset_alignment ? kc->dev->info.min_storage_offset_alignment : 16;
    uint64_t start = t->offset + (uint64_t)first * es;
    uint64_t astart = start / align * align;
    if ((start - astart) % es) astart = start; /* cannot happen for power-of-two sizes */
    uint64_t end = t->offset + ((uint64_t)last + 1) * es;
    uint64_t range = (end - astart + 3) & ~(uint64_t)3;
    if (range > kc->dev->info.max_storage_buffer_range) {
        diag_node_error(n, "tensor %s needs a binding of %llu bytes, more than the device's maxStorageBufferRange %llu",
                        value_display_name(t->value), (unsigned long long)range,
                        (unsigned long long)kc->dev->info.max_storage_buffer_range);
        return -1;
    }
    b->buffer = t->buffer;
    b->offset = astart;
    b->range = range;
    b->write = write;
    if (kc->replay) widen_to_storage(kc, t, b);
    if (base) *base = (uint32_t)((start - astart) / es);
    return 0;
}

int kc_bind(KernelCtx *kc, const Node *n, const KTensor *t, bool write, KBind *b) {
    return kc_bind_window(kc, n, t, 0, t->numel ? (int64_t)t->numel - 1 : 0, write, b, NULL);
}

#define SCRATCH_MAX ((uint64_t)64 << 20) /* bytes of scratch storage at most */

uint64_t kc_scratch_limit(const KernelCtx *kc) {
    uint64_t range = kc->dev->info.max_storage_buffer_range & ~(uint64_t)3;
    return range < SCRATCH_MAX ? range : SCRATCH_MAX;
}

int kc_scratch_reserve(KernelCtx *kc, uint64_t bytes) {
    if (bytes > kc_scratch_limit(kc)) return -1;
    if (bytes > kc->m->scratch_bytes) kc->m->scratch_bytes = (bytes + 3) & ~(uint64_t)3;
    return 0;
}

uint64_t kc_scratch_reserved(const KernelCtx *kc) { return kc->m->scratch_bytes; }

/* Binds all of a reserved allocation (reserved bytes), failing when `want` bytes exceed it. */
static int bind_reserved(const Node *n, const MemAlloc *a, uint64_t reserved, uint64_t want, const char *what, KBind *b) {
    if (!a->buffer || want > reserved) {
        diag_node_error(n, "internal: %llu bytes of %s, %llu reserved", (unsigned long long)want, what,
                        (unsigned long long)reserved);
        return -1;
    }
    *b = (KBind){.buffer = a->buffer, .offset = a->offset, .range = reserved, .write = true};
    return 0;
}

int kc_scratch_bind(KernelCtx *kc, const Node *n, uint64_t bytes, KBind *b) {
    return bind_reserved(n, &kc->m->scratch, kc->m->scratch_bytes, bytes, "scratch storage", b);
}

int kc_scratch_tensor(KernelCtx *kc, const Node *n, uint64_t byte_offset, DType dt, int rank, const int64_t *shape,
                      KTensor *t) {
    memset(t, 0, sizeof *t);
    t->dtype = dt;
    t->rank = rank;
    t->numel = 1;
    for (int i = 0; i < rank; i++) t->shape[i] = shape[i], t->numel *= (uint64_t)shape[i];
    uint64_t end = byte_offset + dtype_storage_bytes(dt, t->numel);
    if (!kc->m->scratch.buffer || end > kc->m->scratch_bytes) {
        diag_node_error(n, "internal: scratch bytes %llu..%llu, %llu reserved", (unsigned long long)byte_offset,
                        (unsigned long long)end, (unsigned long long)kc->m->scratch_bytes);
        return -1;
    }
    t->buffer = kc->m->scratch.buffer;
    t->offset = kc->m->scratch.offset + byte_offset;
    return 0;
}

int kc_counters_reserve(KernelCtx *kc, uint64_t words) {
    if (words * 4 > kc_scratch_limit(kc)) return -1;
    if (words > kc->m->counter_words) kc->m->counter_words = words;
    return 0;
}

int kc_counters_bind(KernelCtx *kc, const Node *n, uint64_t words, KBind *b) {
    return bind_reserved(n, &kc->m->counters, kc->m->counter_words * 4, words * 4, "counters", b);
}

static bool overlaps(const Range *rs, int n, const KBind *b) {
    for (int i = 0; i < n; i++)
        if (rs[i].buffer == b->buffer && rs[i].lo < b->offset + b->range && b->offset < rs[i].hi) return true;
    return false;
}

static int push_range(Range **rs, int *n, int *cap, const KBind *b) {
    if (*n == *cap) {
        int nc = *cap ? 2 * *cap : 32;
        Range *nr = realloc(*rs, sizeof *nr * (size_t)nc);
        if (!nr) { diag_error("out of memory"); return -1; }
        *rs = nr;
        *cap = nc;
    }
    (*rs)[(*n)++] = (Range){b->buffer, b->offset, b->offset + b->range};
    return 0;
}

static void barrier(KernelCtx *kc, VkPipelineStageFlags src, VkAccessFlags src_access, VkPipelineStageFlags dst,
                    VkAccessFlags dst_access) {
    VkMemoryBarrier mb = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER, .srcAccessMask = src_access, .dstAccessMask = dst_access};
    vkCmdPipelineBarrier(kc->cb, src, dst, 0, 1, &mb, 0, NULL, 0, NULL);
}

static int descriptors(KernelCtx *kc, const KBind *binds, int n_binds, int slot);

/* Ends kc's command buffer and goes on recording into *next (begun here; allocated when absent). */
static int switch_cb(KernelCtx *kc, VkCommandBuffer *next) {
    VkResult vr = vkEndCommandBuffer(kc->cb);
    if (vr != VK_SUCCESS) return vkdev_fail("vkEndCommandBuffer", vr);
    if (vkdev_cb_begin(kc->dev, next) < 0) return -1;
    kc->cb = *next;
    kc->bound_pipeline = VK_NULL_HANDLE; /* (pipeline bindings do not carry over) */
    return 0;
}

/* Ends the current piece, submits it (the GPU starts on it while the rest is recorded) and begins
 * the next one with a barrier after everything submitted before it. */
static int next_piece(KernelCtx *kc) {
    Recording *r = kc->pieces;
    VkCommandBuffer done = kc->cb;
    if (switch_cb(kc, &r->cb[r->n_cb]) < 0) return -1;
    if (vkdev_submit(kc->dev, done, VK_NULL_HANDLE) < 0) return -1;
    kc->submitted = r->n_cb++;
    barrier(kc, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
            VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
            VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT);
    kc->n_written = kc->n_read = 0;
    kc->barriers++;
    kc->piece_dispatches = 0;
    return 0;
}

/* A diagnostic naming node n (dispatches without a node: graph input/output copies). */
#define DISPATCH_ERROR(n, ...) ((n) ? diag_node_error((n), __VA_ARGS__) : diag_error(__VA_ARGS__), -1)

int kc_dispatch(KernelCtx *kc, const Node *n, int shader, const uint32_t *spec, int n_spec, const void *push,
                uint32_t push_size, const KBind *binds, int n_binds, uint32_t gx, uint32_t gy, uint32_t gz) {
    if (!kc->trace) return 0;
    if (n_binds > K_MAX_BINDINGS || push_size > K_PUSH_MAX || n_spec > K_MAX_SPEC)
        return DISPATCH_ERROR(n, "internal: dispatch exceeds binding/push-constant limits");
    const uint32_t *mx = kc->dev->info.max_workgroup_count;
    if (gx > mx[0] || gy > mx[1] || gz > mx[2])
        return DISPATCH_ERROR(n, "dispatch grid %ux%ux%u exceeds the device limit", gx, gy, gz);
    if ((gx == 0 || gy == 0 || gz == 0) && !kc->replay) return 0;
    /* the trace names the uniform-parameter pipeline whichever one is bound (so that plans compare
     * alike); the device loop pushes the parameters of the slots it chose (vk_spirv_push.h) */
    VkPipeline p = vk_pipeset_get(kc->dev, shader, spec, n_spec, false);
    if (!p) return -1;
    int slot = kc->trace->n;
    if (wnrt_replay_note(kc->trace, p, binds, n_binds, push, push_size, gx, gy, gz) < 0) return -1;
    if (!kc->cb) return 0;
    bool pushed = slot < kc->n_push_slots && kc->push_slots[slot] && vk_pipeset_push_fits(kc->dev, shader);
    if (slot < kc->n_push_slots) kc->push_slots[slot] = pushed;
    if (pushed && !(p = vk_pipeset_get(kc->dev, shader, spec, n_spec, true))) return -1;
    kc->pushed += pushed;
    if (kc->pieces && kc->piece_dispatches >= RT_PIECE_DISPATCHES && kc->pieces->n_cb < RT_MAX_PIECES &&
        next_piece(kc) < 0)
        return -1;
    bool hazard = false;
    for (int i = 0; i < n_binds && !hazard; i++)
        hazard = overlaps(kc->written, kc->n_written, &binds[i]) || (binds[i].write && overlaps(kc->read, kc->n_read, &binds[i]));
    if (hazard) {
        barrier(kc, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_SHADER_READ_BIT,
                VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
        kc->n_written = kc->n_read = 0;
        kc->barriers++;
    }
    for (int i = 0; i < n_binds; i++)
        if (push_range(binds[i].write ? &kc->written : &kc->read, binds[i].write ? &kc->n_written : &kc->n_read,
                       binds[i].write ? &kc->cap_written : &kc->cap_read, &binds[i]) < 0)
            return -1;
    if (p != kc->bound_pipeline) {
        vkCmdBindPipeline(kc->cb, VK_PIPELINE_BIND_POINT_COMPUTE, p);
        kc->bound_pipeline = p;
    }
    if (descriptors(kc, binds, n_binds, slot) < 0) return -1;
    if (pushed) {
        uint8_t block[K_PUSH_MAX] = {0}; /* (the shader's block spans no more than the range pushed) */
        memcpy(block, push, push_size);
        vkCmdPushConstants(kc->cb, vk_pipeset_layout(kc->dev), VK_SHADER_STAGE_COMPUTE_BIT, 0, vk_pipeset_push_range(kc->dev), block);
    }
    if (n && profile_dispatch_begin(kc->m, kc->cb, n) < 0) return -1; /* graph I/O copies are not timed */
    if (kc->replay)
        vkCmdDispatchIndirect(kc->cb, kc->params->buffer, kc->params->offset + wnrt_replay_slot_stride(kc->m) * (uint64_t)slot + K_PUSH_MAX);
    else
        vkCmdDispatch(kc->cb, gx, gy, gz);
    if (n) profile_dispatch_end(kc->m, kc->cb);
    kc->dispatches++;
    if (!n) kc->io_dispatches++;
    kc->piece_dispatches++;
    return 0;
}

int kc_dispatch_1d(KernelCtx *kc, const Node *n, int shader, const uint32_t *spec, int n_spec, const void *push,
                   uint32_t push_size, const KBind *binds, int n_binds, uint64_t groups) {
    uint64_t mx = kc->dev->info.max_workgroup_count[0];
    if (mx > 65535) mx = 65535;
    uint64_t gx = groups < mx ? groups : mx;
    uint64_t gy = gx ? (groups + gx - 1) / gx : 0;
    if (gy > kc->dev->info.max_workgroup_count[1]) {
        diag_node_error(n, "too many workgroups (%llu)", (unsigned long long)groups);
        return -1;
    }
    return kc_dispatch(kc, n, shader, spec, n_spec, push, push_size, binds, n_binds, (uint32_t)gx, (uint32_t)gy, 1);
}

/* ---- descriptors --------------------------------------------------------------------------- */

/* Pushes the tensor bindings and, at K_PARAMS_BINDING, the dispatch's parameter slot. */
static int descriptors(KernelCtx *kc, const KBind *binds, int n_binds, int slot) {
    VkDescriptorBufferInfo bi[K_MAX_BINDINGS + 1];
    VkWriteDescriptorSet w[K_MAX_BINDINGS + 1];
    for (int i = 0; i <= n_binds; i++) {
        bool par = i == n_binds;
        bi[i] = par ? (VkDescriptorBufferInfo){kc->params->buffer, kc->params->offset + wnrt_replay_slot_stride(kc->m) * (uint64_t)slot,
                                               K_PUSH_MAX}
                    : (VkDescriptorBufferInfo){binds[i].buffer, binds[i].offset, binds[i].range};
        w[i] = (VkWriteDescriptorSet){.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
                                      .dstBinding = par ? K_PARAMS_BINDING : (uint32_t)i, .descriptorCount = 1,
                                      .descriptorType = k_binding_type(par ? K_PARAMS_BINDING : i), .pBufferInfo = &bi[i]};
    }
    if (kc->dev->push_descriptor_fn) {
        kc->dev->push_descriptor_fn(kc->cb, VK_PIPELINE_BIND_POINT_COMPUTE, vk_pipeset_layout(kc->dev), 0, (uint32_t)n_binds + 1, w);
        return 0;
    }
    diag_error("vulkan: device lacks VK_KHR_push_descriptor (descriptor-set fallback not implemented yet)");
    return -1;
}

/* ---- tensors, checks, recording ------------------------------------------------------------ */

void wnrt_tensor_of(const WnrtModel *m, const Value *v, const int64_t *shape, KTensor *t) {
    memset(t, 0, sizeof *t);
    t->value = v;
    t->dtype = v->dtype;
    t->rank = v->rank;
    t->numel = 1;
    for (int d = 0; d < v->rank; d++) {
        t->shape[d] = shape ? shape[d] : v->shape[d].v;
        t->numel *= (uint64_t)t->shape[d];
    }
    const MemAlloc *a = &m->mem[m->root[v->id]];
    t->buffer = a->buffer;
    t->offset = a->offset;
}

int wnrt_record_check_node(WnrtModel *m, const Node *n) {
    KernelCtx kc = {.m = m, .dev = m->dev};
    const KernelFamily *f = m->fam[n->index];
    return f->check ? f->check(&kc, n) : 0;
}

static void copy_io(WnrtModel *m, VkCommandBuffer cb, const Recording *r, bool in) {
    Graph *g = m->g;
    int cnt = in ? g->n_inputs : g->n_outputs;
    for (int i = 0; i < cnt; i++) {
        const Value *v = in ? g->inputs[i] : g->outputs[i];
        const MemAlloc *s = &m->staging[v->id];
        if (!s->buffer || wnrt_kv_skips_io(m, v)) continue;
        KTensor t;
        wnrt_tensor_of(m, v, r->shapes[v->id], &t);
        VkBufferCopy c = {.size = dtype_storage_bytes(v->dtype, t.numel)};
        if (!c.size) continue;
        if (in) {
            c.srcOffset = s->offset;
            c.dstOffset = t.offset;
            vkCmdCopyBuffer(cb, s->buffer, t.buffer, 1, &c);
        } else {
            c.srcOffset = t.offset;
            c.dstOffset = s->offset;
            vkCmdCopyBuffer(cb, t.buffer, s->buffer, 1, &c);
        }
    }
}

/* Every live node's dispatches for the shapes; then graph outputs (replay: as io_copy dispatches). */
static int record_nodes(KernelCtx *kc, int64_t (*shapes)[WN_MAX_RANK]) {
    WnrtModel *m = kc->m;
    Graph *g = m->g;
    for (int i = 0; i < g->n_nodes; i++) {
        const Node *n = g->nodes[i];
        const KernelFamily *f = m->fam[i];
        if (n->dead || !f || (f->flags & KF_VIEW)) continue;
        KTensor in[WN_MAX_INPUT_SLOTS * 8], out[64];
        const Value *const *ins;
        int n_ins = plan_node_inputs(m, n, &ins);
        if (n_ins > (int)(sizeof in / sizeof in[0]) || n->n_outputs > 64) {
            diag_node_error(n, "too many operands");
            return -1;
        }
        for (int k = 0; k < n_ins; k++) {
            if (ins[k]) wnrt_tensor_of(m, ins[k], shapes[ins[k]->id], &in[k]);
            else memset(&in[k], 0, sizeof in[k]);
        }
        for (int k = 0; k < n->n_outputs; k++) wnrt_tensor_of(m, n->outputs[k], shapes[n->outputs[k]->id], &out[k]);
        if (f->record(kc, n, in, out) < 0) return -1;
    }
    return 0;
}

int wnrt_record_capture(WnrtModel *m, int64_t (*shapes)[WN_MAX_RANK], ReplayTrace *t) {
    KernelCtx kc = {.m = m, .dev = m->dev, .trace = t, .replay = m->replay};
    t->n = 0;
    int rc = m->replay ? wnrt_replay_io(&kc, m, shapes, REPLAY_IO_IN) : 0;
    if (rc == 0) rc = record_nodes(&kc, shapes);
    if (rc == 0) rc = wnrt_loop_pick(&kc, m, shapes);
    if (rc == 0 && m->replay) rc = wnrt_replay_io(&kc, m, shapes, REPLAY_IO_OUT);
    free(kc.written);
    free(kc.read);
    return rc;
}

/* WEBNNC_RECORD_PIECES=0: every recording in one command buffer, submitted after it is made. */
static bool pieces_on(void) { return wnrt_env_flag("WEBNNC_RECORD_PIECES", true); }

int wnrt_record_commands(WnrtModel *m, Recording *r, int *submitted) {
    VkDev *d = m->dev;
    *submitted = 0;
    r->n_cb = 1;
    if (vkdev_cb_begin(d, &r->cb[0]) < 0) return -1;
    wnrt_replay_upload(m, r->cb[0], &r->params);
    if (profile_record_begin(m, r->cb[0]) < 0) return -1;
    r->trace.n = 0;
    KernelCtx kc = {.m = m, .dev = d, .cb = r->cb[0], .trace = &r->trace, .params = &r->params.gpu, .replay = m->replay,
                    .pieces = m->replay && !m->prof && !m->timestamps && pieces_on() ? r : NULL};
    int rc = 0;
    if (!m->replay) copy_io(m, kc.cb, r, true);
    barrier(&kc, VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_HOST_WRITE_BIT,
            VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
    if (m->replay) rc = wnrt_replay_io(&kc, m, r->shapes, REPLAY_IO_IN);
    if (m->timestamps) { /* wnrt_set_timing: GPU time of the node dispatches (timing.c) */
        vkCmdResetQueryPool(kc.cb, m->timestamps, 0, 2);
        vkCmdWriteTimestamp(kc.cb, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, m->timestamps, 0);
    }
    if (rc == 0) rc = record_nodes(&kc, r->shapes);
    if (rc == 0) rc = wnrt_loop_pick(&kc, m, r->shapes);
    if (m->timestamps) vkCmdWriteTimestamp(kc.cb, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, m->timestamps, 1);
    if (rc == 0 && m->replay) rc = wnrt_replay_io(&kc, m, r->shapes, REPLAY_IO_OUT);
    barrier(&kc, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
            VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_HOST_READ_BIT);
    if (!m->replay) copy_io(m, kc.cb, r, false);
    barrier(&kc, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
    VkResult vr = vkEndCommandBuffer(kc.cb);
    *submitted = kc.submitted;
    if (rc == 0 && vr != VK_SUCCESS) rc = vkdev_fail("vkEndCommandBuffer", vr);
    r->dispatches = kc.dispatches;
    r->io_dispatches = kc.io_dispatches;
    r->barriers = kc.barriers;
    free(kc.written);
    free(kc.read);
    return rc;
}

/* ---- the device token loop (loop.c) --------------------------------------------------------- */

KernelCtx *wnrt_record_loop_begin(WnrtModel *m, VkCommandBuffer cb, const ReplaySlots *params, ReplayTrace *t,
                                  bool *push_slots, int n_push_slots) {
    KernelCtx *kc = calloc(1, sizeof *kc);
    if (!kc) {
        diag_error("out of memory");
        return NULL;
    }
    *kc = (KernelCtx){.m = m, .dev = m->dev, .cb = cb, .trace = t, .params = &params->gpu, .replay = true,
                      .push_slots = push_slots, .n_push_slots = push_slots ? n_push_slots : 0};
    if (cb) {
        vkdev_cb_begin(m->dev, &cb); /* cb exists: reset and begun, nothing that can fail */
        wnrt_replay_upload(m, cb, params);
        barrier(kc, VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_WRITE_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
    }
    return kc;
}

int wnrt_record_loop_step(KernelCtx *kc, int64_t (*shapes)[WN_MAX_RANK]) {
    int rc = wnrt_replay_io(kc, kc->m, shapes, REPLAY_IO_LOOP_IN);
    return rc < 0 ? rc : record_nodes(kc, shapes);
}

int wnrt_record_loop_next_cb(KernelCtx *kc, VkCommandBuffer next) { return kc->cb ? switch_cb(kc, &next) : 0; }

int wnrt_record_loop_end(KernelCtx *kc, int *dispatches, int *barriers, int *pushed) {
    if (pushed) *pushed = kc->pushed;
    int rc = 0;
    if (kc->cb) {
        barrier(kc, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_HOST_BIT,
                VK_ACCESS_HOST_READ_BIT);
        VkResult vr = vkEndCommandBuffer(kc->cb);
        if (vr != VK_SUCCESS) rc = vkdev_fail("vkEndCommandBuffer", vr);
    }
    if (dispatches) *dispatches = kc->dispatches;
    if (barriers) *barriers = kc->barriers;
    free(kc->written);
    free(kc->read);
    free(kc);
    return rc;
}
