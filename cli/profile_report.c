/* profile_report.c - the profile tables and JSON of `webnnc profile` / `webnnc run --profile`
 * (profile_report.h). */
#include "profile_report.h"

#include <stdlib.h>
#include <string.h>

#include "core.h"

#define TOP_NODES 40 /* nodes in the text table; --json lists all */

int prof_report_init(ProfReport *r, const Graph *g, const char *const *phase_names, int n_phase, bool trace) {
    memset(r, 0, sizeof *r);
    r->g = g;
    r->trace = trace;
    r->origin_ns = -1;
    wn_tb_init(&r->steps);
    wn_tb_init(&r->events);
    for (int i = 0; i < n_phase && i < PROF_MAX_PHASES; i++, r->n_phase++)
        if (wnrt_prof_agg_init(&r->phase[i], phase_names[i], g) < 0) return -1;
    return 0;
}

int prof_report_model(ProfReport *r, const WnrtModel *m) {
    free(r->absorbed_into);
    free(r->rewrite_label);
    r->absorbed_into = malloc(((size_t)r->g->n_nodes + 1) * sizeof *r->absorbed_into);
    r->rewrite_label = malloc(((size_t)r->g->n_nodes + 1) * sizeof *r->rewrite_label);
    if (!r->absorbed_into || !r->rewrite_label) {
        diag_error("out of memory");
        return -1;
    }
    for (int i = 0; i < r->g->n_nodes; i++) {
        r->absorbed_into[i] = wnrt_node_absorbed_into(m, i);
        r->rewrite_label[i] = wnrt_node_rewrite_label(m, i);
    }
    return 0;
}

void prof_report_free(ProfReport *r) {
    free(r->absorbed_into);
    free(r->rewrite_label);
    for (int i = 0; i < r->n_phase; i++) wnrt_prof_agg_free(&r->phase[i]);
    wn_tb_free(&r->steps);
    wn_tb_free(&r->events);
}

/* JSON number, or null for values that are not measured (negative) */
static void json_num(TextBuf *b, double v) {
    if (v < 0) wn_tb_puts(b, "null");
    else wn_tb_printf(b, "%.3f", v);
}

static void json_host(TextBuf *b, const double *host_ns, double scale) {
    wn_tb_puts(b, "{");
    for (int p = 0; p < WNRT_PROF_NPHASES; p++) wn_tb_printf(b, "%s\"%s\": %.3f", p ? ", " : "", wnrt_prof_phase_key[p], host_ns[p] * scale);
    wn_tb_puts(b, "}");
}

int prof_report_step(ProfReport *r, int phase, const WnrtProfStep *s, double begin_ns, double end_ns) {
    ProfAgg *a = &r->phase[phase];
    double gpu_before = a->gpu_ns;
    if (wnrt_prof_agg_add(a, s, end_ns - begin_ns) < 0) return -1;
    if (r->origin_ns < 0) r->origin_ns = begin_ns;
    TextBuf *b = &r->steps;
    wn_tb_printf(b, "%s{\"phase\": \"%s\", \"step\": %d, \"wall_us\": %.3f, \"gpu_us\": ", r->n_steps ? ", " : "", a->name,
              a->steps - 1, (end_ns - begin_ns) * 1e-3);
    json_num(b, s->gpu_timed ? (a->gpu_ns - gpu_before) * 1e-3 : -1);
    wn_tb_puts(b, ", \"host_us\": ");
    json_host(b, s->host_ns, 1e-3);
    wn_tb_printf(b, ", \"dispatches\": %d, \"plan_dispatches\": %d, \"runs\": %d, \"recordings\": %d}", s->n_dispatches,
              s->plan_dispatches, s->runs, s->recordings);
    if (r->trace) prof_trace_step(r, phase, a->steps - 1, s, begin_ns, end_ns);
    r->n_steps++;
    return 0;
}

static const char *row_name(const ProfAgg *a, bool by_node, const ProfRow *row) {
    return by_node ? node_display_name(a->g->nodes[row->key]) : op_name((OpId)row->key);
}

/* The first node after `from` whose work node `node`'s dispatches do (absorbed into it), or -1. */
static int next_absorbed(const ProfReport *r, int node, int from) {
    for (int i = from + 1; r->absorbed_into && i < r->g->n_nodes; i++)
        if (r->absorbed_into[i] == node) return i;
    return -1;
}

static const char *rewrite_label(const ProfReport *r, int node) { return r->rewrite_label ? r->rewrite_label[node] : NULL; }

/* The op column of node `node`: its op, then the ops of the nodes absorbed into it ("cast
 * +reduceSum,sub"), then its rewrite label ("matmulNBits +add"). */
