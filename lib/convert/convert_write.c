/* convert_write.c - convert_write() (convert_pipeline.h): a converted graph written as webnn-graph
 * files, re-read and validated (as `webnnc validate`) in the temporary folder before it is renamed
 * into place, with the model folder's companion files (genai_config.json, tokenizer) copied beside
 * them.  Used by `webnnc convert` and the library API. */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "convert_pipeline.h"
#include "core.h"
#include "webnn.h"
#include "validate.h"

typedef struct {
    unsigned flags;        /* VALIDATE_* */
    int failed;            /* exit code of a failed validation, 0 if it passed or did not run */
    const char *model_dir; /* the ONNX model's folder: its companion files are copied */
} WrittenCheck;

/* Files of an ORT-GenAI model folder that travel with the converted graph (generate --prompt reads
 * the tokenizer, generate the eos ids and bounds). */
static const char *const companion_files[] = {WN_COMPANION_FILES};

static int copy_companions(const char *model_dir, const char *tmpdir) {
    for (size_t i = 0; i < sizeof companion_files / sizeof *companion_files; i++) {
        char src[4096];
        struct stat st;
        snprintf(src, sizeof src, "%s/%s", model_dir, companion_files[i]);
        if (stat(src, &st) == 0 && wn_outdir_copy_file(tmpdir, companion_files[i], src) < 0) return -1;
    }
    return 0;
}

static int check_written(const char *tmpdir, void *ctx) {
    WrittenCheck *c = ctx;
    char summary[512];
    int rc = convert_validate_graph_files(tmpdir, c->flags, summary, sizeof summary);
    /* Malformed output of our own writer is a failed check too, not bad user input. */
    if (rc != WN_EXIT_OK) c->failed = WN_EXIT_CHECK_FAILED;
    return rc == WN_EXIT_OK ? copy_companions(c->model_dir, tmpdir) : -1;
}

int convert_write(Graph *g, const char *input, const char *outdir, const ConvertWriteOptions *opt) {
    /* The model's folder: INPUT itself, or the folder of an ONNX file. */
    char model_dir[4096];
    struct stat st;
    snprintf(model_dir, sizeof model_dir, "%s", input);
    if (stat(input, &st) == 0 && !S_ISDIR(st.st_mode)) {
        char *slash = strrchr(model_dir, '/');
        if (slash) *slash = 0;
        else snprintf(model_dir, sizeof model_dir, ".");
    }
    WrittenCheck check = {.flags = VALIDATE_TRUST_WEIGHT_HASHES | (opt->extension_ops ? VALIDATE_ALLOW_EXTENSION_OPS : 0),
                          .model_dir = model_dir};
    WebnnWriteOptions wopt = {.text = opt->text,
                              .contiguous_weights = opt->contiguous_weights,
                              .check = check_written,
                              .check_ctx = &check};
    if (webnn_write(g, outdir, &wopt) != 0) return check.failed ? check.failed : WN_EXIT_BAD_INPUT;
    return WN_EXIT_OK;
}
