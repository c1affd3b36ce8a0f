/* cmd_serve.c - `webnnc serve OUTDIR [--port N] [--set DIR]... [--max-requests N]`: serves the
 * browser runner (web/run.html, built into webnnc) with the webnn-graph output folder OUTDIR on
 * 127.0.0.1 only, so a person can open http://127.0.0.1:PORT/ in a WebNN browser and see the
 * parity table against the test sets (folders of input_N.pb/output_N.pb or NAME.npy files).
 * Prints one line with the address, then serves until interrupted (serve_http.c). */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "args.h"
#include "core.h"
#include "webnn.h"

static const ArgSpec specs[] = {
    {"port", 0, ARG_VALUE, "N", "TCP port on 127.0.0.1 (default 8080; 0: any free port)"},
    {"set", 0, ARG_LIST, "DIR", "a test set folder (input_N.pb/output_N.pb or NAME.npy) the page runs against; repeatable"},
    {"max-requests", 0, ARG_VALUE, "N", "stop after answering N requests (tests)"},
};

static bool is_dir(const char *p) {
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static int number(const CliCommand *self, const char *s, const char *what, long lo, long hi, long *out) {
    char *end;
    long v = s ? strtol(s, &end, 10) : 0;
    if (s && (end == s || *end || v < lo || v > hi)) return cli_usage_error(self, "%s must be an integer in %ld..%ld", what, lo, hi);
    *out = v;
    return 0;
}

int cmd_serve(const CliCommand *self, int argc, char **argv) {
    ArgResult r;
    int rc = args_parse(self, specs, (int)(sizeof specs / sizeof specs[0]), 1, 1, argc, argv, &r);
    if (rc != ARGS_OK) return rc == ARGS_HELP ? WN_EXIT_OK : WN_EXIT_BAD_INPUT;
    long port = 8080, max_requests = 0;
    if (args_value(&r, "port") && number(self, args_value(&r, "port"), "--port", 0, 65535, &port)) return WN_EXIT_BAD_INPUT;
    if (number(self, args_value(&r, "max-requests"), "--max-requests", 1, 1000000000, &max_requests)) return WN_EXIT_BAD_INPUT;
    ServeOptions opt = {.model_dir = r.pos[0], .port = (int)port, .max_requests = max_requests};
    char graph[4096];
    snprintf(graph, sizeof graph, "%s/model.webnn.json", opt.model_dir);
    if (access(graph, R_OK) != 0) {
        diag_error("%s: not a webnnc output folder (no readable model.webnn.json)", opt.model_dir);
        return cli_fail(NULL, WN_EXIT_BAD_INPUT);
    }
    const ArgValues *sets = args_values(&r, "set");
    opt.set_dirs = (const char **)sets->values;
    opt.n_sets = sets->count;
    for (int i = 0; i < opt.n_sets; i++)
        if (!is_dir(opt.set_dirs[i])) {
            diag_error("%s: test set is not a folder", opt.set_dirs[i]);
            return cli_fail(NULL, WN_EXIT_BAD_INPUT);
        }
    int bound, fd = wn_serve_http_listen(opt.port, &bound);
    if (fd < 0) return cli_fail(NULL, WN_EXIT_BAD_INPUT);
    printf("serving %s at http://127.0.0.1:%d/ (the WebNN runner page; Ctrl-C stops)\n", opt.model_dir, bound);
    fflush(stdout);
    rc = wn_serve_http_loop(fd, &opt);
    close(fd);
    return rc < 0 ? cli_fail(NULL, WN_EXIT_BAD_INPUT) : WN_EXIT_OK;
}
