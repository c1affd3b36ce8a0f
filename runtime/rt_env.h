/* rt_env.h - the runtime's switches and tuning overrides from the environment (WEBNNC_*: README's
 * table of environment variables), read one way everywhere. */
#ifndef WEBNNC_RT_ENV_H
#define WEBNNC_RT_ENV_H

#include <stdbool.h>

/* A numeric override (bench sweeps): the value of `name` when it is set, not empty and in lo..hi, else def. */
long wnrt_env_long(const char *name, long lo, long hi, long def);
/* A switch: "0" off, any other value on, unset or empty `def`. */
bool wnrt_env_flag(const char *name, bool def);

#endif
