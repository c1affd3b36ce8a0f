/* loop.c - the token loop on the device (webnnc_runtime.h wnrt_loop_*).
 *
 * Once configured, every wnrt_run ends with a pick (record.c calls wnrt_loop_pick) of the next token
 * from its last logits row.  The loop's command buffer holds `steps` decode steps, each the
 * graph's input copies (less the three below) and nodes (record.c wnrt_record_loop_step) followed
 * by a pick (shaders/next_token.comp) that writes the token into the ring the host reads and the
 * next step's input_ids, position_ids and attention_mask element into those inputs' device
 * storage, where the next step reads them.  A greedy step offers its pick to the mat-vec that writes
 * its logits row (offer_pick, kernel.h KFusedPick): where that takes it (matvec_rows_pick.comp), the
 * step has no pick dispatch.  Every dispatch has its own parameter slot (replay.h),
 * so the host writes each step's sizes before the submit.  Each step is recorded in a command
 * buffer of its own and a batch submits only its steps' (the others keep zero grids): an empty
 * step still cost about 156 us of barriers (H200, Qwen2-0.5B).
 * The recording is made again only when the dispatch plan changes.  While a batch runs, the host
 * captures the dispatches of the batch it expects to be asked for next and finds the slots whose
 * parameters that batch changes; after the wait it writes only those (wnrt_loop_next).
 * Parameters as push constants (vk_spirv_push.h): a dispatch of the recording whose parameters are
 * the same in every step of the batch it is recorded for reads them from push constants recorded in
 * its command buffer, not from its slot (choose_pushes); the others (the pick's position, the
 * attention mask's length) keep their slots.  A later batch that would change a pushed dispatch's
 * parameters has the loop record again, with that dispatch's slot read from then on (pushes_stale).
 * WEBNNC_PUSH_PARAMS=0: no push constants; =all: every dispatch's (a test of that check). */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bind.h"
#include "rt_env.h"
#include "rt_model.h"
#include "vk_pipeline.h"

#define PICK_WG 1024 /* pick workgroup size where the device allows (else the largest power of 2 it does) */
/* Greedy picks split the row over workgroups of PICK_GREEDY_WG invocations, one batch of loads each
 * (next_token.comp VEC_BATCH vectors or ARGMAX_BATCH elements), at most PICK_MAX_GROUPS of them (<=
 * the workgroup size: the last one merges one result per invocation).  H200, Qwen2-0.5B webgpu
 * (151936 float16 logits: 19 workgroups), `generate` of 128 tokens, three alternating runs, tok/s
 * after 128 / 512 prompt tokens: one workgroup of 1024 1409-1418 / 1289-1290, split 1422-1428 /
 * 1296-1299 (8, 38 or 76 workgroups within 0.4% of 19), the same ids.  WEBNNC_PICK_GROUPS=N: N
 * workgroups for every greedy pick (1: one of PICK_WG, as sampling always has). */
#define PICK_GREEDY_WG 256
#define PICK_MAX_GROUPS 256
#define PICK_VEC_BATCH 4u     /* 16-byte vectors per invocation whose loads are issued together (8 measured no faster) */
#define PICK_SCALAR_BATCH 16u /* the same in single logits (next_token.comp's spec constants 1 and 2) */
#define PICK_VEC_LOADS 32u /* PickParams.flags: the logits row is read in 16-byte vectors (next_token.comp) */
/* The words of a pick taken by the logits mat-vec (kernel.h KFusedPick) in the loop's ws, after the
 * split pick's (1 + 2 PICK_MAX_GROUPS): arrivals, the NaN flag, the 64-bit best (8-byte aligned). */
#define PICK_FUSED_WS (2 + 2 * PICK_MAX_GROUPS)
#define LOOP_PICK_NAN 0x80000000u /* a ring entry of a step whose logits were all NaN (next_token.comp) */

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

typedef struct { /* next_token.comp PARAMS_BLOCK */
    uint32_t vocab, row, slot, pos, flags;
    float inv_temp;
    uint32_t top_k;
    float top_p;
    uint32_t seed_lo, seed_hi;
    uint32_t groups;
} PickParams;

