/* api_run.c - webnnc_run through libwebnnc.so and the public header only, for api_run.py: reads
 * GRAPH (a webnn-graph folder, webnnc_read without fusions), binds the tensors of MANIFEST (lines
 * "NAME DTYPE RANK D0 D1 ...", the bytes in DIR/NAME.bin), runs once and writes every output as
 * OUTDIR/NAME.bin with a line "NAME DTYPE RANK D0 D1 ..." on stdout.
 *   api_run GRAPH MANIFEST DIR OUTDIR     exit 2 with webnnc_last_error() */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <webnnc/webnnc.h>

#define MAX_INPUTS 128

/* The bytes of PATH, expected to be nbytes long; NULL on failure. */
static void *read_bytes(const char *path, uint64_t nbytes) {
    FILE *f = fopen(path, "rb");
    void *buf = malloc(nbytes ? (size_t)nbytes : 1);
    size_t got = f && buf ? fread(buf, 1, (size_t)nbytes, f) : 0;
    if (f) fclose(f);
    if (got != nbytes) {
        fprintf(stderr, "api_run: %s: %zu bytes, %llu expected\n", path, got, (unsigned long long)nbytes);
        free(buf);
        return NULL;
    }
    return buf;
}

static int read_manifest(const char *manifest, const char *dir, webnnc_tensor *t, char (*names)[256]) {
    FILE *f = fopen(manifest, "r");
    char dtype[32], path[4400];
    int n = 0;
    while (f && n < MAX_INPUTS && fscanf(f, "%255s %31s %d", names[n], dtype, &t[n].rank) == 3) {
        uint64_t numel = 1;
        t[n].name = names[n];
        for (int d = 0; d < t[n].rank && d < WEBNNC_MAX_RANK; d++) {
            long long v = 0;
            if (fscanf(f, "%lld", &v) != 1) break;
            numel *= (uint64_t)(t[n].shape[d] = v);
        }
        int k = 0;
        while (k < 10 && strcmp(webnnc_dtype_name((webnnc_dtype)k), dtype)) k++;
        t[n].dtype = (webnnc_dtype)k;
        t[n].nbytes = numel * (k == WEBNNC_FLOAT16 ? 2 : k == WEBNNC_INT64 || k == WEBNNC_UINT64 ? 8 : k >= WEBNNC_INT8 ? 1 : 4);
        snprintf(path, sizeof path, "%.4000s/%.255s.bin", dir, names[n]);
        if (k == 10 || k >= WEBNNC_INT4 || !(t[n].data = read_bytes(path, t[n].nbytes))) break;
        n++;
    }
    if (f) fclose(f);
    return n;
}

int main(int argc, char **argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: api_run GRAPH MANIFEST DIR OUTDIR\n");
        return 2;
    }
    static webnnc_tensor in[MAX_INPUTS];
    static char names[MAX_INPUTS][256];
    int n_in = read_manifest(argv[2], argv[3], in, names), n_out = 0, rc;
    webnnc_model *m = NULL;
    webnnc_session *s = NULL;
    webnnc_tensor *out = NULL;
    if (!(rc = webnnc_read(argv[1], "none", &m)) && !(rc = webnnc_session_create(m, -1, &s)))
        rc = webnnc_run(s, in, n_in, &out, &n_out);
    if (rc) fprintf(stderr, "api_run: %s\n", webnnc_last_error());
    for (int i = 0; !rc && i < n_out; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s.bin", argv[4], out[i].name);
        FILE *f = fopen(path, "wb");
        if (!f || fwrite(out[i].data, 1, (size_t)out[i].nbytes, f) != out[i].nbytes) rc = 2;
        if (f) fclose(f);
        printf("%s %s %d", out[i].name, webnnc_dtype_name(out[i].dtype), out[i].rank);
        for (int d = 0; d < out[i].rank; d++) printf(" %lld", (long long)out[i].shape[d]);
        printf("\n");
    }
    for (int i = 0; i < n_in; i++) free(in[i].data);
    webnnc_tensors_free(out, n_out);
    webnnc_session_free(s);
    webnnc_model_free(m);
    return rc ? 2 : 0;
}
