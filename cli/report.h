/* report.h - `--json` reports (report.c): every reporting command (convert, run, validate, diff,
 * generate, devices, ops; inspect/ladder/bench have their own objects) prints exactly one JSON object
 * on stdout, with the keys
 *   "command": the subcommand's name, "ok": true when it exits 0, "exitCode": its exit code,
 *   "error": the one-line diagnostic (also printed on stderr) when it failed with one,
 * plus the command's own keys (README "Reports as JSON"). */
#ifndef WEBNNC_CLI_REPORT_H
#define WEBNNC_CLI_REPORT_H

#include <cjson/cJSON.h>

#include "args.h"

#define ARG_SPEC_JSON {"json", 0, ARG_FLAG, NULL, "print one JSON object (keys in README \"Reports as JSON\")"}

/* {"command": name}; aborts on out-of-memory. */
cJSON *report_new(const char *command);
/* Adds "ok", "exitCode" and (when code != 0 and a diagnostic is pending) "error", prints the
 * object on stdout and frees it.  Returns code. */
int report_end(cJSON *r, int code);
/* cli_fail(file, code) and then, when r is not NULL, report_end(r, code). */
int report_fail(cJSON *r, const char *file, int code);
/* Nested containers; abort on out-of-memory. */
cJSON *report_add_object(cJSON *to, const char *key);
cJSON *report_add_array(cJSON *to, const char *key);

#endif