struct TokenLoop {
    WnrtLoopConfig cfg;
    int ids, pos, mask, logits; /* graph input / output indices (-1: absent) */
    int shader;
    /* the recording: one command buffer per decode step (cfg.steps), then a tail with the barrier
     * before the host reads the ring; a batch of n steps submits the first n and the tail */
    VkCommandBuffer *cbs, *submit;
    bool recorded;
    ReplayTrace rec, now; /* recorded walk (args as last written), the coming batch's walk */
    bool ahead;           /* `now` holds the walk of the batch of ahead_steps steps from ahead_pos ... */
    int ahead_steps;      /* ... made while the batch before it ran (wnrt_loop_next) */
    int64_t ahead_pos;
    bool ahead_diffed;    /* ... and dirty lists the slots it changes against `rec`, the same plan */
    ReplayDirty dirty;
    ReplaySlots params;
    MemPool *ring_pool;
    MemAlloc ring; /* steps + 1 picked ids */
    MemPool *ws_pool;
    MemAlloc ws; /* split greedy picks: arrival count, then (logit, index) per workgroup (next_token.comp) */
    int groups;  /* WEBNNC_PICK_GROUPS: workgroups of every greedy pick (0: by the row's length) */
    int64_t next_pos;  /* position of the token the next step feeds */
    bool pick_pending; /* the last wnrt_run picked a token into ring[0] */
    bool vec_loads;    /* picks may read aligned logits rows in 16-byte vectors (WEBNNC_PICK_VEC=0: never) */
    bool fuse_pick;    /* decode steps offer their greedy pick to the logits mat-vec (WEBNNC_PICK_FUSED=0: never) */
    int push_mode;     /* parameters as push constants: PUSH_NONE, PUSH_STABLE (default), PUSH_ALL (WEBNNC_PUSH_PARAMS) */
    int *rec_first, *now_first; /* [cfg.steps + 1]: the first slot of each step in rec / now, then their n */
    bool *push;        /* [push_cap]: the recording's slots whose parameters are pushed (choose_pushes, less
                        * those whose shader's block does not fit the push constants: record.c) */
    int push_cap;
    bool *varies;      /* [n_varies]: a step's dispatches (by index in the step) seen to change their parameters */
    int n_varies;
};

enum { PUSH_NONE, PUSH_STABLE, PUSH_ALL };

static int input_index(const WnrtModel *m, const char *name, bool need) {
    for (int i = 0; name && i < m->g->n_inputs; i++) {
        const Value *v = m->g->inputs[i];
        if (strcmp(v->name, name) == 0 || (v->origin && strcmp(v->origin, name) == 0)) return i;
    }
    if (need || name) diag_error("device token loop: the graph has no input named %s", name ? name : "(null)");
    return need || name ? -2 : -1;
}

/* Where the picks write the next step's input: its device storage, which the planner keeps for
 * the input alone across runs (plan.c), not its host staging.  A host-bound run copies staging
 * over it as before; the loop's steps read it in place (wnrt_loop_writes_input), one stage of
 * copies fewer per step on GPUs with staging. */
static const MemAlloc *source_of(const WnrtModel *m, int input) { return &m->mem[m->root[m->g->inputs[input]->id]]; }

bool wnrt_loop_writes_input(const WnrtModel *m, int input) {
    const struct TokenLoop *L = m->loop;
    return L && input >= 0 && (input == L->ids || input == L->pos || input == L->mask);
}

/* Binding of input `input`'s source (the ring, unwritten, when absent) and its flag bits. */
static KBind source_bind(const WnrtModel *m, const struct TokenLoop *L, int input, uint32_t present, uint32_t wide,
                         uint32_t *flags) {
    if (input < 0) return (KBind){L->ring.buffer, L->ring.offset, (L->ring.size + 3) & ~(uint64_t)3, true};
    const MemAlloc *a = source_of(m, input);
    *flags |= present | (dtype_bits(m->g->inputs[input]->dtype) == 64 ? wide : 0);
    return (KBind){a->buffer, a->offset, (a->size + 3) & ~(uint64_t)3, true};
}

/* Workgroups of wg invocations for a greedy pick over `items` vectors or elements, `batch` per
 * invocation: one batch each, at most PICK_MAX_GROUPS and wg (WEBNNC_PICK_GROUPS overrides). */
