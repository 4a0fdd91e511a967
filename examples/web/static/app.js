// The Duelogic page: set up a debate, then watch it live from its event
// stream. Everything a model wrote reaches the page as text (textContent and
// Text nodes); nothing is ever parsed as HTML.
'use strict';

const $ = (id) => document.getElementById(id);

// el builds an element: props sets class, text, dataset or attributes;
// children are nodes or strings (appended as Text nodes).
function el(tag, props, ...children) {
  const n = document.createElement(tag);
  for (const [k, v] of Object.entries(props || {})) {
    if (v == null || v === false) continue;
    if (k === 'class') n.className = v;
    else if (k === 'text') n.textContent = v;
    else if (k === 'dataset') Object.assign(n.dataset, v);
    else n.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children) if (c != null) n.append(c);
  return n;
}

const api = {
  async get(path) {
    const r = await fetch(path, { headers: { Accept: 'application/json' } });
    const body = await r.json().catch(() => ({}));
    if (!r.ok) throw Object.assign(new Error(body.error || r.statusText), { body, status: r.status });
    return body;
  },
  async post(path, data) {
    const r = await fetch(path, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
      body: JSON.stringify(data),
    });
    const body = await r.json().catch(() => ({}));
    if (!r.ok) throw Object.assign(new Error(body.error || r.statusText), { body, status: r.status });
    return body;
  },
};

const SEGMENTS = {
  introduction: 'Introduction',
  opening: 'Opening statements',
  exchange: 'The exchange',
  synthesis: 'Synthesis',
};

const state = {
  catalog: new Map(), // framework id → info
  presets: [],
  models: [],
  defaults: null,
  config: null,
  es: null,
  streaming: new Map(), // speaker → card being streamed
  bySeq: new Map(), // utterance seq → card
  lastBySpeaker: new Map(), // speaker → its last card
};

// ---- setup ----------------------------------------------------------------

async function init() {
  const [chairs, presets, models, defaults] = await Promise.all(
    ['chairs', 'presets', 'models', 'defaults'].map((p) => api.get('/api/duelogic/' + p)));
  for (const c of chairs) state.catalog.set(c.id, c);
  state.presets = presets;
  state.models = models;
  state.defaults = defaults;

  const sel = $('preset');
  for (const p of presets) sel.append(el('option', { value: p.id, text: p.name }));
  sel.addEventListener('change', showPreset);
  showPreset();

  for (const c of defaults.chairs) addChairRow(c.framework, c.modelId);
  $('add-chair').addEventListener('click', () => {
    const n = $('chair-rows').children.length;
    addChairRow(null, models[n % models.length].id);
  });
  for (const r of document.querySelectorAll('input[name=mode]')) {
    r.addEventListener('change', () => {
      const custom = document.querySelector('input[name=mode]:checked').value === 'custom';
      $('preset-box').hidden = custom;
      $('custom-box').hidden = !custom;
    });
  }
  $('setup-form').addEventListener('submit', start);
  $('interject').addEventListener('submit', interject);
  $('new-debate').addEventListener('click', () => {
    location.hash = '';
    reset();
    $('debate').hidden = true;
    $('setup').hidden = false;
  });

  const id = decodeURIComponent(location.hash.slice(1));
  if (id) watch(id);
}

function frameworkName(id) {
  const f = state.catalog.get(id);
  return f ? f.name.replace(/ Chair$/, '') : id;
}

function showPreset() {
  const p = state.presets.find((p) => p.id === $('preset').value);
  if (!p) return;
  $('preset-about').textContent = p.description + ' — ' + p.frameworks.map(frameworkName).join(' · ');
}

function addChairRow(framework, modelId) {
  const rows = $('chair-rows');
  if (rows.children.length >= 6) return;
  const fw = el('select', { class: 'framework', 'aria-label': 'Framework' });
  const groups = { philosophical: el('optgroup', { label: 'Philosophical frameworks' }),
    perspective: el('optgroup', { label: 'Engineering perspectives' }) };
  for (const f of state.catalog.values()) {
    (groups[f.kind] || groups.philosophical).append(el('option', { value: f.id, text: f.name }));
  }
  fw.append(groups.philosophical, groups.perspective);
  const used = [...rows.querySelectorAll('select.framework')].map((s) => s.value);
  fw.value = framework || [...state.catalog.keys()].find((k) => !used.includes(k));
  const model = el('select', { class: 'model', 'aria-label': 'Model' });
  for (const m of state.models) model.append(el('option', { value: m.id, text: `${m.displayName} (${m.provider})` }));
  model.value = modelId;
  const remove = el('button', { type: 'button', class: 'ghost small', title: 'Remove this chair', text: '✕' });
  const row = el('div', { class: 'chair-row' }, el('span', { class: 'seat' }), fw, model, remove);
  remove.addEventListener('click', () => {
    if (rows.children.length > 2) { row.remove(); numberRows(); }
  });
  rows.append(row);
  numberRows();
}