static void node_ops(const ProfReport *r, int node, char *buf, size_t cap) {
    const Graph *g = r->g;
    size_t len = (size_t)snprintf(buf, cap, "%s", op_name(g->nodes[node]->op));
    for (int i = next_absorbed(r, node, -1), k = 0; i >= 0 && len < cap; i = next_absorbed(r, node, i))
        len += (size_t)snprintf(buf + len, cap - len, "%s%s", k++ ? "," : " +", op_name(g->nodes[i]->op));
    if (rewrite_label(r, node) && len < cap) snprintf(buf + len, cap - len, " %s", rewrite_label(r, node));
}

static void print_rows(const ProfReport *r, const ProfAgg *a, bool by_node, FILE *f) {
    ProfRow *rows;
    int n = wnrt_prof_agg_rows(a, by_node, &rows);
    if (n < 0) return;
    bool t = a->gpu_timed;
    fprintf(f, "%-40s %s%8s %12s %10s %10s %7s\n", by_node ? "node" : "op type", by_node ? "op type                              " : "", "calls",
            t ? "total us" : "", t ? "mean us" : "", t ? "us/step" : "", t ? "% step" : "");
    int shown = by_node && n > TOP_NODES ? TOP_NODES : n;
    /* a row shows absorbed ops / a skip-sum label / the attention's o_proj label: the legend below */
    bool absorbed = false, moved = false, took = false;
    for (int i = 0; i < shown; i++) {
        const ProfRow *w = &rows[i];
        fprintf(f, "%-40.40s ", row_name(a, by_node, w));
        if (by_node) {
            char ops[64];
            node_ops(r, w->key, ops, sizeof ops);
            fprintf(f, "%-36.36s ", ops);
            absorbed = absorbed || next_absorbed(r, w->key, -1) >= 0;
            const char *label = rewrite_label(r, w->key);
            bool oproj = label && strcmp(label, WNRT_REWRITE_TAKES_OPROJ) == 0;
            took = took || oproj;
            moved = moved || (label && !oproj);
        }
        fprintf(f, "%8d", w->calls);
        if (t)
            fprintf(f, " %12.1f %10.2f %10.1f %6.1f%%", w->total_ns * 1e-3, w->total_ns * 1e-3 / w->calls,
                    w->total_ns * 1e-3 / a->steps, a->wall_ns > 0 ? 100 * w->total_ns / a->wall_ns : 0);
        fprintf(f, "\n");
    }
    if (shown < n) {
        double rest = 0;
        int calls = 0;
        for (int i = shown; i < n; i++) rest += rows[i].total_ns, calls += rows[i].calls;
        fprintf(f, "... %d more nodes: %d calls%s", n - shown, calls, t ? "" : "\n");
        if (t) fprintf(f, ", %.1f us (%.1f%%)\n", rest * 1e-3, a->wall_ns > 0 ? 100 * rest / a->wall_ns : 0);
    }
    /* what the runtime's plan rewrites did to the op column (WEBNNC_NO_FUSE=1 turns them off) */
    if (absorbed)
        fprintf(f, "op +op2,op3: the node's dispatches also do the work of nodes of those ops (absorbed by the "
                   "runtime's plan)\n");
    if (moved)
        fprintf(f, "+add / -add: a matmulNBits that also adds the skip sum of the projection reading its product / that "
                   "projection (runtime/plan_residual.c)\n");
    if (took)
        fprintf(f, "groupQueryAttention " WNRT_REWRITE_TAKES_OPROJ ": at decode the attention also does the output projection after it "
                   "and its skip sum, and that matmulNBits has no dispatches (runtime/plan_oproj.c)\n");
    free(rows);
}

void prof_report_print(const ProfReport *r, const ProfInfo *info, FILE *f) {
    fprintf(f, "webnnc profile: %s on %s; ", info->model, info->device);
    if (info->no_gpu) fprintf(f, "no GPU timestamps (%s): host times only\n", info->no_gpu);
    else fprintf(f, "GPU time from timestamps around every dispatch (they serialize the dispatches)\n");
    if (info->prompt_tokens) fprintf(f, "prompt %d tokens, %d new, ", info->prompt_tokens, info->new_tokens);
    fprintf(f, "fuse %s", info->fuse ? info->fuse : "none");
    if (info->load_ms > 0) fprintf(f, ", load %.1f ms (graph, plan, constants)", info->load_ms);
    fprintf(f, "\n");
    for (int i = 0; i < r->n_phase; i++) {
        const ProfAgg *a = &r->phase[i];
        if (!a->steps) continue;
        double per = 1e-3 / a->steps;
        fprintf(f, "\n== %s: %d step%s, wall %.1f us/step", a->name, a->steps, a->steps == 1 ? "" : "s", a->wall_ns * per);
        if (a->gpu_timed)
            fprintf(f, ", GPU %.1f us/step (%.1f%% of wall)", a->gpu_ns * per, a->wall_ns > 0 ? 100 * a->gpu_ns / a->wall_ns : 0);
        fprintf(f, ", %.1f dispatches/step, %d recordings in %d runs\nhost us/step:", (double)a->dispatches / a->steps,
                a->recordings, a->runs);
        for (int p = 0; p < WNRT_PROF_NPHASES; p++) fprintf(f, " %s %.1f%s", wnrt_prof_phase_label[p], a->host_ns[p] * per, p + 1 < WNRT_PROF_NPHASES ? "," : "");
        fprintf(f, "; outside the runtime (argmax, callers) %.1f\n\n", (a->wall_ns - wnrt_prof_agg_host_ns(a)) * per);
        print_rows(r, a, false, f);
        fprintf(f, "\n");
        print_rows(r, a, true, f);
    }
}