static uint32_t pick_groups(const struct TokenLoop *L, uint32_t wg, uint64_t items, uint32_t batch) {
    uint64_t g = L->groups ? (uint64_t)L->groups : (items + (uint64_t)wg * batch - 1) / ((uint64_t)wg * batch);
    uint64_t cap = wg < PICK_MAX_GROUPS ? wg : PICK_MAX_GROUPS;
    return (uint32_t)(g < 1 ? 1 : g > cap ? cap : g);
}

/* The parameters and bindings of the pick reading logits row `row` into ring entry `slot`, feeding
 * position `pos`. */
static int pick_setup(WnrtModel *m, struct TokenLoop *L, uint64_t row, int slot, int64_t pos, PickParams *out, KBind *b) {
    const Value *lv = m->g->outputs[L->logits];
    const MemAlloc *la = &m->mem[m->root[lv->id]];
    uint64_t range = (la->size + 3) & ~(uint64_t)3, vocab = (uint64_t)lv->shape[lv->rank - 1].v;
    if (range > m->dev->info.max_storage_buffer_range || row + vocab > UINT32_MAX) {
        diag_error("device token loop: logits %s do not fit one storage binding", value_display_name(lv));
        return -1;
    }
    PickParams pp = {(uint32_t)vocab, (uint32_t)row, (uint32_t)slot, (uint32_t)pos, 0,
                     L->cfg.temperature > 0 ? 1.0f / L->cfg.temperature : 0.0f, (uint32_t)L->cfg.top_k, L->cfg.top_p,
                     (uint32_t)L->cfg.seed, (uint32_t)(L->cfg.seed >> 32)};
    b[0] = (KBind){la->buffer, la->offset, range, false};
    b[1] = source_bind(m, L, L->ids, 0, 1, &pp.flags);
    b[2] = source_bind(m, L, L->pos, 2, 4, &pp.flags);
    b[3] = source_bind(m, L, L->mask, 8, 16, &pp.flags);
    b[4] = (KBind){L->ring.buffer, L->ring.offset, (L->ring.size + 3) & ~(uint64_t)3, true};
    /* 16-byte loads where the binding and the row start on 16-byte boundaries (the shader indexes
     * vectors from the binding's start; WEBNNC_PICK_VEC=0: scalar loads) */
    if (L->vec_loads && la->offset % 16 == 0 && row * (uint64_t)dtype_bits(lv->dtype) / 8 % 16 == 0)
        pp.flags |= PICK_VEC_LOADS;
    b[5] = (KBind){L->ws.buffer, L->ws.offset, L->ws.size, true};
    *out = pp;
    return 0;
}

/* The pick reading logits row `row` into ring entry `slot`, feeding position `pos` (grid 0: off). */
static int pick(KernelCtx *kc, WnrtModel *m, struct TokenLoop *L, uint64_t row, int slot, int64_t pos, bool on) {
    PickParams pp;
    KBind b[6];
    if (pick_setup(m, L, row, slot, pos, &pp, b) < 0) return -1;
    const Value *lv = m->g->outputs[L->logits];
    uint64_t vocab = pp.vocab;
    /* greedy: split where the row has more than one workgroup's batch; else (and sampling) one
     * workgroup of PICK_WG */
    uint32_t max_wg = m->dev->info.max_workgroup_invocations, wg = k_wg_within(PICK_GREEDY_WG, max_wg);
    bool vec = (pp.flags & PICK_VEC_LOADS) != 0;
    pp.groups = pp.inv_temp == 0.0f ? pick_groups(L, wg, vec ? vocab * (uint64_t)dtype_bits(lv->dtype) / 128 : vocab,
                                                  vec ? PICK_VEC_BATCH : PICK_SCALAR_BATCH)
                                    : 1;
    if (pp.groups == 1) wg = k_wg_within(PICK_WG, max_wg);
    uint32_t spec[3] = {wg, PICK_SCALAR_BATCH, PICK_VEC_BATCH};
    return kc_dispatch(kc, NULL, L->shader, spec, 3, &pp, sizeof pp, b, 6, on ? pp.groups : 0, 1, 1);
}

/* Shapes of a decode step over `total` tokens into m->now_shapes. */
static int step_shapes(WnrtModel *m, const struct TokenLoop *L, int64_t total) {
    int64_t one[2] = {1, 1};
    memcpy(m->in_shape[L->ids], one, sizeof one);
    if (L->pos >= 0) memcpy(m->in_shape[L->pos], one, sizeof one);
    if (L->mask >= 0) memcpy(m->in_shape[L->mask], (int64_t[]){1, total}, 2 * sizeof(int64_t));
    return wnrt_bind_resolve_symbols(m) < 0 || wnrt_bind_eval_shapes(m, m->now_shapes) < 0 ? -1 : 0;
}

