/* kernel.h - the interface for adding an op's kernels to the Vulkan runtime.
 *
 * Adding a kernel family = one C file + its shaders + one table line:
 *
 *  1. Shaders: runtime/shaders/NAME.comp (GLSL 450).  Register the dtype variants in
 *     runtime/shaders/meson.build (`variants += [['NAME', 'f32', ''], ...]`); each variant is
 *     compiled by glslc at build time with -DA_T=<type> -DB_T=<type> ... (see common.glsl) and
 *     embedded.  Workgroup size is specialization constant 0 (`local_size_x_id = 0`); constants
 *     1.. are yours (op codes, tile sizes, subgroup width).  Parameters: one block of at most
 *     K_PUSH_MAX bytes declared `PARAMS_BLOCK PC { ... } pc;` (binding K_PARAMS_BINDING, runtime/replay.c).
 *     Bindings: at most K_MAX_BINDINGS storage buffers (set 0, bindings 0..K_MAX_BINDINGS - 1); the parameter
 *     block is a uniform buffer (k_binding_type).
 *  2. C file runtime/k_FAMILY.c defining `const KernelFamily kfam_FAMILY = {check, record, 0}`:
 *       check(kc, node)   at load time, with upper-bound shapes: verify the dtypes/options are
 *                         supported (kc_find_shader reports "no kernel for op X (dtype Y) at node Z").
 *       record(kc, node, in, out)   at record time, with ACTUAL shapes (dynamic dims evaluated):
 *                         bind tensors (kc_bind / kc_bind_window) and emit dispatches
 *                         (kc_dispatch / kc_dispatch_1d).  A recording is replayed on later runs
 *                         with other sizes (runtime/replay.c: the record function runs again
 *                         without a command buffer and only the parameter blocks and grids are
 *                         rewritten), so every size goes into the parameters, and the choice of
 *                         shaders, bindings and dispatch count should depend on sizes only where
 *                         it must (a different choice means a new recording).
 *  3. One line per op in runtime/kernels.def: `KERNEL(OP_ID, FAMILY)` (or, for an op the runtime
 *     cannot run, `KERNEL_UNSUPPORTED(OP_ID, "reason")`; tests/core/test_op_coverage.c requires one
 *     of the two for every op of ops.def).
 *
 * Tensors are dense, row-major, at a byte offset inside a VkBuffer (KTensor).  Reshape/identity
 * are views (KF_VIEW families record nothing).  Barriers are inserted by kc_dispatch from the
 * bindings' write flags: only when a dispatch reads or overwrites a range written (or, for writes,
 * read) since the last barrier.  A binding's range may not exceed maxStorageBufferRange (128 MiB
 * on lavapipe): kernels that can split their work use kc_bind_window over element windows (see
 * k_strided.c: it splits element-wise and copy dispatches over rows of the outermost dim).
 * Errors: diag_node_error + return -1.
 */
#ifndef WEBNNC_KERNEL_H
#define WEBNNC_KERNEL_H

#include <stdbool.h>
#include <stdint.h>
#include <vulkan/vulkan.h>

#include "core.h"
#include "shaders/bindings.h" /* K_MAX_BINDINGS, K_PARAMS_BINDING */
#include "webnnc_runtime.h"

#define K_MAX_RANK 6     /* ranks the strided shaders index; more are collapsed */
/* Descriptor type of binding i: storage buffers for tensors, a uniform buffer for the parameter block. */
static inline VkDescriptorType k_binding_type(int i) {
    return i == K_PARAMS_BINDING ? VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER : VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
}
#define K_MAX_SPEC 32
/* A specialization constant that fixes a parameter which may be 0 holds it + 1 (0: not fixed;
 * shaders/common.glsl FIXED1_OR). */
#define K_FIXED1(v) ((uint32_t)(v) + 1u)
/* The workgroup size `want` halved until the device's limit `max` takes it (a power of two stays one). */
static inline uint32_t k_wg_within(uint32_t want, uint32_t max) {
    while (want > max && want > 1) want /= 2;
    return want;
}
/* Parameter block bytes: a uniform buffer slot, or push constants where the device loop pushes them
 * (runtime/vk_spirv_push.h; devices have at least 128 bytes of push constants, the H200 256);
 * ext_gqa_dec_oproj.comp's block is 156. */
#define K_PUSH_MAX 160

typedef struct {
    const Value *value;
    DType dtype;
    int rank;
    int64_t shape[WN_MAX_RANK]; /* actual sizes */
    uint64_t numel;
    VkBuffer buffer;
    uint64_t offset; /* byte offset of element 0 */
} KTensor;

typedef struct {
    VkBuffer buffer;
    uint64_t offset, range;
    bool write;
} KBind;

typedef struct KernelCtx KernelCtx;

/* The device token loop's greedy pick, taken over by the mat-vec that writes a decode step's logits
 * row (runtime/loop.c; shaders/matvec_rows.glsl PICK).  The loop offers it while it records the
 * step's nodes; the mat-vec whose output is exactly that row (one activation row, one dispatch, the
 * exact kernel) records matvec_rows_pick with these bindings and sets `taken`, and the loop then
 * records no pick dispatch. */
typedef struct {
    VkBuffer logits;                  /* the logits row: its buffer, byte offset and elements */
    uint64_t logits_offset, vocab;
    uint32_t slot, pos, flags, ws_word; /* next_token.comp's slot, pos and flags; the pick's words in ws */
    KBind ids, pos_b, mask, ring, ws;   /* next_token.comp's bindings 1..5 */
    bool taken;
} KFusedPick;

