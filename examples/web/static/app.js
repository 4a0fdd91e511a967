// The Duelogic page: set up a debate of any format, watch it live from its
// event stream, answer what a debate asks its person (a moderated debate's
// clarifying question, checkpoints and approval, or any other question),
// and read past debates back. Everything a model wrote reaches the page as text
// (textContent and Text nodes); nothing is ever parsed as HTML.
// Each format's own events are drawn by its view (views.js).
'use strict';

const $ = (id) => document.getElementById(id);

// el builds an element: props sets class, text, dataset or attributes;
// children are nodes or strings (appended as Text nodes).
function el(tag, props, ...children) {
  const n = document.createElement(tag);
  setProps(n, props);
  for (const c of children) if (c != null) n.append(c);
  return n;
}

const SVG = 'http://www.w3.org/2000/svg';

// svg builds an SVG element like el.
function svg(tag, props, ...children) {
  const n = document.createElementNS(SVG, tag);
  setProps(n, props);
  for (const c of children) if (c != null) n.append(c);
  return n;
}

function setProps(n, props) {
  for (const [k, v] of Object.entries(props || {})) {
    if (v == null || v === false) continue;
    if (k === 'class') n.setAttribute('class', v);
    else if (k === 'text') n.textContent = v;
    else if (k === 'dataset') Object.assign(n.dataset, v);
    else n.setAttribute(k, v === true ? '' : String(v));
  }
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
      body: JSON.stringify(data || {}),
    });
    const body = await r.json().catch(() => ({}));
    if (!r.ok) throw Object.assign(new Error(body.error || r.statusText), { body, status: r.status });
    return body;
  },
};

// pretty turns an identifier into words: "new_point" → "new point".
function pretty(s) {
  return String(s == null ? '' : s).replace(/_/g, ' ');
}

// words turns a camelCase or snake_case name into a label: "minRounds" → "Min rounds".
function words(s) {
  const w = String(s).replace(/_/g, ' ').replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase();
  return w.charAt(0).toUpperCase() + w.slice(1);
}

function initialsOf(name) {
  const ws = String(name).split(/[\s()-]+/).filter((w) => /^[A-Za-z]/.test(w));
  return (ws.length > 1 ? ws[0][0] + ws[1][0] : (ws[0] || String(name)).slice(0, 2)).toUpperCase();
}

const state = {
  catalog: new Map(), // framework id → info
  presets: [],
  models: [],
  formats: [], // {name, defaults}
  format: 'duelogic', // the picked format (setup) or the debate's
  id: '',
  config: null,
  labels: {},
  order: [], // participants in the order they were first seen
  es: null,
  lastSeq: 0,
  paused: false,
  ended: false,
  streaming: new Map(), // speaker → card being streamed
  bySeq: new Map(), // utterance seq → card
  lastBySpeaker: new Map(), // speaker → its last card
  view: null, // the format's view of the debate shown (views.js)
  spend: { priced: false, budget: null, final: false, busy: false, again: false }, // what the debate spent (showSpend)
};

// ---- setup ----------------------------------------------------------------

async function init() {
  const [chairs, presets, models, fmts] = await Promise.all(
    ['/api/duelogic/chairs', '/api/duelogic/presets', '/api/duelogic/models', '/api/formats'].map((p) => api.get(p)));
  for (const c of chairs) state.catalog.set(c.id, c);
  state.presets = presets;
  state.models = models;
  state.formats = fmts;

  const picker = $('format-picker');
  for (const f of fmts) {
    const input = el('input', { type: 'radio', name: 'format', value: f.name, checked: f.name === 'duelogic' });
    input.addEventListener('change', () => pickFormat(f.name));
    picker.append(el('label', { class: 'format-option' }, input,
      el('span', {}, el('strong', { text: FORMAT_TITLES[f.name] || words(f.name) }), el('small', { text: FORMAT_ABOUT[f.name] || '' }))));
  }

  const sel = $('preset');
  for (const p of presets) sel.append(el('option', { value: p.id, text: p.name }));
  sel.addEventListener('change', showPreset);
  showPreset();

  const defaults = fmts.find((f) => f.name === 'duelogic').defaults;
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
  $('new-debate').addEventListener('click', () => { location.hash = ''; });
  $('resume').addEventListener('click', resumeDebate);
  $('stop').addEventListener('click', stopDebate);
  $('history-refresh').addEventListener('click', showHistory);
  $('cp-continue').addEventListener('click', () => answer('checkpoint', { action: 'continue' }));
  $('cp-end').addEventListener('click', () => answer('checkpoint', { action: 'end' }));
  $('cp-guide').addEventListener('click', () => {
    $('cp-guidance-form').hidden = false;
    $('cp-guidance').focus();
  });
  $('cp-guidance-form').addEventListener('submit', (ev) => {
    ev.preventDefault();
    answer('checkpoint', { action: 'guide', guidance: $('cp-guidance').value });
  });
  $('clarification-form').addEventListener('submit', (ev) => {
    ev.preventDefault();
    answer('clarification', { answer: $('clarification-answer').value });
  });
  $('cl-keep').addEventListener('click', () => answer('clarification', { answer: '' }));
  $('question-form').addEventListener('submit', (ev) => ev.preventDefault());
  $('ap-approve').addEventListener('click', () => answer('approval', { approve: true, feedback: $('approval-feedback').value }));
  $('ap-reject').addEventListener('click', () => answer('approval', { approve: false, feedback: $('approval-feedback').value }));
  window.addEventListener('hashchange', route);
  route();
}

const FORMAT_TITLES = {
  duelogic: 'Podcast',
  formal: 'Formal debate',
  scored: 'Scored rounds',
  moderated: 'Moderated',
  persuasion: 'Persuasion dialogue',
};

