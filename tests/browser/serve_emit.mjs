// serve_emit.mjs - browser tests of `webnnc serve` and `webnnc emit-js` (issue 12) on
// testdata/tiny_decoder.onnx: serve answers only GET/HEAD for names inside its folders (raw HTTP
// requests with traversal attempts, absolute paths, a symlink planted in the served folder, odd methods,
// oversized requests), its page runs the model in
// headless Chromium's WebNN against the test set (parity within 1e-4), and a module written by
// emit-js builds and computes the same graph in the browser; chromium.mjs's screenshotPng paints a page.
//   node tests/browser/serve_emit.mjs WEBNNC [--work DIR] [--cache DIR]
// Exit 0 pass, 1 fail, 77 skipped (no browser, outside CI=true; the reason is printed).
import { spawn, spawnSync } from 'node:child_process';
import { connect } from 'node:net';
import { mkdirSync, rmSync, symlinkSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureChromium, launchChromium, screenshotPng } from './chromium.mjs';
import { startServer } from './serve.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, '..', '..');
const argv = process.argv.slice(2);
const opt = (k, d) => { const i = argv.indexOf(k); return i >= 0 ? argv[i + 1] : d; };
const webnnc = resolve(argv[0] ?? '');
const work = resolve(opt('--work', join(repo, 'build', 'browser-serve')));
const cache = resolve(opt('--cache', process.env.WEBNNC_CHROMIUM_CACHE || join(repo, 'build-chromium')));
const set = join(repo, 'testdata', 'tiny_decoder', 'test_data_set_0');
const failures = [];
const check = (ok, what) => { console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}`); if (!ok) failures.push(what); };

function raw(port, text) {
    return new Promise((res) => {
        const s = connect(port, '127.0.0.1', () => s.end(text));
        let got = '';
        s.on('data', (d) => { got += d; });
        s.on('close', () => res(got.split('\r\n')[0]));
        s.on('error', (e) => res(`error ${e.message}`));
    });
}

async function browserReport(exe, url, server) {
    const b = launchChromium(exe, url);
    try { return await server.nextReport(120000); } catch (e) { return { ok: false, error: e.message }; } finally { await b.close(); }
}

async function main() {
    rmSync(work, { recursive: true, force: true });
    mkdirSync(work, { recursive: true });
    const out = join(work, 'tiny_decoder');
    let r = spawnSync(webnnc, ['convert', join(repo, 'testdata', 'tiny_decoder.onnx'), '-o', out], { encoding: 'utf8' });
    check(r.status === 0, `convert tiny_decoder: ${r.stderr.trim()}`);
    r = spawnSync(webnnc, ['emit-js', out, '-o', join(work, 'model.js')], { encoding: 'utf8' });
    check(r.status === 0, `emit-js writes a module ${r.stderr.trim()}`);
    r = spawnSync(webnnc, ['emit-js', join(work, 'missing')], { encoding: 'utf8' });
    check(r.status === 2 && r.stderr.trim().split('\n').length === 1, `emit-js of a missing folder: exit 2, one line (${r.stderr.trim()})`);
    r = spawnSync(webnnc, ['serve', join(work, 'missing')], { encoding: 'utf8' });
    check(r.status === 2 && /not a webnnc output folder/.test(r.stderr), `serve of a missing folder: exit 2 (${r.stderr.trim()})`);

    symlinkSync('/etc/passwd', join(out, 'linked.json')); // serve must not follow it out of the folder
    const srv = spawn(webnnc, ['serve', out, '--port', '0', '--set', set], { stdio: ['ignore', 'pipe', 'inherit'] });
    const line = await new Promise((res) => { srv.stdout.once('data', (d) => res(String(d))); srv.once('exit', () => res('')); });
    const port = Number(/127\.0\.0\.1:(\d+)/.exec(line)?.[1]);
    check(port > 0, `serve prints its address (${line.trim()})`);
    const reporter = await startServer({ work, t: here, set });
    try {
        const cases = [['GET / HTTP/1.0\r\n\r\n', '302'], ['GET /model/model.webnn.json HTTP/1.0\r\n\r\n', '200'],
            ['GET /model/../../etc/passwd HTTP/1.0\r\n\r\n', '400'], ['GET /model/%2e%2e/x HTTP/1.0\r\n\r\n', '400'],
            ['GET /sets/0/../../../etc/passwd HTTP/1.0\r\n\r\n', '400'], ['GET /model/.secret HTTP/1.0\r\n\r\n', '400'],
            ['GET /sets/1/ HTTP/1.0\r\n\r\n', '404'], ['POST /model/x HTTP/1.0\r\n\r\n', '405'],
            ['GET /web/run.js HTTP/1.0\r\n\r\n', '200'], ['garbage\r\n\r\n', '400'],
            // absolute paths, and a symlink in the folder pointing out of it (planted below)
            ['GET //etc/passwd HTTP/1.0\r\n\r\n', '400'], ['GET /model//etc/passwd HTTP/1.0\r\n\r\n', '400'],
            ['GET /model/linked.json HTTP/1.0\r\n\r\n', '404']];
        for (const [req, want] of cases) {
            const status = await raw(port, req);
            check(status.includes(` ${want} `), `serve: ${JSON.stringify(req.split('\r\n')[0])} -> ${want} (${status})`);
        }
        let exe;
        try { exe = await ensureChromium(cache); } catch (e) {
            console.log(`${process.env.CI === 'true' ? 'FAIL' : 'SKIP'}: headless Chromium is not available: ${e.message}`);
            process.exit(failures.length || process.env.CI === 'true' ? 1 : 77);
        }
        const page = `http://127.0.0.1:${port}/web/run.html?model=/model/&sets=/sets/0/&report=${encodeURIComponent(reporter.url + '/report')}`;
        const rep = await browserReport(exe, page, reporter);
        const maxAbs = rep.sets?.[0]?.rows?.[0]?.maxAbs;
        check(rep.ok && maxAbs <= 1e-4, `served page runs tiny_decoder in WebNN: logits max abs ${maxAbs} ${rep.error ?? ''}`);
        const shot = launchChromium(exe, 'data:text/html,<body style="background:%23ddf"><h1>webnnc</h1></body>', { cdp: true });
        let png = Buffer.alloc(0);
        try { png = await screenshotPng(shot, { width: 320, height: 120 }); } catch (e) { console.log(`screenshot: ${e.message}`); } finally { await shot.close(); }
        check(png.subarray(1, 4).toString() === 'PNG' && png.length > 1500, `chromium.mjs screenshotPng paints text (${png.length} bytes PNG)`);
        const em = await browserReport(exe, `${reporter.url}/t/emit_js.html?module=/work/model.js&base=/work/tiny_decoder/&set=/set/`, reporter);
        check(em.ok, `emit-js module builds and computes in WebNN: max abs ${em.maxAbs} over ${em.outputs} output(s) ${em.error ?? ''}`);
    } finally {
        srv.kill();
        await reporter.close();
    }
    console.log(failures.length ? `FAIL: ${failures.length} failure(s)` : 'PASS');
    process.exit(failures.length ? 1 : 0);
}

main().catch((e) => { console.log(`FAIL: ${e.stack ?? e}`); process.exit(1); });
