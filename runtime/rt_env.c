/* rt_env.c - the runtime's environment switches and overrides (rt_env.h). */
#include "rt_env.h"

#include <stdlib.h>
#include <string.h>

long wnrt_env_long(const char *name, long lo, long hi, long def) {
    const char *e = getenv(name);
    long v = e ? strtol(e, NULL, 10) : 0;
    return e && v >= lo && v <= hi ? v : def;
}

bool wnrt_env_flag(const char *name, bool def) {
    const char *e = getenv(name);
    return e && *e ? strcmp(e, "0") != 0 : def;
}
