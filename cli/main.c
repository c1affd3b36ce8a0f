/* main.c - the `webnnc` entry point: global --help/--version, `help CMD`, and dispatch to the
 * subcommands listed in commands.def. */
#include <stdio.h>
#include <string.h>

#include "args.h"
#include "commands.h"
#include "core.h"

#ifndef WEBNNC_VERSION
#define WEBNNC_VERSION "unknown"
#endif

const CliCommand cli_commands[] = {
#define CMD(NAME, HANDLER, HELP, USAGE) {#NAME, HANDLER, HELP, USAGE},
#define CMD_NAMED(STR, NAME, HANDLER, HELP, USAGE) {STR, HANDLER, HELP, USAGE},
#include "commands.def"
#undef CMD_NAMED
#undef CMD
};
const int cli_command_count = (int)(sizeof cli_commands / sizeof cli_commands[0]);

const CliCommand *cli_find_command(const char *name) {
    for (int i = 0; i < cli_command_count; i++)
        if (strcmp(cli_commands[i].name, name) == 0) return &cli_commands[i];
    return NULL;
}

static void print_main_help(FILE *f) {
    fprintf(f, "usage: webnnc COMMAND [ARGS]...\n\n"
               "Converts ONNX language models into WebNN graphs (webnn-graph JSON + weights + manifest).\n\n"
               "commands:\n");
    for (int i = 0; i < cli_command_count; i++) fprintf(f, "  %-10s %s\n", cli_commands[i].name, cli_commands[i].help);
    fprintf(f, "  %-10s %s\n", "help", "show help for a command (webnnc help COMMAND)");
    fprintf(f, "\noptions:\n  -h, --help     show this help\n  --version      print the version\n"
               "\nexit codes: 0 ok, 1 a check failed, 2 bad input or usage\n");
}

static int run_command(const CliCommand *cmd, int argc, char **argv) {
    diag_clear();
    return cmd->run(cmd, argc, argv);
}

static int unknown_command(const char *name) {
    diag_error("unknown command '%s' (see `webnnc --help`)", name);
    diag_print();
    return WN_EXIT_BAD_INPUT;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        print_main_help(stderr);
        return WN_EXIT_BAD_INPUT;
    }
    const char *first = argv[1];
    if (strcmp(first, "--help") == 0 || strcmp(first, "-h") == 0) {
        print_main_help(stdout);
        return WN_EXIT_OK;
    }
    if (strcmp(first, "--version") == 0) {
        printf("webnnc %s\n", WEBNNC_VERSION);
        return WN_EXIT_OK;
    }
    if (strcmp(first, "help") == 0) {
        if (argc == 2) {
            print_main_help(stdout);
            return WN_EXIT_OK;
        }
        const CliCommand *cmd = cli_find_command(argv[2]);
        if (!cmd) return unknown_command(argv[2]);
        char *help_argv[] = {argv[2], "--help", NULL};
        return run_command(cmd, 2, help_argv);
    }
    const CliCommand *cmd = cli_find_command(first);
    if (!cmd) return unknown_command(first);
    return run_command(cmd, argc - 1, argv + 1);
}