/* The logits row that the pick at the end of a run with `shapes` reads (the last one), and the
 * position it feeds (the one after the run's sequence). */
static uint64_t pick_row(const WnrtModel *m, const struct TokenLoop *L, int64_t (*shapes)[WN_MAX_RANK], int64_t *pos) {
    const Value *lv = m->g->outputs[L->logits];
    uint64_t numel = 1;
    for (int d = 0; d < lv->rank; d++) numel *= (uint64_t)shapes[lv->id][d];
    *pos = shapes[m->g->inputs[L->mask]->id][1];
    return numel - (uint64_t)shapes[lv->id][lv->rank - 1];
}

/* The pick at the end of run with `shapes` into ring entry `slot`. */
static int pick_after(KernelCtx *kc, WnrtModel *m, struct TokenLoop *L, int64_t (*shapes)[WN_MAX_RANK], int slot, bool on) {
    int64_t pos;
    uint64_t row = pick_row(m, L, shapes, &pos);
    return pick(kc, m, L, row, slot, pos, on);
}

/* The greedy pick of a decode step with `shapes` (ring entry `slot`) offered to the mat-vec that
 * writes its logits row (kernel.h KFusedPick; WEBNNC_PICK_FUSED=0: never). */
static int offer_pick(WnrtModel *m, struct TokenLoop *L, int64_t (*shapes)[WN_MAX_RANK], int slot, KFusedPick *fp) {
    memset(fp, 0, sizeof *fp);
    if (L->cfg.temperature > 0 || !L->fuse_pick) return 0;
    int64_t pos;
    uint64_t row = pick_row(m, L, shapes, &pos);
    PickParams pp;
    KBind b[6];
    if (pick_setup(m, L, row, slot, pos, &pp, b) < 0) return -1;
    const Value *lv = m->g->outputs[L->logits];
    fp->logits = b[0].buffer;
    fp->logits_offset = b[0].offset + row * (uint64_t)dtype_bits(lv->dtype) / 8;
    fp->vocab = pp.vocab;
    fp->slot = pp.slot, fp->pos = pp.pos, fp->flags = pp.flags & ~PICK_VEC_LOADS, fp->ws_word = PICK_FUSED_WS;
    fp->ids = b[1], fp->pos_b = b[2], fp->mask = b[3], fp->ring = b[4], fp->ws = b[5];
    return 1;
}

int wnrt_loop_pick(KernelCtx *kc, WnrtModel *m, int64_t (*shapes)[WN_MAX_RANK]) {
    return m->loop ? pick_after(kc, m, m->loop, shapes, 0, true) : 0;
}

void wnrt_loop_after_run(WnrtModel *m, int64_t (*shapes)[WN_MAX_RANK]) {
    struct TokenLoop *L = m->loop;
    if (!L) return;
    L->next_pos = shapes[m->g->inputs[L->mask]->id][1];
    L->pick_pending = true;
}

/* The dispatches of the batch whose first step feeds position `pos` into t (and L->cbs when `rec`):
 * every step of the recording, the first `steps` on (the others at a size that is valid, with zero
 * grids; their command buffers are not submitted with this batch). */
