/* commands.h - the subcommand record and the handler prototypes generated from commands.def. */
#ifndef WEBNNC_CLI_COMMANDS_H
#define WEBNNC_CLI_COMMANDS_H

typedef struct CliCommand CliCommand;
typedef int (*CliHandler)(const CliCommand *self, int argc, char **argv);

struct CliCommand {
    const char *name;
    CliHandler run;
    const char *help;  /* one line */
    const char *usage; /* arguments after `webnnc NAME` */
};

#define CMD(NAME, HANDLER, HELP, USAGE) int HANDLER(const CliCommand *self, int argc, char **argv);
#include "commands.def"
#undef CMD

/* The table, in commands.def order, and a lookup by name (NULL if unknown). */
extern const CliCommand cli_commands[];
extern const int cli_command_count;
const CliCommand *cli_find_command(const char *name);

#endif
