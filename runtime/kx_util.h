/* kx_util.h - helpers shared by the spec-op kernel families (k_conv.c, k_conv_pool.c, k_norm.c,
 * k_linalg_gemm.c, k_gather.c, k_reduce_cumsum.c, k_conv_resample.c, k_quant.c, k_rnn.c and more: grep the includes):
 * operand checks, whole-tensor bindings with their element bases, element-size classes of the
 * data-movement shaders, logical views of 4-D layouts ("nhwc", "ohwi", ...) and the standard
 * "no kernel" diagnostic. */
#ifndef WEBNNC_KX_UTIL_H
#define WEBNNC_KX_UTIL_H

#include "kernel.h"
#include "rt_env.h"

#define KX_WG 256 /* workgroup size of every family using these helpers */

/* "no kernel for op X (dtype Y) at node Z"; returns -1. */
int kx_no_kernel(const Node *n, DType dt);
/* Node has at least `required` inputs (all present), at most `max_in`, and `n_out` outputs. */
int kx_operands(const Node *n, int required, int max_in, int n_out);
/* Input k when present (optional slots), else NULL. */
const Value *kx_opt(const Node *n, int k);
/* Float types (f32/f16) only; reports "no kernel" for others. */
int kx_float_only(const Node *n, DType dt);

/* Binds the whole tensor t; *base = element index of element 0 inside the binding. */
int kx_bind(KernelCtx *kc, const Node *n, const KTensor *t, bool write, KBind *b, int32_t *base);
/* Splitting over maxStorageBufferRange: a tensor t is walked along dim 0 of the (rank, shape,
 * stride) view (element strides, dim 0 = the split dim).  Returns how many dim-0 rows one binding
 * can cover (>= 1, at most shape[0]), or -1 with "node X: tensor T (B bytes): one slice of E
 * elements exceeds the device's maxStorageBufferRange" when a single row does not fit. */
int64_t kx_window_rows(KernelCtx *kc, const Node *n, const KTensor *t, int rank, const int64_t *shape,
                       const int64_t *stride);
/* Rows [r0, r0 + rows) of t seen as `row_elems` elements per row, as a tensor of its own (same
 * buffer, offset moved).  Where t's dim 0 holds those rows (shape[0] * row_elems = numel) the view
 * keeps t's shape with dim 0 = rows; else (a flat operand read by rows) it is [rows, row_elems]. */
KTensor kx_rows_view(const KTensor *t, uint64_t r0, uint64_t rows, uint64_t row_elems);
/* Binds the whole 4-bit tensor t as 32-bit words (t must start at an aligned offset). */
int kx_bind_packed4(KernelCtx *kc, const Node *n, const KTensor *t, bool write, KBind *b);

/* Data type with the same element size used by the size-class shaders (u8, f16, u32, u64);
 * DT_INVALID for 4-bit types. */
DType kx_size_class(DType dt);

/* Physical strides of logical dims `logical` (e.g. "nchw") of a contiguous 4-D tensor stored in
 * order `layout` (e.g. "nhwc"); dim[k] gets the logical sizes.  -1 if not a permutation. */
int kx_view4(const int64_t *shape, const char *layout, const char *logical, int64_t *dim, int64_t *stride);

/* Copies src into dst (same shape) with the strided copy shader (scatter ops start with this). */
int kx_copy(KernelCtx *kc, const Node *n, const KTensor *src, const KTensor *dst);

/* Copies `count` contiguous elements from src (from element src_off) to dst (from dst_off). */
int kx_copy_range(KernelCtx *kc, const Node *n, const KTensor *src, int64_t src_off, const KTensor *dst, int64_t dst_off,
                  int64_t count);

/* Reads up to `max` integers of option `key` into v; returns the count, -1 when absent, or -2 when
 * present with a different count than `want` (want < 0: any count up to max). */
int kx_ints(const Node *n, const char *key, int64_t *v, int max, int want);

/* One operand and one output, or -1 with "expects one operand and one output". */
int kx_one_in_one_out(const Node *n);
/* The node's "axis" option (default -1) when within [0, rank), else -1 with a diagnostic. */
int kx_axis_of(const Node *n, int rank, int *axis);
/* Check of a one-axis kernel: one operand and one output, a valid axis, shader NAME for (input
 * dtype, output dtype). */
int kx_axis_check(KernelCtx *kc, const Node *n, const char *shader);
/* One axis of [outer, A, inner] (softmax, argMin/argMax): dispatches shader sh over the rows, split
 * over windows of the outer dims so that x and y each fit one binding (spec: specialization
 * constants); push constants {rows, A, inner, base_in, base_out}. */
int kx_axis_record(KernelCtx *kc, const Node *n, const KTensor *x, const KTensor *y, int sh, const uint32_t *spec,
                   int n_spec);

#endif