static int walk(WnrtModel *m, struct TokenLoop *L, bool rec, ReplayTrace *t, int steps, int64_t pos, int *dispatches) {
    t->n = 0;
    int *firsts = rec ? L->rec_first : L->now_first;
    KernelCtx *kc = wnrt_record_loop_begin(m, rec ? L->cbs[0] : VK_NULL_HANDLE, &L->params, t, rec ? L->push : NULL,
                                           rec ? L->push_cap : 0);
    if (!kc) return -1;
    int rc = 0;
    bool fused = false;
    for (int j = 0; j < L->cfg.steps && rc == 0; j++) {
        bool on = j < steps;
        int first = firsts[j] = t->n;
        if (j > 0 && rec && (rc = wnrt_record_loop_next_cb(kc, L->cbs[j])) < 0) break;
        KFusedPick fp;
        if ((rc = step_shapes(m, L, pos + (on ? j : steps - 1) + 1)) < 0 || (rc = offer_pick(m, L, m->now_shapes, 1 + j, &fp)) < 0)
            break;
        kc_offer_pick(kc, rc > 0 ? &fp : NULL);
        rc = wnrt_record_loop_step(kc, m->now_shapes);
        kc_offer_pick(kc, NULL);
        if (rc < 0 || (!fp.taken && (rc = pick_after(kc, m, L, m->now_shapes, 1 + j, on)) < 0)) break;
        fused = fused || fp.taken;
        rc = 0;
        for (int i = first; i < t->n && !on; i++) memset(t->args[i].grid, 0, sizeof t->args[i].grid);
    }
    m->stats.loop_pick_fused = fused;
    firsts[L->cfg.steps] = t->n;
    if (rc == 0 && rec) rc = wnrt_record_loop_next_cb(kc, L->cbs[L->cfg.steps]);
    int pushed = 0, r2 = wnrt_record_loop_end(kc, dispatches, NULL, &pushed);
    if (rec) m->stats.loop_pushed = pushed / L->cfg.steps;
    return rc < 0 ? rc : r2;
}

void wnrt_loop_free(WnrtModel *m) {
    struct TokenLoop *L = m->loop;
    if (!L) return;
    for (int i = 0; L->cbs && i <= L->cfg.steps; i++)
        if (L->cbs[i]) vkFreeCommandBuffers(m->dev->device, m->dev->cmd_pool, 1, &L->cbs[i]);
    free(L->cbs);
    free(L->submit);
    free(L->rec_first);
    free(L->now_first);
    free(L->push);
    free(L->varies);
    wnrt_replay_trace_free(&L->rec);
    wnrt_replay_trace_free(&L->now);
    free(L->dirty.index);
    vk_mempool_destroy(L->ring_pool);
    vk_mempool_destroy(L->ws_pool);
    free(L);
    m->loop = NULL;
}

int wnrt_loop_config(WnrtModel *m, const WnrtLoopConfig *c) {
    wnrt_loop_free(m);
    if (!m->replay || !m->kv_resident || m->prof) {
        diag_error("device token loop: needs replayed recordings (not WEBNNC_REPLAY=0), resident KV caches and no "
                   "profiler");
        return -1;
    }
    if (c->temperature < 0 || c->top_k < 0 || !(c->top_p > 0 && c->top_p <= 1) || c->steps < 0) {
        diag_error("device token loop: temperature >= 0, top-k >= 0 and 0 < top-p <= 1 expected");
        return -1;
    }
    struct TokenLoop *L = calloc(1, sizeof *L);
    if (!L) {
        diag_error("out of memory");
        return -1;
    }
    m->loop = L;
    L->cfg = *c;
    if (!L->cfg.steps)
        L->cfg.steps = (int)wnrt_env_long("WEBNNC_LOOP_STEPS", 1, 256,
                                          m->dev->info.type == WNRT_DEV_CPU ? WNRT_LOOP_STEPS_CPU : WNRT_LOOP_STEPS);
    L->vec_loads = wnrt_env_flag("WEBNNC_PICK_VEC", true);
    L->fuse_pick = wnrt_env_flag("WEBNNC_PICK_FUSED", true);
    L->groups = (int)wnrt_env_long("WEBNNC_PICK_GROUPS", 0, PICK_MAX_GROUPS, 0);
    const char *push = getenv("WEBNNC_PUSH_PARAMS");
    L->push_mode = !vk_pipeset_push_range(m->dev) || (push && strcmp(push, "0") == 0) ? PUSH_NONE
                   : push && strcmp(push, "all") == 0                              ? PUSH_ALL
                                                                                   : PUSH_STABLE;
    L->rec_first = calloc((size_t)L->cfg.steps + 1, sizeof *L->rec_first);
    L->now_first = calloc((size_t)L->cfg.steps + 1, sizeof *L->now_first);
    if (!L->rec_first || !L->now_first) {
        diag_error("out of memory");
        wnrt_loop_free(m);
        return -1;
    }
    L->ids = input_index(m, c->input_ids, true);
    L->pos = input_index(m, c->position_ids, false);
    L->mask = input_index(m, c->attention_mask, true);
    L->logits = -1;
    for (int i = 0; c->logits && i < m->g->n_outputs; i++)
        if (strcmp(m->g->outputs[i]->name, c->logits) == 0 ||
            (m->g->outputs[i]->origin && strcmp(m->g->outputs[i]->origin, c->logits) == 0))
            L->logits = i;
    if (L->ids < 0 || L->pos < -1 || L->mask < 0 || L->logits < 0) {
        if (L->logits < 0 && !diag_has_error()) diag_error("device token loop: the graph has no output %s", c->logits);
        wnrt_loop_free(m);
        return -1;
    }
    DType dt = m->g->outputs[L->logits]->dtype;
    if ((L->shader = vk_shader_lookup("next_token", dt, DT_U32)) < 0) {
        diag_error("device token loop: no next_token kernel for %s logits", dtype_name(dt));
        wnrt_loop_free(m);
        return -1;
    }
    uint64_t ring_bytes = 4 * ((uint64_t)L->cfg.steps + 1);
    if ((L->ring_pool = vk_mempool_create(m->dev, MEM_STAGING)))
        vk_mempool_hint(L->ring_pool, ring_bytes); /* a block of its size, not the pool's default 256 MiB */
    if (!L->ring_pool || vk_mempool_alloc(L->ring_pool, ring_bytes, &L->ring) < 0 || !L->ring.map) {
        if (!diag_has_error()) diag_error("device token loop: the id ring is not host visible");
        wnrt_loop_free(m);
        return -1;
    }
    uint64_t ws_bytes = 4 * ((uint64_t)PICK_FUSED_WS + 4);
    if ((L->ws_pool = vk_mempool_create(m->dev, MEM_DEVICE))) vk_mempool_hint(L->ws_pool, ws_bytes);
    if (!L->ws_pool || vk_mempool_alloc(L->ws_pool, ws_bytes, &L->ws) < 0 || vk_zero_fill(m->dev, &L->ws) < 0) {
        wnrt_loop_free(m);
        return -1;
    }
    return 0;
}