// FORMAT_ABOUT describes the formats the page knows; another format the
// server offers (GET /api/formats) is shown by its name.
const FORMAT_ABOUT = {
  duelogic: 'The Duelogic podcast: chairs hold philosophical frameworks, an arbiter keeps them honest, interruptions.',
  formal: 'A formal debate: a neutral chair, a promoter and a detractor who must source their claims, a verifier, an audience, documents.',
  scored: 'A scored debate: an advocate and a challenger argue each category of an evaluated idea; the arbiter’s verdicts move its scores.',
  moderated: 'A moderated debate: engineering perspectives argue rounds until they converge; you steer at checkpoints; a moderator writes the synthesis.',
  persuasion: 'A persuasion dialogue: PRO and OPP make protocol-checked speech acts; the verdict is computed from the argument graph.',
};

// route shows what the address names: #history, #<debate id>, or the setup.
function route() {
  const h = decodeURIComponent(location.hash.slice(1));
  reset();
  $('setup').hidden = true;
  $('history').hidden = true;
  $('debate').hidden = true;
  if (h === 'history') {
    $('history').hidden = false;
    showHistory();
  } else if (h) {
    watch(h);
  } else {
    $('setup').hidden = false;
    pickFormat(document.querySelector('input[name=format]:checked').value);
  }
}

