/* profile_trace.c - `webnnc profile --trace FILE`: Chrome trace event format (JSON, loads in
 * Perfetto and chrome://tracing).  One process, two tracks: "host" (one event per step, the host
 * phases nested inside it) and "GPU" (one event per dispatch, named after its node, category the op
 * type; only with GPU timestamps).  Times in microseconds from the first step's begin.  The file is
 * written atomically (wn_outfile_write_atomic). */
#include <string.h>

#include "core.h"
#include "webnn.h"
#include "profile_report.h"

enum { TID_HOST = 1, TID_GPU = 2 };

static void event(ProfReport *r, const char *name, const char *cat, int tid, double begin_ns, double end_ns) {
    TextBuf *b = &r->events;
    wn_tb_puts(b, b->len ? ",\n{\"name\": " : "{\"name\": ");
    wn_tb_json_string(b, name);
    wn_tb_printf(b, ", \"cat\": \"%s\", \"ph\": \"X\", \"pid\": 1, \"tid\": %d, \"ts\": %.3f, \"dur\": %.3f", cat, tid,
              (begin_ns - r->origin_ns) * 1e-3, (end_ns > begin_ns ? end_ns - begin_ns : 0) * 1e-3);
}

void prof_trace_step(ProfReport *r, int phase, int step, const WnrtProfStep *s, double begin_ns, double end_ns) {
    char name[64];
    snprintf(name, sizeof name, "%s %d", r->phase[phase].name, step);
    event(r, name, "step", TID_HOST, begin_ns, end_ns);
    wn_tb_printf(&r->events, ", \"args\": {\"phase\": \"%s\", \"step\": %d, \"dispatches\": %d}}", r->phase[phase].name, step,
              s->n_dispatches);
    for (int i = 0; i < s->n_spans; i++) {
        event(r, wnrt_prof_phase_label[s->spans[i].phase], "host", TID_HOST, s->spans[i].begin_ns, s->spans[i].end_ns);
        wn_tb_puts(&r->events, "}");
    }
    for (int i = 0; i < s->n_dispatches && s->gpu_timed; i++) {
        const WnrtProfDispatch *d = &s->dispatches[i];
        const Node *n = r->g->nodes[d->node];
        event(r, node_display_name(n), op_name(n->op), TID_GPU, d->begin_ns, d->end_ns);
        wn_tb_printf(&r->events, ", \"args\": {\"op\": \"%s\", \"phase\": \"%s\", \"step\": %d}}", op_name(n->op), r->phase[phase].name,
                  step);
    }
}

int prof_trace_write(const ProfReport *r, const ProfInfo *info, const char *path) {
    TextBuf b;
    wn_tb_init(&b);
    wn_tb_puts(&b, "{\"displayTimeUnit\": \"ns\", \"otherData\": {\"model\": ");
    wn_tb_json_string(&b, info->model);
    wn_tb_puts(&b, ", \"device\": ");
    wn_tb_json_string(&b, info->device);
    wn_tb_printf(&b, ", \"timestamps\": %s}, \"traceEvents\": [\n", info->no_gpu ? "false" : "true");
    wn_tb_puts(&b, "{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": 1, \"args\": {\"name\": \"webnnc\"}},\n");
    wn_tb_printf(&b, "{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": 1, \"tid\": %d, \"args\": {\"name\": \"host\"}},\n", TID_HOST);
    wn_tb_printf(&b, "{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": 1, \"tid\": %d, \"args\": {\"name\": \"GPU\"}}", TID_GPU);
    if (r->events.len) wn_tb_puts(&b, ",\n");
    wn_tb_puts(&b, r->events.data ? r->events.data : "");
    wn_tb_puts(&b, "\n]}\n");
    int rc = wn_outfile_write_atomic(path, b.data, b.len);
    wn_tb_free(&b);
    return rc;
}
