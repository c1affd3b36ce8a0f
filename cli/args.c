/* args.c - the shared option parser for `webnnc` subcommands (see args.h). */
#include "args.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "pipeline_plan.h"

int cli_usage_error(const CliCommand *cmd, const char *fmt, ...) {
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    diag_clear();
    diag_set_file(cmd ? cmd->name : NULL);
    if (strstr(msg, "usage:")) diag_error("%s", msg);
    else diag_error("%s (see `webnnc help %s`)", msg, cmd ? cmd->name : "");
    diag_print();
    return WN_EXIT_BAD_INPUT;
}

int cli_fail(const char *file, int code) {
    /* Some stages already start their message with the file name; don't print it twice. */
    size_t n = file ? strlen(file) : 0;
    bool named = n && strncmp(diag_message(), file, n) == 0 && diag_message()[n] == ':';
    diag_set_file(named ? NULL : file);
    diag_print();
    return code;
}

void cli_print_usage(const CliCommand *cmd) {
    printf("usage: webnnc %s %s\n\n%s\n", cmd->name, cmd->usage, cmd->help);
}

static void print_help(const CliCommand *cmd, const ArgSpec *specs, int n_specs) {
    cli_print_usage(cmd);
    printf("\noptions:\n");
    for (int i = 0; i < n_specs; i++) {
        char left[96];
        int off = specs[i].short_name ? snprintf(left, sizeof left, "-%c, ", specs[i].short_name)
                                      : snprintf(left, sizeof left, "    ");
        snprintf(left + off, sizeof left - (size_t)off, "--%s%s%s%s", specs[i].name,
                 specs[i].metavar ? " " : "", specs[i].metavar ? specs[i].metavar : "",
                 specs[i].kind == ARG_LIST ? " ..." : "");
        printf("  %-28s %s\n", left, specs[i].help);
    }
    printf("  %-28s %s\n", "-h, --help", "show this help");
}

static int find_spec(const ArgSpec *specs, int n_specs, const char *name, size_t len, char short_name) {
    for (int i = 0; i < n_specs; i++) {
        if (short_name ? specs[i].short_name == short_name
                       : (strlen(specs[i].name) == len && strncmp(specs[i].name, name, len) == 0))
            return i;
    }
    return -1;
}

static int store(const CliCommand *cmd, const ArgSpec *spec, ArgValues *v, const char *value) {
    if (spec->kind == ARG_VALUE && v->count > 0)
        return cli_usage_error(cmd, "option --%s given twice", spec->name), ARGS_ERROR;
    if (v->count >= ARGS_MAX_VALUES)
        return cli_usage_error(cmd, "option --%s given more than %d times", spec->name, ARGS_MAX_VALUES),
               ARGS_ERROR;
    v->values[v->count++] = value;
    return ARGS_OK;
}

int args_parse(const CliCommand *cmd, const ArgSpec *specs, int n_specs, int min_pos, int max_pos,
               int argc, char **argv, ArgResult *out) {
    memset(out, 0, sizeof *out);
    if (n_specs > ARGS_MAX_SPECS) n_specs = ARGS_MAX_SPECS;
    out->specs = specs;
    out->n_specs = n_specs;
    if (max_pos > ARGS_MAX_VALUES) max_pos = ARGS_MAX_VALUES;
    bool only_pos = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (only_pos || a[0] != '-' || a[1] == 0) {
            if (out->n_pos >= max_pos)
                return cli_usage_error(cmd, "unexpected argument '%s'", a), ARGS_ERROR;
            out->pos[out->n_pos++] = a;
            continue;
        }
        if (strcmp(a, "--") == 0) {
            only_pos = true;
            continue;
        }
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            print_help(cmd, specs, n_specs);
            return ARGS_HELP;
        }
        int k;
        const char *inline_value = NULL;
        if (a[1] == '-') {
            const char *name = a + 2, *eq = strchr(name, '=');
            size_t len = eq ? (size_t)(eq - name) : strlen(name);
            k = find_spec(specs, n_specs, name, len, 0);
            if (eq) inline_value = eq + 1;
        } else {
            k = a[2] == 0 ? find_spec(specs, n_specs, NULL, 0, a[1]) : -1;
        }
        if (k < 0) return cli_usage_error(cmd, "unknown option '%s'", a), ARGS_ERROR;
        const ArgSpec *spec = &specs[k];
        if (spec->kind == ARG_FLAG) {
            if (inline_value) return cli_usage_error(cmd, "option --%s takes no value", spec->name), ARGS_ERROR;
            out->opt[k].count++;
            continue;
        }
        const char *value = inline_value;
        if (!value) {
            if (i + 1 >= argc) return cli_usage_error(cmd, "option --%s needs a value", spec->name), ARGS_ERROR;
            value = argv[++i];
        }
        if (store(cmd, spec, &out->opt[k], value) != ARGS_OK) return ARGS_ERROR;
    }
    if (out->n_pos < min_pos)
        return cli_usage_error(cmd, "missing argument; usage: webnnc %s %s", cmd->name, cmd->usage), ARGS_ERROR;
    return ARGS_OK;
}

