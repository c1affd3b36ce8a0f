/* wpt_tolerance.h - internal to the WPT case loader: computes a built case's tolerance. */
#ifndef WEBNNC_WPT_TOLERANCE_H
#define WEBNNC_WPT_TOLERANCE_H

#include "wpt_case.h"

/* Sets c->metric and c->tolerance from the case's operators and shapes (WPT utils.js rules). */
void wpt_set_tolerance(WptCase *c);

#endif
