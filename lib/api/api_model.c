/* api_model.c - the model half of the public API (include/webnnc/webnnc.h): version and errors,
 * load / read / convert / fuse / write / validate over lib/convert (the same code as `webnnc
 * convert` and `webnnc validate`), graph facts. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_internal.h"
#include "convert.h"
#include "core.h"
#include "pipeline_plan.h"
#include "webnn.h"

#ifndef WEBNNC_VERSION
#define WEBNNC_VERSION "unknown"
#endif

_Static_assert((int)WN_EXIT_OK == (int)WEBNNC_OK && (int)WN_EXIT_CHECK_FAILED == (int)WEBNNC_CHECK_FAILED &&
                   (int)WN_EXIT_BAD_INPUT == (int)WEBNNC_BAD_INPUT, "public status codes are the CLI's exit codes");

static char last_error[1400];

const char *webnnc_version(void) { return WEBNNC_VERSION; }
const char *webnnc_last_error(void) { return last_error; }

const char *webnnc_status_string(int status) {
    return status == WEBNNC_OK ? "ok" : status == WEBNNC_CHECK_FAILED ? "check failed" : "bad input";
}

void api_begin(const char *file) {
    diag_clear();
    diag_set_file(file);
    last_error[0] = 0;
}

int api_end(int code, const char *fallback) {
    if (code == WEBNNC_OK) return code;
    const char *msg = diag_has_error() ? diag_message() : fallback;
    size_t nf = strlen(diag_file());
    if (nf && strncmp(msg, diag_file(), nf) != 0) snprintf(last_error, sizeof last_error, "%s: %s", diag_file(), msg);
    else snprintf(last_error, sizeof last_error, "%s", msg);
    return code;
}

int api_fail(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    diag_verror(NULL, fmt, ap);
    va_end(ap);
    return api_end(WEBNNC_BAD_INPUT, "failed");
}

Graph *api_graph(const webnnc_model *m) {
    if (!m) api_fail("no model");
    else if (!m->g) api_fail("an ONNX model: convert it first (webnnc_convert)");
    return m ? m->g : NULL;
}

static webnnc_model *model_new(const char *path) {
    webnnc_model *m = calloc(1, sizeof *m);
    if (m && !(m->path = strdup(path))) {
        free(m);
        m = NULL;
    }
    return m;
}

void webnnc_model_free(webnnc_model *m) {
    if (!m) return;
    graph_free(m->g);
    onnx_model_free(m->onnx);
    free(m->path);
    free(m);
}

int webnnc_load(const char *path, webnnc_model **out) {
    *out = NULL;
    api_begin(path);
    InputKind kind = convert_input_kind(path);
    if (kind == INPUT_UNKNOWN) return api_fail("not an ONNX model or webnn-graph");
    webnnc_model *m = model_new(path);
    if (!m) return api_fail("out of memory");
    if (kind == INPUT_ONNX ? !(m->onnx = onnx_model_load(path)) : !(m->g = webnn_read(path))) {
        webnnc_model_free(m);
        return api_end(WEBNNC_BAD_INPUT, "cannot load");
    }
    *out = m;
    return api_end(WEBNNC_OK, NULL);
}

int webnnc_read(const char *path, const char *fuse, webnnc_model **out) {
    *out = NULL;
    api_begin(path);
    unsigned mask;
    if (fuse_parse(fuse, &mask) != 0) return api_end(WEBNNC_BAD_INPUT, "bad fuse list");
    webnnc_model *m = model_new(path);
    if (!m) return api_fail("out of memory");
    if (!(m->g = convert_read_webnn_fused(path, mask))) {
        webnnc_model_free(m);
        return api_end(WEBNNC_BAD_INPUT, "cannot read");
    }
    *out = m;
    return api_end(WEBNNC_OK, NULL);
}

void webnnc_convert_options_init(webnnc_convert_options *opt) { memset(opt, 0, sizeof *opt); }

/* The public dim settings into a DimSettingList (names copied). */
static int dim_list(const webnnc_dim *dims, int n, DimSettingList *out) {
    out->count = 0;
    if (n < 0 || n > CONVERT_MAX_DIMS || (n && !dims)) return api_fail("dim settings: 0..%d expected", CONVERT_MAX_DIMS);
    for (int i = 0; i < n; i++) {
        if (!dims[i].name || dims[i].value < 1 || strlen(dims[i].name) >= sizeof out->names[i])
            return api_fail("dim setting %d: a name and a positive size expected", i);
        snprintf(out->names[i], sizeof out->names[i], "%s", dims[i].name);
        out->items[i] = (DimSetting){out->names[i], dims[i].value};
        out->count = i + 1;
    }
    return WEBNNC_OK;
}