function pickFormat(name) {
  state.format = name;
  const podcast = name === 'duelogic';
  $('podcast-form').hidden = !podcast;
  $('format-form').hidden = podcast;
  $('checkpoints-box').hidden = name !== 'moderated';
  if (!podcast) {
    const f = state.formats.find((f) => f.name === name);
    buildForm($('format-form'), name, f.defaults);
  }
  const p = $('proposition');
  if (!p.dataset.edited) p.value = (FORMS[name] && FORMS[name].proposition) || p.defaultValue;
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

// ---- config forms ------------------------------------------------------------

// FORMS holds what a format's form does beyond what its default config
// shows: fields to hide, fields its defaults leave out, fields with an
// editor of their own, and unit conversions. Every other field of the
// default config gets an input of its JSON type, so a field a format adds
// appears in the form without a change here.
const FORMS = {
  formal: {
    proposition: 'Cities should ban private cars from their centres.',
    hide: ['outputDir'],
    units: { timeBudget: { label: 'Time budget (minutes)', to: (s) => s / 60, from: (m) => m * 60 } },
  },
  scored: {
    proposition: 'A subscription app that plans weekly meals around what is in your fridge.',
    custom: { categories: scoredCategories, evaluations: () => null },
    extra: { challenges: [] },
  },
  moderated: {
    proposition: 'Should we use Redis or PostgreSQL for caching?',
    hide: ['customPerspectives', 'opposites'],
    extra: { debaters: 0, perspectives: [] },
    custom: { perspectives: perspectivePicker },
    units: {
      debaters: { label: 'Debaters (0: the moderator decides)' },
      roundTimeout: { label: 'Round timeout (seconds)' },
      checkpointTimeout: { label: 'Checkpoint timeout (seconds)' },
      totalTimeout: { label: 'Total timeout (seconds)' },
    },
  },
  persuasion: {
    proposition: 'Should we rewrite the billing service in Go?',
    extra: { perspective: '', facts: [] },
  },
};

// buildForm fills box with the form of format name's config, from its
// defaults, and an editor of the whole config as JSON.
function buildForm(box, name, defaults) {
  box.replaceChildren();
  const spec = FORMS[name] || {};
  const fields = el('div', { class: 'config-fields' });
  box.collect = [];
  const values = Object.assign({}, spec.extra || {}, defaults);
  for (const [key, value] of Object.entries(values)) {
    if ((spec.hide || []).includes(key)) continue;
    const custom = spec.custom && spec.custom[key];
    if (custom) {
      const get = custom(fields, value, defaults);
      if (get) box.collect.push((cfg) => get(cfg));
      continue;
    }
    box.collect.push(field(fields, [key], value, (spec.units || {})[key]));
  }
  const raw = el('textarea', { id: 'config-json', class: 'json', rows: '10', spellcheck: 'false', 'aria-label': 'Config as JSON' });
  raw.value = JSON.stringify(defaults, null, 2);
  raw.addEventListener('input', () => { raw.dataset.edited = '1'; });
  const more = el('details', { class: 'config-json' },
    el('summary', { text: 'Edit the whole config as JSON (used instead of the fields above once edited)' }), raw);
  box.append(fields, more);
}

// field adds an input for the config value at path and returns a function
// that sets the input's value into a config object.
function field(box, path, value, unit) {
  const key = path[path.length - 1];
  const id = 'cfg-' + path.join('-');
  const label = (unit && unit.label) || words(key);
  const set = (cfg, v) => {
    let o = cfg;
    for (const k of path.slice(0, -1)) o = o[k] = o[k] || {};
    o[key] = v;
  };
  if (value && typeof value === 'object' && !Array.isArray(value) &&
      Object.values(value).every((v) => v == null || typeof v !== 'object' || Array.isArray(v))) {
    const fs = el('fieldset', { class: 'config-group' }, el('legend', { text: words(key) }));
    box.append(fs);
    const getters = Object.entries(value).map(([k, v]) => field(fs, path.concat(k), v));
    return (cfg) => { for (const g of getters) g(cfg); };
  }
  let input;
  let get;
  if (typeof value === 'boolean') {
    input = el('input', { type: 'checkbox', id, checked: value });
    get = () => input.checked;
  } else if (typeof value === 'number') {
    input = el('input', { type: 'number', id, step: 'any', value: String(unit && unit.to ? unit.to(value) : value) });
    get = () => {
      const n = Number(input.value);
      return unit && unit.from ? unit.from(n) : n;
    };
  } else if (typeof value === 'string') {
    input = el('input', { type: 'text', id, value });
    get = () => input.value;
  } else if (Array.isArray(value) && value.every((v) => typeof v === 'string')) {
    input = el('textarea', { id, rows: String(Math.max(2, value.length)), class: 'small-text', placeholder: 'one per line' });
    input.value = value.join('\n');
    get = () => input.value.split('\n').map((s) => s.trim()).filter(Boolean);
  } else {
    input = el('textarea', { id, rows: '4', class: 'json small-text', spellcheck: 'false' });
    input.value = JSON.stringify(value, null, 2);
    get = () => {
      try {
        return JSON.parse(input.value || 'null');
      } catch (err) {
        throw new Error(`${path.join('.')}: not JSON (${err.message})`);
      }
    };
  }
  const wide = input.tagName === 'TEXTAREA';
  box.append(el('label', { class: 'config-field' + (wide ? ' wide' : ''), for: id }, el('span', { text: label }), input));
  return (cfg) => set(cfg, get());
}

// perspectivePicker lets the person seat perspectives of the catalog; none
// picked leaves the choice to the moderator.
function perspectivePicker(box, value) {
  const fs = el('fieldset', { class: 'config-group wide' },
    el('legend', { text: 'Perspectives (none picked: the moderator chooses)' }));
  const boxes = [];
  for (const f of state.catalog.values()) {
    if (f.kind !== 'perspective') continue;
    const cb = el('input', { type: 'checkbox', value: f.id, checked: (value || []).includes(f.id) });
    boxes.push(cb);
    fs.append(el('label', { class: 'check' }, cb, ' ', f.name));
  }
  box.append(fs);
  return (cfg) => {
    const picked = boxes.filter((b) => b.checked).map((b) => b.value);
    if (picked.length) cfg.perspectives = picked;
  };
}

// scoredCategories edits the scored debate's categories with the score and
// evidence of each (the config's categories and evaluations).
function scoredCategories(box, categories, defaults) {
  const fs = el('fieldset', { class: 'config-group wide categories' }, el('legend', { text: 'Categories, their scores and evidence' }));
  const rows = el('div', { class: 'category-rows' });
  const scale = defaults.scale || { min: 1, max: 10 };
  const add = (c, ev) => {
    const name = el('input', { type: 'text', class: 'cat-name', value: c.name, 'aria-label': 'Category' });
    const score = el('input', { type: 'number', class: 'cat-score', step: 'any', min: String(scale.min), max: String(scale.max),
      value: String(ev ? ev.score : (scale.min + scale.max) / 2), 'aria-label': 'Score' });
    const evidence = el('textarea', { class: 'cat-evidence small-text', rows: '2', placeholder: 'evidence, one per line', 'aria-label': 'Evidence' });
    evidence.value = ((ev && ev.evidence) || []).join('\n');
    const adv = el('input', { type: 'text', class: 'cat-adv', value: c.advocatePosition || '', 'aria-label': 'Advocate position', placeholder: 'advocate position' });
    const chal = el('input', { type: 'text', class: 'cat-chal', value: c.challengerPosition || '', 'aria-label': 'Challenger position', placeholder: 'challenger position' });
    const remove = el('button', { type: 'button', class: 'ghost small', title: 'Remove this category', text: '✕' });
    const row = el('div', { class: 'category-row' }, name, score, remove, adv, chal, evidence);
    row.catID = c.id;
    remove.addEventListener('click', () => { if (rows.children.length > 1) row.remove(); });
    rows.append(row);
  };
  for (const c of categories || []) add(c, (defaults.evaluations || {})[c.id]);
  const more = el('button', { type: 'button', class: 'ghost small', text: '+ Add a category' });
  more.addEventListener('click', () => add({ name: '', advocatePosition: '', challengerPosition: '' }, null));
  fs.append(rows, more);
  box.append(fs);
  return (cfg) => {
    cfg.categories = [];
    cfg.evaluations = {};
    const used = new Set();
    for (const row of rows.children) {
      const name = row.querySelector('.cat-name').value.trim();
      let id = row.catID || name.toLowerCase().replace(/[^a-z0-9]+/g, '_').replace(/^_+|_+$/g, '').slice(0, 32) || 'category';
      while (used.has(id)) id = (id + '_2').slice(-32);
      used.add(id);
      cfg.categories.push({ id, name, advocatePosition: row.querySelector('.cat-adv').value.trim() || `${name} is strong`,
        challengerPosition: row.querySelector('.cat-chal').value.trim() || `${name} is weak` });
      cfg.evaluations[id] = { score: Number(row.querySelector('.cat-score').value),
        evidence: row.querySelector('.cat-evidence').value.split('\n').map((s) => s.trim()).filter(Boolean) };
    }
  };
}

// formConfig reads the picked format's config from its form.
function formConfig() {
  const raw = $('config-json');
  if (raw && raw.dataset.edited) {
    try {
      return JSON.parse(raw.value);
    } catch (err) {
      throw new Error('config: not JSON (' + err.message + ')');
    }
  }
  const cfg = {};
  for (const get of $('format-form').collect || []) get(cfg);
  return cfg;
}

async function start(ev) {
  ev.preventDefault();
  const errors = $('errors');
  errors.replaceChildren();
  errors.hidden = true;
  $('start').disabled = true;
  try {
    let res;
    const proposition = $('proposition').value;
    if (state.format === 'duelogic') {
      const config = {
        chairs: chosenChairs(),
        flow: { maxExchanges: Number($('exchanges').value) },
        arbiter: { accountabilityLevel: $('accountability').value },
        tone: $('tone').value,
        interruptions: { enabled: $('interruptions').checked },
      };
      res = await api.post('/api/debates/duelogic', { proposition, propositionContext: $('context').value || undefined, config });
    } else {
      const body = { proposition, context: $('context').value || undefined, config: formConfig(),
        argumentMap: $('argument-map').checked };
      if (state.format === 'moderated') body.checkpoints = $('checkpoints').checked;
      res = await api.post('/api/debates/' + encodeURIComponent(state.format), body);
    }
    location.hash = encodeURIComponent(res.id);
  } catch (err) {
    const list = (err.body && err.body.violations) || [];
    for (const v of list) errors.append(el('li', {}, el('code', { text: v.field }), ' ', v.problem));
    if (!list.length) errors.append(el('li', { text: err.message }));
    errors.hidden = false;
  } finally {
    $('start').disabled = false;
  }
}

// ---- history ----------------------------------------------------------------

async function showHistory() {
  const table = $('history-table');
  let list;
  try {
    list = await api.get('/api/debates');
  } catch (err) {
    table.replaceChildren(el('tr', {}, el('td', { text: 'Cannot list the debates: ' + err.message })));
    return;
  }
  $('history-empty').hidden = list.length > 0;
  table.replaceChildren();
  if (!list.length) return;
  table.append(el('thead', {}, el('tr', {}, ...['Started', 'Format', 'Status', 'Proposition', ''].map((h) => el('th', { text: h })))));
  const body = el('tbody');
  for (const d of list) {
    const open = el('a', { href: '#' + encodeURIComponent(d.id), class: 'button-link', text: d.status === 'finished' ? 'Read' : 'Open' });
    const actions = el('td', { class: 'actions' }, open);
    if (d.status === 'stopped') {
      const resume = el('button', { type: 'button', class: 'secondary small', text: 'Resume' });
      resume.addEventListener('click', async () => {
        try {
          await api.post(`/api/debates/${encodeURIComponent(d.id)}/resume`);
          location.hash = encodeURIComponent(d.id);
        } catch (err) {
          resume.replaceWith(el('span', { class: 'hint', text: err.message }));
        }
      });
      actions.append(' ', resume);
    }
    if (d.status === 'running') {
      const stop = el('button', { type: 'button', class: 'secondary small', text: 'Stop' });
      stop.addEventListener('click', async () => {
        try {
          await api.post(`/api/debates/${encodeURIComponent(d.id)}/stop`);
          showHistory();
        } catch (err) {
          stop.replaceWith(el('span', { class: 'hint', text: err.message }));
        }
      });
      actions.append(' ', stop);
    }
    body.append(el('tr', { dataset: { id: d.id, status: d.status } },
      el('td', { class: 'date', text: new Date(d.started).toLocaleString() }),
      el('td', { text: FORMAT_TITLES[d.format] || d.format }),
      el('td', {}, el('span', { class: 'status ' + d.status, text: d.status })),
      el('td', { class: 'prop', text: d.proposition }),
      actions));
  }
  table.append(body);
}

// ---- the debate -----------------------------------------------------------

function reset() {
  if (state.es) state.es.close();
  state.es = null;
  state.id = '';
  state.lastSeq = 0;
  state.paused = false;
  state.ended = false;
  state.labels = {};
  state.order = [];
  state.streaming.clear();
  state.bySeq.clear();
  state.lastBySpeaker.clear();
  state.view = null;
  state.spend = { priced: false, budget: null, final: false, busy: false, again: false };
  for (const id of ['spend-purpose', 'spend-speaker', 'timeline', 'roster', 'metric-tiles', 'chair-table', 'usage', 'live', 'outcome', 'argmap-graph',
    'argmap-body', 'document-list']) $(id).replaceChildren();
  for (const id of ['spend', 'spend-line', 'metrics', 'argmap', 'stop-reason', 'outcome', 'documents', 'stop', 'resume', 'interject', ...QUESTIONS]) $(id).hidden = true;
  delete $('argmap').dataset.count;
}

async function watch(id) {
  let d;
  try {
    d = await api.get('/api/debates/' + encodeURIComponent(id));
  } catch (err) {
    $('setup').hidden = false;
    const errors = $('errors');
    errors.replaceChildren(el('li', { text: `Debate ${id}: ${err.message}` }));
    errors.hidden = false;
    return;
  }
  show(d);
}

function show(d) {
  state.id = d.id;
  state.format = d.format;
  state.config = d.config || {};
  state.labels = d.labels || {};
  state.view = makeView(d.format, d);
  $('debate').hidden = false;
  $('title').textContent = d.proposition;
  $('debate-id').textContent = d.id;
  $('format-name').textContent = FORMAT_TITLES[d.format] || d.format;
  setStatus(d.status === 'paused' ? 'running' : d.status, d.error ? 'The debate stopped: ' + d.error : '');
  state.view.roster($('roster'));
  if (d.spend) showSpend(d.spend);
  if (d.format === 'duelogic' && d.status === 'running') showInterject();
  window.scrollTo(0, 0);
  connect(d.id, 0);
}

function showInterject() {
  const target = $('interject-target');
  target.replaceChildren(el('option', { value: '', text: 'the last speaker' }));
  for (const c of state.config.chairs || []) {
    const who = speaker(c.position);
    target.append(el('option', { value: c.position, text: `${who.name} (${who.role})` }));
  }
  $('interject').hidden = false;
  $('interject-note').textContent = '';
}

// speaker describes a speaker for display: name, role, initials and colour
// index, as the format's view or the server's labels name it.
function speaker(position) {
  const own = state.view && state.view.speaker && state.view.speaker(position);
  if (own) return own;
  const label = state.labels[position] || words(position);
  if (position === 'arbiter') return { name: label.replace(/^the /, '').replace(/^./, (c) => c.toUpperCase()), role: 'host', initials: '⚖', index: 'arbiter' };
  if (position === 'human') return { name: 'You', role: 'guidance', initials: '✎', index: 'human' };
  let i = state.order.indexOf(position);
  if (i < 0) {
    state.order.push(position);
    i = state.order.length - 1;
  }
  // "Promoter (affirmative)", "the Advocate, who defends the idea": a
  // name and a role.
  const m = /^(.*?)\s*\((.*)\)$/.exec(label) || /^(.*?), (.*)$/.exec(label);
  let name = m ? m[1] : label;
  name = name.replace(/^the /, '');
  name = name.charAt(0).toUpperCase() + name.slice(1);
  return { name, role: m ? m[2] : '', initials: initialsOf(name), index: String(i % 6) };
}

function setStatus(s, detail) {
  const pill = $('status');
  pill.className = 'status ' + s;
  pill.textContent = s;
  if (detail) {
    $('stop-reason').textContent = detail;
    $('stop-reason').hidden = false;
  } else if (s === 'running') {
    $('stop-reason').hidden = true;
  }
  if (s !== 'running') $('interject').hidden = true;
  $('stop').hidden = s !== 'running';
  $('resume').hidden = s !== 'stopped';
}

// EVENT_TYPES are the SSE event types the page listens to: the engine's and
// those of every format.
const EVENT_TYPES = ['debate_started', 'segment_started', 'segment_ended', 'token', 'utterance', 'evaluation',
  'interruption', 'debate_ended', 'argument_map', 'asked', 'formal_entry', 'formal_verification', 'scored_verdict',
  'scored_scores', 'moderated_clarification', 'moderated_analysis', 'moderated_assignment', 'moderated_judgment',
  'moderated_checkpoint', 'moderated_synthesis', 'moderated_approval', 'moderated_followup', 'persuasion_turn', 'persuasion_verdict'];

// connect listens to debate id's events after seq after (0: all of them).
function connect(id, after) {
  if (state.es) state.es.close();
  const es = new EventSource('/api/debates/' + encodeURIComponent(id) + '/events' + (after ? '?after=' + after : ''));
  state.es = es;
  for (const t of EVENT_TYPES) {
    es.addEventListener(t, (m) => {
      if (m.lastEventId) state.lastSeq = Math.max(state.lastSeq, Number(m.lastEventId));
      const follow = nearBottom();
      try {
        handle(JSON.parse(m.data));
      } catch (err) {
        console.error('event', t, err);
      }
      if (t !== 'token' && t !== 'debate_ended') refreshSpend();
      if (follow) window.scrollTo(0, document.body.scrollHeight);
    });
  }
  es.addEventListener('stopped', (m) => {
    const d = JSON.parse(m.data);
    es.close();
    if (state.paused) {
      setStatus('paused');
      return;
    }
    setStatus('stopped', d.error ? 'The debate stopped: ' + d.error : 'The debate is not running: resume it to finish it.');
    refreshSpend();
    showDocuments();
  });
  // The browser gives up on a stream answered with an error (the server
  // restarted and lost the debate, say): say so rather than stay "running".
  es.addEventListener('error', () => {
    if (es.readyState === EventSource.CLOSED && !state.ended && !state.paused) {
      setStatus('stopped', 'The event stream was closed by the server.');
    }
  });
}

function nearBottom() {
  return window.innerHeight + window.scrollY >= document.body.scrollHeight - 160;
}

function handle(e) {
  const v = state.view;
  switch (e.type) {
    case 'segment_started':
      $('timeline').append(el('div', { class: 'segment' },
        el('span', { text: (v.segments && v.segments[e.segment]) || words(e.segment) })));
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
    case 'utterance': {
      const card = finish(e.utterance);
      if (v.utterance) v.utterance(e.utterance, card);
      break;
    }
    case 'argument_map':
      argumentMapProgress();
      break;
    case 'asked':
      asked(e.data || {});
      break;
    case 'debate_ended':
      state.ended = true;
      state.paused = false;
      if (state.es) state.es.close();
      for (const id of QUESTIONS) $(id).hidden = true;
      setStatus('finished');
      endedSpend(e.data || {});
      if (v.ended) v.ended(e.data || {});
      showArguments(e.data && e.data.arguments);
      showDocuments();
      break;
    default:
      if (v.on && v.on[e.type]) v.on[e.type](e, e.data);
  }
}

// ---- what the debate spends -------------------------------------------------

function tokens(n) {
  return (n || 0).toLocaleString('en-US');
}

function totalOf(u) {
  return u ? (u.promptTokens || 0) + (u.completionTokens || 0) : 0;
}

// dollars formats money with the precision a few tokens' price needs, as
// the CLI does.
function dollars(v) {
  v = Number(v) || 0;
  return '$' + (v !== 0 && Math.abs(v) < 0.01 ? v.toFixed(6) : v.toFixed(4));
}

// spendText is the running line: the tokens spent, the share of the prompt
// served from the provider's cache, the money at the server's prices,
// against the budget.
function spendText(sp) {
  const u = sp.usage || {};
  const b = sp.budget || {};
  let line = `${tokens(totalOf(u))} tokens`;
  if (b.tokens) line += ` of ${tokens(b.tokens)}`;
  if (u.cachedPromptTokens > 0 && u.promptTokens > 0) line += ` (${Math.round(100 * u.cachedPromptTokens / u.promptTokens)}% of the prompt cached)`;
  if (sp.priced || b.cost) {
    line += ', ' + dollars(sp.cost);
    if (b.cost) line += ' of ' + dollars(b.cost);
  }
  return (sp.final ? 'Spent ' : 'Spent so far: ') + line;
}

// showSpend shows what the debate spent (GET /api/debates/{id}/spend's
// spend): the running line and, once it has ended, the usage by purpose
// and by speaker.
function showSpend(sp) {
  if (!sp || state.spend.final) return;
  state.spend.priced = state.spend.priced || !!sp.priced;
  if (sp.budget) state.spend.budget = sp.budget;
  $('spend-line').textContent = spendText(sp);
  $('spend-line').hidden = false;
  if (!sp.final) return;
  state.spend.final = true;
  const u = sp.usage || {};
  let head = `${tokens(totalOf(u))} tokens: ${tokens(u.promptTokens)} prompt`;
  if (u.cachedPromptTokens > 0) head += ` (${tokens(u.cachedPromptTokens)} cached)`;
  head += `, ${tokens(u.completionTokens)} generated`;
  if (u.reasoningTokens > 0) head += ` (${tokens(u.reasoningTokens)} reasoning)`;
  head += sp.priced ? `; cost ${dollars(sp.cost)}.` : '.';
  $('spend-total').textContent = head;
  spendTable($('spend-purpose'), 'Purpose', 'purpose', sp.byPurpose, (p) => (p ? words(p) : 'Unattributed'));
  spendTable($('spend-speaker'), 'Speaker', 'speaker', sp.bySpeaker, (s) => (s ? speaker(s).name : 'The debate'));
  $('spend').hidden = false;
}

// spendTable fills table with the usage of by, the largest first, each row
// named by name(key) and marked with data-{attr}=key.
function spendTable(table, title, attr, by, name) {
  by = by || {};
  const keys = Object.keys(by).filter((k) => totalOf(by[k]) > 0)
    .sort((a, b) => totalOf(by[b]) - totalOf(by[a]) || (a < b ? -1 : a > b ? 1 : 0));
  table.replaceChildren(el('thead', {}, el('tr', {}, ...[title, 'Prompt', 'Cached', 'Generated', 'Tokens']
    .map((h) => el('th', { text: h })))));
  const body = el('tbody');
  for (const k of keys) {
    const u = by[k];
    body.append(el('tr', { dataset: { [attr]: k } },
      el('td', { text: name(k) }), el('td', { text: tokens(u.promptTokens) }), el('td', { text: tokens(u.cachedPromptTokens) }),
      el('td', { text: tokens(u.completionTokens) }), el('td', { class: 'tokens', text: tokens(totalOf(u)) })));
  }
  table.append(body);
  table.hidden = keys.length === 0;
}

// endedSpend shows what the debate_ended event's data (engine.Ended) says
// the debate spent.
function endedSpend(data) {
  showSpend({ usage: data.usage, cost: data.cost, priced: state.spend.priced || (data.cost || 0) > 0, budget: state.spend.budget,
    final: true, byPurpose: data.usageByPurpose, bySpeaker: data.usageBySpeaker });
}

// refreshSpend asks the server what the debate shown has spent so far: at
// most one request at a time, one more when events came meanwhile.
function refreshSpend() {
  const id = state.id;
  if (!id || state.spend.final) return;
  if (state.spend.busy) {
    state.spend.again = true;
    return;
  }
  state.spend.busy = true;
  api.get('/api/debates/' + encodeURIComponent(id) + '/spend')
    .then((r) => {
      if (state.id !== id) return;
      showSpend(r.spend);
      // A stream that opened after the run stopped does not know why it
      // did (a spent budget, say); the server does.
      if (r.status === 'stopped' && r.error && $('status').textContent === 'stopped') setStatus('stopped', 'The debate stopped: ' + r.error);
    })
    .catch((err) => console.warn('spend', err.message))
    .finally(() => {
      if (state.id !== id) return;
      state.spend.busy = false;
      if (state.spend.again) {
        state.spend.again = false;
        refreshSpend();
      }
    });
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

function finish(u) {
  let card = state.streaming.get(u.speaker);
  state.streaming.delete(u.speaker);
  if (!card) card = newCard(u.speaker);
  card.classList.remove('streaming');
  card.classList.add('kind-' + u.kind);
  card.dataset.seq = String(u.seq);
  card.textNode.data = u.content; // the whole text, as stored
  const label = state.view.kind ? state.view.kind(u) : kindLabel(u);
  card.querySelector('.kind').textContent = label;
  const badges = card.querySelector('.badges');
  if (u.cut) {
    // Cut off mid-turn: the text stops where it was cut (with its dash,
    // even if more had streamed), and the interrupter's card follows.
    card.classList.add('cut');
    badges.append(el('span', { class: 'badge warn', text: `✂ cut off by ${speaker(u.interruptedBy).name}` }));
  }
  if (u.truncated) badges.append(el('span', { class: 'badge muted', title: 'The model stopped at its token cap', text: 'cut at its length cap' }));
  if (u.defaulted) badges.append(el('span', { class: 'badge weak', title: 'The model gave no usable reply', text: 'no usable reply' }));
  state.bySeq.set(u.seq, card);
  state.lastBySpeaker.set(u.speaker, card);
  return card;
}

function kindLabel(u) {
  const k = words(u.kind || '');
  return u.exchange ? `${k} · round ${u.exchange}` : k;
}

// ---- argument map ---------------------------------------------------------

function argumentMapProgress() {
  const box = $('argmap');
  const n = (Number(box.dataset.count) || 0) + 1;
  box.dataset.count = String(n);
  $('argmap-summary').textContent = `${n} turn${n === 1 ? '' : 's'} mapped into arguments so far.`;
  box.hidden = false;
}

// showArguments renders a finished debate's argument map: drawn as a graph
// (argmap.js, when it is there), the verdict, and the arguments by strength
// and the attacks between sides as a table, which stays as the accessible
// alternative. A map the event does not carry is fetched.
async function showArguments(am) {
  const id = state.id;
  // An event recorded before the argumentation types had JSON tags carries
  // capitalised keys (ID, Side, ...): the API re-encodes the stored map.
  if (am && (am.arguments || []).some((a) => a.id === undefined && a.ID !== undefined)) am = null;
  if (!am) {
    try {
      am = (await api.get('/api/debates/' + encodeURIComponent(id))).arguments;
    } catch (err) {
      return;
    }
  }
  if (id !== state.id || !am || !am.arguments || am.arguments.length === 0) return;
  const box = $('argmap');
  box.hidden = false;
  const v = am.verdict || {};
  const sides = (v.sides || []).map((s) => `${speaker(s.side).name} ${Number(s.score).toFixed(2)}`).join(' vs ');
  $('argmap-summary').textContent = v.draw || !v.winner
    ? `A draw on surviving arguments (${sides}).`
    : `Most surviving argument strength: ${speaker(v.winner).name} (${sides}).`;
  const graph = $('argmap-graph');
  graph.replaceChildren();
  if (typeof window.drawArgumentMap === 'function') {
    try {
      // Columns in the cards' order, each side in its card's colour; an
      // argument of no side (the moderated human's guidance) last, in grey.
      const rank = (s) => {
        const i = Number(speaker(s).index);
        return s !== '' && Number.isInteger(i) ? i : 99;
      };
      const sides = [...new Set(am.arguments.map((a) => a.side))].sort((a, b) => rank(a) - rank(b));
      window.drawArgumentMap(graph, am, { sides, label: (s) => speaker(s).name, color: accentOf });
    } catch (err) {
      console.error('drawArgumentMap', err);
    }
  }
  const byID = new Map(am.arguments.map((a) => [a.id, a]));
  const rows = [...am.arguments].sort((a, b) => b.score - a.score).slice(0, 12);
  const table = el('table', { class: 'chair-table arg-table' },
    el('caption', { class: 'hint', text: 'The strongest arguments' }),
    el('tr', {}, el('th', { text: 'Argument' }), el('th', { text: 'Side' }), el('th', { text: 'Strength' })));
  for (const a of rows) {
    table.append(el('tr', { class: a.score > 0.5 ? 'survives' : 'falls' },
      el('td', {}, el('strong', { text: a.id + ' ' }), a.text),
      el('td', { text: speaker(a.side).name }),
      el('td', { text: Number(a.score).toFixed(2) })));
  }
  const clashes = el('ul', { class: 'clashes' });
  for (const r of am.relations || []) {
    const from = byID.get(r.from), to = byID.get(r.to);
    if (r.type !== 0 || !from || !to || from.side === to.side) continue; // attacks between sides
    clashes.append(el('li', {}, el('strong', { text: `${r.from} ${r.kind}s ${r.to}` }),
      ` — ${speaker(from.side).name} against ${speaker(to.side).name}`));
  }
  const m = v.metrics || {};
  $('argmap-body').replaceChildren(table, el('h3', { text: 'Clashes' }), clashes,
    el('p', { class: 'hint', text: `${(am.moves || []).length} moves (${(am.illegal || []).length} rejected by the protocol), ` +
      `${m.attacks || 0} attacks, ${m.supports || 0} supports, ${m.concessions || 0} concessions, ${m.retractions || 0} retractions.` }));
}

// accentOf is the colour of side's cards (their --accent), grey for no side.
function accentOf(side) {
  if (side === '') return '#5b6472';
  const probe = el('span', { hidden: true, dataset: { chair: speaker(side).index } });
  document.body.append(probe);
  const c = getComputedStyle(probe).getPropertyValue('--accent').trim();
  probe.remove();
  return c || undefined;
}

// ---- documents, resume, checkpoints -----------------------------------------

async function showDocuments() {
  const id = state.id;
  let d;
  try {
    d = await api.get('/api/debates/' + encodeURIComponent(id));
  } catch (err) {
    return;
  }
  if (id !== state.id) return;
  const list = $('document-list');
  list.replaceChildren();
  for (const name of d.documents || []) {
    list.append(el('li', {}, el('a', { href: `/api/debates/${encodeURIComponent(id)}/documents/${encodeURIComponent(name)}`,
      download: `${id}-${name}`, text: name })));
  }
  $('documents').hidden = list.children.length === 0;
}

async function resumeDebate() {
  const id = state.id;
  try {
    await api.post(`/api/debates/${encodeURIComponent(id)}/resume`);
  } catch (err) {
    $('stop-reason').textContent = 'Cannot resume: ' + err.message;
    $('stop-reason').hidden = false;
    return;
  }
  continueLive();
}

// stopDebate stops the debate shown; what it said stays, and Resume
// finishes it.
async function stopDebate() {
  const id = state.id;
  const button = $('stop');
  button.disabled = true;
  let r;
  try {
    r = await api.post(`/api/debates/${encodeURIComponent(id)}/stop`);
  } catch (err) {
    if (id !== state.id) return;
    $('stop-reason').textContent = 'Cannot stop: ' + err.message;
    $('stop-reason').hidden = false;
    return;
  } finally {
    button.disabled = false;
  }
  if (id !== state.id) return;
  setStatus('stopped', 'The debate stopped: ' + (r.error || 'on request'));
  refreshSpend();
  showDocuments();
}

// continueLive follows a debate the server runs again from where the page
// left it.
function continueLive() {
  state.paused = false;
  setStatus('running');
  $('documents').hidden = true;
  if (state.format === 'duelogic') showInterject();
  connect(state.id, state.lastSeq);
}

// QUESTIONS are the panels of what a paused debate asks its person: a
// moderated debate's questions each have their own, answered with
// POST /api/debates/{id}/<panel id>; any other question is shown in the
// question panel, answered with POST /api/debates/{id}/answer.
const QUESTIONS = ['clarification', 'checkpoint', 'approval', 'question'];

// panelOf is the panel of a question of kind.
function panelOf(kind) {
  return kind !== 'question' && QUESTIONS.includes(kind) ? kind : 'question';
}

// asked follows the engine's "asked" event: a question the debate paused
// at (the question engine.Pending reads back) is shown in its panel, with
// its text and only its choices; one answered hides its panel.
function asked(a) {
  const q = a.question || {};
  const panel = panelOf(q.kind);
  if (!a.paused) {
    answered(panel);
    return;
  }
  if (panel === 'clarification') showClarification(q.text);
  else if (panel === 'checkpoint') showCheckpoint(state.view && state.view.round ? state.view.round() : 0, q.text, q.choices);
  else if (panel === 'approval') showApproval(q.choices);
  else showQuestion(q);
}

// ask shows the panel of a question the debate paused at.
function ask(panel) {
  state.paused = true;
  setStatus('paused');
  $(panel + '-note').textContent = '';
  for (const b of $(panel).querySelectorAll('button')) b.disabled = false;
  $(panel).hidden = false;
}

// answered hides a question's panel: the debate goes on.
function answered(panel) {
  if (state.paused) {
    state.paused = false;
    setStatus('running');
  }
  $(panel).hidden = true;
}

// offer shows the buttons of the choices a question allows (all of them
// when it does not say): choices maps a button's id to its choice.
function offer(choices, allowed) {
  for (const [id, choice] of Object.entries(choices)) $(id).hidden = !!allowed && !allowed.includes(choice);
}

// showClarification shows the moderator's clarifying question, with what
// it assumes without an answer when that is given apart (a debate stored
// by an earlier version; the engine's question says it in its text).
function showClarification(question, assumption) {
  $('clarification-question').textContent = question || '';
  $('clarification-assumption').textContent = assumption || '';
  $('clarification-assumes').hidden = !assumption;
  $('clarification-answer').value = '';
  ask('clarification');
}

// showCheckpoint shows the checkpoint after round (0: not known), what the
// debate says of it, and the buttons of the choices it allows.
function showCheckpoint(round, text, choices) {
  $('checkpoint-title').textContent = round ? `Round ${round} complete — your call` : 'Checkpoint — your call';
  $('checkpoint-summary').textContent = text || '';
  $('cp-guidance-form').hidden = true;
  $('cp-guidance').value = '';
  offer({ 'cp-continue': 'continue', 'cp-guide': 'guide', 'cp-end': 'end' }, choices);
  ask('checkpoint');
}

// showApproval asks the person to approve or reject the synthesis shown
// above it.
function showApproval(choices) {
  $('approval-feedback').value = '';
  offer({ 'ap-approve': 'approve', 'ap-reject': 'reject' }, choices);
  ask('approval');
}

// showQuestion shows a question of any other kind: its text, a box for
// text, and a button for each of its choices (one Answer button for a
// free-text question).
function showQuestion(q) {
  $('question-kind').textContent = words(q.kind || 'question');
  $('question-text').textContent = q.text || '';
  $('question-answer').value = '';
  const buttons = $('question-choices');
  buttons.replaceChildren();
  const choices = q.choices && q.choices.length ? q.choices : [''];
  choices.forEach((choice, i) => {
    const b = el('button', { type: 'button', class: i === 0 ? 'primary' : 'secondary', text: choice ? words(choice) : 'Answer' });
    b.addEventListener('click', () => answer('question', { choice: choice || undefined, text: $('question-answer').value }));
    buttons.append(b);
  });
  ask('question');
}

// answer sends the person's answer to the question of panel and follows
// the debate as it goes on; a refused answer is shown in the panel.
async function answer(panel, body) {
  const buttons = $(panel).querySelectorAll('button');
  for (const b of buttons) b.disabled = true;
  try {
    await api.post(`/api/debates/${encodeURIComponent(state.id)}/${panel === 'question' ? 'answer' : panel}`, body);
  } catch (err) {
    const vs = (err.body && err.body.violations) || [];
    $(panel + '-note').textContent = vs.length ? vs.map((v) => `${v.field}: ${v.problem}`).join('; ') : err.message;
    for (const b of buttons) b.disabled = false;
    return;
  }
  $(panel).hidden = true;
  continueLive();
}

async function interject(ev) {
  ev.preventDefault();
  const note = $('interject-note');
  try {
    await api.post(`/api/debates/${encodeURIComponent(state.id)}/arbiter/interject`,
      { reason: $('interject-reason').value, targetChair: $('interject-target').value || undefined });
    note.textContent = 'Queued: the arbiter speaks at the next turn.';
    $('interject-reason').value = '';
  } catch (err) {
    note.textContent = err.message;
  }
}

$('proposition').addEventListener('input', () => { $('proposition').dataset.edited = '1'; });

init().catch((err) => {
  document.body.append(el('p', { class: 'fatal', text: 'Cannot load the page: ' + err.message }));
});
