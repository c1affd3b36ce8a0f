/* cmd_validate.c - `webnnc validate GRAPH [--allow-extensions] [--limits FILE] [--json]`: reads a webnn-graph
 * (.webnn.json, .webnn or OUTDIR) and checks it against the WebNN op table (convert_validate_graph_files,
 * lib/convert/validate.c, shared with `convert`); --allow-extensions accepts webnnc extension ops; --limits also checks it
 * against a WebNN implementation's limits (limits_check.h).  Prints "OK" and a summary (exit 0); a
 * violation prints one line naming the node or value (exit 1); a malformed file exits 2. */
#include <stdio.h>
#include <string.h>

#include "args.h"
#include "core.h"
#include "report.h"
#include "convert.h"
#include "webnn.h"

static const ArgSpec specs[] = {
    {"allow-extensions", 0, ARG_FLAG, NULL, "accept webnnc extension ops (graphs from convert --fuse); the rest is checked as usual"},
    {"limits", 0, ARG_VALUE, "FILE|chromium", "also check op set, data types, ranks and constant-only operands against a WebNN "
                                             "implementation's opSupportLimits() JSON (chromium: the built-in Chromium 153 limits)"},
    ARG_SPEC_JSON,
};

int cmd_validate(const CliCommand *self, int argc, char **argv) {
    ArgResult r;
    int rc = args_parse(self, specs, (int)(sizeof specs / sizeof specs[0]), 1, 1, argc, argv, &r);
    if (rc != ARGS_OK) return rc == ARGS_HELP ? WN_EXIT_OK : WN_EXIT_BAD_INPUT;
    const char *path = r.pos[0];
    char summary[512];
    bool ext = args_count(&r, "allow-extensions") > 0;
    cJSON *report = args_count(&r, "json") ? report_new(self->name) : NULL;
    if (report) {
        cJSON_AddStringToObject(report, "graph", path);
        cJSON_AddBoolToObject(report, "allowExtensions", ext);
    }
    ImplLimits *limits = NULL;
    const char *limits_spec = args_value(&r, "limits");
    if (limits_spec) {
        diag_set_file(NULL);
        if (!(limits = wn_impl_limits_load(limits_spec))) return report_fail(report, limits_spec, WN_EXIT_BAD_INPUT);
        if (report) cJSON_AddStringToObject(report, "limits", limits->src);
    }
    diag_set_file(path);
    rc = convert_validate_graph_files_limits(path, ext ? VALIDATE_ALLOW_EXTENSION_OPS : 0, limits, summary, sizeof summary);
    wn_impl_limits_free(limits);
    if (rc != WN_EXIT_OK) {
        if (rc == WN_EXIT_CHECK_FAILED && !ext && strstr(diag_message(), "is not a WebNN spec op")) {
            char msg[1100];
            snprintf(msg, sizeof msg, "%s", diag_message());
            diag_clear();
            diag_error("%s (a webnnc extension op: accept them with --allow-extensions)", msg);
        }
        return report_fail(report, path, rc);
    }
    if (!report) {
        printf("OK %s: %s\n", path, summary);
        return WN_EXIT_OK;
    }
    cJSON_AddStringToObject(report, "summary", summary);
    return report_end(report, WN_EXIT_OK);
}