function numberRows() {
  [...$('chair-rows').children].forEach((row, i) => { row.querySelector('.seat').textContent = `Chair ${i + 1}`; });
}

function modelInfo(id, i) {
  return state.models.find((m) => m.id === id) || state.models[i % state.models.length];
}

function chosenChairs() {
  let picks;
  if (document.querySelector('input[name=mode]:checked').value === 'preset') {
    const p = state.presets.find((p) => p.id === $('preset').value);
    picks = p.frameworks.map((f, i) => ({ framework: f, model: state.models[i % state.models.length].id }));
  } else {
    picks = [...$('chair-rows').children].map((row) => ({
      framework: row.querySelector('.framework').value, model: row.querySelector('.model').value }));
  }
  return picks.map((c, i) => {
    const m = modelInfo(c.model, i);
    return { position: `chair_${i + 1}`, framework: c.framework, modelId: m.id,
      modelDisplayName: m.displayName, providerName: m.provider };
  });
}

async function start(ev) {
  ev.preventDefault();
  const errors = $('errors');
  errors.replaceChildren();
  errors.hidden = true;
  const config = {
    chairs: chosenChairs(),
    flow: { maxExchanges: Number($('exchanges').value) },
    arbiter: { accountabilityLevel: $('accountability').value },
    tone: $('tone').value,
    interruptions: { enabled: $('interruptions').checked },
  };
  $('start').disabled = true;
  try {
    const res = await api.post('/api/debates/duelogic', { proposition: $('proposition').value, config });
    location.hash = encodeURIComponent(res.id);
    show(res.id, res.config, $('proposition').value);
  } catch (err) {
    const list = (err.body && err.body.violations) || [];
    for (const v of list) errors.append(el('li', {}, el('code', { text: v.field }), ' ', v.problem));
    if (!list.length) errors.append(el('li', { text: err.message }));
    errors.hidden = false;
  } finally {
    $('start').disabled = false;
  }
}

async function watch(id) {
  try {
    const d = await api.get('/api/debates/' + encodeURIComponent(id));
    show(id, d.config, d.proposition);
  } catch (err) {
    location.hash = '';
  }
}

// ---- the debate -----------------------------------------------------------

function reset() {
  if (state.es) state.es.close();
  state.es = null;
  state.streaming.clear();
  state.bySeq.clear();
  state.lastBySpeaker.clear();
  for (const id of ['timeline', 'roster', 'metric-tiles', 'chair-table', 'usage']) $(id).replaceChildren();
  $('metrics').hidden = true;
  $('argmap').hidden = true;
  $('stop-reason').hidden = true;
}

function show(id, config, proposition) {
  reset();
  state.config = config;
  $('setup').hidden = true;
  $('debate').hidden = false;
  $('title').textContent = proposition;
  $('debate-id').textContent = id;
  setStatus('running');

  const roster = $('roster');
  const target = $('interject-target');
  target.replaceChildren(el('option', { value: '', text: 'the last speaker' }));
  (config.chairs || []).forEach((c, i) => {
    const who = speaker(c.position);
    roster.append(el('div', { class: 'chip', dataset: { chair: String(i % 6) } },
      el('span', { class: 'avatar', text: who.initials }),
      el('span', {}, el('strong', { text: who.name }), el('small', { text: who.role }))));
    target.append(el('option', { value: c.position, text: `${who.name} (${who.role})` }));
  });
  $('interject').hidden = false;
  $('interject-note').textContent = '';
  window.scrollTo(0, 0);
  connect(id);
}

// speaker describes a speaker for display.
function speaker(position) {
  const cfg = state.config || {};
  if (position === 'arbiter') {
    const a = cfg.arbiter || {};
    return { name: 'Arbiter', role: (a.modelDisplayName || a.modelId || 'host') + ' · host & referee', initials: '⚖', index: 'arbiter' };
  }
  const chairs = cfg.chairs || [];
  const i = chairs.findIndex((c) => c.position === position);
  if (i < 0) return { name: position, role: '', initials: position.slice(0, 2).toUpperCase(), index: '0' };
  const c = chairs[i];
  const name = c.modelDisplayName || c.modelId;
  const words = name.split(/[\s-]+/).filter((w) => /^[A-Za-z]/.test(w));
  const initials = (words.length > 1 ? words[0][0] + words[1][0] : (words[0] || name).slice(0, 2)).toUpperCase();
  return { name, role: frameworkName(c.framework), initials, index: String(i % 6) };
}

