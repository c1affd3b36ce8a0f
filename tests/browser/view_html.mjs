// view_html.mjs - the pages of `webnnc view FILE.html` (issue 13) in headless Chromium: the fused
// testdata/tiny_decoder.onnx, a graph whose names hold `</script><img src=x onerror=alert(1)>`,
// and a 3000-node graph are opened from file://; no console error, exception or CSP report; the
// page draws every node; a real mouse click on a node fills the panel with its op, operands and
// options (the extension op's description for a fused node); hostile names show as text, never as
// elements; the screenshot (chromium.mjs screenshotPng) is not blank: decoded with node's zlib,
// enough pixels differ from the background and several node colours appear.
//   node tests/browser/view_html.mjs WEBNNC [--work DIR] [--cache DIR]
// Exit 0 pass, 1 fail, 77 skipped (no browser, outside CI=true; the reason is printed).
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { inflateSync } from 'node:zlib';
import { ensureChromium, launchChromium, screenshotPng } from './chromium.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, '..', '..');
const argv = process.argv.slice(2);
const opt = (k, d) => { const i = argv.indexOf(k); return i >= 0 ? argv[i + 1] : d; };
const webnnc = resolve(argv[0] ?? '');
const work = resolve(opt('--work', join(repo, 'build', 'browser-view')));
const cache = resolve(opt('--cache', process.env.WEBNNC_CHROMIUM_CACHE || join(repo, 'build-chromium')));
const HOSTILE = '</script><img src=x onerror=alert(1)>"\'&\u2028';
const failures = [];
const check = (ok, what) => { console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}`); if (!ok) failures.push(what); };

// RGB(A) pixels of a PNG (8-bit truecolour, as Chromium writes them): { width, height, pixel(x, y) }.
export function decodePng(png) {
    let pos = 8, width = 0, height = 0, channels = 0;
    const idat = [];
    while (pos < png.length) {
        const len = png.readUInt32BE(pos), type = png.toString('latin1', pos + 4, pos + 8), body = png.subarray(pos + 8, pos + 8 + len);
        if (type === 'IHDR') {
            width = body.readUInt32BE(0), height = body.readUInt32BE(4);
            if (body[8] !== 8 || ![2, 6].includes(body[9]) || body[12] !== 0) throw new Error('not an 8-bit RGB(A) non-interlaced PNG');
            channels = body[9] === 6 ? 4 : 3;
        } else if (type === 'IDAT') idat.push(body);
        pos += 12 + len;
    }
    const raw = inflateSync(Buffer.concat(idat)), stride = width * channels, out = Buffer.alloc(stride * height);
    for (let y = 0; y < height; y++) {
        const f = raw[y * (stride + 1)], row = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
        for (let i = 0; i < stride; i++) {
            const a = i >= channels ? out[y * stride + i - channels] : 0, b = y ? out[(y - 1) * stride + i] : 0;
            const c = y && i >= channels ? out[(y - 1) * stride + i - channels] : 0;
            const p = a + b - c, pa = Math.abs(p - a), pb = Math.abs(p - b), pc = Math.abs(p - c);
            const pred = [0, a, b, (a + b) >> 1, pa <= pb && pa <= pc ? a : pb <= pc ? b : c][f];
            out[y * stride + i] = (row[i] + pred) & 255;
        }
    }
    return { width, height, pixel: (x, y) => out.readUIntBE(y * stride + x * channels, 3) };
}

// Share of pixels that differ from the most common colour, and how many colours cover >= 0.05 %.
function paint(png) {
    const img = decodePng(png), counts = new Map();
    for (let y = 0; y < img.height; y++) for (let x = 0; x < img.width; x++) { const p = img.pixel(x, y); counts.set(p, (counts.get(p) || 0) + 1); }
    const total = img.width * img.height, bg = Math.max(...counts.values());
    return { inked: 1 - bg / total, colours: [...counts.values()].filter((n) => n >= total * 0.0005).length };
}

function view(src, out, ...extra) {
    const r = spawnSync(webnnc, ['view', src, '-o', out, ...extra], { encoding: 'utf8' });
    check(r.status === 0, `webnnc view ${src.split('/').pop()} ${extra.join(' ')} -> ${out.split('/').pop()} ${r.stderr.trim()}`);
}

// Opens the page, collects console errors / exceptions, clicks the first node in view and reads
// back what the page shows; then a screenshot.
async function openPage(exe, file, { width = 1200, height = 800 } = {}) {
    const b = launchChromium(exe, 'about:blank', { cdp: true });
    const errors = [];
    try {
        const { targetInfos } = await b.cdp.send('Target.getTargets');
        const page = targetInfos.find((t) => t.type === 'page');
        const { sessionId } = await b.cdp.send('Target.attachToTarget', { targetId: page.targetId, flatten: true });
        b.cdp.on('Runtime.exceptionThrown', (p) => errors.push(p.exceptionDetails?.exception?.description || p.exceptionDetails?.text));
        b.cdp.on('Runtime.consoleAPICalled', (p) => { if (p.type === 'error' || p.type === 'assert') errors.push(p.args.map((a) => a.value ?? a.description).join(' ')); });
        b.cdp.on('Log.entryAdded', (p) => { if (p.entry.level === 'error') errors.push(`${p.entry.source}: ${p.entry.text}`); });
        for (const d of ['Runtime', 'Log', 'Page']) await b.cdp.send(`${d}.enable`, {}, sessionId);
        await b.cdp.send('Emulation.setDeviceMetricsOverride', { width, height, deviceScaleFactor: 1, mobile: false }, sessionId);
        await b.cdp.send('Page.navigate', { url: pathToFileURL(file).href }, sessionId);
        const evaluate = async (expression) => (await b.cdp.send('Runtime.evaluate', { expression, returnByValue: true, awaitPromise: true }, sessionId)).result?.value;
        for (const t0 = Date.now(); await evaluate("document.readyState + ':' + document.body?.getAttribute('data-ready')") !== 'complete:1';) {
            if (Date.now() - t0 > 60000) { errors.push('page did not finish drawing in 60 s'); break; }
            await new Promise((res) => setTimeout(res, 100));
        }
        const drawn = await evaluate("[document.querySelectorAll('[data-node]').length, window.webnncView?.nodes]");
        const target = await evaluate(`(() => { for (const g of document.querySelectorAll('[data-node]')) {
            const r = g.getBoundingClientRect(), x = r.left + r.width / 2, y = r.top + r.height / 2;
            if (x > 0 && y > 0 && x < innerWidth - 400 && y < innerHeight && document.elementFromPoint(x, y)?.closest('[data-node]') === g)
                return { x, y, node: +g.getAttribute('data-node') }; } return null; })()`);
        if (target) {
            for (const type of ['mousePressed', 'mouseReleased'])
                await b.cdp.send('Input.dispatchMouseEvent', { type, x: target.x, y: target.y, button: 'left', clickCount: 1 }, sessionId);
        }
        const panel = await evaluate("document.getElementById('panel').innerText");
        const selected = await evaluate("document.querySelectorAll('.node.sel').length");
        const elements = await evaluate("[...document.querySelectorAll('img, iframe, object, embed')].length");
        const title = await evaluate('document.title');
        const extPanel = await evaluate(`(() => { const g = document.querySelector('.node.ext');
            if (!g) return null; window.webnncView.select(+g.getAttribute('data-node')); return document.getElementById('panel').innerText; })()`);
        const png = await screenshotPng(b, { width, height });
        writeFileSync(file + '.png', png);
        return { errors, drawn, target, panel, selected, elements, title, extPanel, png };
    } finally {
        await b.close();
    }
}

function evilGraph(path) {
    const g = {
        format: 'webnn-graph-json', version: 2, name: 'evil' + HOSTILE,
        inputs: { ['x' + HOSTILE]: { dataType: 'float32', shape: [2, 4] } },
        consts: { ['c' + HOSTILE]: { dataType: 'float32', shape: [4], init: { kind: 'inlineBytes', bytes: new Array(16).fill(0) } } },
        nodes: [{ id: 'a' + HOSTILE, op: 'add', inputs: ['x' + HOSTILE, 'c' + HOSTILE], options: {} },
            { id: 'r' + HOSTILE, op: 'relu', inputs: ['a' + HOSTILE], options: {} }],
        outputs: { ['y' + HOSTILE]: 'r' + HOSTILE },
    };
    writeFileSync(path, JSON.stringify(g));
}

function largeGraph(path, n) {
    const nodes = [];
    for (let i = 0; i < n; i++) {
        const op = ['add', 'relu', 'mul', 'sigmoid'][i % 4], prev = i ? `n${i - 1}` : 'x';
        const inputs = op === 'add' || op === 'mul' ? [prev, i >= 8 && i % 8 === 0 ? `n${i - 7}` : 'x'] : [prev];
        nodes.push({ id: `n${i}`, op, inputs, options: {} });
    }
    writeFileSync(path, JSON.stringify({ format: 'webnn-graph-json', version: 2, name: 'large', inputs: { x: { dataType: 'float32', shape: [4] } },
        consts: {}, nodes, outputs: { y: `n${n - 1}` } }));
}

async function main() {
    rmSync(work, { recursive: true, force: true });
    mkdirSync(work, { recursive: true });
    let exe;
    try { exe = await ensureChromium(cache); } catch (e) {
        console.log(`${process.env.CI === 'true' ? 'FAIL' : 'SKIP'}: headless Chromium is not available: ${e.message}`);
        process.exit(process.env.CI === 'true' ? 1 : 77);
    }
    const tiny = join(work, 'tiny.html'), evil = join(work, 'evil.html'), large = join(work, 'large.html');
    view(join(repo, 'testdata', 'tiny_decoder.onnx'), tiny, '--fuse', 'all');
    evilGraph(join(work, 'evil.webnn.json'));
    view(join(work, 'evil.webnn.json'), evil);
    largeGraph(join(work, 'large.webnn.json'), 3000);
    view(join(work, 'large.webnn.json'), large);

    const t = await openPage(exe, tiny);
    check(t.errors.length === 0, `tiny: no console errors (${t.errors.join(' | ')})`);
    check(t.drawn[0] === t.drawn[1] && t.drawn[0] > 10, `tiny: every node drawn (${t.drawn})`);
    check(t.target && t.selected === 1 && /operands/.test(t.panel) && /options/.test(t.panel) && /outputs/.test(t.panel),
        `tiny: a click on node ${t.target?.node} selects it and shows operands, outputs, options (${t.panel.slice(0, 80).replace(/\n/g, ' ')})`);
    check(t.extPanel && /webnnc extension/.test(t.extPanel) && /docs\/extension-ops\.md/.test(t.extPanel) && /Operands|`/.test(t.extPanel),
        `tiny --fuse all: an extension op's panel has its description (${(t.extPanel || '').slice(0, 60).replace(/\n/g, ' ')})`);
    const p = paint(t.png);
    check(p.inked > 0.02 && p.colours >= 4, `tiny: screenshot not blank (${(p.inked * 100).toFixed(1)} % inked, ${p.colours} colours)`);

    const e = await openPage(exe, evil);
    check(e.errors.length === 0, `hostile names: no console errors (${e.errors.join(' | ')})`);
    check(e.elements === 0 && e.title === `webnnc view: evil${HOSTILE}`, `hostile names: no injected elements, the name shown as text`);
    check(e.target && e.selected === 1 && e.panel.includes('onerror'), 'hostile names: the clicked node\'s panel shows the names as text');

    const l = await openPage(exe, large);
    check(l.errors.length === 0 && l.drawn[0] === 3000, `3000 nodes: drawn without errors (${l.drawn}; ${l.errors.join(' | ')})`);
    check(l.target && l.selected === 1, '3000 nodes: a node can be clicked');
    const lp = paint(l.png);
    check(lp.inked > 0.01, `3000 nodes: screenshot not blank (${(lp.inked * 100).toFixed(1)} % inked)`);

    console.log(failures.length ? `${failures.length} failed` : 'all passed');
    process.exit(failures.length ? 1 : 0);
}

main().catch((e) => { console.log(`FAIL ${e.stack}`); process.exit(1); });
