// chromium.mjs - headless Chromium with WebNN for tests (issue 12): installs the npm package
// @sparticuz/chromium@153.0.0 into a git-ignored folder on first use, decompresses its binary and
// libraries the way that package does (brotli + tar), starts it on a URL with WebNN enabled and
// stops it.  Reusable by any test that needs a real browser (e.g. HTML screenshots):
//
//   import { ensureChromium, launchChromium } from './chromium.mjs';
//   const exe = await ensureChromium(cacheDir);          // throws Error with a plain reason
//   const b = launchChromium(exe, url, { extraArgs: [] }); // { proc, stderr(), close() }
//   ... the page reports back by POST to a local server (--dump-dom never returns in this build) ...
//   await b.close();
//
// With { cdp: true } the browser also speaks the DevTools protocol over a pipe (fds 3/4, no
// WebSocket needed, works with Debian's node 18): b.cdp.send(method, params, sessionId) -> result,
// b.cdp.on(method, (params, sessionId) => ...) for its events (Runtime.exceptionThrown, ...),
// and screenshotPng(b, { width, height }) -> Buffer of the first page (e.g. `webnnc view` tests):
//   const b = launchChromium(exe, url, { cdp: true }); const png = await screenshotPng(b);
// (--screenshot, like --dump-dom, never exits in this build.)
//
// Pages cannot print to us, so results travel through tests/browser/serve.mjs (POST /report).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync, chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { brotliDecompressSync } from 'node:zlib';

export const CHROMIUM_PACKAGE = '@sparticuz/chromium@153.0.0';
export const WEBNN_ARGS = ['--headless', '--no-sandbox', '--enable-features=WebMachineLearningNeuralNetwork'];

