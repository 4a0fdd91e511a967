// argmap.js draws a debate's argument map as an SVG graph, with no framework
// and nothing fetched: window.drawArgumentMap(container, argumentMap, options).
//
// argumentMap is the JSON of duelogic.ArgumentMap (engine.ArgumentMap):
//
//   {moves: [{id, speaker, act, proposition, target, attack, round, text}],
//    arguments: [{id, base, text, side, move, score}],
//    relations: [{from, to, type, kind, derivation}],   // type 0 attack, 1 support
//    verdict: {winner, draw, sides: [{side, score, surviving, arguments}], surviving: [...]}}
//
// Keys are read in either case: maps stored before the JSON tags had
// capitalised keys (ID, Base, Sides, ...).
//
// options (all optional): sides, an array fixing the order (and so the
// colours) of the sides' columns, e.g. the participants; label, side -> name
// (a function or an object); color, side -> CSS colour (default: the page's
// chair colours by column); title, the SVG's accessible name.
//
// It replaces the container's children with: p.argmap-summary (counts in
// words), ul.argmap-legend, div.argmap-scroll holding svg.argmap-graph, and
// div.argmap-detail (aria-live; the argument hovered, focused or pinned). The
// SVG carries data-nodes, data-edges, data-supports, data-rebuts,
// data-undercuts, data-skipped (relations naming an argument the map lacks),
// data-sides and data-rounds. Each argument is a g.argmap-node (tabindex 0,
// role button, data-id, data-side, data-score, a <title>; .argmap-surviving
// when the verdict lists it as surviving) holding rect.argmap-box; each
// relation is a path.argmap-edge with .argmap-support, or .argmap-attack and
// .argmap-rebut or .argmap-undercut, and data-from, data-to, data-kind. It
// returns {svg, nodes, edges, supports, rebuts, undercuts, select(id)}.
// Calling it again on the same container (a live update) redraws, keeping
// the pinned and the focused argument and the scroll position.
//
// The layout is a grid and depends on nothing but the map: one band per
// round (from the move that introduced each argument), one column group per
// side, arguments in the order the map lists them. The same map always gives
// the same drawing, and no two argument boxes overlap. Every piece of model
// text is set as text (textContent), never parsed as HTML.
(function () {
  'use strict';

  const SVG_NS = 'http://www.w3.org/2000/svg';
  // The page's chair colours, in chair order.
  const PALETTE = ['#2563eb', '#d0306f', '#c26a00', '#0f8a5f', '#7242d6', '#0e7f9c', '#5b6472', '#a1461f'];
  const KINDS = ['support', 'rebut', 'undercut'];
  const VERB = { support: 'supports', rebut: 'rebuts', undercut: 'undercuts' };
  const PASSIVE = { support: 'Supported by', rebut: 'Rebutted by', undercut: 'Undercut by' };

  // Geometry, in SVG user units (pixels at scale 1).
  const NODE_W = 184;
  const NODE_H = 66;
  const COL_GAP = 34; // between the sub-columns of one side
  const SIDE_GAP = 22; // extra between sides
  const ROW_GAP = 14;
  const BAND_PAD = 14;
  const GUTTER = 78; // left, for the round labels
  const HEAD_H = 50; // top, for the side headers
  const RIGHT = 48; // right margin, room for edges that loop
  const PER_CELL = 4; // arguments of one side in one round before the side widens
  const MAX_COLS = 4; // columns in all before no side widens
  const TEXT_LINES = 2;
  const CHARS_PER_LINE = 30;

  let drawings = 0; // makes marker IDs unique in the document
  const state = new WeakMap(); // container -> {pinned}

  function field(o, ...names) {
    if (!o || typeof o !== 'object') return undefined;
    for (const n of names) {
      if (o[n] !== undefined && o[n] !== null) return o[n];
    }
    return undefined;
  }

  function str(v) {
    return v === undefined || v === null ? '' : String(v);
  }

  function clamp01(x) {
    return Math.min(1, Math.max(0, x));
  }

  // normalize reads the map's JSON tolerantly: missing pieces are empty.
  function normalize(am) {
    const moves = new Map();
    for (const m of field(am, 'moves', 'Moves') || []) {
      const id = str(field(m, 'id', 'ID'));
      if (!id || moves.has(id)) continue;
      const round = Number(field(m, 'round', 'Round'));
      moves.set(id, {
        id,
        act: str(field(m, 'act', 'Act')),
        speaker: str(field(m, 'speaker', 'Speaker')),
        round: Number.isFinite(round) ? round : 0,
      });
    }
    const args = [];
    const byID = new Map();
    for (const a of field(am, 'arguments', 'Arguments') || []) {
      const id = str(field(a, 'id', 'ID'));
      if (!id || byID.has(id)) continue;
      const base = Number(field(a, 'base', 'Base'));
      let score = Number(field(a, 'score', 'Score'));
      if (!Number.isFinite(score)) score = Number.isFinite(base) ? base : 0;
      const move = str(field(a, 'move', 'Move'));
      const arg = {
        id,
        text: str(field(a, 'text', 'Text')),
        side: str(field(a, 'side', 'Side')),
        move,
        base: Number.isFinite(base) ? base : null,
        score: clamp01(score),
        round: moves.has(move) ? moves.get(move).round : 0,
        order: args.length,
      };
      args.push(arg);
      byID.set(id, arg);
    }
    const rels = [];
    let skipped = 0;
    for (const r of field(am, 'relations', 'Relations') || []) {
      const from = str(field(r, 'from', 'From'));
      const to = str(field(r, 'to', 'To'));
      if (!byID.has(from) || !byID.has(to)) {
        skipped++;
        continue;
      }
      const type = field(r, 'type', 'Type');
      const kind = str(field(r, 'kind', 'Kind')).toLowerCase();
      let k = 'rebut';
      if (type === 1 || str(type).toLowerCase() === 'support') k = 'support';
      else if (kind.startsWith('undercut')) k = 'undercut';
      const derivation = field(r, 'derivation', 'Derivation');
      rels.push({
        from, to, kind: k, index: rels.length,
        derived: derivation !== undefined && derivation !== 0 && str(derivation) !== 'direct',
      });
    }
    const verdict = field(am, 'verdict', 'Verdict') || {};
    const sideScores = new Map();
    for (const s of field(verdict, 'sides', 'Sides') || []) {
      sideScores.set(str(field(s, 'side', 'Side')), s);
    }
    const surviving = new Set((field(verdict, 'surviving', 'Surviving') || []).map((a) => str(field(a, 'id', 'ID'))));
    return { moves, args, byID, rels, skipped, sideScores, surviving };
  }

  function lookup(opt, side, fallback) {
    if (typeof opt === 'function') {
      const v = opt(side);
      return v === undefined || v === null || v === '' ? fallback : String(v);
    }
    if (opt && typeof opt === 'object' && Object.prototype.hasOwnProperty.call(opt, side)) return String(opt[side]);
    return fallback;
  }

  // layout places every argument on the grid and returns the drawing's size.
  function layout(m, options) {
    const sides = [];
    for (const s of options.sides || []) {
      if (!sides.includes(String(s))) sides.push(String(s));
    }
    for (const a of m.args) {
      if (!sides.includes(a.side)) sides.push(a.side);
    }
    const rounds = [...new Set(m.args.map((a) => a.round))].sort((x, y) => x - y);
    const cells = new Map();
    for (const a of m.args) {
      const key = a.round + '\u0000' + a.side;
      if (!cells.has(key)) cells.set(key, []);
      cells.get(key).push(a);
    }
    let maxCell = 0;
    for (const c of cells.values()) maxCell = Math.max(maxCell, c.length);
    const sub = Math.max(1, Math.min(Math.floor(MAX_COLS / Math.max(1, sides.length)), Math.ceil(maxCell / PER_CELL)));
    const groupW = sub * NODE_W + (sub - 1) * COL_GAP;
    const sideX = (i) => GUTTER + i * (groupW + COL_GAP + SIDE_GAP);
    const bands = [];
    let y = HEAD_H;
    for (const r of rounds) {
      let rows = 1;
      for (const s of sides) {
        const c = cells.get(r + '\u0000' + s);
        if (c) rows = Math.max(rows, Math.ceil(c.length / sub));
      }
      const h = 2 * BAND_PAD + rows * NODE_H + (rows - 1) * ROW_GAP;
      bands.push({ round: r, y, h });
      sides.forEach((s, si) => {
        (cells.get(r + '\u0000' + s) || []).forEach((a, i) => {
          a.col = si * sub + (i % sub);
          a.x = sideX(si) + (i % sub) * (NODE_W + COL_GAP);
          a.y = y + BAND_PAD + Math.floor(i / sub) * (NODE_H + ROW_GAP);
          a.sideIndex = si;
        });
      });
      y += h;
    }
    const width = sides.length ? sideX(sides.length - 1) + groupW + RIGHT : GUTTER + NODE_W + RIGHT;
    return { sides, bands, sub, groupW, sideX, width, height: Math.max(y, HEAD_H + 40) + 8 };
  }

  // route gives each relation its ends on its boxes' sides, spread so that
  // edges meeting at one box do not share a point, and its path.
  function route(m) {
    const slots = new Map(); // "id|L" or "id|R" -> [{rel, end, other}]
    const add = (id, side, item) => {
      const k = id + '|' + side;
      if (!slots.has(k)) slots.set(k, []);
      slots.get(k).push(item);
    };
    for (const r of m.rels) {
      const a = m.byID.get(r.from);
      const b = m.byID.get(r.to);
      if (Math.abs(a.x - b.x) < 1) {
        r.shape = 'loop';
        r.fromSide = 'R';
        r.toSide = 'R';
      } else {
        r.shape = 'cross';
        r.fromSide = b.x > a.x ? 'R' : 'L';
        r.toSide = b.x > a.x ? 'L' : 'R';
      }
      add(a.id, r.fromSide, { rel: r, end: 'from', other: b });
      add(b.id, r.toSide, { rel: r, end: 'to', other: a });
    }
    for (const [k, list] of slots) {
      const node = m.byID.get(k.slice(0, k.lastIndexOf('|')));
      list.sort((p, q) => p.other.y - q.other.y || p.other.x - q.other.x || p.rel.index - q.rel.index ||
        (p.end === 'from' ? -1 : 1));
      const top = node.y + 10;
      const span = NODE_H - 20;
      list.forEach((s, i) => {
        const y = list.length === 1 ? node.y + NODE_H / 2 : top + (span * i) / (list.length - 1);
        s.rel[s.end + 'Y'] = y;
      });
    }
    for (const r of m.rels) {
      const a = m.byID.get(r.from);
      const b = m.byID.get(r.to);
      const sx = r.fromSide === 'R' ? a.x + NODE_W : a.x;
      const tx = r.toSide === 'R' ? b.x + NODE_W : b.x;
      const sy = r.fromY;
      const ty = r.toY;
      let d;
      if (r.shape === 'loop') {
        const bulge = 22 + Math.min(26, Math.abs(ty - sy) * 0.06);
        d = `M${f(sx)},${f(sy)} C${f(sx + bulge)},${f(sy)} ${f(tx + bulge)},${f(ty)} ${f(tx)},${f(ty)}`;
      } else {
        const dir = tx > sx ? 1 : -1;
        const h = Math.max(24, Math.abs(tx - sx) * 0.45);
        d = `M${f(sx)},${f(sy)} C${f(sx + dir * h)},${f(sy)} ${f(tx - dir * h)},${f(ty)} ${f(tx)},${f(ty)}`;
      }
      r.d = d;
    }
  }

  function f(x) {
    return String(Math.round(x * 10) / 10);
  }

  function svg(tag, attrs, ...children) {
    const e = document.createElementNS(SVG_NS, tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v !== undefined && v !== null) e.setAttribute(k, String(v));
    }
    for (const c of children) {
      if (c !== undefined && c !== null) e.append(c);
    }
    return e;
  }

  function html(tag, attrs, ...children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === undefined || v === null) continue;
      if (k === 'text') e.textContent = String(v);
      else e.setAttribute(k, String(v));
    }
    for (const c of children) {
      if (c !== undefined && c !== null) e.append(c);
    }
    return e;
  }

  // wrap breaks text into at most n lines of about width characters, the
  // last ending in an ellipsis when text is longer.
  function wrap(text, width, n) {
    const words = text.replace(/\s+/g, ' ').trim().split(' ').filter(Boolean);
    const lines = [];
    let line = '';
    let i = 0;
    for (; i < words.length; i++) {
      let w = words[i];
      if (w.length > width) w = w.slice(0, width - 1) + '…';
      const next = line ? line + ' ' + w : w;
      if (next.length <= width) {
        line = next;
        continue;
      }
      lines.push(line);
      line = w;
      if (lines.length === n) break;
    }
    if (lines.length < n && line) {
      lines.push(line);
      line = '';
    }
    if (i < words.length || line) {
      let last = lines[lines.length - 1] || '';
      if (last.length > width - 1) last = last.slice(0, width - 1);
      lines[lines.length - 1] = last.replace(/[\s,.;:]+$/, '') + '…';
    }
    return lines;
  }

  // fit shortens text elements whose content is wider than max. It
  // measures with a canvas in the elements' computed font, so that drawing
  // never makes the browser lay the page out once per element.
  function fit(els, max) {
    if (els.length === 0) return;
    const cs = getComputedStyle(els[0]);
    const ctx = document.createElement('canvas').getContext('2d');
    if (!ctx || !cs.fontSize) return;
    ctx.font = `${cs.fontStyle} ${cs.fontWeight} ${cs.fontSize} ${cs.fontFamily}`;
    for (const el of els) {
      let s = el.textContent;
      if (ctx.measureText(s).width <= max) continue;
      s = s.replace(/…$/, '');
      while (s.length > 1 && ctx.measureText(s + '…').width > max) s = s.slice(0, -1);
      el.textContent = s.trimEnd() + '…';
    }
  }

  function roundLabel(r) {
    return r === 0 ? 'Opening' : 'Round ' + r;
  }

  function score2(x) {
    return (Math.round(x * 100) / 100).toFixed(2);
  }

  // drawArgumentMap draws am into container, replacing what the container
  // held, and returns {svg, nodes, edges, supports, rebuts, undercuts,
  // select(id)}. options: sides (side order, e.g. the participants),
  // label (side -> name: a function or an object), color (side -> CSS
  // colour), title (the SVG's accessible name).
  function drawArgumentMap(container, am, options) {
    if (!container || typeof container.replaceChildren !== 'function') {
      throw new TypeError('drawArgumentMap: container must be an element');
    }
    options = options || {};
    const prev = state.get(container) || {};
    const oldScroll = container.querySelector(':scope > .argmap-scroll');
    const scroll = oldScroll ? { left: oldScroll.scrollLeft, top: oldScroll.scrollTop } : null;
    const active = document.activeElement;
    const focusID = active && container.contains(active) && active.dataset ? active.dataset.id : undefined;

    const m = normalize(am);
    const L = layout(m, options);
    route(m);
    const label = (s) => lookup(options.label, s, s || '(no side)');
    const color = (s) => lookup(options.color, s, PALETTE[L.sides.indexOf(s) % PALETTE.length]);
    const prefix = 'argmap' + ++drawings;
    const counts = { support: 0, rebut: 0, undercut: 0 };
    for (const r of m.rels) counts[r.kind]++;

    container.classList.add('argmap-view');

    // The picture.
    const root = svg('svg', {
      class: 'argmap-graph',
      width: L.width,
      height: L.height,
      viewBox: `0 0 ${L.width} ${L.height}`,
      role: 'group',
      'aria-label': options.title || 'Argument map',
      'data-nodes': m.args.length,
      'data-edges': m.rels.length,
      'data-supports': counts.support,
      'data-rebuts': counts.rebut,
      'data-undercuts': counts.undercut,
      'data-skipped': m.skipped,
      'data-sides': L.sides.length,
      'data-rounds': L.bands.length,
    });
    root.style.minWidth = Math.round(Math.min(L.width, Math.max(640, L.width * 0.75))) + 'px';
    const defs = svg('defs');
    const marker = (kind, shape) => svg('marker', {
      id: `${prefix}-${kind}`,
      class: `argmap-marker argmap-marker-${kind}`,
      viewBox: '0 0 12 12',
      refX: 11.5,
      refY: 6,
      markerWidth: 12,
      markerHeight: 12,
      markerUnits: 'userSpaceOnUse',
      orient: 'auto',
    }, shape);
    defs.append(
      marker('support', svg('path', { d: 'M1,1.5 L11,6 L1,10.5 Z' })),
      marker('rebut', svg('path', { d: 'M0,1 L11.5,6 L0,11 Z' })),
      marker('undercut', svg('path', { d: 'M9,0 L12,0 L12,12 L9,12 Z M0,4.8 L9,4.8 L9,7.2 L0,7.2 Z' })),
    );
    root.append(defs);

    const bands = svg('g', { class: 'argmap-bands' });
    L.bands.forEach((b, i) => {
      bands.append(
        svg('rect', { class: 'argmap-band' + (i % 2 ? ' argmap-band-alt' : ''), x: 0, y: b.y, width: L.width, height: b.h }),
        svg('text', { class: 'argmap-round', x: 12, y: b.y + BAND_PAD + 14 }, roundLabel(b.round)),
      );
    });
    root.append(bands);

    const heads = svg('g', { class: 'argmap-heads' });
    L.sides.forEach((s, i) => {
      const x = L.sideX(i) + L.groupW / 2;
      const name = svg('text', { class: 'argmap-side', x, y: 20, 'text-anchor': 'middle', fill: color(s) }, label(s));
      const sc = m.sideScores.get(s);
      let line = '';
      if (sc) {
        const n = Number(field(sc, 'arguments', 'Arguments')) || 0;
        const surv = Number(field(sc, 'surviving', 'Surviving')) || 0;
        line = `score ${score2(Number(field(sc, 'score', 'Score')) || 0)} · ${surv} of ${n} survive`;
      }
      heads.append(svg('g', { class: 'argmap-head', 'data-side': s }, name,
        line ? svg('text', { class: 'argmap-side-score', x, y: 38, 'text-anchor': 'middle' }, line) : null));
    });
    root.append(heads);

    const edges = svg('g', { class: 'argmap-edges' });
    const edgeEls = [];
    for (const r of m.rels) {
      const cls = ['argmap-edge', 'argmap-' + r.kind, r.kind === 'support' ? '' : 'argmap-attack', r.derived ? 'argmap-derived' : '']
        .filter(Boolean).join(' ');
      const p = svg('path', {
        class: cls,
        d: r.d,
        'marker-end': `url(#${prefix}-${r.kind})`,
        'data-from': r.from,
        'data-to': r.to,
        'data-kind': r.kind,
      }, svg('title', {}, `${r.from} ${VERB[r.kind]} ${r.to}${r.derived ? ' (derived)' : ''}`));
      edges.append(p);
      edgeEls.push(p);
    }
    root.append(edges);

    const nodes = svg('g', { class: 'argmap-nodes' });
    const nodeEls = new Map();
    const ordered = [...m.args].sort((a, b) => a.y - b.y || a.x - b.x);
    for (const a of ordered) {
      const c = color(a.side);
      const survives = m.surviving.has(a.id);
      const lines = wrap(a.text, CHARS_PER_LINE, TEXT_LINES);
      const g = svg('g', {
        class: 'argmap-node' + (survives ? ' argmap-surviving' : ''),
        tabindex: 0,
        role: 'button',
        'aria-pressed': 'false',
        'data-id': a.id,
        'data-side': a.side,
        'data-score': score2(a.score),
      },
      svg('title', {}, `${a.id}, ${label(a.side)}, strength ${score2(a.score)}${survives ? ', survives' : ''}: ${a.text}`),
      svg('rect', { class: 'argmap-ring', x: a.x - 4, y: a.y - 4, width: NODE_W + 8, height: NODE_H + 8, rx: 11 }),
      svg('rect', { class: 'argmap-box', x: a.x, y: a.y, width: NODE_W, height: NODE_H, rx: 8, stroke: c }),
      svg('rect', {
        class: 'argmap-shade', x: a.x, y: a.y, width: NODE_W, height: NODE_H, rx: 8,
        fill: c, 'fill-opacity': (0.05 + 0.4 * a.score).toFixed(3),
      }),
      svg('text', { class: 'argmap-id', x: a.x + 10, y: a.y + 16 }, a.id),
      svg('text', { class: 'argmap-score', x: a.x + NODE_W - 10, y: a.y + 16, 'text-anchor': 'end' }, score2(a.score)),
      svg('text', { class: 'argmap-text', x: a.x + 10, y: a.y + 33 },
        ...lines.map((l, i) => svg('tspan', { x: a.x + 10, dy: i ? 14 : 0 }, l))),
      svg('rect', { class: 'argmap-bar-bg', x: a.x + 10, y: a.y + NODE_H - 9, width: NODE_W - 20, height: 4, rx: 2 }),
      svg('rect', { class: 'argmap-bar', x: a.x + 10, y: a.y + NODE_H - 9, width: f((NODE_W - 20) * a.score), height: 4, rx: 2, fill: c }),
      );
      nodes.append(g);
      nodeEls.set(a.id, g);
    }
    root.append(nodes);

    // The legend, the summary and the detail panel (HTML).
    const legend = html('ul', { class: 'argmap-legend', 'aria-label': 'Legend' });
    for (const s of L.sides) {
      const sw = html('span', { class: 'argmap-swatch', 'aria-hidden': 'true' });
      sw.style.background = color(s);
      legend.append(html('li', { class: 'argmap-legend-side' }, sw, html('span', { text: label(s) })));
    }
    for (const k of KINDS) {
      const icon = svg('svg', { class: 'argmap-legend-edge', width: 40, height: 12, viewBox: '0 0 40 12', 'aria-hidden': 'true' },
        svg('path', { class: `argmap-edge argmap-${k}${k === 'support' ? '' : ' argmap-attack'}`, d: 'M2,6 L37,6', 'marker-end': `url(#${prefix}-${k})` }));
      legend.append(html('li', { class: 'argmap-legend-' + k }, icon, html('span', { text: VERB[k] })));
    }
    legend.append(
      html('li', { class: 'argmap-legend-strength' },
        html('span', { class: 'argmap-swatch argmap-swatch-strength', 'aria-hidden': 'true' }),
        html('span', { text: 'deeper shade, longer bar: stronger' })),
      html('li', { class: 'argmap-legend-surviving' },
        html('span', { class: 'argmap-swatch argmap-swatch-surviving', 'aria-hidden': 'true' }),
        html('span', { text: 'bold border: survives' })),
    );

    const rounds = L.bands.length;
    const attacks = counts.rebut + counts.undercut;
    const summary = html('p', {
      class: 'argmap-summary',
      text: m.args.length === 0 ? 'No arguments mapped yet.'
        : `${m.args.length} argument${m.args.length === 1 ? '' : 's'} by ${L.sides.length} side${L.sides.length === 1 ? '' : 's'} ` +
          `over ${rounds} round${rounds === 1 ? '' : 's'}; ${attacks} attack${attacks === 1 ? '' : 's'} ` +
          `(${counts.rebut} rebut${counts.rebut === 1 ? '' : 's'}, ${counts.undercut} undercut${counts.undercut === 1 ? '' : 's'}) ` +
          `and ${counts.support} support${counts.support === 1 ? '' : 's'}.`,
    });
    const hint = 'Hover over, focus (Tab) or click an argument to read it; Enter or a click keeps it shown, Escape clears.';
    const detail = html('div', { class: 'argmap-detail', 'aria-live': 'polite' });
    const scroller = html('div', { class: 'argmap-scroll' }, root);
    container.replaceChildren(summary, legend, scroller, detail);
    if (scroll) {
      scroller.scrollLeft = scroll.left;
      scroller.scrollTop = scroll.top;
    }

    // Text that can be measured only now that it is in the document.
    fit(root.querySelectorAll('.argmap-text tspan'), NODE_W - 20);
    fit(root.querySelectorAll('.argmap-side'), L.groupW + COL_GAP);

    // Interaction: hover and focus show an argument, a click or Enter pins it.
    const st = { pinned: null, onKey: null };
    state.set(container, st);
    const related = (id) => m.rels.filter((r) => r.from === id || r.to === id);

    function show(id) {
      for (const e of root.querySelectorAll('.argmap-on, .argmap-near')) e.classList.remove('argmap-on', 'argmap-near');
      for (const [nid, g] of nodeEls) g.setAttribute('aria-pressed', String(nid === st.pinned));
      const a = id ? m.byID.get(id) : null;
      detail.classList.toggle('argmap-idle', !a);
      detail.classList.toggle('argmap-transient', !!a && id !== st.pinned);
      if (!a) {
        root.classList.remove('argmap-highlight');
        detail.replaceChildren(html('p', { class: 'argmap-hint', text: m.args.length ? hint : '' }));
        delete detail.dataset.id;
        return;
      }
      root.classList.add('argmap-highlight');
      nodeEls.get(id).classList.add('argmap-on');
      const rels = related(id);
      for (const r of rels) {
        edgeEls[r.index].classList.add('argmap-on');
        nodeEls.get(r.from === id ? r.to : r.from).classList.add('argmap-near');
      }
      const sw = html('span', { class: 'argmap-swatch', 'aria-hidden': 'true' });
      sw.style.background = color(a.side);
      const survives = m.surviving.has(a.id);
      const base = a.base === null ? '' : ` (base ${score2(a.base)})`;
      const head = html('div', { class: 'argmap-detail-head' },
        html('strong', { class: 'argmap-detail-id', text: a.id }), ' ', sw, ' ',
        html('span', { class: 'argmap-detail-side', text: label(a.side) }), ' ',
        html('span', { class: 'argmap-detail-score', text: `strength ${score2(a.score)}${base}${survives ? ' · survives' : ''}` }));
      const body = html('p', { class: 'argmap-detail-text', text: a.text });
      const list = html('ul', { class: 'argmap-detail-rels' });
      for (const r of rels) {
        const out = r.from === id;
        const other = m.byID.get(out ? r.to : r.from);
        const words = out ? VERB[r.kind][0].toUpperCase() + VERB[r.kind].slice(1) : PASSIVE[r.kind];
        const go = html('button', { type: 'button', class: 'argmap-goto', 'data-id': other.id, text: other.id });
        go.addEventListener('click', () => {
          st.pinned = other.id;
          show(other.id);
          nodeEls.get(other.id).focus();
        });
        list.append(html('li', { class: 'argmap-rel-' + r.kind }, `${words} `, go, ` — ${wrap(other.text, 90, 1)[0] || ''}`));
      }
      const mv = m.moves.get(a.move);
      const from = mv ? html('p', {
        class: 'argmap-detail-move',
        text: `Introduced by move ${mv.id} (${mv.act || 'move'}, ${roundLabel(mv.round).toLowerCase()}).`,
      }) : null;
      detail.replaceChildren(...[head, body, rels.length ? list : null, from].filter(Boolean));
      detail.dataset.id = a.id;
    }

    // rest is what shows when the pointer leaves: the focused argument, else
    // the pinned one.
    const rest = () => {
      const f = document.activeElement;
      return f && f !== document.body && root.contains(f) && f.dataset.id ? f.dataset.id : st.pinned;
    };
    for (const [id, g] of nodeEls) {
      g.addEventListener('mouseenter', () => show(id));
      g.addEventListener('mouseleave', () => show(rest()));
      g.addEventListener('focus', () => show(id));
      g.addEventListener('blur', () => show(st.pinned));
      g.addEventListener('click', () => {
        st.pinned = st.pinned === id ? null : id;
        show(st.pinned || id);
      });
      g.addEventListener('keydown', (ev) => {
        if (ev.key === 'Enter' || ev.key === ' ') {
          ev.preventDefault();
          st.pinned = st.pinned === id ? null : id;
          show(st.pinned || id);
        }
      });
    }
    // Escape anywhere in the map clears what is shown.
    st.onKey = (ev) => {
      if (ev.key !== 'Escape') return;
      st.pinned = null;
      if (root.contains(document.activeElement)) document.activeElement.blur();
      show(null);
    };
    if (prev.onKey) container.removeEventListener('keydown', prev.onKey);
    container.addEventListener('keydown', st.onKey);

    // A redraw (a live update) keeps what was pinned and focused.
    if (prev.pinned && m.byID.has(prev.pinned)) st.pinned = prev.pinned;
    if (focusID && nodeEls.has(focusID)) nodeEls.get(focusID).focus({ preventScroll: true });
    show(focusID && nodeEls.has(focusID) ? focusID : st.pinned);

    return {
      svg: root,
      nodes: m.args.length,
      edges: m.rels.length,
      supports: counts.support,
      rebuts: counts.rebut,
      undercuts: counts.undercut,
      // select shows (and pins) an argument by ID, or clears with null.
      select(id) {
        st.pinned = id && m.byID.has(id) ? id : null;
        show(st.pinned);
        return st.pinned !== null;
      },
    };
  }

  window.drawArgumentMap = drawArgumentMap;
})();