/* Whether dispatch d of step j of L->now is dispatch d of step 0: the same pipeline and parameters. */
static bool same_as_first(const struct TokenLoop *L, int j, int d) {
    const int *f = L->now_first;
    if (f[j + 1] - f[j] != f[1] - f[0]) return false;
    const ReplayOp *a = &L->now.ops[f[0] + d], *b = &L->now.ops[f[j] + d];
    return a->pipeline == b->pipeline &&
           memcmp(L->now.args[f[0] + d].params, L->now.args[f[j] + d].params, sizeof L->now.args[0].params) == 0;
}

/* L->push for the recording of L->now's batch (`steps` steps on): a step's dispatch takes its
 * parameters from push constants in every step (on or off) where they are the same in all the
 * batch's steps that are on (two or more) and it was never seen to change (L->varies). */
static int choose_pushes(WnrtModel *m, struct TokenLoop *L, int steps) {
    if (L->push_cap < L->now.n) {
        bool *np = realloc(L->push, sizeof *np * (size_t)L->now.n);
        if (!np) {
            diag_error("out of memory");
            return -1;
        }
        L->push = np;
        L->push_cap = L->now.n;
    }
    memset(L->push, 0, sizeof *L->push * (size_t)L->push_cap);
    const int *f = L->now_first;
    int per = f[1] - f[0];
    for (int d = 0; L->push_mode != PUSH_NONE && (steps >= 2 || L->push_mode == PUSH_ALL) && d < per; d++) {
        bool stable = L->push_mode == PUSH_ALL || d >= L->n_varies || !L->varies[d];
        for (int j = 1; j < steps && stable && L->push_mode != PUSH_ALL; j++) stable = same_as_first(L, j, d);
        for (int j = 0; j < L->cfg.steps && stable; j++)
            if (f[j + 1] - f[j] == per) L->push[f[j] + d] = true;
    }
    return 0;
}

/* Whether the batch of L->now would change the parameters of a pushed dispatch of the recording (a
 * slot in L->dirty whose parameters differ from those recorded): its dispatch (by index in its
 * step) is marked in L->varies, so that the recording made again reads its slot. */