function run(cmd, args, opts) {
    const r = spawnSync(cmd, args, { encoding: 'utf8', ...opts });
    if (r.error) throw new Error(`${cmd}: ${r.error.message}`);
    if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.status}: ${(r.stderr || '').trim().slice(-400)}`);
    return r;
}

// Installs and unpacks the browser under cacheDir (once); returns the chromium executable path.
export async function ensureChromium(cacheDir) {
    const unpacked = join(cacheDir, 'chrome');
    const exe = join(unpacked, 'chromium');
    if (existsSync(join(unpacked, '.complete'))) return exe;
    mkdirSync(cacheDir, { recursive: true });
    const bin = join(cacheDir, 'node_modules', '@sparticuz', 'chromium', 'bin');
    if (!existsSync(join(bin, 'chromium.br'))) {
        if (!existsSync(join(cacheDir, 'package.json'))) writeFileSync(join(cacheDir, 'package.json'), '{"private":true}\n');
        run('npm', ['install', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error', CHROMIUM_PACKAGE], { cwd: cacheDir });
        if (!existsSync(join(bin, 'chromium.br'))) throw new Error(`npm installed ${CHROMIUM_PACKAGE} but ${bin}/chromium.br is missing`);
    }
    mkdirSync(join(unpacked, 'al2023'), { recursive: true });
    for (const f of ['al2023.tar', 'swiftshader.tar', 'fonts.tar']) {
        const tar = join(unpacked, f);
        writeFileSync(tar, brotliDecompressSync(readFileSync(join(bin, f + '.br'))));
        run('tar', ['-xf', tar, '-C', f === 'al2023.tar' ? join(unpacked, 'al2023') : unpacked]);
        rmSync(tar);
    }
    writeFileSync(exe, brotliDecompressSync(readFileSync(join(bin, 'chromium.br'))));
    chmodSync(exe, 0o755);
    writeFileSync(join(unpacked, '.complete'), CHROMIUM_PACKAGE + '\n');
    return exe;
}

// Starts the browser on url.  close() kills it (only this process) and removes its profile.
export function launchChromium(exe, url, { extraArgs = [], cdp = false } = {}) {
    const dir = join(exe, '..');
    const profile = mkdtempSync(join(tmpdir(), 'webnnc-chromium-'));
    const fontsConf = join(dir, 'fonts.webnnc.conf'); // the package's fonts.conf names /tmp/fonts
    if (!existsSync(fontsConf))
        writeFileSync(fontsConf, `<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "fonts.dtd">\n<fontconfig><dir>${join(dir, 'fonts')}</dir>`
            + `<cachedir>${join(dir, 'fonts-cache')}</cachedir></fontconfig>\n`);
    const env = {
        ...process.env,
        LD_PRELOAD: '', // the sanitizer runs preload a Vulkan driver for webnnc, not for the browser
        LD_LIBRARY_PATH: [join(dir, 'al2023', 'lib'), dir, process.env.LD_LIBRARY_PATH].filter(Boolean).join(':'),
        FONTCONFIG_FILE: fontsConf,
        HOME: profile,
    };
    const args = [...WEBNN_ARGS, `--user-data-dir=${profile}`, '--no-first-run', '--no-zygote',
        '--use-gl=angle', '--use-angle=swiftshader', '--enable-unsafe-swiftshader', '--disable-dev-shm-usage',
        cdp ? '--remote-debugging-pipe' : '--remote-debugging-port=0', ...extraArgs, url];
    const proc = spawn(exe, args, { env, stdio: ['ignore', 'ignore', 'pipe', ...(cdp ? ['pipe', 'pipe'] : [])] });
    let err = '';
    proc.stderr.on('data', (d) => { err = (err + d).slice(-20000); });
    const exited = new Promise((res) => proc.on('exit', (code, sig) => res({ code, sig })));
    proc.on('error', (e) => { err += `\nspawn failed: ${e.message}`; });
    return {
        proc,
        exited,
        cdp: cdp ? cdpPipe(proc.stdio[3], proc.stdio[4]) : null,
        stderr: () => err,
        async close() {
            if (proc.exitCode === null && proc.signalCode === null) {
                proc.kill('SIGTERM');
                const t = setTimeout(() => proc.kill('SIGKILL'), 3000);
                await exited;
                clearTimeout(t);
            }
            rmSync(profile, { recursive: true, force: true });
        },
    };
}

// DevTools protocol over --remote-debugging-pipe: NUL-terminated JSON messages.
function cdpPipe(toBrowser, fromBrowser) {
    let next = 1, buf = '';
    const pending = new Map(), listeners = new Map();
    fromBrowser.setEncoding('utf8');
    fromBrowser.on('data', (d) => {
        buf += d;
        for (let i; (i = buf.indexOf('\0')) >= 0; buf = buf.slice(i + 1)) {
            const msg = JSON.parse(buf.slice(0, i));
            if (msg.method && msg.id === undefined) for (const fn of listeners.get(msg.method) || []) fn(msg.params, msg.sessionId);
            const p = pending.get(msg.id);
            if (!p) continue;
            pending.delete(msg.id);
            if (msg.error) p.reject(new Error(`${p.method}: ${msg.error.message}`)); else p.resolve(msg.result);
        }
    });
    toBrowser.on('error', () => {});
    return {
        send(method, params = {}, sessionId) {
            const id = next++;
            toBrowser.write(JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) }) + '\0');
            return new Promise((resolve, reject) => pending.set(id, { resolve, reject, method }));
        },
        on(method, fn) { listeners.set(method, [...(listeners.get(method) || []), fn]); },
    };
}

// PNG of the browser's first page once its document has loaded (launchChromium with { cdp: true }).
export async function screenshotPng(b, { width = 1024, height = 768, timeoutMs = 30000 } = {}) {
    const { targetInfos } = await b.cdp.send('Target.getTargets');
    const page = targetInfos.find((t) => t.type === 'page');
    if (!page) throw new Error('no page target');
    const { sessionId } = await b.cdp.send('Target.attachToTarget', { targetId: page.targetId, flatten: true });
    await b.cdp.send('Page.enable', {}, sessionId); // without it the capture is blank
    await b.cdp.send('Emulation.setDeviceMetricsOverride', { width, height, deviceScaleFactor: 1, mobile: false }, sessionId);
    // The page target exists before the launch URL has replaced the initial about:blank, whose
    // readyState is already 'complete' and whose context the navigation destroys: wait for the
    // launch document itself, asking again when an evaluation lands on a context that went away.
    const loaded = "document.readyState === 'complete' && location.href !== 'about:blank'";
    for (const t0 = Date.now(); ;) {
        let r = null;
        try {
            r = await b.cdp.send('Runtime.evaluate', { expression: loaded, returnByValue: true }, sessionId);
        } catch (e) {
            if (!/context was destroyed|Cannot find context/.test(e.message)) throw e;
        }
        if (r?.result?.value === true) break;
        if (Date.now() - t0 > timeoutMs) throw new Error('page did not finish loading');
        await new Promise((res) => setTimeout(res, 100));
    }
    // a frame painted after the metrics override (rAF twice), then the capture
    await b.cdp.send('Runtime.evaluate', { expression: 'new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))', awaitPromise: true }, sessionId);
    const { data } = await b.cdp.send('Page.captureScreenshot', { format: 'png' }, sessionId);
    return Buffer.from(data, 'base64');
}