int webnnc_convert(webnnc_model *m, const webnnc_convert_options *opt) {
    api_begin(m ? m->path : NULL);
    webnnc_convert_options defaults;
    webnnc_convert_options_init(&defaults);
    if (!opt) opt = &defaults;
    if (!m || !m->onnx) return api_fail(m ? "not an ONNX model (or converted already)" : "no model");
    static DimSettingList fix, dim;
    unsigned mask;
    if (dim_list(opt->fixed, opt->n_fixed, &fix) || dim_list(opt->bounded, opt->n_bounded, &dim)) return WEBNNC_BAD_INPUT;
    const char *both = convert_dim_conflict(&fix, &dim);
    if (both) return api_fail("%s is given to both fixed and bounded dims", both);
    if (fuse_parse(opt->fuse, &mask) != 0) return api_end(WEBNNC_BAD_INPUT, "bad fuse list");
    bool no_limits = opt->limits && !strcmp(opt->limits, "none");
    if (mask && opt->limits && !no_limits) return api_fail("limits apply to the spec-op output: the fused output is webnnc's own");
    ImplLimits *limits = NULL;
    if (!mask && !no_limits && !(limits = wn_impl_limits_load(opt->limits))) return api_end(WEBNNC_BAD_INPUT, "bad limits");
    ConvertOptions copt = {&fix, &dim, mask, opt->verbose, limits};
    int code;
    OnnxModel *onnx = m->onnx;
    m->onnx = NULL; /* taken over by the conversion */
    m->g = convert_onnx_model(onnx, &copt, &code);
    wn_impl_limits_free(limits);
    m->spec_only = mask == 0;
    return api_end(m->g ? WEBNNC_OK : code, "conversion failed");
}

int webnnc_fuse(webnnc_model *m, const char *fuse) {
    api_begin(m ? m->path : NULL);
    Graph *g = api_graph(m);
    unsigned mask;
    if (!g) return WEBNNC_BAD_INPUT;
    if (fuse_parse(fuse, &mask) != 0) return api_end(WEBNNC_BAD_INPUT, "bad fuse list");
    PassOptions popt = {.keep_quantized = 1};
    if (fuse_and_tidy(g, mask, &popt) != 0) return api_end(WEBNNC_BAD_INPUT, "fusion failed"); /* as convert --fuse */
    if (mask) m->spec_only = false;
    return api_end(WEBNNC_OK, NULL);
}

int webnnc_write(webnnc_model *m, const char *outdir, const webnnc_write_options *opt) {
    api_begin(outdir);
    Graph *g = api_graph(m);
    if (!g) return WEBNNC_BAD_INPUT;
    if (!outdir) return api_fail("no output folder");
    ConvertWriteOptions wopt = {.text = opt && opt->text, .contiguous_weights = opt && opt->contiguous_weights,
                                .extension_ops = !m->spec_only};
    return api_end(convert_write(g, m->path, outdir, &wopt), "write failed");
}

int webnnc_validate(const char *path, int allow_extensions, const char *limits_spec, char *summary, size_t summary_len) {
    api_begin(path);
    char buf[512];
    ImplLimits *limits = NULL;
    if (limits_spec && !(limits = wn_impl_limits_load(limits_spec))) return api_end(WEBNNC_BAD_INPUT, "bad limits");
    int code = convert_validate_graph_files_limits(path, allow_extensions ? VALIDATE_ALLOW_EXTENSION_OPS : 0, limits, buf, sizeof buf);
    wn_impl_limits_free(limits);
    if (code == WEBNNC_OK && summary && summary_len) snprintf(summary, summary_len, "%s", buf);
    return api_end(code, "validation failed");
}

int webnnc_model_node_count(const webnnc_model *m) { return m && m->g ? graph_node_count(m->g) : -1; }
int webnnc_model_input_count(const webnnc_model *m) { return m && m->g ? m->g->n_inputs : -1; }
int webnnc_model_output_count(const webnnc_model *m) { return m && m->g ? m->g->n_outputs : -1; }
