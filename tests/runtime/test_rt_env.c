/* test_rt_env.c - the runtime's environment overrides (rt_env.c): a numeric override applies when
 * set, not empty and in range, and falls back to the default otherwise (a script's `NAME=` for
 * "unset", as bench/matvec_sweep.sh writes, must not read as 0); a switch is off for "0", on for any
 * other value and the default when unset or empty. */
#include <stdlib.h>

#include "rt_env.h"
#include "rt_test_util.h"

#define VAR "WEBNNC_TEST_ENV_OVERRIDE"

START_TEST(numeric_override) {
    unsetenv(VAR);
    ck_assert_int_eq(wnrt_env_long(VAR, 0, 64, 7), 7);
    setenv(VAR, "", 1);
    ck_assert_int_eq(wnrt_env_long(VAR, 0, 64, 7), 7);
    setenv(VAR, "0", 1);
    ck_assert_int_eq(wnrt_env_long(VAR, 0, 64, 7), 0);
    setenv(VAR, "32", 1);
    ck_assert_int_eq(wnrt_env_long(VAR, 0, 64, 7), 32);
    setenv(VAR, "65", 1);
    ck_assert_int_eq(wnrt_env_long(VAR, 0, 64, 7), 7);
    setenv(VAR, "-1", 1);
    ck_assert_int_eq(wnrt_env_long(VAR, 0, 64, 7), 7);
    unsetenv(VAR);
}
END_TEST

START_TEST(switch_override) {
    unsetenv(VAR);
    ck_assert(wnrt_env_flag(VAR, true));
    ck_assert(!wnrt_env_flag(VAR, false));
    setenv(VAR, "", 1);
    ck_assert(wnrt_env_flag(VAR, true));
    setenv(VAR, "0", 1);
    ck_assert(!wnrt_env_flag(VAR, true));
    setenv(VAR, "1", 1);
    ck_assert(wnrt_env_flag(VAR, false));
    unsetenv(VAR);
}
END_TEST

int main(void) {
    Suite *s = suite_create("runtime-env");
    TCase *tc = tcase_create("env");
    tcase_add_test(tc, numeric_override);
    tcase_add_test(tc, switch_override);
    suite_add_tcase(s, tc);
    return rt_main(s);
}
