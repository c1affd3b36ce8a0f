/* replay.h - one recording for every size within the bounds (runtime/replay.c).
 *
 * Every dispatch reads its parameter block from a small host-written buffer (binding
 * K_PARAMS_BINDING, common.glsl PARAMS_BLOCK) at its own slot, and with replay on (the default; WEBNNC_REPLAY=0
 * turns it off) takes its grid from the same slot (vkCmdDispatchIndirect).  The slots live in device
 * memory: where that is not host visible (a discrete GPU without a host-visible device heap, or
 * WEBNNC_FORCE_STAGING=1) the host writes a mirror in host memory that every submit copies in first
 * (wnrt_replay_upload); read over PCIe instead, each dispatch's indirect arguments and parameter
 * block cost a bus round trip on its critical path (H100: about 3 us of every decode dispatch).  Before each run the
 * record functions run again without a command buffer ("capture"), giving every dispatch's
 * pipeline, bindings, parameters and grid for the run's actual sizes.  When the pipelines and
 * bindings equal a recording's, only the changed slots are rewritten and the recording is
 * submitted again; otherwise (another kernel choice, another binding) a new recording is made.
 * Bindings cover a tensor's storage at its upper bound, and graph inputs/outputs move through
 * io_copy dispatches with the word count as a parameter, so sizes alone never change them. */
#ifndef WEBNNC_REPLAY_H
#define WEBNNC_REPLAY_H

#include "kernel.h"
#include "vk_memory.h"

typedef struct {
    VkPipeline pipeline;
    int n_binds;
    KBind binds[K_MAX_BINDINGS];
} ReplayOp; /* what a recording fixes */

typedef struct {
    uint8_t params[K_PUSH_MAX]; /* zero-padded past the block's size */
    uint32_t grid[3];
} ReplayArgs; /* what a replay rewrites */

typedef struct {
    ReplayOp *ops;
    ReplayArgs *args;
    int n, cap;
} ReplayTrace;

typedef struct WnrtModel WnrtModel;
typedef struct KernelCtx KernelCtx;

/* WEBNNC_REPLAY unset or not "0". */
bool wnrt_replay_env_enabled(void);
/* Appends one dispatch.  0 or -1 (out of memory). */
int wnrt_replay_note(ReplayTrace *t, VkPipeline p, const KBind *binds, int n_binds, const void *params,
                uint32_t params_size, uint32_t gx, uint32_t gy, uint32_t gz);
void wnrt_replay_trace_free(ReplayTrace *t);
/* Same pipelines and bindings, dispatch by dispatch. */
bool wnrt_replay_same_plan(const ReplayTrace *a, const ReplayTrace *b);

/* Byte stride of one dispatch's slot (parameter block, then the indirect arguments at
 * K_PUSH_MAX) for the model's device. */
uint64_t wnrt_replay_slot_stride(const WnrtModel *m);
/* The parameter/indirect-argument slots of one recording. */
typedef struct {
    MemAlloc gpu;  /* what the dispatches read (descriptors, indirect arguments) */
    MemAlloc host; /* the host-written mirror copied into gpu by wnrt_replay_upload; no buffer where
                      gpu is mapped (the host writes it directly) */
    int cap;       /* slots held */
} ReplaySlots;

/* Makes *s hold n slots (keeps them when large enough). */
int wnrt_replay_reserve(WnrtModel *m, ReplaySlots *s, int n);
/* Writes the slots of `now` that differ from `last` into s and copies them into `last`
 * (last = NULL: writes all of now).  Returns the number of slots written. */
int wnrt_replay_write(const WnrtModel *m, const ReplaySlots *s, ReplayTrace *last, const ReplayTrace *now);
/* The slots of a trace whose arguments differ from another's (wnrt_replay_diff). */
typedef struct {
    int *index;
    int n, cap;
} ReplayDirty;
/* The slots of `now` whose arguments differ from `last`'s (the same plan) into d: the comparison
 * of wnrt_replay_write made ahead, while the slots are still in use.  0 or -1 (out of memory). */
int wnrt_replay_diff(const ReplayTrace *last, const ReplayTrace *now, ReplayDirty *d);
/* Writes the slots d lists from `now` into s and last.  Returns their number. */
int wnrt_replay_write_dirty(const WnrtModel *m, const ReplaySlots *s, ReplayTrace *last, const ReplayTrace *now,
                            const ReplayDirty *d);
/* Records, first in a command buffer that reads s, the copy of the host mirror into the slots and
 * the barrier that makes them visible to shaders and indirect dispatches (nothing without a mirror). */
void wnrt_replay_upload(const WnrtModel *m, VkCommandBuffer cb, const ReplaySlots *s);

/* Which copies wnrt_replay_io records: the graph inputs' from host staging to device storage, the
 * same for a step of the device token loop (less the inputs its picks write on the device), or the
 * outputs' back. */
typedef enum { REPLAY_IO_IN, REPLAY_IO_LOOP_IN, REPLAY_IO_OUT } ReplayIo;
/* Those copies as io_copy dispatches sized by the run's shapes.  0 or -1 with a diagnostic. */
int wnrt_replay_io(KernelCtx *kc, WnrtModel *m, int64_t (*shapes)[WN_MAX_RANK], ReplayIo io);

#endif
