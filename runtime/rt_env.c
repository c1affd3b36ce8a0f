/* rt_env.c - the runtime's environment switches and overrides (rt_env.h). */
#include "rt_env.h"

#include <stdlib.h>
#include <string.h>

long wnrt_env_long(const char *name, long lo, long hi, long def) {
    const char *e = getenv(name);
    if (!e || !*e) return def; /* unset or empty (NAME= in a script's env list): the default */
    long v = strtol(e, NULL, 10);
    return v >= lo && v <= hi ? v : def;
}

bool wnrt_env_flag(const char *name, bool def) {
    const char *e = getenv(name);
    return e && *e ? strcmp(e, "0") != 0 : def;
}
