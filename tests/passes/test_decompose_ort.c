/* test_decompose_ort.c - the contrib-op models of testdata/contrib/ops (single com.microsoft /
 * ai.onnx ops, made by gen_contrib_ops.py) against ONNX Runtime's outputs (output_N.pb, computed
 * by make_refs.mjs with onnxruntime-node).  Each model is imported, its graph inputs are bound to
 * the test inputs as constants, and then evaluated twice: (1) the extension ops directly by the CPU
 * reference evaluator, (2) after the decomposition passes, as spec ops only.  Both must match ORT. */
#include <check.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "eval_internal.h"
#include "onnx_import.h"
#include "pass.h"
#include "tensor_file.h"
#include "test_util.h"

static const char *const decompose[] = {"decompose_matmul_nbits", "decompose_rms_norm", "decompose_rotary",
                                        "decompose_gather_block_quantized", "decompose_quick_gelu"};
static const char *const fold[] = {"fold_constants"};

/* Binds every graph input to the tensor of the same name in set_dir/input_N.pb. */
static void bind_inputs(Graph *g, const char *set_dir) {
    for (int i = 0; i < g->n_inputs; i++) {
        Value *in = g->inputs[i];
        bool bound = false;
        for (int k = 0; k < 16 && !bound; k++) {
            char path[4200];
            TensorFile t;
            snprintf(path, sizeof path, "%s/input_%d.pb", set_dir, k);
            FILE *f = fopen(path, "rb");
            if (!f) break;
            fclose(f);
            ck_assert_msg(onnx_tensor_file_read(path, &t) == 0, "%s", diag_message());
            if (strcmp(t.name, in->origin ? in->origin : in->name) == 0) {
                Value *c = graph_add_const_copy(g, in->name, t.dtype, t.rank, t.shape, t.data, t.nbytes);
                graph_replace_uses(g, in, c);
                bound = true;
            }
            onnx_tensor_file_free(&t);
        }
        ck_assert_msg(bound, "no test input for %s", in->name);
    }
}

static void compare_outputs(Graph *g, const char *set_dir, const char *what) {
    for (int k = 0; k < g->n_outputs; k++) {
        char path[4200];
        TensorFile t;
        snprintf(path, sizeof path, "%s/output_%d.pb", set_dir, k);
        ck_assert_msg(onnx_tensor_file_read(path, &t) == 0, "%s", diag_message());
        Value *v = NULL;
        for (int j = 0; j < g->n_outputs; j++)
            if (strcmp(g->outputs[j]->origin ? g->outputs[j]->origin : g->outputs[j]->name, t.name) == 0) v = g->outputs[j];
        ck_assert_msg(v && (v->flags & VF_CONST), "%s: output %s missing or not evaluated", what, t.name);
        Ten got, want = {.dt = t.dtype, .rank = t.rank, .data = t.data, .count = 1};
        ck_assert_int_eq(ten_from_value(NULL, v, &got), 0);
        for (int d = 0; d < t.rank; d++) want.count *= t.shape[d];
        ck_assert_int_eq(got.count, want.count);
        for (int64_t e = 0; e < got.count; e++) {
            double a = ten_getf(&got, e), b = ten_getf(&want, e);
            ck_assert_msg(fabs(a - b) <= 1e-4 + 1e-4 * fabs(b), "%s %s[%lld]: got %.8g, ORT %.8g", what, t.name,
                          (long long)e, a, b);
        }
        onnx_tensor_file_free(&t);
    }
}

static int check_model(const char *dir, const char *stem) {
    char model[1400], set[1400];
    snprintf(model, sizeof model, "%s/%s.onnx", dir, stem);
    snprintf(set, sizeof set, "%s/%s/test_data_set_0", dir, stem);
    for (int pass = 0; pass < 2; pass++) {
        diag_clear();
        OnnxModel *m = onnx_model_load(model);
        ck_assert_msg(m != NULL, "%s: %s", model, diag_message());
        Graph *g = onnx_import(m, NULL);
        ck_assert_msg(g != NULL, "%s: %s", model, diag_message());
        int ext = 0;
        for (int i = 0; i < g->n_nodes; i++) ext += (op_info(g->nodes[i]->op)->flags & OPF_EXT) != 0;
        int want = strcmp(stem, "skip_layer_norm") == 0 ? 0 : 1; /* SkipLayerNormalization: spec ops at import */
        ck_assert_msg(ext == want, "%s: expected %d extension op(s), found %d", stem, want, ext);
        bind_inputs(g, set);
        if (pass == 1) {
            ck_assert_msg(pass_run_list(g, decompose, 5, NULL) == 0, "%s: %s", stem, diag_message());
            ck_assert_msg(graph_verify(g, VERIFY_SPEC_ONLY) == 0, "%s: %s", stem, diag_message());
        }
        ck_assert_msg(pass_run_list(g, fold, 1, NULL) == 0, "%s: %s", stem, diag_message());
        compare_outputs(g, set, pass ? "decomposed" : "reference");
        graph_free(g); /* also releases the model (the graph owns it after import) */
    }
    return 1;
}

START_TEST(contrib_models_match_onnx_runtime) {
    const char *src = getenv("WEBNNC_SOURCE_ROOT");
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/testdata/contrib/ops", src ? src : ".");
    DIR *d = opendir(dir);
    ck_assert_msg(d != NULL, "cannot open %s", dir);
    int models = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (len <= 5 || strcmp(e->d_name + len - 5, ".onnx") != 0) continue;
        char stem[256];
        snprintf(stem, sizeof stem, "%.*s", (int)(len - 5), e->d_name);
        models += check_model(dir, stem);
    }
    closedir(d);
    ck_assert_int_ge(models, 10);
}
END_TEST

int main(void) {
    Suite *s = suite_create("decompose-ort");
    TCase *tc = tcase_create("ort");
    tcase_add_test(tc, contrib_models_match_onnx_runtime);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
