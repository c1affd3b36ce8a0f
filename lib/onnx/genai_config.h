/* genai_config.h - what webnnc takes from an ONNX Runtime GenAI genai_config.json: the maximum
 * sequence length (search.max_length, else model.context_length), the head size, the eos token
 * ids (model.eos_token_id, an id or a list; generate stops at any of them), and the
 * default dimension settings they imply for the decoder's symbolic dims (see genai_config.c). */
#ifndef WEBNNC_GENAI_CONFIG_H
#define WEBNNC_GENAI_CONFIG_H

#include <stdint.h>

#include "onnx_import.h"

#define GENAI_MAX_EOS 16

typedef struct {
    int64_t max_length; /* search.max_length, else model.context_length; 0 when neither */
    int64_t head_size;  /* model.decoder.head_size; 0 when absent */
    int n_eos;          /* model.eos_token_id: one id or a list of at most GENAI_MAX_EOS */
    int32_t eos[GENAI_MAX_EOS];
} GenaiConfig;

/* Reads PATH.  Returns 0, or -1 with a diagnostic naming the file (unreadable, not JSON, a field
 * of the wrong type or out of range). */
int onnx_genai_config_read(const char *path, GenaiConfig *out);

/* Appends the default --fix / --dim settings for the GenAI dims the user did not set (names given
 * in neither user_fix nor user_bound), at most `max` entries each:
 *   batch_size -> fix 1;  kv_cache_dim -> fix head_size;
 *   sequence_length, total_sequence_length, past_sequence_length, past_sliding_length,
 *   total_sliding_length -> dim max_length.
 * The settings' names point at static strings. */
void onnx_genai_default_dims(const GenaiConfig *cfg, const DimSetting *user_fix, int n_user_fix,
                        const DimSetting *user_bound, int n_user_bound, DimSetting *fix, int *n_fix,
                        DimSetting *bound, int *n_bound, int max);

#endif
