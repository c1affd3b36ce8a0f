/* webnnc.h - the public C API of libwebnnc: ONNX language models to WebNN graphs (webnn-graph
 * JSON + weights + manifest) and running them on the embedded Vulkan runtime.
 *
 *   webnnc_model *m;
 *   webnnc_convert_options opt;
 *   webnnc_convert_options_init(&opt);              // spec ops, built-in Chromium limits
 *   if (webnnc_load("model.onnx", &m) || webnnc_convert(m, &opt) || webnnc_write(m, "out", NULL))
 *       fprintf(stderr, "%s\n", webnnc_last_error());
 *   webnnc_session *s;
 *   webnnc_session_create(m, -1, &s);               // -1: the default Vulkan device
 *   webnnc_run(s, inputs, n_inputs, &outputs, &n_outputs);
 *   webnnc_tensors_free(outputs, n_outputs); webnnc_session_free(s); webnnc_model_free(m);
 *
 * Every function returning int returns WEBNNC_OK (0) or an error status (WEBNNC_CHECK_FAILED: a
 * produced graph failed verification or validation; WEBNNC_BAD_INPUT: bad input, options or
 * device); webnnc_last_error() then holds one line naming the file, node or tensor.  The library
 * is not thread-safe: use it from one thread at a time.  This header includes only standard C
 * headers.
 */
#ifndef WEBNNC_WEBNNC_H
#define WEBNNC_WEBNNC_H

#include <stddef.h>
#include <stdint.h>

#if defined(__GNUC__) || defined(__clang__)
#define WEBNNC_EXPORT __attribute__((visibility("default")))
#else
#define WEBNNC_EXPORT
#endif

