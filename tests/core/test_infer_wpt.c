/* test_infer_wpt.c - shape inference against the WebNN WPT conformance cases
 * (../shared/wpt-webnn, one JSON file per op): every case's graph is built from its input descriptors and
 * operator arguments, and each expected output's dtype and shape (written by the WPT authors)
 * must equal what inference computes.  Fails under CI=true when the corpus is missing. */
#include <cjson/cJSON.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core_test_util.h"

typedef struct {
    const char *name;
    Value *v;
} Named;

static Named names[256];
static int n_names;

static Value *lookup(const char *name) {
    for (int i = 0; i < n_names; i++)
        if (strcmp(names[i].name, name) == 0) return names[i].v;
    return NULL;
}

static void bind(const char *name, Value *v) {
    if (n_names < (int)(sizeof names / sizeof names[0])) names[n_names++] = (Named){name, v};
}

static bool read_shape(const cJSON *desc, DType *dt, int *rank, Dim *shape) {
    const cJSON *s = cJSON_GetObjectItem(desc, "shape"), *t = cJSON_GetObjectItem(desc, "dataType");
    if (!cJSON_IsArray(s) || !cJSON_IsString(t) || cJSON_GetArraySize(s) > WN_MAX_RANK) return false;
    *dt = dtype_from_name(t->valuestring);
    *rank = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, s) shape[(*rank)++] = dim_static((int64_t)e->valuedouble);
    return *dt != DT_INVALID;
}

/* A number, or a BigInt literal the corpus keeps as a string ("9007199254740992n"). */
static double number(const cJSON *v) { return cJSON_IsString(v) ? strtod(v->valuestring, NULL) : v->valuedouble; }

/* Sets option `key` (already mapped to the schema) from a JSON value by the schema's type. */
static void set_option(Node *n, const OpOptionSlot *o, const cJSON *v) {
    int count = cJSON_IsArray(v) ? cJSON_GetArraySize(v) : 0;
    int64_t ints[16];
    double floats[16];
    const char *strs[16];
    Dim dims[16];
    if (count > 16) count = 16;
    for (int i = 0; i < count; i++) {
        const cJSON *e = cJSON_GetArrayItem(v, i);
        ints[i] = (int64_t)e->valuedouble;
        floats[i] = e->valuedouble;
        strs[i] = cJSON_IsString(e) ? e->valuestring : "";
        dims[i] = dim_static(ints[i]);
    }
    switch (o->type) {
    case AT_INT: node_set_int(tg, n, o->key, (int64_t)v->valuedouble); break;
    case AT_UINT: node_set_uint(tg, n, o->key, (int64_t)v->valuedouble); break;
    case AT_FLOAT: node_set_float(tg, n, o->key, number(v)); break;
    case AT_BOOL: node_set_bool(tg, n, o->key, cJSON_IsTrue(v)); break;
    case AT_STRING: node_set_string(tg, n, o->key, cJSON_IsString(v) ? v->valuestring : ""); break;
    case AT_DTYPE: node_set_dtype(tg, n, o->key, dtype_from_name(cJSON_IsString(v) ? v->valuestring : "")); break;
    case AT_INTS: node_set_ints(tg, n, o->key, count, ints); break;
    case AT_FLOATS: node_set_floats(tg, n, o->key, count, floats); break;
    case AT_STRINGS: node_set_strings(tg, n, o->key, count, strs); break;
    case AT_DIMS: node_set_dims(tg, n, o->key, count, dims); break;
    default:
        if (cJSON_IsArray(v)) node_set_ints(tg, n, o->key, count, ints);
        else node_set_uint(tg, n, o->key, (int64_t)v->valuedouble);
    }
}

/* One argument {key: value}: an operand slot, the options dict, or a method argument option. */
static bool add_argument(Node *n, const OpInfo *info, Value **slots, const char *key, const cJSON *v) {
    if (strcmp(key, "options") == 0) {
        const cJSON *e;
        cJSON_ArrayForEach(e, v) if (!add_argument(n, info, slots, e->string, e)) return false;
        return true;
    }
    for (int i = 0; i < info->n_inputs; i++) {
        if (strcmp(info->inputs[i].name, key) != 0) continue;
        if (info->inputs[i].variadic) {
            const cJSON *e;
            cJSON_ArrayForEach(e, v) node_add_input(tg, n, lookup(e->valuestring));
        } else {
            slots[i] = cJSON_IsString(v) ? lookup(v->valuestring) : NULL;
        }
        return true;
    }
    if (strcmp(key, "type") == 0 || strcmp(key, "dataType") == 0) key = "to"; /* cast's argument */
    int idx = op_option_index(info, key);
    if (idx < 0) return false;
    set_option(n, &info->options[idx], v);
    return true;
}