static void json_rows(TextBuf *b, const ProfReport *r, const ProfAgg *a, bool by_node) {
    ProfRow *rows;
    int n = wnrt_prof_agg_rows(a, by_node, &rows);
    wn_tb_printf(b, "\"%s\": [", by_node ? "nodes" : "ops");
    for (int i = 0; i < n; i++) {
        const ProfRow *w = &rows[i];
        wn_tb_puts(b, i ? ", {" : "{");
        if (by_node) {
            wn_tb_puts(b, "\"node\": ");
            wn_tb_json_string(b, row_name(a, true, w));
            wn_tb_printf(b, ", \"index\": %d, ", w->key);
        }
        wn_tb_printf(b, "\"op\": \"%s\", \"calls\": %d, \"total_us\": ", op_name(by_node ? a->g->nodes[w->key]->op : (OpId)w->key),
                  w->calls);
        bool t = a->gpu_timed;
        json_num(b, t ? w->total_ns * 1e-3 : -1);
        wn_tb_puts(b, ", \"mean_us\": ");
        json_num(b, t ? w->total_ns * 1e-3 / w->calls : -1);
        wn_tb_puts(b, ", \"pct\": ");
        json_num(b, t && a->wall_ns > 0 ? 100 * w->total_ns / a->wall_ns : -1);
        if (by_node) { /* the nodes whose work this node's dispatches do */
            wn_tb_puts(b, ", \"absorbed\": [");
            for (int j = next_absorbed(r, w->key, -1), k = 0; j >= 0; j = next_absorbed(r, w->key, j)) {
                if (k++) wn_tb_puts(b, ", ");
                wn_tb_json_string(b, node_display_name(a->g->nodes[j]));
            }
            wn_tb_puts(b, "], \"rewrite\": ");
            if (rewrite_label(r, w->key)) wn_tb_json_string(b, rewrite_label(r, w->key));
            else wn_tb_puts(b, "null");
        }
        wn_tb_puts(b, "}");
    }
    wn_tb_puts(b, "]");
    if (n >= 0) free(rows);
}

void prof_report_json(const ProfReport *r, const ProfInfo *info, FILE *f) {
    TextBuf b;
    wn_tb_init(&b);
    wn_tb_puts(&b, "{\"model\": ");
    wn_tb_json_string(&b, info->model);
    wn_tb_puts(&b, ", \"device\": ");
    wn_tb_json_string(&b, info->device);
    wn_tb_printf(&b, ", \"fuse\": \"%s\", \"timestamps\": %s, \"timestamp_note\": ", info->fuse ? info->fuse : "none",
              info->no_gpu ? "false" : "true");
    if (info->no_gpu) wn_tb_json_string(&b, info->no_gpu);
    else wn_tb_puts(&b, "null");
    double wall = 0;
    int runs = 0, recordings = 0;
    for (int i = 0; i < r->n_phase; i++) wall += r->phase[i].wall_ns, runs += r->phase[i].runs, recordings += r->phase[i].recordings;
    wn_tb_printf(&b, ", \"prompt_tokens\": %d, \"new_tokens\": %d, \"load_ms\": %.3f, \"wall_us\": %.3f, \"runs\": %d, "
              "\"recordings\": %d, \"phases\": [", info->prompt_tokens, info->new_tokens, info->load_ms, wall * 1e-3, runs, recordings);
    for (int i = 0; i < r->n_phase; i++) {
        const ProfAgg *a = &r->phase[i];
        wn_tb_printf(&b, "%s{\"name\": \"%s\", \"steps\": %d, \"wall_us\": %.3f, \"gpu_us\": ", i ? ", " : "", a->name, a->steps,
                  a->wall_ns * 1e-3);
        json_num(&b, a->gpu_timed ? a->gpu_ns * 1e-3 : -1);
        wn_tb_puts(&b, ", \"host_us\": ");
        json_host(&b, a->host_ns, 1e-3);
        wn_tb_printf(&b, ", \"dispatches\": %d, \"plan_dispatches\": %d, \"runs\": %d, \"recordings\": %d, ", a->dispatches,
                  a->plan_dispatches, a->runs, a->recordings);
        json_rows(&b, r, a, false);
        wn_tb_puts(&b, ", ");
        json_rows(&b, r, a, true);
        wn_tb_puts(&b, "}");
    }
    wn_tb_printf(&b, "], \"steps\": [%s]}\n", r->steps.data ? r->steps.data : "");
    fputs(b.data, f);
    wn_tb_free(&b);
}