#ifdef __cplusplus
extern "C" {
#endif

enum { WEBNNC_OK = 0, WEBNNC_CHECK_FAILED = 1, WEBNNC_BAD_INPUT = 2 };

/* "0.1.0" */
WEBNNC_EXPORT const char *webnnc_version(void);
/* The last failing call's message ("FILE: MESSAGE"; "" when the last call succeeded). */
WEBNNC_EXPORT const char *webnnc_last_error(void);
/* "ok", "check failed", "bad input" */
WEBNNC_EXPORT const char *webnnc_status_string(int status);

/* ---- models: load, convert, fuse, write, validate, read -------------------------------------- */

/* A model: an ONNX model not yet converted, or a WebNN graph (converted, or read from files). */
typedef struct webnnc_model webnnc_model;

/* Loads PATH: an ONNX model (.onnx file, or a folder with model.onnx and genai_config.json) to be
 * converted, or a webnn-graph (.webnn.json, .webnn, or an output folder), read as it is. */
WEBNNC_EXPORT int webnnc_load(const char *path, webnnc_model **out);
/* Reads a webnn-graph (file or output folder) and fuses it with the patterns of FUSE ("all",
 * "none" or NULL, or a comma-separated list), as a WebNN implementation would before running it. */
WEBNNC_EXPORT int webnnc_read(const char *path, const char *fuse, webnnc_model **out);
WEBNNC_EXPORT void webnnc_model_free(webnnc_model *m);

/* A named dimension setting (ONNX symbolic dims). */
typedef struct {
    const char *name;
    int64_t value;
} webnnc_dim;

typedef struct {
    const char *fuse;          /* NULL or "none": spec ops only; "all" or a comma-separated pattern list */
    const webnnc_dim *fixed;   /* dims frozen to a static size (win over genai_config.json defaults) */
    int n_fixed;
    const webnnc_dim *bounded; /* dims kept dynamic with an upper bound */
    int n_bounded;
    const char *limits;        /* spec-op output legalized for: NULL or "chromium" (built-in), "none", or a
                                * WebNN opSupportLimits() JSON file; must be NULL or "none" with fuse */
    int verbose;               /* stage timings and per-pass node counts on stderr */
} webnnc_convert_options;

/* The defaults of `webnnc convert`: no fusion, no dim settings, Chromium limits. */
WEBNNC_EXPORT void webnnc_convert_options_init(webnnc_convert_options *opt);
/* Converts a loaded ONNX model in place into a checked WebNN graph (genai_config.json defaults,
 * the pass pipeline, fusions of opt->fuse, legalization for opt->limits, verification), exactly as
 * `webnnc convert` does.  opt NULL: the defaults. */
WEBNNC_EXPORT int webnnc_convert(webnnc_model *m, const webnnc_convert_options *opt);
/* Fuses a WebNN graph (converted or loaded) into webnnc extension ops with the patterns of FUSE. */
WEBNNC_EXPORT int webnnc_fuse(webnnc_model *m, const char *fuse);

typedef struct {
    int text;               /* also write OUTDIR/model.webnn (the text form) */
    int contiguous_weights; /* tensors back to back in model.weights (no 64-byte alignment) */
} webnnc_write_options;

/* Writes the WebNN graph to OUTDIR (through a temporary folder, then renamed), validates the
 * written files and copies the ONNX model folder's genai_config.json and tokenizer files beside
 * them.  opt NULL: defaults (all 0). */
WEBNNC_EXPORT int webnnc_write(webnnc_model *m, const char *outdir, const webnnc_write_options *opt);
/* Checks a webnn-graph (file or output folder) as `webnnc validate` does: allow_extensions accepts
 * webnnc extension ops, limits (NULL: none) also checks a WebNN implementation's limits.  summary
 * (may be NULL) gets a one-line description. */
WEBNNC_EXPORT int webnnc_validate(const char *path, int allow_extensions, const char *limits, char *summary,
                                  size_t summary_len);

/* Graph facts of a converted or read model (-1 for an ONNX model not yet converted). */
WEBNNC_EXPORT int webnnc_model_node_count(const webnnc_model *m);
WEBNNC_EXPORT int webnnc_model_input_count(const webnnc_model *m);
WEBNNC_EXPORT int webnnc_model_output_count(const webnnc_model *m);

/* ---- tensors and running -------------------------------------------------------------------- */

/* Element types (WebNN MLOperandDataType names in the comments). */
typedef enum {
    WEBNNC_FLOAT32, /* float32 */
    WEBNNC_FLOAT16, /* float16 */
    WEBNNC_INT32,
    WEBNNC_UINT32,
    WEBNNC_INT64,
    WEBNNC_UINT64,
    WEBNNC_INT8,
    WEBNNC_UINT8,
    WEBNNC_INT4,  /* packed two per byte, low nibble first */
    WEBNNC_UINT4,
} webnnc_dtype;

/* "float32", ..., or "invalid". */
WEBNNC_EXPORT const char *webnnc_dtype_name(webnnc_dtype dtype);

#define WEBNNC_MAX_RANK 8

/* A named, dense, row-major tensor. */
typedef struct {
    const char *name; /* a graph input / output (its name, the ONNX name it came from, or that ONNX
                       * name as the graph's identifier: "past.0.key" names past_0_key) */
    webnnc_dtype dtype;
    int rank;
    int64_t shape[WEBNNC_MAX_RANK];
    void *data;
    uint64_t nbytes;  /* the size implied by dtype and shape */
} webnnc_tensor;

/* Graph input / output i (shape: -1 for a dynamic dim; data NULL). */
WEBNNC_EXPORT int webnnc_model_input(const webnnc_model *m, int i, webnnc_tensor *info);
WEBNNC_EXPORT int webnnc_model_output(const webnnc_model *m, int i, webnnc_tensor *info);

/* A WebNN graph loaded on a Vulkan device (planned, constants uploaded).  The model must outlive it. */
typedef struct webnnc_session webnnc_session;

/* device: a Vulkan device index, or -1 (auto: discrete GPU, integrated, CPU; env WEBNNC_DEVICE). */
WEBNNC_EXPORT int webnnc_session_create(webnnc_model *m, int device, webnnc_session **out);
WEBNNC_EXPORT void webnnc_session_free(webnnc_session *s);
/* The device's name. */
WEBNNC_EXPORT const char *webnnc_session_device(const webnnc_session *s);
/* Binds every graph input from inputs[] (by name; dynamic dims take the given sizes), runs once and
 * returns every output in *outputs (malloc'ed; free with webnnc_tensors_free), *n_outputs of them,
 * as `webnnc run` does with a test_data_set folder.  KV caches take the ONNX interface: a past of
 * length P below the cache capacity (P = 0 at the prefill) fills the first P rows of the cache, and
 * the presents then come back at the step's total length (the attention_mask width); a past given
 * at the full capacity is bound as it is and the presents come back at the capacity. */
WEBNNC_EXPORT int webnnc_run(webnnc_session *s, const webnnc_tensor *inputs, int n_inputs, webnnc_tensor **outputs,
                             int *n_outputs);
WEBNNC_EXPORT void webnnc_tensors_free(webnnc_tensor *tensors, int n);

/* Greedy decoding, as `webnnc generate --prompt-ids` and with its loop (the same ids): the graph
 * takes input_ids (optionally attention_mask, position_ids and KV caches, kept on the device) and
 * gives logits.  With KV caches each next token is picked on the device (the device token loop:
 * several decode steps per submission, only the ids read back), else by the host's argmax of the
 * last logits row.  Writes max_new new token ids to out_ids (room for max_new). */
WEBNNC_EXPORT int webnnc_generate(webnnc_model *m, int device, const int64_t *prompt_ids, int n_prompt, int max_new,
                                  int64_t *out_ids);

/* Options of webnnc_generate_with, `webnnc generate`'s --temperature, --top-k, --top-p, --seed
 * and -v, and its stop at an eos id (generate --prompt). */
typedef struct {
    float temperature;      /* 0 (default): greedy, the exact argmax; > 0: sampling, on the device
                             * token loop only (a graph with KV caches) */
    int top_k;              /* sampling: keep the k most likely tokens (0, default: all) */
    float top_p;            /* sampling: then the fewest most likely tokens whose probability
                             * reaches top_p (1, default: all) */
    uint64_t seed;          /* sampling: the same seed gives the same tokens */
    const int64_t *eos_ids; /* generation stops after any of these n_eos ids (it is included) */
    int n_eos;
    int verbose;            /* the runtime's statistics on stderr, as `webnnc generate -v` */
} webnnc_generate_options;

/* The defaults: greedy, no eos ids, quiet. */
WEBNNC_EXPORT void webnnc_generate_options_init(webnnc_generate_options *opt);
/* webnnc_generate with options (NULL: the defaults): writes up to max_new new ids to out_ids and
 * their count to *n_out (may be NULL; fewer than max_new after an eos id). */
WEBNNC_EXPORT int webnnc_generate_with(webnnc_model *m, int device, const int64_t *prompt_ids, int n_prompt,
                                       int max_new, const webnnc_generate_options *opt, int64_t *out_ids, int *n_out);

#ifdef __cplusplus
}
#endif

#endif
