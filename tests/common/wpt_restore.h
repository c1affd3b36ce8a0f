/* wpt_restore.h - puts back the Infinity/-Infinity/NaN values that the WPT corpus's JS -> JSON
 * conversion turned into null.  The restoration file (testdata/wpt/nonfinite_restore.json) lists
 * {"file", "name", "graph"} per damaged case: the corpus's graph with every null replaced by the tag
 * "Infinity", "-Infinity" or "NaN" (wpt_nonfinite_tag).  A listed case's graph replaces the
 * corpus's only after checking that the two are identical (keys in order, arrays, strings, bools,
 * numbers bit for bit) except that each corpus null is matched by a tag; a mismatch, a listed case
 * that is not in the corpus, an entry that restores nothing, or a corpus case still holding a null
 * afterwards is an error naming the file, the case and the JSON path.
 *
 *   WptRestore *r = wpt_restore_load(path);    // NULL + diagnostic
 *   wpt_restore_apply(r, f);                   // per corpus file: -1 + diagnostic
 *   wpt_restore_check_used(r);                 // after every file: -1 when an entry's file was never seen
 *   wpt_restore_free(r);
 */
#ifndef WEBNNC_WPT_RESTORE_H
#define WEBNNC_WPT_RESTORE_H

#include "wpt_case.h"

typedef struct WptRestore WptRestore;

/* Reads and checks the shape of a restoration file (an object with a "cases" array of
 * {"file": string, "name": string, "graph": object}, no case listed twice). */
WptRestore *wpt_restore_load(const char *path);
void wpt_restore_free(WptRestore *r);

/* Verifies every entry for f's file, then applies them; then fails when any case of f still holds a
 * null.  Returns the number of cases restored, or -1 with a diagnostic (f is unchanged when an
 * entry does not verify). */
int wpt_restore_apply(WptRestore *r, WptFile *f);

/* -1 with a diagnostic naming the first entry that no wpt_restore_apply call used (its file is not
 * in the corpus), else 0. */
int wpt_restore_check_used(const WptRestore *r);

#endif
