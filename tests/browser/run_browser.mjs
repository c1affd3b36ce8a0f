// run_browser.mjs - browser e2e suite (issue 12): every corpus model with test sets
// (../shared/models: fp32, fp16, int4; prefill test_data_set_0 and decode test_data_set_1) is
// converted by `webnnc convert` with its default limits (Chromium 153), run unchanged in headless
// Chromium's WebNN through web/run.html, and compared with the ONNX Runtime references within the
// corpus tolerances (fp32 1e-4; int4 with fp32 I/O 1e-3; fp16 I/O 3e-2 with identical argmax).  Our
// runtime's max abs on the same folder and sets (`webnnc run --json`) goes into the same table,
// with the browser's build and compute times.  The fp32 models with a transformers reference also
// decode greedily in the browser (caches in MLTensors) and must give hf_greedy.npy.
//
//   node tests/browser/run_browser.mjs WEBNNC [--models DIR] [--work DIR] [--cache DIR]
//        [--only SUBSTR] [--table FILE.md] [--json FILE]
// Exit 0 all pass, 1 a failure, 77 skipped (no browser or no corpus, outside CI=true; the reason is
// printed); under CI=true a browser that cannot start or a missing corpus is a failure.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureChromium, launchChromium } from './chromium.mjs';
import { startServer } from './serve.mjs';
import { parseNpy } from '../../web/tensor_files.js';

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, '..', '..');
const ci = process.env.CI === 'true';
const argv = process.argv.slice(2);
const opt = (k, d) => { const i = argv.indexOf(k); return i >= 0 ? argv[i + 1] : d; };
const webnnc = resolve(argv[0] ?? '');
const modelsDir = resolve(opt('--models', join(repo, '..', 'shared', 'models')));
const work = resolve(opt('--work', join(repo, 'build', 'browser-e2e')));
const cache = resolve(opt('--cache', process.env.WEBNNC_CHROMIUM_CACHE || join(repo, 'build-chromium')));
const only = opt('--only', '');

function skipOrFail(why) {
    console.log(`${ci ? 'FAIL' : 'SKIP'}: ${why}`);
    process.exit(ci ? 1 : 77);
}

function tolerance(name, logitsType) {
    if (logitsType === 'float16') return { atol: 3e-2, argmax: true, from: 'fp16 I/O' };
    if (name.includes('int4')) return { atol: 1e-3, argmax: false, from: 'int4, fp32 I/O' };
    return { atol: 1e-4, argmax: false, from: 'fp32' };
}

