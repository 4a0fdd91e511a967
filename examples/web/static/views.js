// The live views of each format: what the page draws from a format's own
// events beside the cards every format gets (app.js). makeView returns an
// object with:
//   roster(box)          the participants under the title
//   speaker(position)    (optional) how a speaker is shown
//   segments             (optional) segment titles
//   kind(u)              (optional) an utterance's label
//   utterance(u, card)   (optional) after an utterance's card is drawn
//   on[type](e, data)    the format's own event types
//   ended(data)          the debate_ended event's data (engine.Ended)
// Like app.js, it writes model text as text only.
'use strict';

function makeView(format, d) {
  const make = VIEWS[format] || genericView;
  return Object.assign({ on: {}, roster: rosterOf([]) }, make(d));
}

// rosterOf draws chips for the speakers.
function rosterOf(speakers) {
  return (box) => {
    box.replaceChildren();
    for (const s of speakers) {
      const who = speaker(s);
      box.append(el('div', { class: 'chip', dataset: { chair: who.index, speaker: s } },
        el('span', { class: 'avatar', text: who.initials }),
        el('span', {}, el('strong', { text: who.name }), el('small', { text: who.role }))));
    }
  };
}

// panel adds a live panel above the timeline.
function panel(id, title, ...children) {
  const p = el('section', { id, class: 'panel live-panel' }, el('h2', { text: title }), ...children);
  $('live').append(p);
  return p;
}

function genericView() {
  return {};
}

const VIEWS = {
  duelogic: podcastView,
  formal: formalView,
  scored: scoredView,
  moderated: moderatedView,
  persuasion: persuasionView,
};

// ---- the podcast --------------------------------------------------------------

