/* wpt_suite.h - the driver shared by the suites that run every WPT conformance case
 * (../shared/wpt-webnn (*.json files)) through one backend: finds and sorts the files, builds each
 * case with wpt_case_build, calls the backend, applies the backend's expected-failure list (a
 * listed case that passes is a failure too, so the list cannot go stale), prints per-file pass
 * counts and every failure with its reason, and registers one Check test per file.  The corpus's
 * cases whose Infinity/NaN values the JSON conversion lost (null) are restored from
 * testdata/wpt/nonfinite_restore.json after verification (wpt_restore.h); a restoration that does
 * not verify, or a null left in the corpus, fails the file.
 *
 *   static const char *run_case(WptCase *c, char *why, size_t len);   // NULL = pass
 *   int main(void) { return wpt_suite_main("runtime_wpt", run_case, xfails, n_xfails); }
 *
 * Exit status: 0 all good, 1 failures, 77 (skip) when ../shared is missing, 1 then under CI=true.
 */
#ifndef WEBNNC_WPT_SUITE_H
#define WEBNNC_WPT_SUITE_H

#include <stddef.h>

#include "wpt_case.h"

typedef struct {
    const char *file, *name, *reason;
} WptXfail;

/* Runs one case; returns NULL when every output matched, else a one-line reason (may point
 * into why). */
typedef const char *(*WptRunFn)(WptCase *c, char *why, size_t why_len);

/* xfails: the backend's expected failures (NULL, 0 when none). */
int wpt_suite_main(const char *suite_name, WptRunFn run, const WptXfail *xfails, size_t n_xfails);

#endif