static int pushes_stale(struct TokenLoop *L, bool *stale) {
    *stale = false;
    for (int k = 0; k < L->dirty.n; k++) {
        int i = L->dirty.index[k];
        if (i >= L->push_cap || !L->push[i] ||
            memcmp(L->rec.args[i].params, L->now.args[i].params, sizeof L->rec.args[i].params) == 0)
            continue;
        int j = 0;
        while (j + 1 < L->cfg.steps && L->rec_first[j + 1] <= i) j++;
        int d = i - L->rec_first[j];
        if (d >= L->n_varies) {
            bool *nv = realloc(L->varies, sizeof *nv * (size_t)(d + 1));
            if (!nv) {
                diag_error("out of memory");
                return -1;
            }
            memset(nv + L->n_varies, 0, sizeof *nv * (size_t)(d + 1 - L->n_varies));
            L->varies = nv;
            L->n_varies = d + 1;
        }
        L->varies[d] = true;
        *stale = true;
    }
    return 0;
}

/* Makes the loop's command buffer for the plan of L->now (the batch from position pos) and writes
 * all of its parameter slots. */
static int record(WnrtModel *m, struct TokenLoop *L, int steps, int64_t pos) {
    if (wnrt_replay_reserve(m, &L->params, L->now.n) < 0 || choose_pushes(m, L, steps) < 0) return -1;
    if (!L->cbs) {
        L->cbs = calloc((size_t)L->cfg.steps + 1, sizeof *L->cbs);
        L->submit = calloc((size_t)L->cfg.steps + 1, sizeof *L->submit);
        if (!L->cbs || !L->submit) {
            diag_error("out of memory");
            return -1;
        }
    }
    for (int i = 0; i <= L->cfg.steps; i++)
        if (!L->cbs[i] && vkdev_cb_alloc(m->dev, &L->cbs[i]) < 0) return -1;
    L->recorded = false;
    if (walk(m, L, true, &L->rec, steps, pos, NULL) < 0) return -1;
    if (!wnrt_replay_same_plan(&L->rec, &L->now)) {
        diag_error("internal: the device loop's recording differs from its capture");
        return -1;
    }
    L->recorded = true;
    m->stats.recordings++;
    m->stats.params_written = wnrt_replay_write(m, &L->params, NULL, &L->rec);
    return 0;
}

int wnrt_loop_prepare(WnrtModel *m, int64_t pos, int steps) {
    struct TokenLoop *L = m->loop;
    if (!L || steps < 1 || pos < 1) return 0;
    if (steps > L->cfg.steps) steps = L->cfg.steps;
    InputSnapshot kept;
    if (wnrt_bind_save(m, &kept) < 0) return -1;
    const int loop_inputs[3] = {L->ids, L->pos, L->mask}; /* the steps' shapes set them (step_shapes) */
    for (int k = 0; k < 3; k++)
        if (loop_inputs[k] >= 0) m->bound[loop_inputs[k]] = true;
    int created = m->dev->pipelines_created; /* (the pushed variants: made here, at load, not in a run) */
    if (walk(m, L, false, &L->now, steps, pos, NULL) == 0 && record(m, L, steps, pos) == 0) {
        m->pipelines_ready += m->dev->pipelines_created - created;
        L->ahead = true; /* `now` is this batch's walk and the slots hold it: nothing to compare or write */
        L->ahead_diffed = true;
        L->dirty.n = 0;
        L->ahead_steps = steps;
        L->ahead_pos = pos;
    } else {
        L->recorded = L->ahead = false;
        diag_clear(); /* made again, reporting its error, by wnrt_loop_next */
    }
    wnrt_bind_restore(m, &kept);
    return 0;
}

/* Whether ring entry `id` says that every logit of its row was NaN (next_token.comp, token_pick.glsl),
 * reported as an error naming the row's position: step -1 the run's pick (the prompt's last position,
 * the one before next_pos), else decode step `step` of this batch (the token it fed at next_pos + step). */
static bool nan_pick(const WnrtModel *m, const struct TokenLoop *L, uint64_t id, int step) {
    if (!(id & LOOP_PICK_NAN)) return false;
    long long at = (long long)L->next_pos + step;
    if (step < 0)
        diag_error("output %s: every logit at position %lld is NaN (the graph computed NaN)", L->cfg.logits, at);
    else
        diag_error("output %s: every logit at position %lld is NaN (the graph computed NaN; decode step %llu of the device loop)",
                   L->cfg.logits, at, (unsigned long long)(m->stats.loop_steps + (uint64_t)step + 1));
    return true;
}

