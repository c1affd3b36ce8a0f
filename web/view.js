// view.js - draws the graph of a `webnnc view` page (web/view.html): reads the JSON of the
// graph-data element, lays the graph out in layers (longest path from the inputs, then a few
// barycentre sweeps to order each layer, Sugiyama-style without dummy nodes), draws it as SVG with
// pan and zoom, and shows a clicked node's operands, outputs, options and constants in the panel.
// Names from the model only ever reach the page through textContent and attribute values.
'use strict';
(function () {
    const G = JSON.parse(document.getElementById('graph-data').textContent);
    const SVG = 'http://www.w3.org/2000/svg';
    const W = 170, H = 38, GAP_X = 24, GAP_Y = 46;
    const $ = (id) => document.getElementById(id);
    const el = (tag, attrs, text) => {
        const e = document.createElementNS(tag === 'svg' || /^(g|rect|text|path|title)$/.test(tag) ? SVG : 'http://www.w3.org/1999/xhtml', tag);
        for (const k in attrs || {}) e.setAttribute(k, attrs[k]);
        if (text !== undefined) e.textContent = text;
        return e;
    };
    const short = (s, n) => (s.length > n ? s.slice(0, n - 1) + '\u2026' : s);

    // Vertices: graph inputs, nodes, graph outputs.  v.pred / v.succ hold vertex indices.
    const verts = [], inputVertex = new Map();
    G.inputs.forEach((vi) => { inputVertex.set(vi, verts.length); verts.push({ kind: 'input', value: vi }); });
    const base = verts.length;
    G.nodes.forEach((n, i) => verts.push({ kind: 'node', node: i }));
    G.outputs.forEach((vi) => verts.push({ kind: 'output', value: vi }));
    const edges = []; // [from, to, value]
    const source = (vi) => { const v = G.values[vi]; return v.p !== undefined ? base + v.p : inputVertex.get(vi); };
    G.nodes.forEach((n, i) => {
        for (const [, vi] of n.in) {
            const s = source(vi);
            if (s !== undefined && G.values[vi].k !== 'constant') edges.push([s, base + i, vi]);
        }
    });
    G.outputs.forEach((vi, k) => { const s = source(vi); if (s !== undefined) edges.push([s, base + G.nodes.length + k, vi]); });
    for (const v of verts) { v.pred = []; v.succ = []; v.edges = []; }
    edges.forEach(([a, b], e) => { verts[a].succ.push(b); verts[b].pred.push(a); verts[a].edges.push(e); verts[b].edges.push(e); });

    // Layers: longest path (nodes come in topological order, outputs after their producers).
    verts.forEach((v) => { v.layer = 0; for (const p of v.pred) v.layer = Math.max(v.layer, verts[p].layer + 1); });
    const layers = [];
    verts.forEach((v, i) => (layers[v.layer] = layers[v.layer] || []).push(i));
    layers.forEach((l) => l.forEach((i, k) => (verts[i].pos = k)));
    const sweep = (down) => {
        const order = down ? layers : layers.slice().reverse();
        for (const l of order) {
            for (const i of l) {
                const nb = down ? verts[i].pred : verts[i].succ;
                verts[i].bc = nb.length ? nb.reduce((s, j) => s + verts[j].pos, 0) / nb.length : verts[i].pos;
            }
            l.sort((a, b) => verts[a].bc - verts[b].bc);
            l.forEach((i, k) => (verts[i].pos = k));
        }
    };
    for (let it = 0; it < 4; it++) { sweep(true); sweep(false); }
    const widest = Math.max(1, ...layers.map((l) => l.length));
    layers.forEach((l, y) => l.forEach((i, k) => {
        verts[i].x = (k + (widest - l.length) / 2) * (W + GAP_X);
        verts[i].y = y * (H + GAP_Y);
    }));
    const totalW = widest * (W + GAP_X), totalH = layers.length * (H + GAP_Y);

    // Drawing.
    const svg = el('svg', { 'aria-label': 'graph' });
    const view = el('g');
    svg.appendChild(view);
    $('canvas').appendChild(svg);
    const edgeEls = edges.map(([a, b, vi]) => {
        const A = verts[a], B = verts[b], x1 = A.x + W / 2, y1 = A.y + H, x2 = B.x + W / 2, y2 = B.y, my = (y1 + y2) / 2;
        const p = el('path', { class: 'edge', d: `M${x1},${y1}C${x1},${my} ${x2},${my} ${x2},${y2}` });
        p.appendChild(el('title', {}, `${G.values[vi].n}: ${G.values[vi].t}`)); // the tooltip
        view.appendChild(p);
        return p;
    });
    const fam = G.families;
    const vertEls = verts.map((v, i) => {
        const g = el('g', { class: 'node', transform: `translate(${v.x},${v.y})`, 'data-vertex': i });
        let colour = '#ffffcc', head = 'input', name = '';
        if (v.kind === 'node') {
            const n = G.nodes[v.node];
            colour = fam[n.f][1], head = n.op + (n.ext ? ' (ext)' : ''), name = n.id;
            if (n.ext) g.classList.add('ext');
            g.setAttribute('data-node', v.node);
        } else {
            colour = v.kind === 'input' ? '#ffffcc' : '#ccebc5', head = v.kind, name = G.values[v.value].n;
        }
        g.appendChild(el('rect', { width: W, height: H, rx: v.kind === 'node' ? 5 : 18, fill: colour }));
        g.appendChild(el('text', { x: 6, y: 15, class: 'op' }, short(head, 26)));
        g.appendChild(el('text', { x: 6, y: 30 }, short(name, 28)));
        g.addEventListener('click', (ev) => { ev.stopPropagation(); select(i); });
        view.appendChild(g);
        return g;
    });

    // Pan and zoom (the transform of `view`).
    let tx = 10, ty = 10, scale = 1;
    const apply = () => view.setAttribute('transform', `translate(${tx},${ty}) scale(${scale})`);
    const fit = () => {
        const r = svg.getBoundingClientRect();
        scale = Math.max(0.05, Math.min(1, (r.width - 20) / Math.max(1, totalW))); // tall graphs: the top, full width
        tx = Math.max(10, (r.width - totalW * scale) / 2), ty = 10;
        apply();
    };
    $('whole').addEventListener('click', () => { // the whole graph in the window
        const r = svg.getBoundingClientRect();
        scale = Math.max(0.002, Math.min(1, (r.width - 20) / Math.max(1, totalW), (r.height - 20) / Math.max(1, totalH)));
        tx = (r.width - totalW * scale) / 2, ty = 10;
        apply();
    });
    svg.addEventListener('wheel', (ev) => {
        ev.preventDefault();
        const r = svg.getBoundingClientRect(), mx = ev.clientX - r.left, my = ev.clientY - r.top;
        const k = Math.exp(-ev.deltaY * 0.0015), s = Math.max(0.002, Math.min(4, scale * k));
        tx = mx - (mx - tx) * (s / scale), ty = my - (my - ty) * (s / scale), scale = s;
        apply();
    }, { passive: false });
    let drag = null;
    svg.addEventListener('mousedown', (ev) => { drag = { x: ev.clientX - tx, y: ev.clientY - ty }; });
    window.addEventListener('mousemove', (ev) => { if (drag) { tx = ev.clientX - drag.x, ty = ev.clientY - drag.y; apply(); } });
    window.addEventListener('mouseup', () => { drag = null; });
    const centre = (i) => {
        const r = svg.getBoundingClientRect(), v = verts[i];
        tx = r.width / 2 - (v.x + W / 2) * scale, ty = r.height / 3 - (v.y + H / 2) * scale;
        apply();
    };

    // The panel.
    const panel = $('panel');
    const row = (table, cells) => {
        const tr = el('tr');
        for (const c of cells) { const td = el('td'); if (c instanceof Node) td.appendChild(c); else td.textContent = c; tr.appendChild(td); }
        table.appendChild(tr);
    };
    const link = (text, vertex) => { const a = el('a', {}, text); a.addEventListener('click', () => { select(vertex); centre(vertex); }); return a; };
    const producer = (vi) => { const s = source(vi); return s === undefined ? '' : link(s >= base && s < base + G.nodes.length ? G.nodes[s - base].id : 'input', s); };
    const valueKind = (v) => (v.k === 'constant' ? `constant, ${v.bytes.toLocaleString('en')} bytes` : v.k || '');
    const section = (title) => { panel.appendChild(el('h3', {}, title)); const t = el('table'); panel.appendChild(t); return t; };
    const docFor = (op) => {
        const lines = (G.docs || '').split('\n'), start = lines.findIndex((l) => /^#{2,3} /.test(l) && l.replace(/^#+ /, '').trim() === op);
        if (start < 0) return '';
        let end = start + 1;
        while (end < lines.length && !/^#{1,3} /.test(lines[end])) end++;
        return lines.slice(start, end).join('\n').trim();
    };
    let selected = -1;
    function select(i) {
        if (selected >= 0) { vertEls[selected].classList.remove('sel'); for (const e of verts[selected].edges) edgeEls[e].classList.remove('hot'); }
        selected = i;
        vertEls[i].classList.add('sel');
        for (const e of verts[i].edges) edgeEls[e].classList.add('hot');
        panel.replaceChildren();
        const v = verts[i];
        if (v.kind !== 'node') {
            const val = G.values[v.value];
            panel.appendChild(el('h2', {}, `graph ${v.kind}: ${val.n}`));
            const t = section('value');
            row(t, ['type', val.t]);
            if (val.o) row(t, ['original name', val.o]);
            return;
        }
        const n = G.nodes[v.node];
        const h = el('h2', {}, `${n.op} `);
        if (n.ext) h.appendChild(el('span', { class: 'ext-badge', title: 'webnnc extension op' }, 'webnnc extension'));
        panel.appendChild(h);
        const t = section('node');
        row(t, ['id', n.id]);
        if (n.origin) row(t, ['original name', n.origin]);
        row(t, ['family', fam[n.f][0]]);
        const ops = section('operands');
        let weights = 0;
        for (const [slot, vi] of n.in) {
            const val = G.values[vi];
            if (val.k === 'constant') weights += val.bytes;
            row(ops, [slot, val.n, val.t, valueKind(val) || producer(vi)]);
        }
        const outs = section('outputs');
        for (const vi of n.out) row(outs, [G.values[vi].n, G.values[vi].t, G.values[vi].out ? 'graph output' : '']);
        const opts = section('options');
        if (!n.opts.length) row(opts, ['(none)']);
        for (const [k, val] of n.opts) row(opts, [k, val]);
        panel.appendChild(el('p', {}, `constant operands: ${weights.toLocaleString('en')} bytes`));
        if (n.ext) {
            const d = el('details', { open: '' });
            d.appendChild(el('summary', {}, 'what this fused op stands for'));
            d.appendChild(el('p', { class: 'note' }, 'This graph does not record which nodes a fusion replaced (the IR keeps no provenance), '
                + 'so here is the op\u2019s description from docs/extension-ops.md instead.'));
            d.appendChild(el('pre', {}, docFor(n.op) || `${n.op}: no description found`));
            panel.appendChild(d);
        }
    }

    // Header: title, counts, legend, search.
    $('title').textContent = `webnnc view: ${G.graph}`;
    document.title = `webnnc view: ${G.graph}`;
    const nExt = G.nodes.filter((n) => n.ext).length;
    $('stats').textContent = `${G.source} \u2014 ${G.nodes.length} nodes, ${G.inputs.length} inputs, ${G.outputs.length} outputs, ${layers.length} layers`
        + (nExt ? `, ${nExt} extension ops (red border)` : '');
    for (const [name, colour] of fam) {
        const s = el('span');
        s.appendChild(el('i', { style: `background:${colour}` }));
        s.appendChild(document.createTextNode(name));
        $('legend').appendChild(s);
    }
    $('search').addEventListener('input', (ev) => {
        const q = ev.target.value.trim().toLowerCase();
        if (!q) { $('found').textContent = ''; return; }
        const hits = G.nodes.map((n, i) => i).filter((i) => [G.nodes[i].op, G.nodes[i].id, G.nodes[i].origin || ''].some((s) => s.toLowerCase().includes(q)));
        $('found').textContent = `${hits.length} found`;
        if (hits.length) { select(base + hits[0]); centre(base + hits[0]); }
    });
    fit();
    window.addEventListener('resize', fit);
    window.webnncView = { nodes: G.nodes.length, select: (i) => select(base + i), vertices: verts.length };
    document.body.setAttribute('data-ready', '1');
})();