const ArgValues *args_values(const ArgResult *r, const char *name) {
    int k = find_spec(r->specs, r->n_specs, name, strlen(name), 0);
    return k < 0 ? NULL : &r->opt[k];
}

int args_count(const ArgResult *r, const char *name) {
    const ArgValues *v = args_values(r, name);
    return v ? v->count : 0;
}

const char *args_value(const ArgResult *r, const char *name) {
    const ArgValues *v = args_values(r, name);
    return v && v->count ? v->values[v->count - 1] : NULL;
}

/* NAME=N with NAME non-empty and N a decimal integer in [1, 2^53] (exact in JSON numbers). */
static bool parse_setting(const char *text, DimSetting *out, char *name_buf, size_t name_cap) {
    const char *eq = strchr(text, '=');
    if (!eq || eq == text || (size_t)(eq - text) >= name_cap) return false;
    const char *num = eq + 1;
    if (*num < '0' || *num > '9') return false;
    errno = 0;
    char *end;
    long long v = strtoll(num, &end, 10);
    if (errno || *end || v < 1 || v > (1LL << 53)) return false;
    memcpy(name_buf, text, (size_t)(eq - text));
    name_buf[eq - text] = 0;
    out->name = name_buf;
    out->value = v;
    return true;
}

int args_dim_settings(const CliCommand *cmd, const ArgResult *r, const char *name, DimSettingList *out) {
    out->count = 0;
    const ArgValues *v = args_values(r, name);
    if (!v) return 0;
    for (int i = 0; i < v->count; i++) {
        DimSetting *s = &out->items[i];
        if (!parse_setting(v->values[i], s, out->names[i], sizeof out->names[i]))
            return cli_usage_error(cmd, "--%s expects NAME=N with N a positive integer, got '%s'", name,
                                   v->values[i]),
                   -1;
        for (int j = 0; j < i; j++)
            if (strcmp(out->items[j].name, s->name) == 0)
                return cli_usage_error(cmd, "--%s %s given twice", name, s->name), -1;
        out->count = i + 1;
    }
    return 0;
}

_Static_assert(CONVERT_MAX_DIMS >= ARGS_MAX_VALUES, "every --fix / --dim value fits a DimSettingList");

int convert_dim_options(const CliCommand *cmd, const ArgResult *r, DimSettingList *fix, DimSettingList *dim) {
    if (args_dim_settings(cmd, r, "fix", fix) < 0 || args_dim_settings(cmd, r, "dim", dim) < 0) return -1;
    const char *both = convert_dim_conflict(fix, dim);
    if (both) return cli_usage_error(cmd, "%s is given to both --fix and --dim", both), -1;
    return 0;
}

int args_device(const CliCommand *cmd, const ArgResult *r, int *device) {
    const char *s = args_value(r, "device");
    *device = -1;
    if (!s) return 0;
    char *end;
    long v = strtol(s, &end, 10);
    if (end == s || *end || v < 0 || v > 64) return cli_usage_error(cmd, "--device takes a device index"), -1;
    *device = (int)v;
    return 0;
}

int args_fuse(const ArgResult *r, unsigned *mask) {
    if (fuse_parse(args_value(r, "fuse"), mask) == 0) return 0;
    cli_fail(NULL, WN_EXIT_BAD_INPUT);
    return -1;
}