int wnrt_loop_next(WnrtModel *m, int64_t *ids, int n) {
    struct TokenLoop *L = m->loop;
    if (!L || n < 1 || (!L->pick_pending && !L->recorded && m->cur < 0)) {
        diag_error("internal: wnrt_loop_next needs wnrt_loop_config, a run and n >= 1");
        return -1;
    }
    const uint32_t *ring = (const uint32_t *)L->ring.map;
    int picks = 0;
    if (L->pick_pending) { /* the last wnrt_run picked into ring[0] */
        ids[picks++] = ring[0];
        L->pick_pending = false;
        if (nan_pick(m, L, ring[0], -1)) return -1;
    }
    int steps = n - picks < L->cfg.steps ? n - picks : L->cfg.steps;
    if (steps == 0) return picks;
    uint64_t t0 = now_ns();
    bool ahead = L->ahead && L->ahead_steps == steps && L->ahead_pos == L->next_pos;
    if (ahead)
        m->stats.loop_ahead++;
    else if (walk(m, L, false, &L->now, steps, L->next_pos, NULL) < 0)
        return -1;
    L->ahead = false;
    /* the recording again for another plan, or where the batch changes pushed parameters; else only
     * the slots that change (L->dirty compared while the batch before ran, or recorded at load) */
    bool diffed = ahead && L->ahead_diffed && L->recorded, replay = diffed || (L->recorded && wnrt_replay_same_plan(&L->rec, &L->now));
    bool stale = false;
    if (replay && ((!diffed && wnrt_replay_diff(&L->rec, &L->now, &L->dirty) < 0) || pushes_stale(L, &stale) < 0)) return -1;
    if (!replay || stale) {
        if (record(m, L, steps, L->next_pos) < 0) return -1;
    } else {
        m->stats.params_written = wnrt_replay_write_dirty(m, &L->params, &L->rec, &L->now, &L->dirty);
        m->stats.replays += steps;
    }
    m->stats.prepare_ns = now_ns() - t0; /* the batch's host work before its submit: sizes, capture, parameter writes */
    m->stats.prepare_ns_total += m->stats.prepare_ns;
    m->stats.runs += (uint64_t)steps;
    uint64_t t_submit = now_ns();
    if (m->done_ns) { /* the device has had nothing to do since the last wait returned */
        if (m->stats.loop_submits) m->stats.loop_idle_ns += t_submit - m->done_ns;
        else m->stats.loop_idle_first_ns = t_submit - m->done_ns;
    }
    /* this batch's steps and the tail: the steps past it, with zero grids, are not submitted */
    for (int k = 0; k < steps; k++) L->submit[k] = L->cbs[k];
    L->submit[steps] = L->cbs[L->cfg.steps];
    if (vkdev_submit_n(m->dev, L->submit, steps + 1, m->fence) < 0) return -1;
    /* While the batch runs, the walk of the one the caller will likely ask for next (the rest of n,
     * up to a batch): its capture is most of a batch's host work (Qwen2-0.5B: 3.8 ms for 16 steps of
     * 130 dispatches, with the GPU idle, before this).  A request for another batch walks again. */
    int rest = n - picks - steps;
    if (rest > 0) {
        L->ahead_steps = rest < L->cfg.steps ? rest : L->cfg.steps;
        L->ahead_pos = L->next_pos + steps;
        L->ahead = walk(m, L, false, &L->now, L->ahead_steps, L->ahead_pos, NULL) == 0;
        if (!L->ahead) diag_clear(); /* it is made again, reporting its error, when asked for */
        /* and the comparison with the slots as this batch has them: after the wait, only the writes */
        L->ahead_diffed = L->ahead && L->recorded && wnrt_replay_same_plan(&L->rec, &L->now);
        if (L->ahead_diffed && wnrt_replay_diff(&L->rec, &L->now, &L->dirty) < 0) {
            L->ahead_diffed = false; /* compared after the wait instead */
            diag_clear();
        }
    }
    if (vkdev_wait(m->dev, m->fence) < 0) return -1; /* polled on GPUs (vk_device.c) */
    m->done_ns = now_ns();
    for (int k = 0; k < steps; k++) ids[picks + k] = ring[1 + k];
    for (int k = 0; k < steps; k++)
        if (nan_pick(m, L, (uint64_t)ids[picks + k], k)) return -1;
    L->next_pos += steps;
    m->stats.loop_steps += (uint64_t)steps;
    m->stats.loop_submits++;
    return picks + steps;
}