/* Runs one case; returns 1 if it was checked, 0 when skipped; records mismatches. */
static int run_case(const cJSON *tc, const char *file, int *mismatches) {
    const cJSON *graph = cJSON_GetObjectItem(tc, "graph"), *e;
    const char *case_name = cJSON_GetStringValue(cJSON_GetObjectItem(tc, "name"));
    n_names = 0;
    cJSON_ArrayForEach(e, cJSON_GetObjectItem(graph, "inputs")) {
        DType dt;
        int rank;
        Dim shape[WN_MAX_RANK];
        if (!read_shape(cJSON_GetObjectItem(e, "descriptor"), &dt, &rank, shape)) return 0;
        bind(e->string, graph_add_input(tg, e->string, dt, rank, shape));
    }
    const cJSON *expected = cJSON_GetObjectItem(graph, "expectedOutputs");
    cJSON_ArrayForEach(e, cJSON_GetObjectItem(graph, "operators")) {
        int op = op_from_name(cJSON_GetStringValue(cJSON_GetObjectItem(e, "name")));
        if (op < 0) return 0;
        const OpInfo *info = op_info((OpId)op);
        Node *n = graph_new_node(tg, (OpId)op, case_name);
        Value *slots[WN_MAX_INPUT_SLOTS] = {NULL};
        const cJSON *arg;
        cJSON_ArrayForEach(arg, cJSON_GetObjectItem(e, "arguments")) {
            if (!arg->child || !add_argument(n, info, slots, arg->child->string, arg->child)) {
                fprintf(stderr, "%s: %s: cannot map argument\n", file, case_name);
                (*mismatches)++;
                return 1;
            }
        }
        if (!(info->n_inputs == 1 && info->inputs[0].variadic)) {
            int last = -1;
            for (int i = 0; i < info->n_inputs; i++) if (slots[i]) last = i;
            for (int i = 0; i <= last; i++) node_add_input(tg, n, slots[i]);
        }
        if (graph_insert_node(tg, n) != 0) {
            fprintf(stderr, "%s: %s: %s\n", file, case_name, diag_message());
            diag_clear();
            (*mismatches)++;
            return 1;
        }
        const cJSON *outs = cJSON_GetObjectItem(e, "outputs");
        int k = 0;
        const cJSON *o;
        if (cJSON_IsString(outs)) bind(outs->valuestring, n->outputs[0]);
        else cJSON_ArrayForEach(o, outs) if (k < n->n_outputs) bind(o->valuestring, n->outputs[k++]);
    }
    cJSON_ArrayForEach(e, expected) {
        Value *v = lookup(e->string);
        DType dt;
        int rank;
        Dim shape[WN_MAX_RANK];
        if (!v || !read_shape(cJSON_GetObjectItem(e, "descriptor"), &dt, &rank, shape)) continue;
        bool same = v->dtype == dt && v->rank == rank;
        for (int i = 0; same && i < rank; i++) same = dim_equal(v->shape[i], shape[i]);
        if (!same) {
            char buf[256];
            fprintf(stderr, "%s: %s: output %s inferred %s\n", file, case_name, e->string,
                    value_format_type(tg, v, buf, sizeof buf));
            (*mismatches)++;
        }
    }
    return 1;
}

START_TEST(wpt_shapes) {
    const char *root = getenv("WEBNNC_SOURCE_ROOT");
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/../shared/wpt-webnn", root ? root : ".");
    DIR *d = opendir(dir);
    if (!d) {
        const char *ci = getenv("CI");
        ck_assert_msg(!(ci && strcmp(ci, "true") == 0), "CI=true but the WPT corpus %s is missing", dir);
        fprintf(stderr, "test_infer_wpt: %s is missing; nothing checked (this run does not count the WPT shapes)\n", dir);
        return;
    }
    int checked = 0, mismatches = 0, files = 0;
    struct dirent *ent;
    while ((ent = readdir(d))) {
        size_t len = strlen(ent->d_name);
        if (len < 6 || strcmp(ent->d_name + len - 5, ".json") != 0) continue;
        char path[2048];
        snprintf(path, sizeof path, "%s/%s", dir, ent->d_name);
        char *text = tu_read_file(path, NULL);
        ck_assert_msg(text != NULL, "cannot read %s", path);
        cJSON *doc = cJSON_Parse(text);
        free(text);
        ck_assert_msg(doc, "%s does not parse", path);
        files++;
        const cJSON *tc;
        cJSON_ArrayForEach(tc, cJSON_GetObjectItem(doc, "tests")) {
            tg_teardown();
            tg_setup();
            checked += run_case(tc, ent->d_name, &mismatches);
        }
        cJSON_Delete(doc);
    }
    closedir(d);
    fprintf(stderr, "test_infer_wpt: %d files, %d cases checked, %d mismatches\n", files, checked, mismatches);
    ck_assert_int_gt(checked, 1000);
    ck_assert_int_eq(mismatches, 0);
}
END_TEST

int main(void) {
    Suite *s = suite_create("core-infer-wpt");
    TCase *tc = t_case("wpt");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, wpt_shapes);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
