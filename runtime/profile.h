/* profile.h - the runtime's profiling hooks (profile.c; public side in webnnc_profile.h).  Each
 * hook is one call where the runtime does the work it times, and does nothing while profiling is
 * off (m->prof NULL):
 *   record.c  profile_record_begin   after vkBeginCommandBuffer (starts the recording's node list)
 *             profile_dispatch_begin / profile_dispatch_end   around each vkCmdDispatch
 *   runtime.c profile_phase          host phase boundaries (WNRT_PROF_IDLE closes the open one)
 *             profile_run_done       after the wait: reads the run's timestamps
 *   bind.c    profile_phase          around wnrt_bind_input */
#ifndef WEBNNC_RT_PROFILE_H
#define WEBNNC_RT_PROFILE_H

#include "rt_model.h"
#include "webnnc_profile.h"

int wnrt_profile_record_begin_(WnrtModel *m, VkCommandBuffer cb);
int wnrt_profile_dispatch_begin_(WnrtModel *m, VkCommandBuffer cb, const Node *n);
void wnrt_profile_dispatch_end_(WnrtModel *m, VkCommandBuffer cb);
void wnrt_profile_phase_(WnrtModel *m, int phase);
int wnrt_profile_run_done_(WnrtModel *m, VkCommandBuffer cb, int dispatches);
void wnrt_profile_free(WnrtModel *m);

static inline int profile_record_begin(WnrtModel *m, VkCommandBuffer cb) {
    return m->prof ? wnrt_profile_record_begin_(m, cb) : 0;
}
static inline int profile_dispatch_begin(WnrtModel *m, VkCommandBuffer cb, const Node *n) {
    return m->prof ? wnrt_profile_dispatch_begin_(m, cb, n) : 0;
}
static inline void profile_dispatch_end(WnrtModel *m, VkCommandBuffer cb) {
    if (m->prof) wnrt_profile_dispatch_end_(m, cb);
}
static inline void profile_phase(WnrtModel *m, int phase) {
    if (m->prof) wnrt_profile_phase_(m, phase);
}
static inline int profile_run_done(WnrtModel *m, VkCommandBuffer cb, int dispatches) {
    return m->prof ? wnrt_profile_run_done_(m, cb, dispatches) : 0;
}

#endif