function setStatus(s, detail) {
  const pill = $('status');
  pill.className = 'status ' + s;
  pill.textContent = s;
  if (detail) {
    $('stop-reason').textContent = detail;
    $('stop-reason').hidden = false;
  }
  if (s !== 'running') $('interject').hidden = true;
}

function connect(id) {
  const es = new EventSource('/api/debates/' + encodeURIComponent(id) + '/events');
  state.es = es;
  const types = ['debate_started', 'segment_started', 'segment_ended', 'token', 'utterance',
    'evaluation', 'interruption', 'debate_ended', 'argument_map'];
  for (const t of types) {
    es.addEventListener(t, (m) => {
      const follow = nearBottom();
      handle(JSON.parse(m.data));
      if (follow) window.scrollTo(0, document.body.scrollHeight);
    });
  }
  es.addEventListener('stopped', (m) => {
    const d = JSON.parse(m.data);
    es.close();
    setStatus('stopped', d.error ? 'The debate stopped: ' + d.error : 'The debate is not running.');
  });
  // The browser gives up on a stream answered with an error (the server
  // restarted and lost the debate, say): say so rather than stay "running".
  es.addEventListener('error', () => {
    if (es.readyState === EventSource.CLOSED) {
      setStatus('stopped', 'The event stream was closed by the server.');
    }
  });
}

function nearBottom() {
  return window.innerHeight + window.scrollY >= document.body.scrollHeight - 160;
}

function handle(e) {
  switch (e.type) {
    case 'segment_started':
      $('timeline').append(el('div', { class: 'segment' },
        el('span', { text: SEGMENTS[e.segment] || e.segment })));
      break;
    case 'token': {
      let card = state.streaming.get(e.speaker);
      if (!card) {
        card = newCard(e.speaker);
        card.classList.add('streaming');
        state.streaming.set(e.speaker, card);
      }
      card.textNode.appendData(e.delta);
      break;
    }
    case 'utterance':
      finish(e.utterance);
      break;
    case 'evaluation':
      evaluate(state.lastBySpeaker.get(e.speaker), e.evaluation);
      break;
    case 'interruption':
      interruption(e);
      break;
    case 'argument_map':
      argumentMap();
      break;
    case 'debate_ended':
      state.es.close();
      setStatus('finished');
      metrics(e.data && e.data.detail && { metrics: e.data.detail.metrics, usage: e.data.usage });
      showArguments(e.debateId, e.data && e.data.arguments);
      break;
  }
}

// newCard appends a card for speaker, with an empty Text node to stream into.
function newCard(position) {
  const who = speaker(position);
  const text = document.createTextNode('');
  const card = el('article', { class: 'card', dataset: { speaker: position, chair: who.index } },
    el('header', {},
      el('span', { class: 'avatar', text: who.initials }),
      el('div', { class: 'who' }, el('span', { class: 'name', text: who.name }), el('span', { class: 'role', text: who.role })),
      el('span', { class: 'kind' })),
    el('div', { class: 'text' }, text),
    el('div', { class: 'badges' }));
  card.textNode = text;
  $('timeline').append(card);
  return card;
}

const KINDS = {
  introduction: () => 'Introduction',
  opening: () => 'Opening',
  response: (u) => (u.exchange ? `Round ${u.exchange}` : 'Response'),
  interruption: () => 'Interruption',
  interjection: () => 'Interjection',
  closing: () => 'Closing',
};

function finish(u) {
  let card = state.streaming.get(u.speaker);
  state.streaming.delete(u.speaker);
  if (!card) card = newCard(u.speaker);
  card.classList.remove('streaming');
  card.classList.add('kind-' + u.kind);
  card.dataset.seq = String(u.seq);
  card.textNode.data = u.content; // the whole text, as stored
  const label = (KINDS[u.kind] || (() => u.kind))(u);
  card.querySelector('.kind').textContent = label;
  if (u.kind === 'interjection') {
    const target = u.target ? speaker(u.target).name : 'the chairs';
    card.querySelector('.badges').append(el('span', { class: 'badge flag', text: `${pretty(u.violation || 'manual')} → ${target}` }));
  }
  if (u.kind === 'interruption' && u.reason) {
    card.querySelector('.badges').append(el('span', { class: 'badge warn', text: `↯ ${pretty(u.reason)}` }));
  }
  if (u.cut) {
    // Cut off mid-turn: the text stops where it was cut (with its dash,
    // even if more had streamed), and the interrupter's card follows.
    card.classList.add('cut');
    card.querySelector('.badges').append(el('span', { class: 'badge warn', text: `✂ cut off by ${speaker(u.interruptedBy).name}` }));
  }
  state.bySeq.set(u.seq, card);
  state.lastBySpeaker.set(u.speaker, card);
}

