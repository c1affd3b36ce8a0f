/* args.h - the one command-line parser shared by every `webnnc` subcommand.
 *
 * A command describes its options in an ArgSpec array and calls args_parse(), which handles
 * `--name VALUE`, `--name=VALUE`, `-x VALUE`, repeated options, `--` and positional arguments,
 * and answers `--help`/`-h` by printing the command's usage and option list.  Usage errors are
 * reported as one line, "webnnc: error: CMD: MESSAGE", and map to exit code 2.
 */
#ifndef WEBNNC_CLI_ARGS_H
#define WEBNNC_CLI_ARGS_H

#include <stdbool.h>

#include "commands.h"
#include "convert.h"

#define ARGS_MAX_SPECS 16
#define ARGS_MAX_VALUES 64 /* per repeatable option, and positional arguments */

typedef enum {
    ARG_FLAG,   /* no value; counted */
    ARG_VALUE,  /* one value; given at most once */
    ARG_LIST,   /* one value; may repeat */
} ArgKind;

typedef struct {
    const char *name;    /* long name without dashes, e.g. "out" */
    char short_name;     /* e.g. 'o', or 0 */
    ArgKind kind;
    const char *metavar; /* for help, e.g. "NAME=N"; NULL for flags */
    const char *help;
} ArgSpec;

typedef struct {
    int count;                          /* times given */
    const char *values[ARGS_MAX_VALUES];
} ArgValues;

typedef struct {
    const ArgSpec *specs;
    int n_specs;
    ArgValues opt[ARGS_MAX_SPECS];      /* parallel to specs */
    int n_pos;
    const char *pos[ARGS_MAX_VALUES];
} ArgResult;

enum { ARGS_OK = 0, ARGS_HELP = 1, ARGS_ERROR = -1 };

/* Parses argv[1..argc) for `cmd` (argv[0] is the command name).  Positional arguments must number
 * min_pos..max_pos.  Returns ARGS_OK, ARGS_HELP (help printed to stdout) or ARGS_ERROR (usage
 * error printed). */
int args_parse(const CliCommand *cmd, const ArgSpec *specs, int n_specs, int min_pos, int max_pos,
               int argc, char **argv, ArgResult *out);

/* Options by long name: how often given, and the last value (NULL if absent). */
int args_count(const ArgResult *r, const char *name);
const char *args_value(const ArgResult *r, const char *name);
const ArgValues *args_values(const ArgResult *r, const char *name);

/* Parses every value of option `name` as NAME=N (DimSettingList: convert_pipeline.h), N a positive
 * integer, no NAME twice.  Returns 0, or -1 after printing a usage error. */
int args_dim_settings(const CliCommand *cmd, const ArgResult *r, const char *name, DimSettingList *out);
/* Parses --fix NAME=N and --dim NAME=MAX (no NAME in both).  Returns 0, or -1 after printing a
 * usage error. */
int convert_dim_options(const CliCommand *cmd, const ArgResult *r, DimSettingList *fix, DimSettingList *dim);

/* --device N (a Vulkan device index 0..64): *device = N, or -1 (auto) when absent.  Returns 0, or
 * -1 after printing a usage error.  ARG_SPEC_DEVICE is its ArgSpec entry. */
int args_device(const CliCommand *cmd, const ArgResult *r, int *device);
#define ARG_SPEC_DEVICE {"device", 0, ARG_VALUE, "N", "Vulkan device index (see `webnnc devices`; default auto)"}

/* --fuse all|none|LIST (fuse_parse): *mask, 0 when absent.  Returns 0, or -1 after printing the
 * error. */
int args_fuse(const ArgResult *r, unsigned *mask);

/* Prints "webnnc: error: CMD: MESSAGE" (via diag_print) and returns WN_EXIT_BAD_INPUT. */
int cli_usage_error(const CliCommand *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Prints the pending diagnostic for `file` and returns `code`. */
int cli_fail(const char *file, int code);

/* Prints the usage line ("usage: webnnc NAME USAGE") and the one-line help of a command. */
void cli_print_usage(const CliCommand *cmd);

#endif