function convert(model, out) {
    const args = ['convert', join(modelsDir, model), '-o', out];
    if (model.includes('torch-dynamo')) args.push('--dim', 'sequence_length=64');
    const r = spawnSync(webnnc, args, { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`webnnc ${args.join(' ')}: exit ${r.status}: ${r.stderr.trim()}`);
}

// Our runtime's max abs over every output of a set, or null with the reason.
function runtimeMaxAbs(out, set, atol) {
    const r = spawnSync(webnnc, ['run', out, '--inputs', set, '--expect', set, '--atol', String(atol), '--json'], { encoding: 'utf8' });
    try {
        const j = JSON.parse(r.stdout);
        return { maxAbs: Math.max(...j.outputs.map((o) => o.maxAbs)), pass: r.status === 0 };
    } catch {
        return { maxAbs: null, pass: false, error: `webnnc run: exit ${r.status}: ${r.stderr.trim().split('\n').pop()}` };
    }
}

async function runPage(exe, server, query, timeoutMs) {
    const b = launchChromium(exe, `${server.url}/web/run.html?${query}&report=/report`);
    try {
        return await Promise.race([server.nextReport(timeoutMs),
            b.exited.then(({ code, sig }) => { throw new Error(`chromium exited (${code ?? sig}) before reporting: ${b.stderr().trim().split('\n').slice(-3).join(' | ')}`); })]);
    } finally {
        await b.close();
    }
}

async function main() {
    if (!existsSync(webnnc)) { console.log(`FAIL: webnnc not found at ${webnnc}`); process.exit(1); }
    if (!existsSync(modelsDir)) skipOrFail(`no model corpus at ${modelsDir}`);
    let exe;
    try {
        exe = await ensureChromium(cache);
    } catch (e) {
        skipOrFail(`headless Chromium (npm ${'@sparticuz/chromium@153.0.0'}) is not available: ${e.message}`);
    }
    const models = readdirSync(modelsDir).filter((m) => existsSync(join(modelsDir, m, 'test_data_set_0')) && m.includes(only)).sort();
    mkdirSync(work, { recursive: true });
    const mounts = { web: join(repo, 'web'), models: modelsDir, out: work, hf: join(modelsDir, 'hf-ref') };
    const server = await startServer(mounts);
    // A browser that cannot start or has no WebNN fails under CI and is a plain skip elsewhere.
    try {
        const probe = await runPage(exe, server, 'probe=1', 60000);
        if (!probe.ok) throw new Error(probe.error);
    } catch (e) {
        await server.close();
        skipOrFail(`the browser did not run WebNN: ${e.message}`);
    }
    const rows = [], failures = [];
    for (const model of models) {
        const out = join(work, model);
        rmSync(out, { recursive: true, force: true });
        try {
            convert(model, out);
        } catch (e) {
            failures.push(`${model}: ${e.message}`);
            continue;
        }
        const graph = JSON.parse(readFileSync(join(out, 'model.webnn.json'), 'utf8'));
        const tol = tolerance(model, logitsType(graph));
        const sets = readdirSync(join(modelsDir, model)).filter((s) => s.startsWith('test_data_set_')).sort();
        const hfArch = model.split('-')[0];
        const decodeRef = tol.from === 'fp32' && !model.includes('torch-dynamo') && existsSync(join(modelsDir, 'hf-ref', hfArch, 'hf_greedy.npy'))
            ? Array.from(parseNpy(readFileSync(join(modelsDir, 'hf-ref', hfArch, 'hf_greedy.npy')), 'hf_greedy').data, Number) : null;
        let q = `model=/out/${model}/&sets=${sets.map((s) => `/models/${model}/${s}`).join(',')}&atol=${tol.atol}&argmax=${tol.argmax ? 1 : 0}`;
        if (decodeRef) q += `&prompt=${decodeRef.slice(0, 8).join(',')}&decode=${decodeRef.length - 8}`;
        let rep;
        try {
            rep = await runPage(exe, server, q, 300000);
        } catch (e) {
            rep = { ok: false, error: e.message, sets: [] };
        }
        if (rep.error) failures.push(`${model}: ${rep.error}`);
        for (const s of rep.sets ?? []) {
            const set = s.set.split('/').pop();
            const ours = runtimeMaxAbs(out, join(modelsDir, model, set), tol.atol);
            const maxAbs = Math.max(...s.rows.map((r) => r.maxAbs));
            const argmax = s.rows.find((r) => r.output === 'logits')?.argmaxEqual;
            const pass = s.rows.every((r) => r.pass);
            rows.push({ model, set, tolerance: tol, browserMaxAbs: maxAbs, logitsArgmaxEqual: argmax, runtimeMaxAbs: ours.maxAbs,
                buildMs: s.buildMs, computeMs: s.computeMs, pass });
            if (!pass) failures.push(`${model} ${set}: ${s.rows.filter((r) => !r.pass).map((r) => `${r.output} max abs ${r.maxAbs.toExponential(2)} argmax ${r.argmaxEqual ? 'equal' : 'differs'}`).join(', ')} (atol ${tol.atol})`);
            if (ours.error) failures.push(`${model} ${set}: our runtime: ${ours.error}`);
        }
        if (decodeRef && rep.decode) {
            const same = rep.decode.tokens.length === decodeRef.length && rep.decode.tokens.every((t, i) => t === decodeRef[i]);
            rows.push({ model, set: `greedy ${decodeRef.length - 8} tokens`, decodeEqual: same, buildMs: rep.decode.buildMs, computeMs: rep.decode.computeMs, pass: same });
            if (!same) failures.push(`${model}: greedy tokens ${rep.decode.tokens.join(',')} != hf_greedy ${decodeRef.join(',')}`);
        } else if (decodeRef && !rep.error) failures.push(`${model}: no greedy decode result`);
        console.log(`${failures.length ? 'so far ' + failures.length + ' failure(s)' : 'ok'}: ${model}`);
    }
    await server.close();
    const table = markdownTable(rows);
    console.log(table);
    if (opt('--table')) writeFileSync(opt('--table'), table);
    if (opt('--json')) writeFileSync(opt('--json'), JSON.stringify({ rows, failures }, null, 1));
    if (!rows.length) failures.push('no model ran');
    for (const f of failures) console.log(`FAIL: ${f}`);
    console.log(failures.length ? `FAIL: ${failures.length} failure(s)` : `PASS: ${rows.length} rows, ${models.length} models`);
    process.exit(failures.length ? 1 : 0);
}

// The logits' type: fp16 I/O graphs have float16 KV inputs (their logits follow them).
function logitsType(graph) {
    return Object.values(graph.inputs).some((d) => d.dataType === 'float16') ? 'float16' : 'float32';
}

function markdownTable(rows) {
    const fmt = (v) => (v == null ? '-' : v.toExponential(1));
    const lines = ['| model | set | browser max abs | webnnc runtime max abs | tolerance | build ms | compute ms | result |',
        '|---|---|---|---|---|---|---|---|'];
    for (const r of rows) {
        const what = r.decodeEqual !== undefined ? (r.decodeEqual ? 'tokens = hf_greedy' : 'tokens differ') : fmt(r.browserMaxAbs);
        lines.push(`| ${r.model} | ${r.set} | ${what} | ${r.decodeEqual !== undefined ? '-' : fmt(r.runtimeMaxAbs)} | ${r.tolerance ? r.tolerance.atol + (r.tolerance.argmax ? ' + argmax' : '') : '-'} | ${r.buildMs.toFixed(0)} | ${r.computeMs.toFixed(1)} | ${r.pass ? 'PASS' : 'FAIL'} |`);
    }
    return lines.join('\n') + '\n';
}

main().catch((e) => { console.log(`FAIL: ${e.stack ?? e}`); process.exit(1); });