function pretty(s) {
  return String(s).replace(/_/g, ' ');
}

function grade(q) {
  return { strong: 'good', adequate: 'ok', weak: 'weak', absent: 'bad', high: 'good', medium: 'ok', low: 'bad' }[q] || 'ok';
}

function evaluate(card, ev) {
  if (!card) return;
  const badges = card.querySelector('.badges');
  if (!ev) {
    badges.append(el('span', { class: 'badge eval muted', text: 'unscored' }));
    return;
  }
  const score = ev.adherenceScore;
  badges.append(
    el('span', { class: 'badge eval score ' + (score >= 75 ? 'good' : score >= 50 ? 'ok' : 'bad'), title: 'Adherence to the Duelogic mandates' },
      el('b', { text: String(score) }), ' adherence'),
    el('span', { class: 'badge eval ' + grade(ev.steelManning.quality), title: ev.steelManning.notes || '' },
      'steel-man ', el('b', { text: ev.steelManning.quality })),
    el('span', { class: 'badge eval ' + grade(ev.selfCritique.quality), title: ev.selfCritique.notes || '' },
      'self-critique ', el('b', { text: ev.selfCritique.quality })),
    el('span', { class: 'badge eval ' + grade(ev.intellectualHonesty.score) },
      'honesty ', el('b', { text: ev.intellectualHonesty.score })));
  if (ev.frameworkConsistency && !ev.frameworkConsistency.consistent) {
    badges.append(el('span', { class: 'badge eval bad', title: (ev.frameworkConsistency.violations || []).join('; ') }, 'off-framework'));
  }
  if (ev.requiresInterjection) {
    badges.append(el('span', { class: 'badge flag', title: ev.interjectionReason || '' }, '⚑ needs an interjection'));
  }
}

function interruption(e) {
  const c = e.data;
  const by = speaker(c.interruptingChair.position);
  const on = speaker(c.interruptedChair.position);
  $('timeline').append(el('div', { class: 'notice' },
    el('span', { class: 'bolt', text: '↯' }),
    el('strong', { text: by.name }), ' cuts in on ', el('strong', { text: on.name }),
    ' — ', pretty(c.triggerReason),
    el('span', { class: 'urgency', text: `urgency ${Number(c.urgency).toFixed(2)}` })));
  const card = state.bySeq.get(e.utterance && e.utterance.seq);
  // A cut utterance already says who cut it off.
  if (card && !e.utterance.cut) card.querySelector('.badges').append(el('span', { class: 'badge muted', text: `interrupted by ${by.name}` }));
}

function argumentMap() {
  const box = $('argmap');
  const n = (Number(box.dataset.count) || 0) + 1;
  box.dataset.count = String(n);
  $('argmap-summary').textContent = `${n} turn${n === 1 ? '' : 's'} mapped into arguments so far.`;
  box.hidden = false;
}

// showArguments renders a finished debate's argument map: the verdict, the
// arguments by strength and the attacks between sides. A stream replayed from
// the store carries no map, so it is fetched.
async function showArguments(id, am) {
  if (!am && id) {
    try {
      am = (await api.get('/api/debates/' + encodeURIComponent(id))).arguments;
    } catch (err) {
      return;
    }
  }
  if (!am || !am.arguments || am.arguments.length === 0) return;
  const box = $('argmap');
  box.hidden = false;
  const v = am.verdict || {};
  const sides = (v.Sides || []).map((s) => `${speaker(s.Side).name} ${Number(s.Score).toFixed(2)}`).join(' vs ');
  $('argmap-summary').textContent = v.Draw || !v.Winner
    ? `A draw on surviving arguments (${sides}).`
    : `Most surviving argument strength: ${speaker(v.Winner).name} (${sides}).`;
  const byID = new Map(am.arguments.map((a) => [a.ID, a]));
  const rows = [...am.arguments].sort((a, b) => b.Score - a.Score).slice(0, 12);
  const table = el('table', { class: 'chair-table arg-table' },
    el('tr', {}, el('th', { text: 'Argument' }), el('th', { text: 'Side' }), el('th', { text: 'Strength' })));
  for (const a of rows) {
    table.append(el('tr', { class: a.Score > 0.5 ? 'survives' : 'falls' },
      el('td', {}, el('strong', { text: a.ID + ' ' }), a.Text),
      el('td', { text: speaker(a.Side).name }),
      el('td', { text: Number(a.Score).toFixed(2) })));
  }
  const clashes = el('ul', { class: 'clashes' });
  for (const r of am.relations || []) {
    const from = byID.get(r.From), to = byID.get(r.To);
    if (r.Type !== 0 || !from || !to || from.Side === to.Side) continue; // attacks between sides
    clashes.append(el('li', {}, el('strong', { text: `${r.From} ${r.Kind}s ${r.To}` }),
      ` — ${speaker(from.Side).name} against ${speaker(to.Side).name}`));
  }
  const m = v.Metrics || {};
  box.append(table, el('h3', { text: 'Clashes' }), clashes,
    el('p', { class: 'hint', text: `${am.moves.length} moves (${(am.illegal || []).length} rejected by the protocol), ` +
      `${m.Attacks || 0} attacks, ${m.Supports || 0} supports, ${m.Concessions || 0} concessions, ${m.Retractions || 0} retractions.` }));
}

