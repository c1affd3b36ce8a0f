/* core.h - lib/core's one public header: the IR's vocabulary that every floor above speaks (the IR
 * and op table, diagnostics, arenas, checked arithmetic, input limits, file maps, the geometry of
 * the extension, fused and groupQueryAttention ops).  Files outside lib/core include this header,
 * never the individual ones (tests/floors.py checks it); the X-macro tables (ops.def,
 * op_families.def, ...) stay includable where a floor expands them. */
#ifndef WEBNNC_CORE_H
#define WEBNNC_CORE_H

#include "arena.h"
#include "checked.h"
#include "clamp_bounds.h"
#include "diag.h"
#include "ext_ops.h"
#include "file_map.h"
#include "fused_ops.h"
#include "gqa.h"
#include "input_limits.h"
#include "ir.h"
#include "op_support.h"

#endif
