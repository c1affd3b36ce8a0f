/* k_ext_util.h - helpers shared by the extension-op kernel families (k_ext_*.c: matmulNBits,
 * rmsNorm/skipRmsNorm, rotaryEmbedding, gatherBlockQuantized, quickGelu, groupQueryAttention):
 * operand presence, bindings with 32-bit element bases, byte-level bindings of packed / integer
 * tensors read as 32-bit words by the shaders (shaders/ext_common.glsl), the workgroup size and
 * the reduction mode of the device.  Built on kx_util.h, the helpers of every kernel family (operand
 * presence kx_opt, the "no kernel" diagnostic kx_no_kernel): one stack of helpers, not two. */
#ifndef WEBNNC_K_EXT_UTIL_H
#define WEBNNC_K_EXT_UTIL_H

#include "kx_util.h" /* the layer below: operand checks, kx_opt, kx_no_kernel, whole-tensor bindings */

#define EXT_WG 256 /* workgroup size of the row / element kernels (ext_red has this many slots) */

/* Fails (naming the node) unless v is float32 or float16. */
int ext_float(const Node *n, const Value *v);
/* Fails unless count fits the 32-bit indexing of the shaders (< 2^31). */
int ext_fits(const Node *n, uint64_t count, const char *what);

/* Binds the whole tensor; *base = element index of its element 0 inside the binding. */
int ext_bind(KernelCtx *kc, const Node *n, const KTensor *t, bool write, KBind *b, uint32_t *base);
/* Binds the bytes of t (any dtype, 4-bit packed ones included) for word access; *base_bytes =
 * byte offset of t's first byte inside the binding. */
int ext_bind_bytes(KernelCtx *kc, const Node *n, const KTensor *t, KBind *b, uint32_t *base_bytes);
/* ext_bind_bytes for tensors read as 32-bit words from a word boundary (int32/int64 indices,
 * packed rows); *base_words = word index of t's first byte.  Fails when misaligned. */
int ext_bind_words(KernelCtx *kc, const Node *n, const KTensor *t, KBind *b, uint32_t *base_words);

/* Workgroup size of the row / element kernels on this device (<= EXT_WG, a power of two). */
uint32_t ext_wg(const KernelCtx *kc);
/* Reductions use subgroupAdd (1) or shared memory only (0). */
uint32_t ext_sg_reduce(const KernelCtx *kc);
/* The prefill GEMMs and attention run on NV cooperative matrices (WnrtDeviceInfo coopmat_nv,
 * shaders/nbits_tile.glsl, shaders/ext_gqa_attn_flash_coop.comp): float16 activations only (the
 * float16 tiles would cost float32 models their precision). */
bool ext_coop(const KernelCtx *kc, DType act);
/* One workgroup per row (kc_dispatch_1d) with the given spec constants (spec[0] = ext_wg). */
int ext_dispatch_rows(KernelCtx *kc, const Node *n, int shader, const uint32_t *spec, int n_spec, const void *push,
                      uint32_t push_size, const KBind *b, int n_b, uint64_t rows);
/* One invocation per element over a 1-D grid of ext_wg-sized workgroups. */
int ext_dispatch_elems(KernelCtx *kc, const Node *n, int shader, const uint32_t *spec, int n_spec, const void *push,
                       uint32_t push_size, const KBind *b, int n_b, uint64_t count);

#endif