enum { KF_VIEW = 1 }; /* output aliases input 0 (reshape, identity): nothing recorded */

typedef struct {
    int (*check)(KernelCtx *kc, const Node *n);
    int (*record)(KernelCtx *kc, const Node *n, const KTensor *in, const KTensor *out);
    unsigned flags;
} KernelFamily;

const WnrtDeviceInfo *kc_device(const KernelCtx *kc);
/* The pick offered to the step being recorded (NULL: none), and offering one (NULL: withdrawn). */
KFusedPick *kc_fused_pick(const KernelCtx *kc);
void kc_offer_pick(KernelCtx *kc, KFusedPick *p);

/* Shader variant NAME for dtypes (a, b) (b = DT_INVALID when the variant has one dtype).
 * Returns its id, or -1 with "no kernel for op X (dtype Y) at node Z" when the variant does not
 * exist or the device lacks the feature the dtype needs. */
int kc_find_shader(KernelCtx *kc, const Node *n, const char *name, DType a, DType b);
/* Same without a diagnostic (for choosing between variants). */
int kc_has_shader(const KernelCtx *kc, const char *name, DType a, DType b);

/* Binds the whole tensor.  Fails (naming the node) if it exceeds maxStorageBufferRange. */
int kc_bind(KernelCtx *kc, const Node *n, const KTensor *t, bool write, KBind *b);
/* Binds elements [first, last] (inclusive, element offsets from element 0 of t); the binding
 * starts at an aligned offset at or below `first`, and *base is the element index of `first`
 * inside the binding. */
int kc_bind_window(KernelCtx *kc, const Node *n, const KTensor *t, int64_t first, int64_t last,
                   bool write, KBind *b, uint32_t *base);
/* Largest number of elements of dtype dt a single binding may cover. */
uint64_t kc_max_binding_elems(const KernelCtx *kc, DType dt);

/* Scratch storage: a kernel whose dispatches hand partial results to each other (split-K
 * partial sums) reserves at check time, with upper-bound shapes, the bytes it will need at most;
 * the plan allocates one device buffer of the largest reservation, shared by all nodes (the
 * barriers between their uses come from the bindings as for tensors).  At record time
 * kc_scratch_bind binds all of it (the same binding for every size), or fails when `bytes`
 * exceeds the reservation.  Reservations over kc_scratch_limit are refused (returns -1, no
 * diagnostic): the kernel should choose a form that needs less. */
uint64_t kc_scratch_limit(const KernelCtx *kc);
int kc_scratch_reserve(KernelCtx *kc, uint64_t bytes);
uint64_t kc_scratch_reserved(const KernelCtx *kc);
int kc_scratch_bind(KernelCtx *kc, const Node *n, uint64_t bytes, KBind *b);
/* The reserved scratch bytes from byte_offset seen as a tensor of dt and shape (intermediates a
 * kernel hands from one of its dispatches to the next, bound like any tensor); fails past the
 * reservation. */
int kc_scratch_tensor(KernelCtx *kc, const Node *n, uint64_t byte_offset, DType dt, int rank, const int64_t *shape,
                      KTensor *t);
/* Counters: 32-bit words, zero when the plan is made, shared by all nodes, that every dispatch
 * using them leaves zero again (workgroups counting their arrivals: the last one combines the
 * others' results and resets the count).  Reserved at check time (word count), bound whole. */
int kc_counters_reserve(KernelCtx *kc, uint64_t words);
int kc_counters_bind(KernelCtx *kc, const Node *n, uint64_t words, KBind *b);

/* Records one dispatch (pipeline created lazily for (shader, spec constants); spec[0] is the
 * workgroup size x).  Inserts a barrier first when the bindings conflict with earlier writes. */
int kc_dispatch(KernelCtx *kc, const Node *n, int shader, const uint32_t *spec, int n_spec,
                const void *push, uint32_t push_size, const KBind *binds, int n_binds,
                uint32_t gx, uint32_t gy, uint32_t gz);
/* 1-D grid of `groups` workgroups folded into x/y (shaders use flat_group() from common.glsl). */
int kc_dispatch_1d(KernelCtx *kc, const Node *n, int shader, const uint32_t *spec, int n_spec,
                   const void *push, uint32_t push_size, const KBind *binds, int n_binds,
                   uint64_t groups);

/* Parameters a plan rewrite (rt_model.h PlanRewrite, e.g. plan_matvec.c) attached to node
 * n for its family; NULL when the node runs as written. */
const void *kc_node_params(const KernelCtx *kc, const Node *n);

/* ---- shape helpers shared by families (kshape.c) ------------------------------------------ */
/* Contiguous element strides of shape. */
void kshape_strides(int rank, const int64_t *shape, int64_t *strides);
/* Element strides of `in` (rank in_rank) broadcast numpy-style to an output of rank out_rank
 * (stride 0 on broadcast dims). */
void kshape_broadcast_strides(int out_rank, const int64_t *out_shape, int in_rank,
                              const int64_t *in_shape, int64_t *strides);
/* Merges adjacent dims where every operand's strides are compatible and drops size-1 dims;
 * strides is n_ops arrays of WN_MAX_RANK.  Returns the new rank (>= 1). */
int kshape_collapse(int rank, int64_t *shape, int n_ops, int64_t (*strides)[WN_MAX_RANK]);
uint64_t kshape_numel(int rank, const int64_t *shape);

/* Shortcut: element-wise style node, checks that shader NAME exists for (a, b). */
int kcheck_shader(KernelCtx *kc, const Node *n, const char *name, DType a, DType b);

#endif
