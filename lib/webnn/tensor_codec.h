/* tensor_codec.h - element encodings the webnn-graph files need: the weights file's one byte per
 * element for int4/uint4 (4-bit value in the low bits; the IR packs two per byte, low nibble
 * first), half-float conversion, and "scalar" constants (every element equal; JSON
 * {"kind":"scalar"}, converted through float32 by every loader). */
#ifndef WEBNNC_TENSOR_CODEC_H
#define WEBNNC_TENSOR_CODEC_H

#include <stdbool.h>
#include <stdint.h>

#include "core.h"

static inline bool dtype_is_4bit(DType dt) { return dtype_bits(dt) == 4; }
/* Bytes per element in the weights file / inlineBytes (int4/uint4: 1). */
static inline uint64_t file_elem_bytes(DType dt) { return dtype_is_4bit(dt) ? 1 : (uint64_t)dtype_bits(dt) / 8; }

/* out[i] = element (first + i) of the packed array, in the low 4 bits. */
void wn_nibbles_unpack(const uint8_t *packed, uint64_t first, uint64_t count, uint8_t *out);
/* Packs count one-byte elements (low nibble used); the last high nibble of an odd count is 0. */
void wn_nibbles_pack(const uint8_t *bytes, uint64_t count, uint8_t *packed);
/* True when every byte holds a 4-bit value: 0..15, or for int4 also -8..-1 sign-extended. */
bool wn_nibbles_valid(DType dt, const uint8_t *bytes, uint64_t count);
/* Equality of two IR tensors of n elements (ignores the padding nibble of an odd 4-bit count). */
bool wn_tensor_bytes_equal(DType dt, uint64_t n, const void *a, const void *b);

float wn_f16_to_f32(uint16_t h);
uint16_t wn_f32_to_f16(float f); /* round to nearest even */

/* When all n elements of an IR tensor are equal and the value survives the float32 trip that
 * loaders apply to {"kind":"scalar"} exactly, stores it and returns true.  Never for int64,
 * uint64, int4 and uint4, nor for inf/nan (JSON cannot spell them). */
bool wn_tensor_scalar_value(DType dt, uint64_t n, const void *data, double *value);
/* Fills n elements of an IR buffer with `value` (already checked by wn_scalar_fits). */
void wn_tensor_fill_scalar(DType dt, uint64_t n, double value, void *data);
/* Whether a JSON scalar value is allowed for dt: float32-representable after rounding and, for
 * integer types, integral and in range.  int64/uint64/int4/uint4 are refused. */
bool wn_scalar_fits(DType dt, double value);

#endif
