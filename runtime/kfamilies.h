/* kfamilies.h - declarations of the kernel families named in kernels.def (one per k_*.c file). */
#ifndef WEBNNC_KFAMILIES_H
#define WEBNNC_KFAMILIES_H

#include "kernel.h"

#define KERNEL(ID, FAMILY) extern const KernelFamily kfam_##FAMILY;
#define KERNEL_UNSUPPORTED(ID, REASON)
#include "kernels.def"
#undef KERNEL
#undef KERNEL_UNSUPPORTED

#endif
