/* api_generate.c - webnnc_generate_with through libwebnnc.so and the public header only, for
 * api_generate.py: loads MODEL (an ONNX model is converted with webnnc_convert: no fusions, no
 * limits legalization, as `webnnc generate` converts it; NAME=MAX arguments are bounded dims),
 * generates MAX_NEW tokens after the comma-separated PROMPT and prints the new ids on stdout.
 *   api_generate MODEL PROMPT MAX_NEW [NAME=MAX]...
 * Environment: API_TEMPERATURE / API_TOP_K / API_TOP_P / API_SEED (sampling), API_EOS (one eos
 * id), API_VERBOSE=1 (the runtime's statistics on stderr).  Exit 2 with webnnc_last_error(). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <webnnc/webnnc.h>

static double env_num(const char *name, double def) {
    const char *s = getenv(name);
    return s && *s ? strtod(s, NULL) : def;
}

int main(int argc, char **argv) {
    if (argc < 4 || argc > 12) {
        fprintf(stderr, "usage: api_generate MODEL PROMPT MAX_NEW [NAME=MAX]...\n");
        return 2;
    }
    int64_t prompt[256], eos;
    int n_prompt = 0, max_new = atoi(argv[3]), n_out = 0;
    for (char *p = argv[2]; *p && n_prompt < 256; p += *p == ',') prompt[n_prompt++] = strtoll(p, &p, 10);
    webnnc_dim dims[8];
    char names[8][128];
    for (int i = 4; i < argc; i++) {
        const char *eq = strchr(argv[i], '=');
        snprintf(names[i - 4], sizeof names[i - 4], "%.*s", eq ? (int)(eq - argv[i]) : 0, argv[i]);
        dims[i - 4] = (webnnc_dim){names[i - 4], eq ? atoll(eq + 1) : 0};
    }
    webnnc_model *m = NULL;
    webnnc_convert_options copt;
    webnnc_convert_options_init(&copt);
    copt.limits = "none";
    copt.bounded = dims, copt.n_bounded = argc - 4;
    webnnc_generate_options gopt;
    webnnc_generate_options_init(&gopt);
    gopt.temperature = (float)env_num("API_TEMPERATURE", 0);
    gopt.top_k = (int)env_num("API_TOP_K", 0);
    gopt.top_p = (float)env_num("API_TOP_P", 1);
    gopt.seed = (uint64_t)env_num("API_SEED", 0);
    gopt.verbose = (int)env_num("API_VERBOSE", 0);
    if (getenv("API_EOS")) {
        eos = (int64_t)env_num("API_EOS", 0);
        gopt.eos_ids = &eos, gopt.n_eos = 1;
    }
    int64_t *out = calloc(max_new > 0 ? (size_t)max_new : 1, sizeof *out);
    int rc = webnnc_load(argv[1], &m);
    if (!rc && webnnc_model_node_count(m) < 0) rc = webnnc_convert(m, &copt);
    if (!rc) rc = webnnc_generate_with(m, -1, prompt, n_prompt, max_new, &gopt, out, &n_out);
    if (rc) fprintf(stderr, "api_generate: %s\n", webnnc_last_error());
    for (int k = 0; !rc && k < n_out; k++) printf("%lld%s", (long long)out[k], k + 1 < n_out ? "," : "\n");
    free(out);
    webnnc_model_free(m);
    return rc ? 2 : 0;
}
