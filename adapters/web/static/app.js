// Illegal: local table. Plain JavaScript, no build step.
// Talks to illegald over one websocket (protocol: adapters/web/README.md) and
// renders the public table and the player's private trading room from the
// structured `data` of each message. Every button sends a canonical command.
// Every word it shows is the catalog's, by key, in the language the reader chose
// (see "words" below); the bot's own messages come in the table's language.
'use strict';

(function () {
  const C = window.IllegalCards;
  const TIMERS = ['session', 'reveal', 'grab', 'debate', 'vote'];

  const $ = (id) => document.getElementById(id);
  const store = {
    get(k) { try { return localStorage.getItem(k); } catch { return null; } },
    set(k, v) { try { localStorage.setItem(k, v); } catch { /* private mode */ } },
  };

  // Inside Discord (the Activity), Discord opens the page with frame_id and instance_id in its
  // query, and its proxy maps /.proxy/ to this server: every request goes there.
  const query = new URLSearchParams(location.search);
  const A = { on: query.has('frame_id') && query.has('instance_id'), sdk: null, clientId: null,
    ticket: null, channel: null, failed: false };
  const PFX = A.on ? '/.proxy' : '';

  // ---- words ----
  // /catalog/<lang>.json: {"lang", "name", "languages": [{code, name}], "texts": {key: text}},
  // every key of the template in every language (English where a translation lacks one); a
  // text with a plural is [one, other]. The reader's choice is kept in illegal.lang; which
  // games were told it, for private messages, in illegal.lang.told ({game: code}).
  const LANG = 'illegal.lang', TOLD = 'illegal.lang.told';
  const W = { lang: 'en', cat: null, num: new Intl.NumberFormat('en'), plural: new Intl.PluralRules('en'), catalogs: {}, asked: {} };
  function has(key) { return !!(W.cat && W.cat.texts && key in W.cat.texts); }
  // A key the catalog lacks shows as itself, and is noted (tests read it: none may be missing).
  const missing = new Set();
  function raw(key) {
    const s = W.cat && W.cat.texts ? W.cat.texts[key] : undefined;
    if (s === undefined || s === null) {
      if (W.cat) missing.add(key);
      return key;
    }
    return s;
  }
  // Fills {name} placeholders ({{ and }} are braces); numbers are written the language's way.
  function fill(s, vars) {
    return s.replace(/\{\{|\}\}|\{([A-Za-z_][A-Za-z0-9_-]*)\}/g, (m, k) => {
      if (!k) return m[0];
      if (!vars || !(k in vars)) return m;
      const v = vars[k];
      return typeof v === 'number' ? num(v) : String(v);
    });
  }
  // A key's text; a plural text in its form for `count` when given (else the other form).
  function tr(key, vars) {
    const s = raw(key);
    return fill(Array.isArray(s) ? s[s.length - 1] : s, vars);
  }
  function trn(key, count, vars) {
    const s = raw(key);
    const forms = Array.isArray(s) ? s : [s];
    const i = W.plural.select(count) === 'one' ? 0 : 1;
    return fill(forms[Math.min(i, forms.length - 1)], { count, ...vars });
  }
  function num(n) { return W.num.format(n); }
  // a list of names or parts, as the language writes one ("a, b, c")
  function list(items) {
    try { return new Intl.ListFormat(W.lang, { type: 'unit', style: 'short' }).format(items); } catch { return items.join(', '); }
  }
  // a text that starts a sentence or a button
  function capital(s) { return s ? s[0].toLocaleUpperCase(W.lang) + s.slice(1) : s; }
  // A phase in words: the page's (Illegal's phases), else a game's drawing's
  function phaseName(phase) {
    if (has('page.phase.' + phase)) return tr('page.phase.' + phase);
    for (const m of Object.values(S.drawings)) {
      const words = m.phaseName && m.phaseName(phase);
      if (words) return capital(words);
    }
    return phase;
  }
  // a lobby's mode, in its game's words
  function variantName(v, module) {
    const g = S.games.find((x) => x.id === module) || S.games[0];
    return v ? modeWords(g, v) : '';
  }
  function presetName(p) { return has('illegal.preset.' + p) ? capital(tr('illegal.preset.' + p)) : p; }
  function languageName(code) {
    const l = ((W.cat && W.cat.languages) || []).find((x) => x.code === code);
    return l ? l.name : code;
  }
  // The bot's own words read back: the values a line of its text was filled with, when the line
  // is the text of `key` ("msg.seat-open") in a language the page has loaded, the table's first;
  // or null. Only for what the bot tells in words alone (whose seat is open, which case a verdict
  // judged). {placeholders} match any text; one named twice must be the same text twice.
  const PATTERNS = new Map(); // "<lang> <key>" -> {re, names} or null
  function pattern(c, key) {
    const id = `${c.lang} ${key}`;
    if (PATTERNS.has(id)) return PATTERNS.get(id);
    const text = c.texts ? c.texts[key] : null;
    let p = null;
    if (typeof text === 'string') {
      const esc = (x) => x.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      const names = [];
      let re = '', last = 0, m;
      const tok = /\{\{|\}\}|\{([A-Za-z_][A-Za-z0-9_-]*)\}/g;
      while ((m = tok.exec(text))) {
        re += esc(text.slice(last, m.index));
        last = tok.lastIndex;
        if (!m[1]) re += esc(m[0][0]);
        else if (names.includes(m[1])) re += `\\${names.indexOf(m[1]) + 1}`;
        else {
          names.push(m[1]);
          re += '(.+?)';
        }
      }
      re += esc(text.slice(last));
      try { p = { re: new RegExp(`^${re}$`, 'u'), names }; } catch { p = null; }
    }
    PATTERNS.set(id, p);
    return p;
  }
  function readBot(t, key, line) {
    const cats = Object.values(W.catalogs);
    const first = t && t.lang && W.catalogs[t.lang];
    if (first) cats.unshift(first);
    for (const c of cats) {
      const p = pattern(c, key);
      const m = p && p.re.exec(line);
      if (m) return Object.fromEntries(p.names.map((n, i) => [n, m[i + 1]]));
    }
    return null;
  }
  // The bot's words for the page: a message's data lists the catalog key and values of each
  // line of its text ("say"); a line whose key has a wording for the page (page.say.<key>:
  // buttons to press where chat has words to type) is written with it, in the message's own
  // language. Other lines, and messages with no "say", are the bot's text as it is.
  function pageText(f) {
    const d = (f && f.data) || {};
    const say = Array.isArray(d.say) ? d.say : null;
    const c = (d.lang && W.catalogs[d.lang]) || (!d.lang && W.cat) || null;
    if (!say || !say.length || !c || !say.some((x) => x && c.texts['page.say.' + x.key] !== undefined)) return f.text;
    return say.map((x) => {
      const own = c.texts['page.say.' + x.key];
      const text = own !== undefined ? own : c.texts[x.key];
      if (text === undefined) return '';
      const vars = x.vars || {};
      const forms = Array.isArray(text) ? text : [text];
      const n = Number(vars.count);
      let form = forms[forms.length - 1];
      if (forms.length > 1 && vars.count !== undefined && Number.isFinite(n)) {
        try { form = forms[new Intl.PluralRules(c.lang).select(n) === 'one' ? 0 : 1]; } catch { /* the other form */ }
      }
      return form.replace(/\{\{|\}\}|\{([A-Za-z_][A-Za-z0-9_-]*)\}/g, (m, k) => (!k ? m[0] : k in vars ? vars[k] : m));
    }).join('\n');
  }
  // A message's language is loaded before its text is written again for the page.
  function wordsFor(d) { if (d && d.lang) tableWords(d.lang); }

  // The catalog of a table's language, for readBot: fetched once, then the page drawn again.
  function tableWords(code) {
    if (!code || W.catalogs[code] || W.asked[code]) return;
    W.asked[code] = true;
    catalog(code).then((c) => { if (c) render(); }, () => { W.asked[code] = false; });
  }

  // seconds in their two largest units, as the bot writes them ('2 d 5 h', '1 min 30 s')
  function duration(s) {
    const d = Math.floor(s / 86400), h = Math.floor((s % 86400) / 3600), m = Math.floor((s % 3600) / 60), sec = s % 60;
    if (d) return h ? tr('time.days-hours', { a: d, b: h }) : tr('time.days', { a: d });
    if (h) return m ? tr('time.hours-minutes', { a: h, b: m }) : tr('time.hours', { a: h });
    if (m) return sec ? tr('time.minutes-seconds', { a: m, b: sec }) : tr('time.minutes', { a: m });
    return tr('time.seconds', { a: sec });
  }

  // The languages to try, best first: the reader's choice, then the browser's ("pt-BR" asks
  // for "pt"), then English.
  function wanted() {
    const out = [];
    const add = (tag) => {
      const code = String(tag || '').toLowerCase().split(/[-_]/)[0];
      if (/^[a-z]{2,3}$/.test(code) && !out.includes(code)) out.push(code);
    };
    add(store.get(LANG));
    for (const l of navigator.languages || [navigator.language]) add(l);
    add('en');
    return out;
  }
  // A language's catalog, or null when the server has none (a network failure throws).
  async function catalog(code) {
    if (W.catalogs[code]) return W.catalogs[code];
    const r = await fetch(`${PFX}/catalog/${encodeURIComponent(code)}.json`);
    if (!r.ok) return null;
    const c = await r.json();
    if (!c || typeof c.texts !== 'object') return null;
    W.catalogs[code] = c;
    return c;
  }
  function useCatalog(c) {
    W.cat = c;
    W.lang = c.lang;
    try {
      W.num = new Intl.NumberFormat(c.lang);
      W.plural = new Intl.PluralRules(c.lang);
    } catch { /* an unknown tag: the browser's own */ }
    document.documentElement.lang = c.lang;
    C.setText(tr, tr);
  }
  // The first language the server has, retried while it does not answer.
  async function loadWords() {
    for (;;) {
      try {
        for (const code of wanted()) {
          const c = await catalog(code);
          if (c) return useCatalog(c);
        }
      } catch { /* not answering */ }
      await new Promise((r) => setTimeout(r, 2000));
    }
  }

  // The words of the page itself: data-i18n names an element's text, data-i18n-<attribute>
  // the text of that attribute.
  function renderWords() {
    document.title = tr('page.title');
    for (const e of document.querySelectorAll('[data-i18n]')) e.textContent = tr(e.dataset.i18n);
    for (const attr of ['title', 'placeholder', 'aria-label']) {
      for (const e of document.querySelectorAll(`[data-i18n-${attr}]`)) e.setAttribute(attr, tr(e.getAttribute(`data-i18n-${attr}`)));
    }
    languageMenu($('lang'), W.lang);
  }
  // A menu of the catalog's languages, each in its own name.
  function languageMenu(sel, value) {
    clear(sel);
    for (const l of (W.cat && W.cat.languages) || []) sel.append(el('option', { value: l.code, lang: l.code, text: l.name }));
    sel.value = value || '';
  }
  // Private messages follow the reader's choice: the bot keeps a language with each seat, so
  // each game the reader plays at this table is told the choice once ("g3 language de").
  function tellLanguage(t, p) {
    const want = store.get(LANG);
    if (!want || !S.user || !t.game || t.phase === 'over' || !S.ws || S.ws.readyState !== WebSocket.OPEN) return;
    const seated = (t.lobby && (t.lobby.players || []).some((x) => x.id === S.user)) || (p && p.hand && p.game === t.game);
    if (!seated) return;
    let told;
    try { told = JSON.parse(store.get(TOLD)) || {}; } catch { told = {}; }
    if (typeof told !== 'object' || told[t.game] === want) return;
    send({ type: 'command', channel: null, text: `${t.game} language ${want}` });
    delete told[t.game];
    told[t.game] = want;
    const games = Object.keys(told);
    if (games.length > 32) delete told[games[0]];
    store.set(TOLD, JSON.stringify(told));
  }

  const S = {
    token: store.get('illegal.token'),
    name: store.get('illegal.name'),
    user: null,
    ws: null,
    retry: 0,
    tables: [],
    current: null,
    T: {}, // public state per table
    P: {}, // private state per table
    names: {}, // user id -> display name
    computers: {}, // user id -> level, of the computer players the lobbies listed
    solo: false, // "Play alone" was pressed: a table of one's own once seated
    conn: 'off', // the socket: 'on', 'off' or 'reconnecting'
    tab: 'table', // the pane a narrow screen shows
    unseen: new Set(), // panes with news not looked at
    scrollTo: null, // a box to bring into view after the next render
    opened: new Set(), // tables this socket follows, whose replay has come
    online: new Set(), // the users with a page open now (the server's "presence")
    invite: null, // where friends open the table (/invite.json)
    alerts: [], // every call back fired: {kind, sound, vibrate}, for tests
    missing, // catalog keys the page asked for and the catalog lacks
    frames: [], // every frame received, for tests and debugging
    games: [], // the games the server has: [{id, modes, mode_keys, min, max}] (its welcome)
    drawings: {}, // module id -> its drawing (static/<id>.js), made once the page has started
  };
  window.__illegal = S;

  if (!S.token || !/^[A-Za-z0-9_-]{16,128}$/.test(S.token)) {
    const bytes = new Uint8Array(24);
    crypto.getRandomValues(bytes);
    S.token = Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
    store.set('illegal.token', S.token);
  }

  // ---- small DOM helpers ----
  function el(tag, attrs, ...kids) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === undefined || v === null || v === false) continue;
      if (k === 'class') e.className = v;
      else if (k === 'text') e.textContent = v;
      else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
      else e.setAttribute(k, v === true ? '' : v);
    }
    for (const kid of kids) if (kid !== null && kid !== undefined) e.append(kid);
    return e;
  }
  function clear(e) { while (e.firstChild) e.removeChild(e.firstChild); return e; }
  // Draws box's children from items ({key, sig, make, act}), keeping each element whose key and
  // sig are those drawn last time: a frame that changes one card moves no focus, no selection
  // and no press elsewhere. A kept element takes the item's act (its click, made anew for each
  // frame). The box holds keyed children only.
  function keyed(box, items) {
    const had = new Map();
    for (const c of box.children) had.set(c.keyedAs, c);
    const want = items.map((it) => {
      const old = had.get(it.key);
      if (old && old.keyedSig === it.sig) {
        had.delete(it.key);
        if (it.act) old.act = it.act;
        return old;
      }
      const e = it.make();
      e.keyedAs = it.key;
      e.keyedSig = it.sig;
      return e;
    });
    const focused = box.contains(document.activeElement) ? document.activeElement : null;
    want.forEach((e, i) => { if (box.children[i] !== e) box.insertBefore(e, box.children[i] || null); });
    while (box.children.length > want.length) box.lastElementChild.remove();
    if (focused && !focused.isConnected) refocus(box, focused);
    return box;
  }
  // A keyed item (keyed()) that is one line of hint text, redrawn when the language changes.
  const hintItem = (key) => ({ key: '.' + key, sig: W.lang, make: () => el('p', { class: 'hint', text: tr(key) }) });
  // The keyboard's focus was on an element redrawn: it goes to the one drawn in its place (the
  // same button or card), when that one takes it.
  function refocus(box, was) {
    const names = ['data-command', 'data-card', 'data-play', 'data-action', 'data-vote'].filter((a) => was.hasAttribute(a));
    if (!names.length) return;
    const same = [...box.querySelectorAll(was.tagName)].find((e) => names.every((a) => e.getAttribute(a) === was.getAttribute(a)));
    if (same && !same.disabled) same.focus();
  }

  let toastTimer = 0;
  function toast(text, info) {
    const t = $('toast');
    t.textContent = text;
    t.className = info ? 'toast info' : 'toast';
    t.hidden = false;
    clearTimeout(toastTimer);
    toastTimer = setTimeout(() => { t.hidden = true; }, 4000);
  }

  function playerName(id) { return S.names[id] || id; }
  function learnPlayers(list) {
    for (const p of list || []) if (p && p.id) S.names[p.id] = p.name || p.id;
  }
  // The computer players a lobby listed (its players say their level): they keep their ids.
  function learnComputers(list) {
    for (const p of list || []) if (p && p.id && p.computer) S.computers[p.id] = p.computer;
  }

  // What a card is for, as its tooltip says: its name, then the rule that makes it matter.
  function tip(id) {
    const n = C.names(id);
    const key = { resource: 'page.tip.resource', dealer: 'page.tip.dealer', buyer: 'page.tip.buyer',
      'suspect-dealer': 'page.tip.suspect', 'suspect-buyer': 'page.tip.suspect' }[n.kind];
    return key ? `${n.full}\n${tr(key, { resource: C.resName(n.res) })}` : n.full;
  }
  // A card: a resource ("guns"), a role ("dealer:guns") or a suspect ("suspect-buyer:guns");
  // another game's drawing gives its card's picture (opts.art) and tooltip (opts.tip).
  // A card that does nothing when clicked shows its tooltip when tapped (phones have no hover).
  function card(id, opts = {}) {
    let cls = 'card';
    if (opts.cls) cls += ' ' + opts.cls;
    if (opts.onclick) cls += ' clickable';
    const title = opts.tip || tip(id);
    // (its click is e.act, which a keyed redraw may replace: keyed())
    const e = el('div', { class: cls, 'data-card': id, title, role: opts.onclick ? 'button' : null,
      tabindex: opts.onclick ? '0' : null, onclick: (ev) => e.act(ev) },
    opts.art || C.svg(id),
    opts.count !== undefined ? el('span', { class: 'count', text: num(opts.count) }) : null);
    e.act = opts.onclick || (() => toast(title, true));
    if (opts.onclick) {
      e.addEventListener('keydown', (ev) => {
        if (ev.key !== 'Enter' && ev.key !== ' ') return;
        ev.preventDefault(); // (a space would scroll the page)
        e.act(ev);
      });
    }
    return e;
  }

  // ---- connection ----
  function connect() {
    const url = (location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host + PFX + '/ws';
    const ws = new WebSocket(url);
    S.ws = ws;
    ws.onopen = () => {
      S.retry = 0;
      setConn('on');
      if (A.on) activityHello();
      else if (S.name) hello(S.name);
      else show('name');
    };
    ws.onclose = () => {
      setConn(S.name || A.on ? 'reconnecting' : 'off');
      S.user = null;
      S.opened.clear();
      // the server closes a socket that says no hello in time: without a name, wait for one
      if (A.failed || (!S.name && !A.on)) return;
      const delay = Math.min(5000, 500 * 2 ** S.retry++);
      setTimeout(connect, delay);
    };
    ws.onmessage = (ev) => {
      let f;
      try { f = JSON.parse(ev.data); } catch { return; }
      S.frames.push(f);
      handle(f);
    };
  }
  function send(obj) {
    if (S.ws && S.ws.readyState === WebSocket.OPEN) S.ws.send(JSON.stringify(obj));
    else toast(tr('page.not-connected'));
  }
  function hello(name) { send({ type: 'hello', token: S.token, name, lang: W.lang }); }
  // 'on', 'off' or 'reconnecting'
  function setConn(state) {
    S.conn = state;
    renderConn();
  }
  function renderConn() {
    const c = $('conn');
    c.textContent = tr(S.conn === 'on' ? 'page.online' : S.conn === 'reconnecting' ? 'page.reconnecting' : 'page.offline');
    c.className = S.conn === 'on' ? 'conn on' : 'conn off';
  }

  // The new game's choice: the server's games (its welcome lists them, the default first), each
  // named by the catalog's <id>.game, and the chosen game's modes by <mode_keys>.<mode>. With
  // one game there is nothing to choose but its mode.
  function offerGames(games) {
    const sel = $('game-choice');
    const keep = sel.value;
    clear(sel);
    for (const g of games) sel.append(el('option', { value: g.id, text: gameWords(g.id) }));
    if (keep) sel.value = keep;
    sel.hidden = games.length < 2;
    offerModes();
  }
  function offerModes() {
    const g = S.games.find((x) => x.id === $('game-choice').value) || S.games[0];
    const sel = $('variant');
    const keep = sel.value;
    clear(sel);
    for (const m of (g && g.modes) || []) sel.append(el('option', { value: m, text: modeName(g, m) }));
    if (keep) sel.value = keep;
  }
  function modeName(g, mode) { return capital(modeWords(g, mode)); }
  function modeWords(g, mode) {
    const key = g && g.mode_keys ? `${g.mode_keys}.${mode}` : null;
    return key && has(key) ? tr(key) : mode;
  }
  $('game-choice').addEventListener('change', offerModes);

  // Whoever opens a game at the local table plays in it: the page seats them at once.
  function newGame() {
    const game = S.games.length > 1 ? $('game-choice').value + ' ' : '';
    sayTable('!illegal new ' + game + $('variant').value);
    sayTable('!illegal join');
  }

  // The first screen speaks of the server's games: a line a game (its name, how many play it,
  // what it is), and "Play alone" names the first, the one it starts. They are the welcome's
  // list, read from /games.json before any hello.
  async function loadGames() {
    try {
      const r = await fetch(`${PFX}/games.json`);
      if (r.ok && !S.games.length) S.games = await r.json();
    } catch { /* the welcome brings them */ }
    offerGames(S.games);
    renderIntro();
  }
  function gameWords(id) { return has(id + '.game') ? tr(id + '.game') : id; }
  function renderIntro() {
    const list = clear($('intro-games'));
    for (const g of S.games) {
      list.append(el('li', { 'data-game': g.id, text: tr('page.intro-game',
        { game: gameWords(g.id), min: num(g.min), max: num(g.max), about: tr(g.id + '.about') }) }));
    }
    $('play-alone-hint').textContent = S.games.length ? tr('page.play-alone-hint', { game: gameWords(S.games[0].id) }) : '';
  }

  // "Play alone": a table of one's own, a quick game, three computer players, and the start.
  const SOLO_COMPUTERS = 3;
  function playAlone() {
    const id = 'solo-' + Math.random().toString(36).slice(2, 8);
    openTable(id);
    // the server's first game, in its first mode
    const g = S.games[0] || { id: '', modes: [] };
    sayTable(['!illegal new', S.games.length > 1 ? g.id : '', g.modes[0] || ''].filter(Boolean).join(' '));
    sayTable('!illegal join');
    sayTable('!illegal set preset quick');
    for (let i = 0; i < SOLO_COMPUTERS; i++) sayTable('!illegal add computer');
    sayTable('!illegal start');
  }

  // Table commands go to the table; private ones to the trading room, named by game.
  function sayTable(text) { send({ type: 'command', channel: S.current, text }); }
  function sayDm(text) {
    const g = game();
    send({ type: 'command', channel: null, text: g ? g + ' ' + text : text });
  }

  // ---- state ----
  // Frames replayed on hello or open arrive at once: old errors are not news.
  function replaying() { return Date.now() < (S.quietUntil || 0); }

  function T(id) {
    return S.T[id] || (S.T[id] = { game: null, log: [], lobby: null, players: [], host: null, phase: null,
      paused: false, deadline: null, drop: null, vote: null, debate: null, votes: {}, resources: null, result: null,
      attention: null, rematchAsked: false, cases: {}, judged: {}, parallel: false, lang: null, chat: [],
      session: null, module: null, views: {}, over: null });
  }
  function P(id) {
    return S.P[id] || (S.P[id] = { game: null, hand: null, offers: new Map(), dm: [], myVotes: {}, grabbed: null,
      prompts: new Map(), answers: new Map() });
  }
  function game() {
    const t = S.current && S.T[S.current];
    const p = S.current && S.P[S.current];
    return (t && t.game) || (p && p.game) || null;
  }
  // ---- each game's drawing ----
  // A game's module id is in its lobby's and its messages' data ("module"); static/<id>.js
  // registers window.IllegalGames[id], made here with the page's helpers. A game with no
  // drawing shows its views, prompts and ballots as their text and choices (GENERIC).
  // Every module's frames name it now; a frame that names none (stored before Illegal's did),
  // at a table whose lobby named none either, is of the server's first game: a bot from
  // before frames named their game had that one alone.
  function moduleOf(table, d) {
    const t = T(table);
    if (d && d.module && (!d.game || d.game === t.game)) t.module = d.module;
    return (d && d.module) || t.module;
  }
  function drawing(id) {
    const m = id || (S.games[0] && S.games[0].id);
    return (m && S.drawings[m]) || GENERIC;
  }
  const GENERIC = { notice() {}, table() { return false; }, own() { return false; }, before() { return {}; },
    callBacks() {}, attention() { return null; }, players() { return null; }, marks() {}, now() { return undefined; },
    draw() {}, hide() {}, show() {}, result: null };
  function makeDrawings() {
    const api = { $, el, clear, keyed, hintItem, tr, trn, num, list, has, card, send, sayDm, render, pageText, playerName,
      learnPlayers, callBack, readBot, eventLines, scoresRanking, answerButtons, settleAnswer, lang: () => W.lang, S };
    for (const [id, make] of Object.entries(window.IllegalGames || {})) S.drawings[id] = make(api);
    S.compose = window.IllegalCompose(api);
  }

  // The buttons of a message's choices (bot/platform.h): each sends its command in private, as
  // the player would type it; a choice for others ("by") is not shown.
  function choiceButtons(d, box) {
    for (const c of (d && d.choices) || []) {
      if (!c.command || (c.by && !c.by.includes(S.user))) continue;
      box.append(el('button', { type: 'button', 'data-command': c.command, class: toneClass(c.tone), text: choiceLabel(c),
        onclick: (ev) => { ev.target.disabled = true; sayDm(c.command); } }));
    }
    return box;
  }
  function choiceLabel(c) {
    const label = c.label_key && has(c.label_key) ? tr(c.label_key) : c.label || c.command;
    return c.tag ? `${label} ${c.tag}` : label;
  }
  const toneClass = (tone) => (tone === 'yes' || tone === 'main' ? 'primary' : tone === 'no' ? 'danger' : null);

  // ---- answers to prompts ----
  // A prompt (by its key) is answered once: its buttons stay off, the one clicked marked sent,
  // until the prompt's next frame shows it answered or gone (settleAnswer); the bot's refusal in
  // private turns them on again with its words (refuseAnswers). p.answers: key -> {command,
  // reason}, reason null while the answer is on its way.
  function answerButtons(p, key, choices, opts = {}) {
    const a = p && p.answers.get(key);
    const waiting = !!a && a.reason === null;
    const box = el('div', { class: 'actions' });
    for (const c of choices || []) {
      if (!c.command || (c.by && !c.by.includes(S.user))) continue;
      const sent = waiting && a.command === c.command;
      box.append(el('button', { type: 'button', 'data-command': c.command, ...(opts.attrs && opts.attrs(c)), disabled: waiting,
        class: [opts.cls ? opts.cls(c) : toneClass(c.tone), sent ? 'sent' : null].filter(Boolean).join(' ') || null,
        'data-sent': sent ? '' : null, 'aria-busy': sent ? 'true' : null, text: opts.label ? opts.label(c) : choiceLabel(c),
        onclick: () => {
          if (p.answers.has(key) && p.answers.get(key).reason === null) return;
          p.answers.set(key, { command: c.command, reason: null });
          sayDm(c.command);
          render();
        } }));
    }
    const line = !a ? null : waiting ? el('p', { class: 'hint answer', 'data-answer': 'sent', role: 'status', text: tr('page.answer-sent') })
      : el('p', { class: 'hint answer refused', 'data-answer': 'refused', role: 'alert', text: a.reason });
    return [box, line];
  }
  // A prompt's frame came (f, under key): an answer on its way ends when the frame shows the
  // prompt answered (closed, or the choice sent no longer among its choices) or asks anew.
  function settleAnswer(p, key, f) {
    const a = p.answers.get(key);
    if (!a) return;
    const d = f.data || {};
    const still = d.open !== false && (d.choices || []).some((c) => c.command === a.command);
    if (!f.replace || !still || a.reason !== null) p.answers.delete(key);
  }
  // The bot refused something typed in private: the answers on their way were not taken.
  function refuseAnswers(p, f) {
    for (const a of p.answers.values()) if (a.reason === null) a.reason = pageText(f);
  }

  // The table's views and ballots no drawing took: their text, and their choices as buttons.
  function renderViews(t) {
    const box = clear($('views'));
    const views = Object.values(t.views).filter((f) => !f.data || f.data.game === t.game);
    box.hidden = !views.length || t.phase === 'over';
    for (const f of views) {
      box.append(el('div', { class: 'view', 'data-key': f.key || '' },
        f.data && f.data.title && has(f.data.title) ? el('h4', { text: tr(f.data.title) }) : null,
        el('p', { class: 'vtext', text: pageText(f) }),
        choiceButtons(f.data, el('div', { class: 'actions' }))));
    }
  }
  // The prompts to the reader (a question with choices), newest first; one closed ("open"
  // false) is gone, its last words in the private messages; one with no choices left shows its
  // words without buttons.
  // Each is kept while its frame and answer are the same (keyed), so a frame about something else
  // moves no focus from its buttons.
  function renderPrompts(p) {
    const prompts = p ? [...p.prompts.entries()].filter(([, f]) => !f.data || f.data.open !== false).reverse() : [];
    $('prompts-box').hidden = !prompts.length;
    keyed($('prompts'), prompts.map(([key, f]) => {
      const d = f.data || {};
      const open = (d.choices || []).length > 0;
      const a = p.answers.get(key);
      return { key, sig: [W.lang, pageText(f), JSON.stringify(d.choices || []), a ? a.command + ' ' + a.reason : ''].join('\n'),
        make: () => el('li', { class: open ? 'incoming' : 'closed', 'data-prompt': f.key || '' },
          d.title && has(d.title) ? el('h4', { text: tr(d.title) }) : null,
          el('div', { class: 'otext', text: pageText(f) }),
          ...(open ? answerButtons(p, key, d.choices) : [])) };
    }));
  }

  function gameNumber(g) { return Number(String(g).replace(/\D/g, '')) || 0; }
  function resetTableForGame(t, g) {
    Object.assign(t, { game: g, lobby: null, players: [], phase: null, paused: false, deadline: null,
      drop: null, vote: null, debate: null, votes: {}, resources: null, result: null, attention: null,
      rematchAsked: false, cases: {}, judged: {}, parallel: false, log: t.game ? t.log : [], chat: [], session: null,
      views: {}, module: null, over: null });
  }
  function resetPrivateForGame(p, g) {
    Object.assign(p, { game: g, hand: null, offers: new Map(), myVotes: {}, grabbed: null, prompts: new Map(),
      answers: new Map() });
  }

  // ---- inside Discord ----
  // The page asks Discord's SDK (served by the daemon, never fetched elsewhere) for an OAuth2
  // code and hands it to the server, which asks Discord who it belongs to and whether they are in
  // this instance; the page trusts nothing it says of itself. The server answers with the access
  // token (for the SDK's authenticate) and a ticket to come back with after a reload or a
  // restart. A refusal is shown, and nothing else opens.
  function activityStatus(key) {
    $('activity-status').textContent = tr(key);
    show('activity');
  }
  function activityFail(key) {
    A.failed = true;
    setConn('off');
    activityStatus(key);
  }
  async function activityStart() {
    activityStatus('page.activity.connecting');
    try {
      const r = await fetch(PFX + '/activity.json', { cache: 'no-store' });
      if (!r.ok) throw new Error('no activity here');
      A.clientId = String((await r.json()).client_id || '');
      const { DiscordSDK } = await import(PFX + '/sdk/index.mjs');
      A.sdk = new DiscordSDK(A.clientId);
    } catch {
      activityFail('page.activity.not-set-up');
      return;
    }
    await A.sdk.ready();
    A.ticket = store.get('illegal.activity.' + A.sdk.instanceId);
    connect();
  }
  async function activityHello() {
    if (A.ticket) {
      send({ type: 'activity', ticket: A.ticket, lang: W.lang });
      return;
    }
    let code;
    try {
      ({ code } = await A.sdk.commands.authorize({ client_id: A.clientId, response_type: 'code',
        state: '', prompt: 'none', scope: ['identify'] }));
    } catch {
      activityFail('page.error.activity-bad-code');
      return;
    }
    send({ type: 'activity', code, instance: A.sdk.instanceId, lang: W.lang });
  }
  function activityFrame(f) {
    if (f.type === 'authorized') {
      A.ticket = f.ticket;
      store.set('illegal.activity.' + A.sdk.instanceId, f.ticket);
      A.sdk.commands.authenticate({ access_token: f.access_token }).catch(() => {});
      return true;
    }
    if (f.type === 'welcome' && f.activity) {
      S.quietUntil = Date.now() + 800;
      hold();
      S.user = f.user;
      S.name = f.name;
      S.P = {}; // the replay of this user's DMs follows
      S.games = f.games || [];
      $('me').textContent = f.name;
      S.current = A.channel = f.activity.channel;
      show('table');
      return true;
    }
    if (f.type === 'error' && f.error === 'activity-bad-ticket') {
      A.ticket = null; // an old ticket: ask Discord again
      activityHello();
      return true;
    }
    if (f.type === 'error' && /^activity-/.test(f.error)) {
      activityFail('page.error.' + f.error);
      return true;
    }
    return false;
  }

  function handle(f) {
    if (A.on && activityFrame(f)) return;
    switch (f.type) {
    case 'welcome': {
      const first = !S.user;
      S.quietUntil = Date.now() + 800;
      hold();
      S.user = f.user;
      S.name = f.name;
      if (first) offerGames(S.games = f.games || []);
      store.set('illegal.name', f.name);
      $('me').textContent = f.name;
      if (first) {
        S.P = {};
        const want = S.current || decodeURIComponent((location.hash.match(/^#t=(.+)$/) || [])[1] || '');
        if (S.solo) playAlone();
        else if (want) openTable(want);
        else show('tables');
        S.solo = false;
      }
      break;
    }
    case 'tables':
      S.tables = f.tables || [];
      renderTables();
      break;
    case 'presence':
      S.online = new Set(f.online || []);
      render();
      break;
    case 'opened':
      // the replay that follows rebuilds the table from the start; until then the page showed
      // what it had
      S.quietUntil = Date.now() + 800;
      delete S.T[f.channel];
      S.opened.add(f.channel);
      hold();
      break;
    case 'error': {
      const tried = S.name;
      if (f.error === 'bad-name' || f.error === 'name-taken') {
        S.name = null;
        show('name');
      }
      toast(refusal(f.error, tried));
      break;
    }
    case 'message':
      onMessage(f);
      break;
    default:
      break;
    }
  }

  // What the server refused, in words (its own text is for developers, in English).
  function refusal(code, name) {
    switch (code) {
    case 'bad-name': return tr('page.error.bad-name');
    case 'name-taken': return tr('page.error.name-taken', { name: name || '' });
    case 'bad-channel': return tr('page.bad-table-name');
    case 'too-many-tables': case 'too-many-seats': case 'bad-text': case 'internal': return tr('page.error.' + code);
    default: return tr('page.error.other', { code: code || '?' });
    }
  }

  // What a message is (bot/platform.h): the page goes by this, and draws a game's views, prompts
  // and ballots from that game's data. A frame cached by a daemon from before the kinds were the
  // same for every game has no "form"; its kind then says it.
  const OLDER_FORMS = { hand: 'private_view', drop: 'table_view', offer: 'prompt', vote: 'ballot' };
  const formOf = (f) => f.form || OLDER_FORMS[f.kind] || f.kind;

  function onMessage(f) {
    f.form = formOf(f);
    const d = f.data || {};
    wordsFor(d);
    // A private answer to a command names no table: it answers what was typed in this page's
    // trading room, so it shows there.
    const table = f.table || f.channel || (f.dm ? S.current : null);
    if (!table) return;
    const g = d.game || null;
    if (f.dm) {
      const p = P(table);
      if (g && p.game !== g) {
        if (p.game && gameNumber(p.game) > gameNumber(g)) return; // a late message of an earlier game
        resetPrivateForGame(p, g);
      }
      const M = drawing(moduleOf(table, d));
      onPrivate(p, f, d, M);
      M.callBacks(T(table), p, f, d, null);
      if (table === S.current) news(f.form === 'prompt' ? 'room' : 'log');
      // a seat just taken over: its roles and hand are in the trading room
      if (table === S.current && d.event === 'seat-yours' && !replaying()) {
        setTab('room');
        S.scrollTo = 'room';
      }
    } else {
      const t = T(table);
      if (g && t.game !== g) resetTableForGame(t, g);
      const M = drawing(moduleOf(table, d));
      const was = M.before(t);
      onPublic(t, f, d, M);
      M.callBacks(t, P(table), f, d, was);
      if (table === S.current) {
        news('log');
        if (f.form === 'lobby' || f.form === 'result') news('table');
        attend(t, f, d);
      }
    }
    if (table === S.current) render();
  }

  // A pane not in view has something new: its tab shows a dot (replays are not news).
  function news(pane) {
    if (pane !== S.tab && !replaying()) S.unseen.add(pane);
  }

  // What a player must act on now comes into view, once each: a new game's lobby, a drop as
  // it is revealed and again as it opens, a tribunal case as it opens, the trading room as the
  // game starts. A replay goes through them too, so a reconnected page ends where the game is.
  function attend(t, f, d) {
    const events = d.events || [d.event];
    let key = null, pane = 'table', box = null;
    const game = f.form === 'lobby' ? null : drawing(t.module).attention(f, d);
    if (f.form === 'lobby') [key, box] = ['lobby', 'lobby'];
    else if (game) [key, box] = game;
    else if (f.form === 'notice' && events.includes('game-started')) [key, pane, box] = ['start', 'room', 'room'];
    if (!key || t.attention === key) return;
    t.attention = key;
    setTab(pane);
    S.scrollTo = box;
  }

  // A table notice tells one event a line ("events" in order, as the bot says): each event with
  // its line of the text.
  function eventLines(f, d) {
    const events = d.events || (d.event ? [d.event] : []);
    const lines = String(f.text || '').split('\n');
    return events.map((event, i) => ({ event, line: lines.length === events.length ? lines[i] : events.length === 1 ? f.text : '' }));
  }
  function onPublic(t, f, d, M) {
    if (d.lang) {
      t.lang = d.lang; // the table's language, in which its notices are written
      tableWords(d.lang);
    }
    // the table's chat: one message of its latest lines, replaced at each line
    if (d.event === 'chat') {
      t.chat = Array.isArray(d.lines) ? d.lines : [];
      return;
    }
    M.notice(t, f, d);
    if (!M.table(t, f, d) && onTableForm(t, f, d) === false) return; // (not a line of the log)
    // (a lobby is written at each render, in the page's language)
    const line = { key: f.key || null, text: f.text, err: f.form === 'error', game: d.game || t.game, data: f.data || null,
      lobby: f.form === 'lobby' && (d.actions || []).includes('join') ? d : null };
    // a message edited in place (the lobby, a drop) keeps one line, updated
    const at = line.key ? t.log.findIndex((l) => l.key === line.key) : -1;
    if (at >= 0) t.log[at] = line;
    else t.log.push(line);
    if (t.log.length > 300) t.log.shift();
  }
  // What every game's table frames tell: the lobby, the phase and clock, the result; and a
  // view or a ballot of a game the page has no drawing for, as its text and choices.
  function onTableForm(t, f, d) {
    switch (f.form) {
    case 'lobby':
      if (d.module) t.module = d.module;
      t.lobby = d;
      t.host = d.host || null;
      t.players = d.players || [];
      learnPlayers(t.players);
      learnComputers(t.players);
      if (!t.phase || t.phase === 'over') t.phase = 'lobby';
      break;
    case 'notice':
      if (d.phase) t.phase = d.phase;
      if ('paused' in d) t.paused = !!d.paused;
      if (d.phase) t.deadline = d.deadline || null;
      if ((d.events || [d.event]).includes('game-started')) t.lobby = null;
      break;
    case 'table_view':
    case 'ballot':
      t.views[f.key || f.form] = f;
      if (d.deadline) t.deadline = d.deadline;
      break;
    case 'result':
      t.result = d;
      t.phase = 'over';
      t.deadline = null;
      break;
    case 'game_over':
      t.over = d; // its scores and winners, for a result that does not repeat them
      t.phase = 'over';
      t.deadline = null;
      return false; // machine-readable twin of the result
    case 'error':
      if (!replaying() && f.table === S.current) toast(pageText(f));
      t.rematchAsked = false; // a refused rematch may be asked again
      break;
    default:
      break;
    }
  }

  // The bot's text, except where it tells chat users what to type and the page has a button.
  function logText(l) {
    if (!l.lobby) return pageText(l);
    const d = l.lobby;
    const names = (d.players || []).map((x) => x.name || x.id);
    return tr('page.lobby-line', { game: d.game, variant: variantName(d.variant, d.module), host: playerName(d.host),
      count: names.length, players: names.length ? list(names) : tr('page.nobody-yet') });
  }

  // A private frame: the game's drawing takes what it draws (an Illegal offer); what is left is
  // every game's: the private view (the hand), a prompt and its choices, the bot's notices.
  function onPrivate(p, f, d, M) {
    const took = M.own(p, f, d);
    if (!took) onPrivateForm(p, f, d);
    if (took === 'drawn' || (!took && f.form === 'private_view')) return; // (not a line of the log)
    p.dm.push({ text: f.text, data: f.data || null, err: f.form === 'error' });
    if (p.dm.length > 200) p.dm.shift();
  }
  function onPrivateForm(p, f, d) {
    switch (f.form) {
    case 'private_view':
      p.hand = d;
      p.view = f;
      break;
    case 'prompt': {
      // a prompt is kept by its key, edited in place; one with no choices left is answered
      const key = f.key || String(p.prompts.size);
      p.prompts.set(key, f);
      settleAnswer(p, key, f);
      break;
    }
    case 'notice':
      // the seat went to someone else: its private view and prompts are theirs now
      if (d.event === 'seat-handed') {
        p.hand = null;
        p.prompts.clear();
        p.answers.clear();
      }
      break;
    case 'error':
      // live even in the replay's window: the private replay comes only on a socket's first
      // hello, before any answer, and a closed socket forgot its answers
      refuseAnswers(p, f);
      if (replaying()) break;
      toast(pageText(f));
      break;
    default:
      break;
    }
  }

  // ---- views ----
  function show(view) {
    $('name-view').hidden = view !== 'name';
    $('tables-view').hidden = view !== 'tables';
    $('table-view').hidden = view !== 'table';
    $('activity-view').hidden = view !== 'activity';
    if (view !== 'name' && !A.on) loadInvite(); // the network may have changed since
    if (view === 'name') {
      $('name').value = S.name || '';
      $('name').focus();
    }
  }

  function openTable(id) {
    const norm = id.trim().toLowerCase().replace(/ /g, '-');
    S.current = norm;
    location.hash = 't=' + encodeURIComponent(norm);
    send({ type: 'open', channel: norm });
    show('table');
    render();
    return norm;
  }

  function renderTables() {
    const ul = clear($('tables'));
    if (!S.tables.length) ul.append(el('li', { class: 'tinfo', text: tr('page.no-tables') }));
    for (const x of S.tables) {
      const info = (x.phase ? phaseName(x.phase) : tr('page.table-new')) + (x.players ? ` · ${trn('page.table-players', x.players)}` : '');
      ul.append(el('li', { 'data-table': x.id },
        el('span', { class: 'tname', text: x.id }),
        el('span', { class: 'tinfo', text: info }),
        el('button', { type: 'button', text: tr('page.open'), onclick: () => openTable(x.id) })));
    }
  }

  // A replay (after a hello or an open) is drawn once it is all in, so that a reconnect
  // never shows the table half rebuilt.
  function hold() {
    S.held = true;
    clearTimeout(S.holdTimer);
    S.holdTimer = setTimeout(() => {
      S.held = false;
      render();
    }, 200);
  }

  // A press on something that acts holds the page's redraws until its click has landed: an
  // element replaced between press and release takes no click. A touch's click comes in a task
  // of its own after the release, a mouse's with it; a release with no click (a drag away)
  // frees the redraws a moment later.
  const press = { down: false, owed: false, timer: 0 };
  const ACTS = 'button, input, select, textarea, a, label, [role=button]';
  document.addEventListener('pointerdown', (ev) => {
    press.down = !!(ev.target.closest && ev.target.closest(ACTS));
  }, true);
  function released() {
    clearTimeout(press.timer);
    press.timer = setTimeout(() => {
      press.down = false;
      if (press.owed) render();
    }, 0);
  }
  document.addEventListener('click', () => { if (press.down) released(); });
  for (const type of ['pointerup', 'pointercancel']) {
    document.addEventListener(type, () => {
      if (!press.down) return;
      clearTimeout(press.timer);
      press.timer = setTimeout(released, 400);
    }, true);
  }

  function render() {
    const id = S.current;
    if (!id || S.held) return;
    press.owed = press.down;
    if (press.down) return;
    const t = T(id), p = P(id);
    const mine = p.game && t.game && p.game !== t.game ? null : p; // private state of this game only
    $('table-name').textContent = A.on ? tr('page.game') : id;
    const phase = $('phase');
    // until the server has replayed the table, the page does not know whether it has a game
    const known = S.opened.has(id);
    const words = t.phase ? phaseName(t.phase) : tr(known ? 'page.no-game' : 'page.opening');
    phase.textContent = t.paused ? tr('page.paused', { phase: words }) : words;
    phase.className = t.paused ? 'badge paused' : 'badge';

    // lobby
    const lobby = $('lobby');
    lobby.hidden = !(t.lobby && t.phase === 'lobby');
    renderSettings(t, !lobby.hidden);
    if (!lobby.hidden) {
      // the game's name where the server has several, and its mode
      const named = S.games.length > 1 && has(t.module + '.game') ? tr(t.module + '.game') + ' · ' : '';
      $('lobby-variant').textContent = named + variantName(t.lobby.variant, t.module);
      const acts = clear($('lobby-actions'));
      const seated = (t.players || []).some((x) => x.id === S.user);
      for (const a of t.lobby.actions || []) {
        // only the host starts the game and seats computers (the bot refuses anyone else)
        const hostOnly = ['start', 'add computer', 'remove computer'].includes(a);
        const disabled = (a === 'join' && seated) || (a === 'leave' && !seated) || (hostOnly && t.host !== S.user);
        const words = LOBBY_ACTIONS[a];
        acts.append(el('button', { type: 'button', 'data-action': a, disabled,
          class: a === 'start' ? 'primary' : null, text: words ? tr(words) : a,
          onclick: () => sayTable('!illegal ' + a) }));
      }
    }
    if (!t.game && known) {
      clear($('lobby-actions'));
      lobby.hidden = false;
      $('lobby-variant').textContent = '';
      // inside Discord the channel's game is opened in the channel: the page says how
      $('lobby-actions').append(A.on
        ? el('p', { class: 'hint', 'data-activity': 'no-game', text: tr('page.activity.no-game') })
        : el('button', { type: 'button', 'data-action': 'new', class: 'primary',
          text: tr('page.new-game-here'), onclick: newGame }));
    }

    // players
    const M = drawing(t.module);
    const players = (t.phase !== 'lobby' && M.players(t, mine)) || t.players;
    renderPlayers(t, mine, players);
    renderSeatOffer(t, mine);
    for (const m of Object.values(S.drawings)) if (m !== M) m.hide();
    M.show();
    // whoever does not play a running game watches it: no private room, no offers
    const watching = !(mine && mine.hand) && !!t.phase && t.phase !== 'lobby';
    M.draw(t, mine, watching);
    renderViews(t, M);
    renderResults(t, M);
    renderMod(t, players);
    renderLog($('log'), t.log);
    renderChat(t);
    renderRoom(t, mine, watching);
    renderTabs();
    tick();
    tellLanguage(t, mine);
    if (S.scrollTo) bringIntoView($(S.scrollTo));
    S.scrollTo = null;
  }

  // The lobby's buttons, as the page words them.
  const LOBBY_ACTIONS = { join: 'page.join', leave: 'page.leave', start: 'page.start',
    'add computer': 'page.add-computer', 'remove computer': 'page.remove-computer' };

  // ---- the players: who is here, and where each one is in the step ----
  // A panel a player: connected or not, the host, and what the step asks of them as the table
  // knows it: a card grabbed in this drop, a vote cast on this case (never for whom); and the
  // offers open between the reader and them.
  function renderPlayers(t, p, players) {
    const ul = clear($('players'));
    const M = drawing(t.module);
    for (const x of players || []) {
      // a computer player is always there, and says so
      const computer = !!S.computers[x.id];
      const online = computer || S.online.has(x.id);
      const marks = el('span', { class: 'marks' });
      if (computer) marks.append(el('span', { class: 'mark computer', 'data-mark': 'computer', text: tr('page.player.computer') }));
      M.marks(t, p, x, marks);
      ul.append(el('li', { class: (x.id === S.user ? 'me-p ' : '') + (online ? 'online' : 'offline'), 'data-user': x.id,
        'data-online': String(online), title: tr(online ? 'page.player.online' : 'page.player.offline') },
      el('span', { class: 'presence', 'aria-label': tr(online ? 'page.player.online' : 'page.player.offline') }),
      el('span', { class: 'pname', text: x.name || x.id }),
      x.id === t.host ? el('span', { class: 'host', text: tr('page.host') }) : null,
      marks));
    }
  }

  // ---- the table's chat ----
  function renderChat(t) {
    const ul = $('chat');
    const atBottom = ul.scrollTop + ul.clientHeight >= ul.scrollHeight - 4;
    clear(ul);
    if (!t.chat.length) ul.append(el('li', { class: 'hint', text: tr('page.chat.empty') }));
    for (const l of t.chat) {
      const from = (l && l.from) || {};
      ul.append(el('li', { class: from.id === S.user ? 'mine' : null, 'data-user': from.id || '' },
        el('b', { text: `${from.name || from.id || '?'}: ` }), String((l && l.text) || '')));
    }
    if (atBottom) ul.scrollTop = ul.scrollHeight;
  }

  // ---- a seat offered in a running game ----
  // The bot tells the table in words only that a seat is offered ("p2's seat in game g1 is open:
  // anyone not playing can take it over..."), taken ("p5 takes over p2's seat.") or gone ("p2 has
  // left the game."): each line of this game's messages is read for them, as the bot's catalog
  // words them (by its data's event when it names one). Returns the names of the seats offered,
  // in seat order: "!illegal join" takes the first.
  const SEAT_NEWS = [['seat-open', 'msg.seat-open'], ['seat-taken', 'msg.seat-taken'], ['player-removed', 'msg.player-removed']];
  function who(x) { return typeof x === 'string' ? x : (x && (x.name || x.id)) || null; }
  function seatNews(t, event, d, line) {
    for (const [ev, key] of SEAT_NEWS) {
      if (event && event !== ev) continue;
      // the bot's data when it names the seats; its words (read back) from older bots
      const n = event ? { ev, player: who(d.player), old: who(d.old), new: who(d.new), id: d.game } : null;
      if (n && (n.player || n.old)) return n;
      const v = readBot(t, key, line);
      if (v) return { ev, ...v };
      if (n) return n;
    }
    return null;
  }
  function openSeats(t) {
    if (!t.game || !t.phase || t.phase === 'lobby' || t.phase === 'over') return [];
    const seats = (t.players || []).map((x) => x.name || x.id); // seat order, as the game started
    let open = [];
    for (const l of t.log) {
      if (l.game !== t.game || l.err || !l.text || l.lobby) continue;
      const d = l.data || {};
      const told = d.events || d.event ? eventLines(l, d) : l.text.split('\n').map((line) => ({ event: null, line }));
      for (const { event, line } of told) {
        if (event && !SEAT_NEWS.some(([ev]) => ev === event)) continue;
        const n = seatNews(t, event, d, line);
        if (!n) continue;
        if (n.ev === 'seat-open' && n.player && (!n.id || n.id === t.game) && !open.includes(n.player)) open.push(n.player);
        if (n.ev === 'seat-taken' && n.old) {
          open = open.filter((x) => x !== n.old);
          if (n.new && seats.includes(n.old)) seats[seats.indexOf(n.old)] = n.new;
        }
        if (n.ev === 'player-removed' && n.player) open = open.filter((x) => x !== n.player);
      }
    }
    const at = (x) => (seats.includes(x) ? seats.indexOf(x) : seats.length);
    return open.map((x, i) => [x, i]).sort((a, b) => at(a[0]) - at(b[0]) || a[1] - b[1]).map(([x]) => x);
  }
  // Whoever does not play here may take the seat over: its roles, hand and offers come in private.
  function renderSeatOffer(t, p) {
    const seat = p && p.hand ? null : openSeats(t)[0];
    $('seat-offer').hidden = !seat;
    if (!seat) return;
    $('seat-offer-hint').textContent = tr('page.seat-open', { player: seat });
    const b = $('take-over');
    b.textContent = tr('page.take-over', { player: seat });
    b.dataset.player = seat;
    // (once pressed, until the bot has had time to answer)
    b.disabled = Date.now() - (t.joinAsked || 0) < 3000;
  }
  $('take-over').addEventListener('click', () => {
    sayTable('!illegal join');
    T(S.current).joinAsked = Date.now();
    render();
    setTimeout(render, 3100);
  });

  // ---- panes (tabs on a narrow screen) ----
  function setTab(pane) {
    S.tab = pane;
    S.unseen.delete(pane);
  }
  function renderTabs() {
    $('table-view').dataset.tab = S.tab;
    for (const b of document.querySelectorAll('#tabs [data-tab]')) {
      b.setAttribute('aria-selected', String(b.dataset.tab === S.tab));
      b.querySelector('.dot').hidden = !S.unseen.has(b.dataset.tab);
    }
  }
  // Scrolls e just below the sticky head, when it is not already all in view.
  function bringIntoView(e) {
    if (!e || e.hidden) return;
    const r = e.getBoundingClientRect();
    const top = $('table-head').getBoundingClientRect().bottom + 8;
    if (r.top < top || r.bottom > window.innerHeight) window.scrollBy(0, r.top - top);
  }

  // The lobby's settings: a form for the host, a sentence for everyone (none until the bot
  // sends them).
  function renderSettings(t, inLobby) {
    const st = inLobby && t.lobby.settings;
    $('settings').hidden = !st;
    if (!st) return;
    const parts = TIMERS.filter((k) => st[k] !== undefined).map((k) => tr('page.summary.' + k, { time: duration(st[k]) }));
    // the table's language, when the bot says it
    const lang = t.lobby.lang || null;
    if (lang) parts.push(tr('page.summary.language', { language: languageName(lang) }));
    // (one full stop where the list ends in an abbreviation: "20 Sek.")
    $('settings-summary').textContent = tr('page.summary',
      { preset: st.preset ? presetName(st.preset) : presetName('custom'), settings: list(parts) }).replace(/\.\.$/, '.');
    const host = t.host === S.user;
    $('settings-form').hidden = !host;
    if (!host) return;
    const presets = clear($('presets'));
    for (const name of t.lobby.presets || []) {
      presets.append(el('button', { type: 'button', 'data-preset': name, 'aria-pressed': String(st.preset === name),
        text: presetName(name), onclick: () => sayTable('!illegal set preset ' + name) }));
    }
    // the language of the table's messages, from the catalog's (none chosen when unknown)
    if ($('table-lang') !== document.activeElement) languageMenu($('table-lang'), lang);
    // a field being edited keeps what the host is typing
    for (const input of document.querySelectorAll('#settings-form [data-timer]')) {
      if (input !== document.activeElement) input.value = st[input.dataset.timer] !== undefined ? shortDuration(st[input.dataset.timer]) : '';
    }
  }
  // the units the bot reads in a typed time (command syntax, the same in every language)
  const UNITS = [['d', 86400], ['h', 3600], ['min', 60], ['s', 1]];
  // as the host would type it, in the largest unit that is exact ('90s', '3min', '2h')
  function shortDuration(s) {
    const [u, n] = UNITS.find(([, n]) => s % n === 0);
    return `${s / n}${u}`;
  }

  function renderMod(t, players) {
    const box = $('mod');
    box.hidden = !(t.host && t.host === S.user && t.phase && t.phase !== 'over');
    if (box.hidden) return;
    // a lobby has no clock to steer, only players to kick
    $('clock-controls').hidden = $('extend-row').hidden = t.phase === 'lobby';
    // one button for the clock, which says what it does and shows the state
    const pause = $('pause-toggle');
    pause.dataset.mod = t.paused ? 'resume' : 'pause';
    pause.textContent = tr(t.paused ? 'page.resume' : 'page.pause');
    pause.setAttribute('aria-pressed', String(t.paused));
    pause.className = t.paused ? 'paused' : '';
    const sel = $('kick-who');
    const keep = sel.value;
    clear(sel);
    for (const x of players || []) if (x.id !== S.user) sel.append(el('option', { value: x.id, text: x.name || x.id }));
    if (keep) sel.value = keep;
    // a computer may play an absent person's seat, not another computer's, and not in a lobby
    $('stand-in').hidden = t.phase === 'lobby';
    $('stand-in').disabled = !sel.value || !!S.computers[sel.value];
  }

  // The result: the game's drawing writes its ranking (Illegal's reveal), else the scores the
  // bot sent, best first; every game's "Play again".
  function renderResults(t, M) {
    const box = $('results');
    box.hidden = !t.result;
    if (box.hidden) return;
    notePlayed(t);
    if (M.result) M.result(t);
    else scoresRanking(t);
    const rematch = $('rematch');
    rematch.disabled = t.rematchAsked;
    rematch.textContent = tr(t.rematchAsked ? 'page.opening-lobby' : 'page.play-again');
  }
  // A result's "scores" {user: n} and "winners" (or its game-over twin's) as a ranking, tied
  // scores sharing a rank; score(n) writes a score (a number by default).
  function scoresRanking(t, score = num) {
    const r = t.result.scores ? t.result : t.over || {};
    const ol = clear($('ranking'));
    const winners = new Set(r.winners || []);
    const rows = Object.entries(r.scores || {}).sort((a, b) => b[1] - a[1]);
    rows.forEach(([id, n]) => {
      const rank = 1 + rows.filter(([, s]) => s > n).length;
      ol.append(el('li', { class: winners.has(id) ? 'winner' : null, 'data-user': id, 'data-rank': String(rank),
        'data-score': String(n) },
      el('span', { class: 'rank', text: num(rank) }),
      el('div', { class: 'who' }, el('div', { class: 'pname', text: playerName(id) + (winners.has(id) ? ' 🏆' : '') })),
      el('span', { class: 'score', text: score(n) })));
    });
  }

  // The private side: the game's drawing fills it; every game's prompts, private messages
  // and the button to leave.
  function renderRoom(t, p, watching) {
    const h = p && p.hand;
    $('room-title').textContent = tr(watching ? 'page.watching' : 'page.your-room');
    $('room-small').textContent = watching ? '' : tr('page.only-you');
    $('leave-game').hidden = !h || !t.phase || t.phase === 'lobby' || t.phase === 'over';
    const view = $('private-view');
    view.hidden = !h || drawing(t.module) !== GENERIC;
    if (!view.hidden) view.textContent = p.view ? pageText(p.view) : '';
    renderCompose(t, p, watching);
    renderPrompts(p);
    renderLog($('dm-log'), (p && p.dm) || []);
  }

  // The private view's compose as a form (compose.js), when the game's drawing does not hide
  // it now; a game that says nothing shows it while it runs, sendable unless paused.
  function renderCompose(t, p, watching) {
    const M = drawing(t.module), c = !watching && p && p.hand && p.hand.compose;
    const state = M.compose ? M.compose.state(t) : t.phase === 'over' ? 'hidden' : t.paused ? 'off' : 'on';
    S.compose.draw($('compose'), state === 'hidden' ? null : c,
      { enabled: state === 'on', item: M.compose && M.compose.item });
  }

  function renderLog(ul, log) {
    const atBottom = ul.scrollTop + ul.clientHeight >= ul.scrollHeight - 4;
    clear(ul);
    for (const l of log) ul.append(el('li', { class: l.err ? 'err' : null, text: logText(l) }));
    if (atBottom) ul.scrollTop = ul.scrollHeight;
  }

  // ---- calling a player back ----
  // When a drop opens, a vote opens or an offer arrives: a short sound (when on), the tab's
  // title flashes until the page is looked at, and a phone vibrates where it can. The sound is
  // off by default until the reader has played a game here (a game over with them in it), so a
  // first game starts quiet; the header's bell turns it on or off, kept in illegal.sound.
  const SOUND = 'illegal.sound', PLAYED = 'illegal.played';
  function soundOn() {
    const v = store.get(SOUND);
    return v ? v === 'on' : Number(store.get(PLAYED) || 0) > 0;
  }
  function renderSound() {
    const b = $('sound'), on = soundOn();
    b.textContent = on ? '\u{1F514}' : '\u{1F515}';
    b.setAttribute('aria-pressed', String(on));
    b.title = tr(on ? 'page.sound-on' : 'page.sound-off');
    b.setAttribute('aria-label', b.title);
  }
  let audio = null;
  function beep() {
    try {
      audio = audio || new (window.AudioContext || window.webkitAudioContext)();
      if (audio.state === 'suspended') audio.resume();
      const o = audio.createOscillator(), g = audio.createGain(), now = audio.currentTime;
      o.frequency.value = 880;
      g.gain.setValueAtTime(0.0001, now);
      g.gain.exponentialRampToValueAtTime(0.2, now + 0.02);
      g.gain.exponentialRampToValueAtTime(0.0001, now + 0.25);
      o.connect(g).connect(audio.destination);
      o.start(now);
      o.stop(now + 0.3);
      return true;
    } catch {
      return false; /* no sound here */
    }
  }
  let flashTimer = 0, flashText = null;
  function flashTitle(text) {
    flashText = text;
    if (flashTimer || document.hasFocus()) return;
    let on = false;
    flashTimer = setInterval(() => {
      if (document.hasFocus()) return stopFlash();
      on = !on;
      document.title = on ? flashText : tr('page.title');
    }, 800);
    document.title = flashText;
  }
  function stopFlash() {
    clearInterval(flashTimer);
    flashTimer = 0;
    document.title = tr('page.title');
  }
  window.addEventListener('focus', stopFlash);
  function callBack(kind, what) {
    if (replaying()) return;
    const sound = soundOn() && beep();
    let vibrate = false;
    try { vibrate = typeof navigator.vibrate === 'function' && navigator.vibrate([120, 80, 120]); } catch { /* not here */ }
    const text = tr('page.alert.' + kind);
    flashTitle(text);
    S.alerts.push({ kind, what, sound: !!sound, vibrate: !!vibrate, flashed: !!flashTimer, title: text, at: Date.now() });
  }
  // A game over with the reader in it: the sound comes on by default from now on.
  function notePlayed(t) {
    const inIt = (t.result && t.result.reveal || []).some((r) => r.player && r.player.id === S.user) ||
      !!(t.result && t.result.scores && S.user in t.result.scores);
    if (!t.result || t.playedNoted || !inIt) return;
    t.playedNoted = true;
    store.set(PLAYED, String(Number(store.get(PLAYED) || 0) + 1));
    renderSound();
  }

  // ---- the invite: where friends open the table ----
  // /invite.json says whether the table listens on this computer only, or the addresses
  // friends open, each with its QR code (/invite/<n>.svg, drawn by the daemon).
  async function loadInvite() {
    try {
      const r = await fetch('/invite.json', { cache: 'no-store' });
      if (r.ok) S.invite = await r.json();
    } catch { /* the server is away: the box waits */ }
    renderInvite();
  }
  function renderInvite() {
    const inv = S.invite;
    for (const box of document.querySelectorAll('[data-invite]')) {
      const body = clear(box.querySelector('.invite-body'));
      box.hidden = !inv;
      if (!inv) continue;
      if (inv.local) {
        body.append(el('p', { 'data-invite-local': '', text: tr('page.invite.local') }),
          el('p', { class: 'hint', text: tr('page.invite.how', { setting: 'bind = 0.0.0.0' }) }));
        continue;
      }
      const urls = inv.urls || [];
      if (!urls.length) body.append(el('p', { text: tr('page.invite.no-network') }));
      else body.append(el('p', { text: trn('page.invite.open', urls.length) }));
      urls.forEach((u, i) => {
        body.append(el('div', { class: 'invite-url', 'data-url': u.url },
          el('img', { class: 'qr', src: `/invite/${i}.svg`, alt: tr('page.invite.qr', { url: u.url }), width: 132, height: 132 }),
          el('div', {}, el('a', { href: u.url, class: 'url', text: u.url }),
            u.network ? el('div', { class: 'hint', text: tr('page.invite.network', { network: u.network }) }) : null)));
      });
      body.append(el('p', { class: 'hint', text: tr('page.invite.trust') }));
    }
  }

  // ---- countdown ----
  function tick() {
    const t = S.current && S.T[S.current];
    const c = $('countdown');
    const now = t ? nowLine(t, S.P[S.current]) : '';
    if ($('now').textContent !== now) $('now').textContent = now;
    if (!t || !t.deadline || t.paused) {
      c.textContent = '';
      return;
    }
    const left = Math.max(0, Math.ceil((t.deadline - Date.now()) / 1000));
    c.textContent = leftText(left);
    // a step of an hour or more also says when it ends, in this browser's time zone
    c.title = left >= 3600 ? tr('page.ends', { time: new Date(t.deadline).toLocaleString(W.lang) }) : '';
    c.className = left <= 10 ? 'countdown low' : left >= 3600 ? 'countdown long' : 'countdown';
  }

  // What to do now, in a line: the step, what it asks of this reader, and the time left.
  function nowLine(t, p) {
    const mine = p && p.game && t.game && p.game !== t.game ? null : p;
    const plays = !!(mine && mine.hand);
    const left = t.deadline && !t.paused ? duration(Math.max(0, Math.ceil((t.deadline - Date.now()) / 1000))) : null;
    const timed = (key, vars) => (left ? `${tr(key, vars)} · ${tr('page.now.left', { left })}` : tr(key, vars));
    if (!S.opened.has(S.current)) return '';
    if (!t.game) return tr('page.now.no-game');
    if (t.paused) return tr('page.now.paused');
    switch (t.phase) {
    case 'lobby': {
      const seated = (t.players || []).some((x) => x.id === S.user);
      const n = (t.players || []).length;
      if (!seated) return tr('page.now.lobby-join');
      const least = (S.games.find((x) => x.id === t.module) || { min: 1 }).min || 1;
      if (t.host === S.user) return n >= least ? tr('page.now.lobby-start') : trn('page.now.lobby-wait-computers', least - n);
      return tr('page.now.lobby-host');
    }
    case 'over':
      return tr('page.now.over');
    default: {
      const line = drawing(t.module).now(t, mine, plays, timed);
      return line === undefined ? '' : line;
    }
    }
  }

  // "0:42", "5 h 7 min · Tue 18:00", "2 d 5 h · Tue 18:00": a day-long step is not "1381:40"
  function leftText(left) {
    const two = (n) => String(n).padStart(2, '0');
    const end = new Date(Date.now() + left * 1000)
      .toLocaleString(W.lang, { weekday: 'short', hour: '2-digit', minute: '2-digit' });
    if (left >= 3600) return `${duration(left - (left % 60))} · ${end}`;
    return `${num(Math.floor(left / 60))}:${two(left % 60)}`;
  }

  // ---- forms ----
  function sitDown(name) {
    S.name = name;
    if (S.ws && S.ws.readyState === WebSocket.OPEN) hello(name);
    else if (!S.ws || S.ws.readyState === WebSocket.CLOSED) connect(); // says hello once open
  }
  $('name-form').addEventListener('submit', (ev) => {
    ev.preventDefault();
    const name = $('name').value.trim();
    if (name) sitDown(name);
  });
  // one click to a game: the name typed, else the page's word for a player
  $('play-alone').addEventListener('click', () => {
    S.solo = true;
    sitDown($('name').value.trim() || tr('page.solo-name'));
  });
  $('create-form').addEventListener('submit', (ev) => {
    ev.preventDefault();
    const name = $('new-table').value.trim();
    if (!name) return;
    if (!/^[A-Za-z0-9 _-]{1,32}$/.test(name)) {
      toast(tr('page.bad-table-name'));
      return;
    }
    openTable(name);
    newGame();
    $('new-table').value = '';
  });
  $('back').addEventListener('click', () => {
    if (S.current) send({ type: 'close', channel: S.current });
    S.opened.delete(S.current);
    S.current = null;
    history.replaceState(null, '', location.pathname);
    show('tables');
  });
  // what cannot be undone is asked twice: ending the game, kicking a player, leaving one
  for (const b of document.querySelectorAll('[data-mod]')) {
    b.addEventListener('click', () => {
      const cmd = '!illegal ' + b.dataset.mod;
      if (b.dataset.mod === 'end') confirmThen(tr('page.confirm.end'), tr('page.end-game'), () => sayTable(cmd));
      else sayTable(cmd);
    });
  }
  $('extend').addEventListener('click', () => sayTable('!illegal extend ' + ($('extend-min').value || '1')));
  $('kick-who').addEventListener('change', () => render());
  $('stand-in').addEventListener('click', () => {
    const who = $('kick-who').value;
    if (who) sayTable('!illegal replace ' + who + ' computer');
  });
  $('kick').addEventListener('click', () => {
    const who = $('kick-who').value;
    if (who) confirmThen(tr('page.confirm.kick', { player: playerName(who) }), tr('page.kick'), () => sayTable('!illegal kick ' + who));
  });
  $('leave-game').addEventListener('click', () => {
    confirmThen(tr('page.confirm.leave'), tr('page.leave-game'), () => sayTable('!illegal leave'));
  });

  // A question in the page, answered by one of two buttons; Escape or the other button cancels.
  let confirmed = null;
  function confirmThen(question, yes, then) {
    $('confirm-text').textContent = question;
    $('confirm-yes').textContent = yes;
    confirmed = then;
    $('confirm').hidden = false;
    $('confirm-no').focus();
  }
  function closeConfirm(ok) {
    const then = confirmed;
    confirmed = null;
    $('confirm').hidden = true;
    if (ok && then) then();
  }
  $('confirm-yes').addEventListener('click', () => closeConfirm(true));
  $('confirm-no').addEventListener('click', () => closeConfirm(false));

  // How to play, over the page
  $('help-open').addEventListener('click', () => {
    // the table's game's rules where its drawing has them; else the page's own (Illegal's)
    const t = S.current && S.T[S.current];
    const M = drawing(t && t.module);
    const rules = M.help ? M.help() : null;
    $('help-game').hidden = !rules;
    $('help-game').textContent = rules || '';
    $('help-page').hidden = !!rules;
    $('help').hidden = false;
    $('help-close').focus();
  });
  $('help-close').addEventListener('click', () => { $('help').hidden = true; });
  for (const o of [$('help'), $('confirm')]) {
    o.addEventListener('click', (ev) => {
      if (ev.target !== o) return; // a click beside the dialog closes it
      if (o === $('confirm')) closeConfirm(false);
      else o.hidden = true;
    });
  }
  document.addEventListener('keydown', (ev) => {
    if (ev.key !== 'Escape') return;
    if (!$('confirm').hidden) closeConfirm(false);
    $('help').hidden = true;
  });

  // The table's chat, and what a player types to the bot in private
  $('chat-form').addEventListener('submit', (ev) => {
    ev.preventDefault();
    const text = $('chat-input').value.trim();
    if (!text || !S.current) return;
    send({ type: 'say', channel: S.current, text });
    $('chat-input').value = '';
  });
  $('room-form').addEventListener('submit', (ev) => {
    ev.preventDefault();
    const text = $('room-cmd').value.trim();
    if (!text) return;
    // a command for this table's game names it, as a player in several games must
    const g = game();
    send({ type: 'say', channel: null, text: g && !/^g\d+\s/i.test(text) && !/^!illegal\b/i.test(text) ? `${g} ${text}` : text });
    $('room-cmd').value = '';
  });
  $('sound').addEventListener('click', () => {
    store.set(SOUND, soundOn() ? 'off' : 'on');
    renderSound();
    if (soundOn()) beep(); // what it will sound like
  });
  for (const b of document.querySelectorAll('#tabs [data-tab]')) {
    b.addEventListener('click', () => {
      setTab(b.dataset.tab);
      render();
      window.scrollTo(0, 0);
    });
  }
  $('rematch').addEventListener('click', () => {
    sayTable('!illegal rematch');
    T(S.current).rematchAsked = true;
    render();
  });
  for (const input of document.querySelectorAll('#settings-form [data-timer]')) {
    // the bot reads the time and says what is wrong with it
    input.addEventListener('change', () => {
      const v = input.value.replace(/\s+/g, '');
      if (v) sayTable(`!illegal set ${input.dataset.timer} ${v}`);
    });
  }
  $('settings-form').addEventListener('submit', (ev) => ev.preventDefault());

  // Another language: the page is written again in it, and the bot told (private messages
  // follow the reader; the table's stay in the table's language).
  $('lang').addEventListener('change', async () => {
    const code = $('lang').value;
    let c = null;
    try { c = await catalog(code); } catch { /* not answering */ }
    if (!c) {
      $('lang').value = W.lang;
      toast(tr('page.not-connected'));
      return;
    }
    store.set(LANG, code);
    useCatalog(c);
    // the server answers this socket in the page's language from now on (a hello again keeps the seat)
    // (inside Discord the page's language went with its first frame; private messages follow
    // the language told to the bot)
    if (S.user && S.name && !A.on) hello(S.name);
    renderAll(); // (and tells the bot, when the reader plays here)
  });
  // the host sets the table's language, for every message at the table
  $('table-lang').addEventListener('change', () => {
    if ($('table-lang').value) sayTable('!illegal set language ' + $('table-lang').value);
  });

  function renderAll() {
    renderWords();
    offerGames(S.games);
    renderIntro();
    renderConn();
    renderSound();
    renderInvite();
    renderTables();
    $('toast').hidden = true;
    render();
    tick();
  }

  // The words first; then a socket opens once there is a name to say hello with.
  makeDrawings();
  loadWords().then(() => {
    renderAll();
    if (!A.on) loadGames();
    document.body.classList.remove('loading');
    document.body.classList.toggle('activity', A.on);
    setInterval(tick, 250);
    if (A.on) activityStart();
    else if (S.name) connect();
    else show('name');
  });
})();