function podcastView(d) {
  const cfg = d.config || {};
  const chairs = cfg.chairs || [];
  return {
    segments: { introduction: 'Introduction', opening: 'Opening statements', exchange: 'The exchange', synthesis: 'Synthesis' },
    roster: rosterOf(chairs.map((c) => c.position)),
    speaker(position) {
      if (position === 'arbiter') {
        const a = cfg.arbiter || {};
        return { name: 'Arbiter', role: (a.modelDisplayName || a.modelId || 'host') + ' · host & referee', initials: '⚖', index: 'arbiter' };
      }
      const i = chairs.findIndex((c) => c.position === position);
      if (i < 0) return null;
      const c = chairs[i];
      const name = c.modelDisplayName || c.modelId;
      return { name, role: frameworkName(c.framework), initials: initialsOf(name), index: String(i % 6) };
    },
    kind(u) {
      return ({ introduction: 'Introduction', opening: 'Opening', response: u.exchange ? `Round ${u.exchange}` : 'Response',
        interruption: 'Interruption', interjection: 'Interjection', closing: 'Closing' })[u.kind] || words(u.kind);
    },
    utterance(u, card) {
      const badges = card.querySelector('.badges');
      if (u.kind === 'interjection') {
        const target = u.target ? speaker(u.target).name : 'the chairs';
        badges.append(el('span', { class: 'badge flag', text: `${pretty(u.violation || 'manual')} → ${target}` }));
      }
      if (u.kind === 'interruption' && u.reason) {
        badges.append(el('span', { class: 'badge warn', text: `↯ ${pretty(u.reason)}` }));
      }
    },
    on: {
      evaluation: (e, ev) => evaluate(state.lastBySpeaker.get(e.speaker), ev),
      interruption: (e, c) => {
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
      },
    },
    ended(data) {
      podcastMetrics(data.detail && data.detail.metrics, data.usage, chairs);
    },
  };
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

function pct(x) {
  return `${Math.round(100 * (x || 0))}%`;
}

// podcastMetrics shows the seed's success metrics against their targets,
// over the seed's denominators: steel-manning above 80% of the responses
// that critique an opponent, self-critique above 70% of the substantive
// ones; "not measured" when there is none to count.
function podcastMetrics(m, usage, chairs) {
  if (!m) return;
  usage = usage || {};
  const tiles = $('metric-tiles');
  tiles.replaceChildren();
  const tile = (label, value, sub, cls) => tiles.append(el('div', { class: 'tile ' + (cls || '') },
    el('span', { class: 'value', text: value }), el('span', { class: 'caption', text: label }),
    sub ? el('span', { class: 'sub', text: sub }) : null));
  const measured = (m.evaluated || 0) > 0;
  const rate = (label, r, met, target, n, of) => {
    if (!measured || !n) {
      tile(label, 'not measured', `target above ${target}% · no ${of} was evaluated`, 'wide muted');
      return;
    }
    tile(label, pct(r), `of ${n} ${of}${n === 1 ? '' : 's'} · target above ${target}% · ${met ? 'met' : 'missed'}`, 'wide ' + (met ? 'good' : 'bad'));
  };
  rate('Steel-manning', m.steelManningRate, m.meetsSteelManning, 80, m.critiqueResponses || 0, 'critique response');
  rate('Self-critique', m.selfCritiqueRate, m.meetsSelfCritique, 70, m.substantiveResponses || 0, 'substantive response');
  tile('Mean adherence', measured ? (m.meanAdherence || 0).toFixed(1) : '—', `${m.evaluated || 0} of ${m.responses || 0} responses evaluated`);
  tile('Framework consistency', measured ? pct(m.frameworkConsistency) : '—');
  tile('Interruptions', String(m.interruptions || 0));
  tile('Interjections', String(m.interjections || 0));
  if (m.words) {
    tile('Spoken length', `${(m.spokenMinutes || 0).toFixed(1)} min`,
      `${m.words.toLocaleString('en-US')} words at 150 a minute` + (m.targetMinutes ? ` · target ${m.targetMinutes} min` : ''));
  }

  const table = $('chair-table');
  table.replaceChildren(el('thead', {}, el('tr', {}, ...['Chair', 'Responses', 'Steel-man', 'Self-critique', 'Adherence', 'Interrupted', 'Called out']
    .map((h) => el('th', { text: h })))));
  const body = el('tbody');
  for (const c of chairs) {
    const cm = (m.byChair || {})[c.position];
    if (!cm) continue;
    const who = speaker(c.position);
    body.append(el('tr', { dataset: { chair: who.index } },
      el('td', {}, el('span', { class: 'dot' }), el('strong', { text: who.name }), el('small', { text: who.role })),
      el('td', { text: String(cm.responses) }), el('td', { text: measured ? pct(cm.steelManningRate) : '—' }),
      el('td', { text: measured ? pct(cm.selfCritiqueRate) : '—' }), el('td', { text: measured ? (cm.meanAdherence || 0).toFixed(1) : '—' }),
      el('td', { text: String(cm.interruptionsMade) }), el('td', { text: String(cm.interjectionsAgainst) })));
  }
  table.append(body);
  const tokens = (n) => (n || 0).toLocaleString('en-US');
  $('usage').textContent = `${tokens((usage.promptTokens || 0) + (usage.completionTokens || 0))} tokens: ` +
    `${tokens(usage.promptTokens)} prompt, ${tokens(usage.completionTokens)} generated.`;
  $('metrics').hidden = false;
}

// ---- the formal debate ------------------------------------------------------

const DEBATER_ENTRIES = ['opening_statement', 'new_point', 'rebuttal', 'conjecture', 'closing_statement'];

const VERIFICATION = { verified: 'good', unreliable: 'warn', fabricated: 'bad' };

function formalView() {
  const entries = new Map(); // entry seq → {entry, card}
  let pending = null; // the entry whose utterance comes next
  const findings = []; // findings heard before their entry's card
  const applyFinding = (f) => {
    const got = entries.get(f.seq);
    const li = got && got.card.querySelectorAll('.sources li[data-checked]')[f.index];
    if (!li) return false;
    const st = f.verification.status;
    const badge = li.querySelector('.badge');
    badge.className = 'badge verification ' + (VERIFICATION[st] || 'muted');
    badge.textContent = st;
    badge.title = f.verification.reason || '';
    li.dataset.status = st;
    return true;
  };
  const strike = (seq, reason) => {
    const got = entries.get(seq);
    if (!got || got.card.classList.contains('redacted')) return;
    got.card.classList.add('redacted');
    got.card.querySelector('.badges').append(el('span', { class: 'badge bad', title: reason || '', text: '✗ struck from the record' }));
  };
  return {
    segments: { setup: 'Setup', opening: 'Opening statements', rounds: 'Rounds', closing: 'Closing statements',
      conclusion: 'Conclusion', report: 'Report' },
    roster: rosterOf(['arbiter', 'promoter', 'detractor', 'audience']),
    kind(u) {
      const k = pending ? pending.type : u.kind;
      return (u.exchange ? `Round ${u.exchange} · ` : '') + pretty(k);
    },
    utterance(u, card) {
      const entry = pending;
      pending = null;
      if (!entry) return;
      entries.set(entry.seq, { entry, card });
      card.dataset.entry = String(entry.seq);
      card.classList.add('entry-' + entry.type);
      if (entry.sources && entry.sources.length) {
        // A debater's sources are verified; others (a challenge, a
        // finding) name sources already checked.
        const checked = DEBATER_ENTRIES.includes(entry.type);
        const list = el('ul', { class: 'sources' });
        for (const s of entry.sources) {
          const url = String(s.url || '');
          const link = /^https?:\/\//i.test(url)
            ? el('a', { href: url, rel: 'noopener noreferrer nofollow', target: '_blank', text: s.title || url })
            : el('span', { text: s.title || url });
          list.append(el('li', { dataset: checked ? { checked: '' } : {} },
            checked ? el('span', { class: 'badge verification muted', text: 'checking…' }) : null, ' ', link,
            el('span', { class: 'url', text: ' ' + url })));
        }
        card.insertBefore(list, card.querySelector('.badges'));
        for (let i = findings.length - 1; i >= 0; i--) if (applyFinding(findings[i])) findings.splice(i, 1);
      }
      if (entry.type === 'redaction' && entry.target_seq != null) strike(entry.target_seq, entry.content);
      if (entry.type === 'ruling') card.querySelector('.badges').append(el('span', { class: 'badge flag', text: '⚖ ruling' }));
      if (entry.type === 'audience_question') card.querySelector('.badges').append(el('span', { class: 'badge warn', text: '? from the audience' }));
    },
    on: {
      formal_entry: (e, entry) => { pending = entry; },
      formal_verification: (e, f) => { if (!applyFinding(f)) findings.push(f); },
    },
    ended(data) {
      const o = data.detail || {};
      const out = $('outcome');
      out.replaceChildren(el('h2', { text: 'Verdict' }),
        el('p', { class: 'verdict-line' }, el('strong', { class: 'verdict ' + (o.verdict || ''), text: pretty(o.verdict || 'none') }),
          ` after ${o.rounds || 0} rounds (${pretty(o.endedBy || '')})`),
        el('p', { class: 'reason', text: o.reason || '' }));
      if ((o.redactions || []).length) {
        const ul = el('ul', {});
        for (const r of o.redactions) ul.append(el('li', { text: `Entry ${r.seq} by ${speaker(r.speaker).name} struck: ${r.reason}` }));
        out.append(el('h3', { text: 'Redactions' }), ul);
      }
      out.hidden = false;
    },
  };
}

// ---- the scored debate ------------------------------------------------------

function scoredView(d) {
  const cfg = d.config || {};
  const scale = cfg.scale || { min: 1, max: 10 };
  const cats = (cfg.categories || []).map((c) => ({ id: c.id, name: c.name,
    pre: ((cfg.evaluations || {})[c.id] || {}).score, post: null, delta: null, verdict: null }));
  const chart = el('div', { class: 'score-chart' });
  const total = el('p', { class: 'hint' });
  const draw = () => {
    const rowH = 34, labelW = 170, barW = 440, w = labelW + barW + 80;
    const x = (s) => labelW + barW * ((s - scale.min) / (scale.max - scale.min || 1));
    const root = svg('svg', { viewBox: `0 0 ${w} ${cats.length * rowH + 26}`, width: '100%', role: 'img',
      'aria-label': 'Scores before and after each round' });
    cats.forEach((c, i) => {
      const y = i * rowH + 4;
      const g = svg('g', { class: 'cat', 'data-category': c.id });
      g.append(svg('text', { x: 0, y: y + 17, class: 'cat-name', text: c.name }),
        svg('rect', { x: labelW, y: y + 4, width: barW, height: 18, rx: 4, class: 'track' }));
      if (c.pre != null) g.append(svg('rect', { x: labelW, y: y + 4, width: Math.max(0, x(c.pre) - labelW), height: 8, rx: 3, class: 'pre' },
        svg('title', { text: `before: ${c.pre}` })));
      if (c.post != null) {
        g.append(svg('rect', { x: labelW, y: y + 13, width: Math.max(0, x(c.post) - labelW), height: 9, rx: 3,
          class: 'post ' + (c.delta > 0 ? 'up' : c.delta < 0 ? 'down' : 'same') }, svg('title', { text: `after: ${c.post}` })));
        g.append(svg('text', { x: labelW + barW + 8, y: y + 19, class: 'delta ' + (c.delta > 0 ? 'up' : c.delta < 0 ? 'down' : 'same'),
          text: `${c.delta > 0 ? '+' : ''}${Number(c.delta).toFixed(2)}` }));
      }
      root.append(g);
    });
    const ly = cats.length * rowH + 18;
    root.append(svg('rect', { x: labelW, y: ly - 8, width: 14, height: 8, class: 'pre' }),
      svg('text', { x: labelW + 20, y: ly, class: 'legend', text: 'before the round' }),
      svg('rect', { x: labelW + 150, y: ly - 8, width: 14, height: 8, class: 'post same' }),
      svg('text', { x: labelW + 170, y: ly, class: 'legend', text: `after the verdict (scale ${scale.min}–${scale.max})` }));
    chart.replaceChildren(root);
  };
  panel('scores', 'Scores by category', chart, total);
  draw();
  return {
    segments: { rounds: 'Rounds' },
    roster: rosterOf(['advocate', 'challenger', 'arbiter']),
    kind(u) {
      const c = cats[(u.exchange || 1) - 1];
      return `${words(u.kind)}${c ? ' · ' + c.name : ''}`;
    },
    on: {
      scored_verdict: (e, rv) => {
        const c = cats.find((c) => c.id === rv.category) || cats[rv.round - 1];
        if (!c) return;
        Object.assign(c, { pre: rv.preScore, post: rv.postScore, delta: rv.delta, verdict: rv.verdict });
        draw();
        const card = state.lastBySpeaker.get('arbiter');
        const v = rv.verdict || {};
        if (card) {
          card.querySelector('.badges').append(
            el('span', { class: 'badge ' + (v.winner === 'advocate' ? 'good' : v.winner === 'challenger' ? 'bad' : 'muted'),
              text: `${pretty(v.winner)}${v.winner === 'draw' ? '' : ' wins'}` }),
            el('span', { class: 'badge', text: `confidence ${Number(v.confidence || 0).toFixed(2)}` }),
            el('span', { class: 'badge ' + (rv.delta > 0 ? 'good' : rv.delta < 0 ? 'bad' : 'muted'),
              text: `${c.name}: ${rv.preScore} → ${rv.postScore}` }));
          if (v.defaulted) card.querySelector('.badges').append(el('span', { class: 'badge weak', text: 'no valid verdict: a draw' }));
        }
      },
      scored_scores: (e, card) => {
        total.textContent = `Total adjustment ${card.total > 0 ? '+' : ''}${Number(card.total || 0).toFixed(2)}.`;
      },
    },
  };
}

// ---- the moderated debate ---------------------------------------------------

function moderatedView() {
  const perspectives = panel('perspectives', 'Perspectives', el('p', { class: 'hint', text: 'The moderator is reading the question…' }));
  let seated = [];
  let lastSummary = '';
  let lastRound = 0;
  const names = {};
  return {
    // round is the last round judged: the checkpoint the debate is at.
    round: () => lastRound,
    segments: { analysis: 'Analysis', rounds: 'Rounds', synthesis: 'Synthesis' },
    roster: (box) => rosterOf(['arbiter'].concat(seated.map((p) => p.id)))(box),
    speaker(position) {
      if (position === 'arbiter') return { name: 'Moderator', role: 'moderator', initials: 'M', index: 'arbiter' };
      const i = seated.findIndex((p) => p.id === position);
      if (i >= 0) return { name: seated[i].name, role: seated[i].model || 'perspective', initials: initialsOf(seated[i].name), index: String(i % 6) };
      return names[position] ? { name: names[position], role: 'perspective', initials: initialsOf(names[position]), index: '5' } : null;
    },
    kind(u) {
      return (u.exchange ? `Round ${u.exchange} · ` : '') + words(u.kind);
    },
    utterance(u, card) {
      if (u.speaker === 'arbiter') card.classList.add('commentary');
    },
    on: {
      moderated_analysis: (e, a) => {
        $('timeline').append(el('div', { class: 'commentary-note' },
          el('strong', { text: 'Moderator’s analysis' }), ` — domain: ${a.domain || 'unknown'}; ${a.debaters} perspectives`,
          (a.constraints || []).length ? `; constraints: ${a.constraints.join(', ')}` : '',
          a.fallback ? ' (by keywords: the moderator’s reply could not be read)' : ''));
      },
      moderated_assignment: (e, ps) => {
        seated = ps || [];
        for (const p of seated) names[p.id] = p.name;
        const cards = el('div', { class: 'perspective-cards' });
        seated.forEach((p, i) => {
          cards.append(el('article', { class: 'perspective-card', dataset: { chair: String(i % 6), perspective: p.id } },
            el('header', {}, el('span', { class: 'avatar', text: initialsOf(p.name) }),
              el('div', { class: 'who' }, el('span', { class: 'name', text: p.name }), el('span', { class: 'role', text: p.model }))),
            el('ul', { class: 'priorities' }, ...(p.priorities || []).map((x) => el('li', { text: x }))),
            el('p', { class: 'tradeoffs', text: p.tradeOffs || '' })));
        });
        perspectives.replaceChildren(el('h2', { text: 'Perspectives' }), cards);
        rosterOf(['arbiter'].concat(seated.map((p) => p.id)))($('roster'));
      },
      moderated_judgment: (e, j) => {
        lastSummary = j.summary || '';
        lastRound = j.round || lastRound;
        const sig = (on, cls, text) => (on ? el('span', { class: 'badge signal ' + cls, text }) : null);
        $('timeline').append(el('div', { class: 'signals', dataset: { round: String(j.round) } },
          el('strong', { text: `Round ${j.round} signals` }),
          sig(j.converging, 'good', '⇢⇠ converging'), sig(j.stagnating, 'weak', '↻ stagnating'),
          sig(j.newGround, 'ok', '✦ new ground'),
          sig(!!j.clearWinner, 'good', `★ clear winner: ${speaker(j.clearWinner || '').name}`),
          ...(j.offTopic || []).map((p) => el('span', { class: 'badge signal bad', text: `off topic: ${speaker(p).name}` })),
          ...(j.repeating || []).map((p) => el('span', { class: 'badge signal weak', text: `repeating: ${speaker(p).name}` })),
          sig(!!j.end, 'flag', `ends: ${pretty(j.end)}`),
          sig(j.fallback, 'muted', 'measured signals only')));
      },
      moderated_clarification: (e, c) => {
        // A pause stored so is an earlier version's; the engine's is an
        // "asked" event (app.js).
        if (c.paused) showClarification(c.question, c.assumption);
        else answered('clarification'); // the moderator's card says what came of it
      },
      moderated_checkpoint: (e, cp) => {
        if (cp.paused) {
          showCheckpoint(cp.round, lastSummary);
          return;
        }
        answered('checkpoint');
        $('timeline').append(el('div', { class: 'notice checkpoint-note', dataset: { round: String(cp.round), action: cp.action } },
          el('strong', { text: `Checkpoint after round ${cp.round}:` }), ' ',
          cp.auto ? 'continued (no checkpoints)' : ({ continue: 'continue', guide: 'continue with your guidance', end: 'end and synthesize' })[cp.action] || cp.action));
      },
      moderated_synthesis: (e, s) => synthesisView(s),
      moderated_approval: (e, a) => {
        if (a.paused) {
          showApproval();
          return;
        }
        answered('approval');
        approvalView(a);
      },
    },
  };
}

// synthesisView shows the moderator's synthesis with collapsible sections.
function synthesisView(s) {
  const out = $('outcome');
  const list = (items) => el('ul', {}, ...(items || []).map((x) => el('li', { text: x })));
  const section = (title, open, ...body) => el('details', { class: 'synthesis-section', open }, el('summary', { text: title }), ...body);
  out.replaceChildren(el('h2', { text: 'Synthesis: ' + (s.title || '') }),
    el('p', { class: 'hint', text: `${s.rounds} rounds · ended by ${pretty(s.endReason)} · confidence ${s.confidence}${s.fallback ? ' · written without the moderator' : ''}` }),
    section('Recommendation', true, el('p', { class: 'recommendation', text: s.recommendation || '(none)' })),
    section('Points of agreement', true, list(s.agreement)),
    section('Key tensions', false, list(s.tensions)),
    section('Perspectives considered', false, ...(s.perspectives || []).map((p) =>
      el('div', { class: 'perspective-summary' }, el('h4', { text: p.name }), list(p.keyArguments),
        (p.tradeOffsAccepted || []).length ? el('p', { class: 'hint', text: 'Accepts: ' + p.tradeOffsAccepted.join('; ') }) : null))),
    section('Caveats', false, list(s.caveats)),
    s.dissent ? section('Dissenting view', false, el('p', { text: s.dissent })) : null);
  out.hidden = false;
}

// approvalView shows, under the synthesis's title, what the person made of
// it.
function approvalView(a) {
  const text = {
    approved: '✔ Approved: this is the decision.',
    rejected: '✘ Rejected: this is not the decision.',
  }[a.status] || 'Not reviewed: nobody was asked to approve it.';
  const line = el('p', { class: 'approval-status ' + (a.status || 'unreviewed'), dataset: { status: a.status || 'unreviewed' } },
    el('strong', { text }), a.note ? el('span', { class: 'approval-note', text: ' “' + a.note + '”' }) : null);
  const out = $('outcome');
  const old = out.querySelector('.approval-status');
  if (old) old.replaceWith(line);
  else if (out.firstChild) out.firstChild.after(line);
  else out.append(line);
}

// ---- the persuasion dialogue ------------------------------------------------

function persuasionView(d) {
  const cfg = d.config || {};
  // The debaters speak as "pro" and "opp" (debates stored before as "PRO"
  // and "OPP"); their moves, turns, commitment stores and scores name them
  // by the seed's side labels, PRO and OPP.
  const sideOf = (speaker) => ({ pro: 'PRO', opp: 'OPP', PRO: 'PRO', OPP: 'OPP' })[speaker];
  const stores = { PRO: [], OPP: [] };
  const pendingTurn = {}; // side label → the turn whose utterance comes next
  const cols = {};
  const box = el('div', { class: 'commitments' });
  for (const side of ['PRO', 'OPP']) {
    cols[side] = el('ul', { class: 'commitment-list', dataset: { side } });
    const persona = (side === 'PRO' ? cfg.pro : cfg.opp) || {};
    box.append(el('div', { class: 'commitment-store', dataset: { chair: side === 'PRO' ? '0' : '1' } },
      el('h3', {}, el('span', { class: 'dot' }), `${side} — ${persona.description || ''}`), cols[side]));
  }
  panel('commitments', 'Commitment stores', box);
  const drawStores = () => {
    for (const side of ['PRO', 'OPP']) {
      cols[side].replaceChildren(...stores[side].map((p) => el('li', { text: p })));
      if (!stores[side].length) cols[side].append(el('li', { class: 'hint', text: 'nothing yet' }));
    }
  };
  const commit = (side, p) => { if (p && !stores[side].includes(p)) stores[side].push(p); };
  const apply = (m) => {
    const side = m.speaker;
    if (!stores[side]) return;
    switch (m.act) {
      case 'claim': commit(side, m.proposition); break;
      case 'since': commit(side, m.proposition); for (const r of m.reasons || []) commit(side, r); break;
      case 'concede': commit(side, m.proposition); break;
      case 'retract': stores[side] = stores[side].filter((p) => p !== m.proposition); break;
      default:
    }
  };
  drawStores();
  const speakers = { PRO: 0, OPP: 1 };
  return {
    segments: { opening: 'Opening', argumentation: 'Argumentation', closing: 'Closing', judgment: 'Judgment' },
    roster: rosterOf(['pro', 'opp', 'arbiter']),
    speaker(position) {
      if (position === 'arbiter') return { name: 'MOD', role: (cfg.mod || {}).description || 'moderator', initials: 'M', index: 'arbiter' };
      const side = sideOf(position);
      if (side) {
        const p = (side === 'PRO' ? cfg.pro : cfg.opp) || {};
        return { name: side, role: p.description || '', initials: side.slice(0, 2), index: String(speakers[side]) };
      }
      return null;
    },
    kind(u) {
      return (u.exchange ? `Round ${u.exchange} · ` : '') + words(u.kind);
    },
    utterance(u, card) {
      const side = sideOf(u.speaker);
      const turn = pendingTurn[side];
      delete pendingTurn[side];
      if (!turn) return;
      const acts = el('ul', { class: 'moves' });
      for (const m of turn.moves || []) {
        acts.append(el('li', { class: 'move act-' + m.act, dataset: { act: m.act } },
          el('b', { text: m.id || '' }), ' ', el('span', { class: 'act', text: m.act }),
          m.target ? el('span', { class: 'target', text: ` → ${m.target}${m.attack ? ' (' + m.attack + ')' : ''}` }) : null,
          ' ', el('span', { class: 'prop', text: m.proposition }),
          (m.reasons || []).length ? el('span', { class: 'hint', text: ' because ' + m.reasons.join('; ') }) : null));
      }
      card.insertBefore(acts, card.querySelector('.badges'));
      if (turn.defaulted) card.querySelector('.badges').append(el('span', { class: 'badge weak', text: 'pass: no usable move' }));
      for (const r of turn.rejected || []) {
        card.querySelector('.badges').append(el('span', { class: 'badge muted', title: r.problem, text: 'a reply was rejected and asked again' }));
      }
    },
    on: {
      persuasion_turn: (e, turn) => {
        pendingTurn[turn.side] = turn;
        for (const m of turn.moves || []) apply(m);
        drawStores();
      },
      persuasion_verdict: (e, j) => {
        const out = $('outcome');
        const m = j.moderation || {};
        out.replaceChildren(el('h2', { text: 'Verdict' }),
          el('p', { class: 'verdict-line' }, el('strong', { text: j.draw ? 'A draw' : `${j.winner} wins` }), ' — ',
            (j.sides || []).map((s) => `${s.side ?? s.Side} ${Number(s.score ?? s.Score).toFixed(2)}`).join(' vs ')),
          el('h3', { text: 'Rationale' }), el('p', { text: m.rationale || '' }),
          el('h3', { text: 'Consensus' }), el('p', { text: m.consensus || '' }),
          el('h3', { text: 'Conditions for revisiting' }), el('ul', {}, ...(m.conditions || []).map((c) => el('li', { text: c }))));
        out.hidden = false;
      },
    },
    ended(data) {
      const v = (data.detail || {}).verdict || {};
      // Events recorded before the JSON tags have capitalised keys.
      for (const cs of v.commitments || v.Commitments || []) {
        const who = cs.participant ?? cs.Participant;
        if (stores[who]) stores[who] = (cs.commitments || cs.Commitments || []).slice();
      }
      drawStores();
    },
  };
}
