// serve.mjs - a small static HTTP server on 127.0.0.1 for browser tests: GET /<mount>/<path> reads
// from the folder mounted there (no traversal: resolved paths must stay inside it), POST /report
// lists a folder as a JSON array of its file names, POST /report hands the request body (JSON) to whoever waits in nextReport().  Used by run_browser.mjs and
// reusable by other browser tests together with chromium.mjs.
import { createServer } from 'node:http';
import { createReadStream, statSync, readdirSync } from 'node:fs';
import { resolve, sep, extname } from 'node:path';

const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.mjs': 'text/javascript', '.json': 'application/json',
    '.css': 'text/css', '.svg': 'image/svg+xml', '.png': 'image/png' };

// mounts: { name: folder } served as /name/...; resolves to { url, nextReport(timeoutMs), close() }.
export function startServer(mounts) {
    const waiters = [];
    const reports = [];
    const server = createServer((req, res) => {
        const url = new URL(req.url, 'http://127.0.0.1');
        if (req.method === 'POST' && url.pathname === '/report') {
            let body = '';
            req.setEncoding('utf8');
            req.on('data', (d) => { body += d; });
            req.on('end', () => {
                res.writeHead(204).end();
                let msg;
                try { msg = JSON.parse(body); } catch { msg = { ok: false, error: 'report is not JSON' }; }
                const w = waiters.shift();
                if (w) w(msg); else reports.push(msg);
            });
            return;
        }
        const parts = decodeURIComponent(url.pathname).split('/').filter(Boolean);
        const root = mounts[parts[0]];
        if (req.method !== 'GET' || !root) return res.writeHead(404).end();
        const base = resolve(root);
        const file = resolve(base, ...parts.slice(1));
        if (file !== base && !file.startsWith(base + sep)) return res.writeHead(403).end();
        let st;
        try { st = statSync(file); } catch { return res.writeHead(404).end(); }
        if (st.isDirectory()) {
            const names = readdirSync(file, { withFileTypes: true }).filter((e) => e.isFile()).map((e) => e.name).sort();
            return res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(names));
        }
        if (!st.isFile()) return res.writeHead(404).end();
        res.writeHead(200, { 'Content-Type': TYPES[extname(file)] || 'application/octet-stream', 'Content-Length': st.size,
            'Cache-Control': 'no-store' });
        createReadStream(file).pipe(res);
    });
    return new Promise((ok, fail) => {
        server.on('error', fail);
        server.listen(0, '127.0.0.1', () => ok({
            url: `http://127.0.0.1:${server.address().port}`,
            nextReport(timeoutMs) {
                if (reports.length) return Promise.resolve(reports.shift());
                return new Promise((res, rej) => {
                    const t = setTimeout(() => { waiters.splice(waiters.indexOf(w), 1); rej(new Error(`no report from the page within ${timeoutMs / 1000} s`)); }, timeoutMs);
                    const w = (m) => { clearTimeout(t); res(m); };
                    waiters.push(w);
                });
            },
            close: () => new Promise((r) => { server.closeAllConnections?.(); server.close(() => r()); }),
        }));
    });
}