function pct(x) {
  return `${Math.round(100 * (x || 0))}%`;
}

function metrics(res) {
  if (!res) return;
  const m = res.metrics || {};
  const usage = res.usage || {};
  const tiles = $('metric-tiles');
  const tile = (label, value, sub, cls) => tiles.append(el('div', { class: 'tile ' + (cls || '') },
    el('span', { class: 'value', text: value }), el('span', { class: 'caption', text: label }),
    sub ? el('span', { class: 'sub', text: sub }) : null));
  const target = (met, pc) => `target above ${pc}% · ${met ? 'met' : 'missed'}`;
  tile('Steel-manning', pct(m.steelManningRate), 'of evaluated responses · ' + target(m.meetsSteelManning, 80),
    'wide ' + (m.meetsSteelManning ? 'good' : 'bad'));
  tile('Self-critique', pct(m.selfCritiqueRate), 'of evaluated responses · ' + target(m.meetsSelfCritique, 70),
    'wide ' + (m.meetsSelfCritique ? 'good' : 'bad'));
  tile('Mean adherence', (m.meanAdherence || 0).toFixed(1), `${m.evaluated || 0} of ${m.responses || 0} responses evaluated`);
  tile('Framework consistency', pct(m.frameworkConsistency));
  tile('Interruptions', String(m.interruptions || 0));
  tile('Interjections', String(m.interjections || 0));

  const table = $('chair-table');
  table.append(el('thead', {}, el('tr', {}, ...['Chair', 'Responses', 'Steel-man', 'Self-critique', 'Adherence', 'Interrupted', 'Called out']
    .map((h) => el('th', { text: h })))));
  const body = el('tbody');
  for (const c of (state.config && state.config.chairs) || []) {
    const cm = (m.byChair || {})[c.position];
    if (!cm) continue;
    const who = speaker(c.position);
    body.append(el('tr', { dataset: { chair: who.index } },
      el('td', {}, el('span', { class: 'dot' }), el('strong', { text: who.name }), el('small', { text: who.role })),
      el('td', { text: String(cm.responses) }), el('td', { text: pct(cm.steelManningRate) }),
      el('td', { text: pct(cm.selfCritiqueRate) }), el('td', { text: (cm.meanAdherence || 0).toFixed(1) }),
      el('td', { text: String(cm.interruptionsMade) }), el('td', { text: String(cm.interjectionsAgainst) })));
  }
  table.append(body);
  const tokens = (n) => (n || 0).toLocaleString('en-US');
  $('usage').textContent = `${tokens((usage.promptTokens || 0) + (usage.completionTokens || 0))} tokens: ` +
    `${tokens(usage.promptTokens)} prompt, ${tokens(usage.completionTokens)} generated.`;
  $('metrics').hidden = false;
}

async function interject(ev) {
  ev.preventDefault();
  const id = $('debate-id').textContent;
  const note = $('interject-note');
  try {
    await api.post(`/api/debates/${encodeURIComponent(id)}/arbiter/interject`,
      { reason: $('interject-reason').value, targetChair: $('interject-target').value || undefined });
    note.textContent = 'Queued: the arbiter speaks at the next turn.';
    $('interject-reason').value = '';
  } catch (err) {
    note.textContent = err.message;
  }
}

init().catch((err) => {
  document.body.append(el('p', { class: 'fatal', text: 'Cannot load the page: ' + err.message }));
});
