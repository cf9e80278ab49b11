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
  function phaseName(phase) { return has('page.phase.' + phase) ? tr('page.phase.' + phase) : phase; }
  function variantName(v) { return v && has('variant.' + v) ? tr('variant.' + v) : v || ''; }
  function presetName(p) { return has('preset.' + p) ? capital(tr('preset.' + p)) : p; }
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

  let toastTimer = 0;
  function toast(text, info) {
    const t = $('toast');
    t.textContent = text;
    t.className = info ? 'toast info' : 'toast';
    t.hidden = false;
    clearTimeout(toastTimer);
    toastTimer = setTimeout(() => { t.hidden = true; }, 4000);
  }

  const resName = C.resName;
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
  // A card: a resource ("guns"), a role ("dealer:guns") or a suspect ("suspect-buyer:guns").
  // A card that does nothing when clicked shows its tooltip when tapped (phones have no hover).
  function card(id, opts = {}) {
    let cls = 'card';
    if (opts.cls) cls += ' ' + opts.cls;
    if (opts.onclick) cls += ' clickable';
    const onclick = opts.onclick || (() => toast(tip(id), true));
    const e = el('div', { class: cls, 'data-card': id, title: tip(id), role: opts.onclick ? 'button' : null,
      tabindex: opts.onclick ? '0' : null, onclick },
    C.svg(id),
    opts.count !== undefined ? el('span', { class: 'count', text: num(opts.count) }) : null);
    if (opts.onclick) e.addEventListener('keydown', (ev) => { if (ev.key === 'Enter' || ev.key === ' ') opts.onclick(ev); });
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

  // With more than one game, each option names its game ("illegal casual"), and
  // the other games' modes follow Illegal's, under the game's name.
  function offerGames(games) {
    if (games.length < 2) return;
    const sel = $('variant');
    for (const o of sel.options) o.value = games[0].id + ' ' + o.value;
    for (const g of games.slice(1)) {
      const group = el('optgroup', { label: has('game.' + g.id) ? tr('game.' + g.id) : g.id });
      for (const m of g.modes) group.append(el('option', { value: g.id + ' ' + m, text: m }));
      sel.append(group);
    }
  }

  // Whoever opens a game at the local table plays in it: the page seats them at once.
  function newGame() {
    sayTable('!illegal new ' + $('variant').value);
    sayTable('!illegal join');
  }

  // "Play alone": a table of one's own, a quick game, three computer players, and the start.
  const SOLO_COMPUTERS = 3;
  function playAlone() {
    const id = 'solo-' + Math.random().toString(36).slice(2, 8);
    openTable(id);
    sayTable('!illegal new standard');
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
      session: null });
  }
  function P(id) {
    return S.P[id] || (S.P[id] = { game: null, hand: null, offers: new Map(), dm: [], myVotes: {}, grabbed: null });
  }
  function game() {
    const t = S.current && S.T[S.current];
    const p = S.current && S.P[S.current];
    return (t && t.game) || (p && p.game) || null;
  }
  function gameNumber(g) { return Number(String(g).replace(/\D/g, '')) || 0; }
  function resetTableForGame(t, g) {
    Object.assign(t, { game: g, lobby: null, players: [], phase: null, paused: false, deadline: null,
      drop: null, vote: null, debate: null, votes: {}, resources: null, result: null, attention: null,
      rematchAsked: false, cases: {}, judged: {}, parallel: false, log: t.game ? t.log : [], chat: [], session: null });
  }
  function resetPrivateForGame(p, g) {
    Object.assign(p, { game: g, hand: null, offers: new Map(), myVotes: {}, grabbed: null });
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
      if (first) offerGames(f.games || []);
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
      onPrivate(p, f, d);
      if (f.form === 'prompt' && d.to && d.to.id === S.user && !f.replace) callBack('offer', d.offer);
      if (table === S.current) news(f.form === 'prompt' ? 'room' : 'log');
      // a seat just taken over: its roles and hand are in the trading room
      if (table === S.current && d.event === 'seat-yours' && !replaying()) {
        setTab('room');
        S.scrollTo = 'room';
      }
    } else {
      const t = T(table);
      if (g && t.game !== g) resetTableForGame(t, g);
      const was = { drop: t.drop && t.drop.open ? t.drop.drop : null, vote: t.vote ? t.vote.case : null };
      onPublic(t, f, d);
      // a player is called back when a drop opens or a vote does: once each
      const plays = !!P(table).hand;
      if (f.form === 'table_view' && d.open && was.drop !== d.drop && plays) callBack('drop', d.drop);
      if (f.form === 'ballot' && was.vote !== d.case && plays) callBack('vote', d.case);
      if (f.form === 'table_view') lostRace(t, P(table));
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
    if (f.form === 'lobby') [key, box] = ['lobby', 'lobby'];
    else if (f.form === 'table_view' && !d.done) [key, box] = [`drop ${d.drop} ${!!d.open}`, 'drop'];
    else if (f.form === 'ballot') [key, box] = [`vote ${d.case}`, 'tribunal'];
    else if (f.form === 'notice' && events.includes('case-opened')) [key, box] = [`case ${d.case}`, 'tribunal'];
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
  // the number of the case a line tells of: as the bot's text `key` names it, else its first number
  function caseOfLine(t, key, line) {
    const v = readBot(t, key, line);
    const n = Number(String((v && v.number) || (line.match(/\d+/) || [])[0] || '').replace(/\D/g, ''));
    return n > 0 ? n : null;
  }
  // Every case opened at once (a parallel tribunal): each case's debate line, and the cards the
  // bot sends for the last one. The others' cards come with their votes.
  function openCases(t, f, d) {
    const opened = eventLines(f, d).filter((x) => x.event === 'case-opened');
    if (opened.length < 2 || !d.case) return false;
    t.parallel = true;
    t.debate = { case: d.case, cards: d.cards || [], cases: opened.map((x, i) => {
      const n = d.case - (opened.length - 1 - i);
      return { case: caseOfLine(t, 'msg.case-opened', x.line) || n, line: x.line, cards: i === opened.length - 1 ? d.cards || [] : null };
    }) };
    return true;
  }
  // A verdict judges its case: in a parallel tribunal the others stay open.
  function verdicts(t, f, d) {
    for (const { event, line } of eventLines(f, d)) {
      if (!/^verdict-/.test(event) || !line) continue;
      const n = caseOfLine(t, 'msg.' + event, line);
      if (n) t.judged[n] = line;
    }
  }

  function onPublic(t, f, d) {
    if (d.lang) {
      t.lang = d.lang; // the table's language, in which its notices are written
      tableWords(d.lang);
    }
    // the table's chat: one message of its latest lines, replaced at each line
    if (d.event === 'chat') {
      t.chat = Array.isArray(d.lines) ? d.lines : [];
      return;
    }
    // which dealing session is open, as the bot said it (for the line of what to do now)
    for (const x of Array.isArray(d.say) ? d.say : []) {
      if (x && /^msg\.session-opened/.test(x.key) && x.vars) t.session = Number(x.vars.number) || t.session;
    }
    switch (f.form) {
    case 'lobby':
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
      // how many have voted on each case, from its vote's opening on
      if (d.event === 'votes-cast') t.votes[d.case] = { voted: d.voted, voters: d.voters, by: d.voted_by || null };
      if (d.resources) t.resources = d.resources; // the game's resources in play, from its start
      // a case opens with its debate: its cards show from then on
      if ((d.events || [d.event]).includes('case-opened') && !openCases(t, f, d)) t.debate = { case: d.case, cards: d.cards || [] };
      verdicts(t, f, d);
      if (d.phase && d.phase !== 'vote' && d.phase !== 'debate') t.vote = null;
      break;
    case 'table_view': // Illegal's one: the drop
      t.drop = d;
      if (d.open) t.phase = 'drop-grab';
      else if (t.phase !== 'drop-grab') t.phase = 'drop-reveal';
      if (d.deadline) t.deadline = d.deadline;
      break;
    case 'ballot':
      t.vote = d;
      // every case's vote, by number; with every case open at once, the choices name their case
      if (d.case) t.cases[d.case] = d;
      // ("vote 2 bob", "abstain 2"; a Discord user id is all digits too: "vote 6100…" names a player)
      if ((d.choices || []).some((c) => /^(vote \d+ \S|abstain \d+$)/.test(c.command || ''))) t.parallel = true;
      learnPlayers(d.candidates);
      if (d.deadline) t.deadline = d.deadline;
      t.phase = 'vote';
      break;
    case 'result':
      t.result = d;
      t.phase = 'over';
      t.deadline = null;
      break;
    case 'game_over':
      t.phase = 'over';
      t.deadline = null;
      return; // machine-readable twin of the result
    case 'error':
      if (!replaying() && f.table === S.current) toast(pageText(f));
      t.rematchAsked = false; // a refused rematch may be asked again
      break;
    default:
      break;
    }
    // (a lobby is written at each render, in the page's language)
    const line = { key: f.key || null, text: f.text, err: f.form === 'error', game: d.game || t.game, data: f.data || null,
      lobby: f.form === 'lobby' && (d.actions || []).includes('join') ? d : null };
    // a message edited in place (the lobby, a drop) keeps one line, updated
    const at = line.key ? t.log.findIndex((l) => l.key === line.key) : -1;
    if (at >= 0) t.log[at] = line;
    else t.log.push(line);
    if (t.log.length > 300) t.log.shift();
  }

  // The bot's text, except where it tells chat users what to type and the page has a button.
  function logText(l) {
    if (!l.lobby) return pageText(l);
    const d = l.lobby;
    const names = (d.players || []).map((x) => x.name || x.id);
    return tr('page.lobby-line', { game: d.game, variant: variantName(d.variant), host: playerName(d.host),
      count: names.length, players: names.length ? list(names) : tr('page.nobody-yet') });
  }

  function onPrivate(p, f, d) {
    switch (f.form) {
    case 'private_view': // Illegal's one: the hand
      p.hand = d;
      learnPlayers(d.players);
      return;
    case 'prompt': // Illegal's one: an offer
      learnPlayers([d.from, d.to]);
      p.offers.set(d.offer, { data: d, frame: f, closed: false });
      break;
    case 'notice':
      if (d.offer !== undefined && p.offers.has(d.offer)) {
        const o = p.offers.get(d.offer);
        o.closed = true;
        o.frame = f;
      }
      // the bot's word on a vote, per case; which button it was is known from a click answered
      if (d.event === 'vote-recorded' || d.event === 'abstained') {
        const was = p.myVotes[d.case];
        const choice = d.event === 'abstained' ? 'abstain' : was && was.pending && was.choice !== 'abstain' ? was.choice : null;
        p.myVotes[d.case] = { case: d.case, frame: f, choice };
      }
      // the seat went to someone else: its roles, hand and offers are theirs now
      if (d.event === 'seat-handed') {
        p.hand = null;
        for (const o of p.offers.values()) o.closed = true;
      }
      break;
    case 'error':
      if (!replaying()) toast(pageText(f));
      break;
    default:
      break;
    }
    p.dm.push({ text: f.text, data: f.data || null, err: f.form === 'error' });
    if (p.dm.length > 200) p.dm.shift();
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

  function render() {
    const id = S.current;
    if (!id || S.held) return;
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
      $('lobby-variant').textContent = variantName(t.lobby.variant);
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
    const players = t.phase === 'lobby' || !mine || !mine.hand
      ? t.players
      : [{ id: S.user, name: S.name }, ...(mine.hand.players || [])];
    renderPlayers(t, mine, players);
    renderSeatOffer(t, mine);
    renderDrop(t, mine);
    renderVote(t, mine);
    renderResults(t);
    renderMod(t, players);
    renderLog($('log'), t.log);
    renderChat(t);
    renderRoom(t, mine);
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
    const drop = t.drop && (t.phase === 'drop-reveal' || t.phase === 'drop-grab') ? t.drop : null;
    const count = t.phase === 'vote' && t.vote ? t.votes[t.vote.case] : null;
    const open = p && p.offers ? [...p.offers.values()].filter((o) => !o.closed) : [];
    for (const x of players || []) {
      // a computer player is always there, and says so
      const computer = !!S.computers[x.id];
      const online = computer || S.online.has(x.id);
      const marks = el('span', { class: 'marks' });
      if (computer) marks.append(el('span', { class: 'mark computer', 'data-mark': 'computer', text: tr('page.player.computer') }));
      if (drop && (drop.takers || []).some((k) => k && k.id === x.id)) {
        marks.append(el('span', { class: 'mark done', 'data-mark': 'grabbed', text: tr('page.player.grabbed') }));
      }
      if (count && Array.isArray(count.by) && count.by.includes(x.id)) {
        marks.append(el('span', { class: 'mark done', 'data-mark': 'voted', text: tr('page.player.voted') }));
      }
      const between = x.id === S.user ? 0 : open.filter((o) => (o.data.from && o.data.from.id === x.id) || (o.data.to && o.data.to.id === x.id)).length;
      if (between) marks.append(el('span', { class: 'mark offers', 'data-mark': 'offers', text: trn('page.player.offers', between) }));
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

  // Another player took the card this page reached for: the race is lost, not the drop.
  function lostRace(t, p) {
    const d = t.drop;
    if (!d || !d.open || !grabbedIn(p, d)) return;
    const i = (d.shown || []).indexOf(p.grabbed.res);
    const taker = i >= 0 && d.takers ? d.takers[i] : null;
    if (taker && taker.id !== S.user) {
      p.grabbed = null;
      p.beaten = { drop: d.drop, name: taker.name || playerName(taker.id) };
    }
  }
  // Whether this page reached for a card of drop d (each drop starts fresh).
  function grabbedIn(p, d) { return !!(p && p.grabbed && p.grabbed.drop === d.drop); }

  function renderDrop(t, p) {
    const box = $('drop');
    const d = t.drop;
    box.hidden = !d || !(t.phase === 'drop-reveal' || t.phase === 'drop-grab');
    if (box.hidden) return;
    $('drop-title').textContent = tr('page.drop-title', { number: d.drop });
    const byRes = {};
    for (const c of d.choices || []) if (c.emoji && c.card) byRes[c.card] = c.emoji;
    const took = (d.takers || []).some((x) => x && x.id === S.user);
    const canGrab = d.open && p && !took && !grabbedIn(p, d);
    const beaten = p && p.beaten && p.beaten.drop === d.drop ? p.beaten.name : null;
    $('drop-hint').textContent = d.done ? tr('page.drop-done')
      : d.open
        ? (grabbedIn(p, d) ? tr('page.drop-reached')
          : beaten ? tr('page.drop-beaten', { player: beaten }) : tr('page.drop-open'))
        : tr('page.drop-revealing');
    const wrap = $('drop-cards');
    const before = wrap.childElementCount;
    clear(wrap);
    (d.shown || []).forEach((res, i) => {
      const taken = d.taken && d.taken[i];
      const grab = canGrab && !taken && byRes[res]
        ? () => {
          p.grabbed = { drop: d.drop, res };
          p.beaten = null;
          send({ type: 'react', key: `${t.game}/drop/${d.drop}`, reaction: byRes[res] });
          render();
        }
        : null;
      const c = card(res, { cls: (taken ? 'taken' : '') + (i >= before ? ' new' : ''), onclick: grab });
      const taker = d.takers && d.takers[i];
      if (taker) c.append(el('span', { class: 'taker', text: taker.id === S.user ? tr('page.you') : taker.name || playerName(taker.id) }));
      wrap.append(c);
    });
  }

  function renderVote(t, p) {
    const box = $('tribunal');
    if (t.parallel) return renderCases(t, p);
    $('cases-wrap').hidden = true;
    $('one-case').hidden = false;
    // the case in debate (its cards, no vote yet), or the case being voted on
    const debating = t.phase === 'debate' && t.debate;
    const v = t.phase === 'vote' ? t.vote : debating ? t.debate : null;
    box.hidden = !v;
    if (box.hidden) return;
    $('tribunal-title').textContent = tr(debating ? 'page.tribunal-debate' : 'page.tribunal-case', { case: v.case });
    $('tribunal-question').textContent = trn('page.tribunal-question', (v.cards || []).length || 2);
    const cards = clear($('case-cards'));
    for (const c of v.cards || []) cards.append(card(c));
    voteButtons(clear($('vote-buttons')), debating ? null : v, p, false);
    // a vote is shown for its own case only: each case starts unvoted
    $('my-vote').textContent = p && p.myVotes[v.case] ? myVoteText(p.myVotes[v.case]) : '';
    const n = !debating && t.votes[v.case];
    $('vote-count').textContent = n ? trn('page.votes-cast', n.voted, { voters: n.voters }) : '';
  }

  // The buttons of a case's vote (v, the vote message): one a candidate, and abstain. With mark,
  // the player's own choice is pressed.
  function voteButtons(btns, v, p, mark) {
    const isPlayer = !!(p && p.hand);
    const mine = v && p && p.myVotes[v.case];
    for (const c of (v && v.choices) || []) {
      // "vote bob", or "vote 2 bob" when every case is open at once; the player it names
      const a = c.command, target = c.player || null;
      if (!a || (c.by && !c.by.includes(S.user))) continue; // nobody may vote for themselves
      const label = target ? tr('page.vote-for', { player: playerName(target) }) : tr('ui.abstain');
      const choice = target || 'abstain';
      btns.append(el('button', { type: 'button', 'data-vote': choice, disabled: !isPlayer, text: label,
        'aria-pressed': mark ? String(!!mine && mine.choice === choice) : null,
        onclick: () => {
          sayDm(a);
          // the page's own words until the bot's answer comes (written at each render)
          p.myVotes[v.case] = { case: v.case, choice, pending: true };
          render();
        } }));
    }
  }
  function myVoteText(m) {
    if (m.frame) return pageText(m.frame);
    if (!m.choice) return '';
    return m.choice !== 'abstain' ? tr('page.my-vote', { player: playerName(m.choice) }) : tr('page.my-abstain');
  }

  // A parallel tribunal: every case open at once, each with its cards, its own vote and count;
  // a judged case shows its verdict while the others stay open.
  function renderCases(t, p) {
    const box = $('tribunal');
    const debating = t.phase === 'debate';
    const debated = (debating && t.debate && t.debate.cases) || [];
    const numbers = [...new Set([...debated.map((x) => x.case), ...Object.keys(t.cases).map(Number)])].sort((a, b) => a - b);
    box.hidden = !(t.phase === 'vote' || debating) || !numbers.length;
    if (box.hidden) return;
    $('one-case').hidden = true;
    $('cases-wrap').hidden = false;
    $('tribunal-title').textContent = tr(debating ? 'page.tribunal-all-debate' : 'page.tribunal-all');
    $('tribunal-question').textContent = trn('page.tribunal-question', 2);
    const list = clear($('cases'));
    for (const n of numbers) {
      const v = t.cases[n];
      const opened = debated.find((x) => x.case === n);
      const verdict = t.judged[n];
      const div = el('div', { class: verdict ? 'case judged' : 'case', 'data-case': String(n) },
        el('h4', { text: tr(verdict ? 'page.case-judged' : 'page.case', { case: n }) }));
      const cards = (v && v.cards) || (opened && opened.cards);
      if (cards) div.append(el('div', { class: 'cards small' }, ...cards.map((c) => card(c))));
      else if (opened) div.append(el('p', { class: 'hint', text: opened.line }));
      if (verdict) {
        div.append(el('p', { class: 'verdict', text: verdict }));
      } else if (v) {
        const count = t.votes[n];
        div.append(el('p', { class: 'vote-count', text: count ? trn('page.votes-cast', count.voted, { voters: count.voters }) : '' }));
        const btns = el('div', { class: 'actions' });
        voteButtons(btns, v, p, true);
        div.append(btns);
        div.append(el('p', { class: 'hint my-vote', text: p && p.myVotes[n] ? myVoteText(p.myVotes[n]) : '' }));
      }
      list.append(div);
    }
  }

  // The ranking as the bot sent it (rank order, ties sharing a rank): each player's roles,
  // the cards they ended with, and how their score was made.
  function renderResults(t) {
    const box = $('results');
    box.hidden = !t.result;
    if (box.hidden) return;
    notePlayed(t);
    const winners = new Set(t.result.winners || []);
    const ol = clear($('ranking'));
    for (const r of t.result.reveal || []) {
      const id = r.player && r.player.id;
      const held = el('div', { class: 'held' });
      for (const [c, n] of Object.entries(r.hand || {})) {
        const [kind, res] = c.includes(':') ? c.split(':') : ['resource', c];
        // a suspect card hits when it names the holder's own role
        const hit = (kind === 'suspect-dealer' && res === r.dealer) || (kind === 'suspect-buyer' && res === r.buyer);
        const cls = kind === 'resource' ? (res === r.buyer ? 'chip-card goods' : 'chip-card') : hit ? 'chip-card right' : 'chip-card wrong';
        const what = kind === 'resource' ? resName(res) : tr(kind === 'suspect-dealer' ? 'page.suspect-dealer' : 'page.suspect-buyer');
        held.append(el('span', { class: cls, 'data-card': c, title: C.names(c).full }, C.icon(res), ` ${n > 1 ? num(n) + ' ' : ''}${what}`));
      }
      ol.append(el('li', { class: winners.has(id) ? 'winner' : null, 'data-user': id, 'data-rank': String(r.rank),
        'data-score': String(r.score) },
      el('span', { class: 'rank', text: num(r.rank) }),
      el('div', { class: 'who' },
        el('div', { class: 'pname', text: ((r.player && r.player.name) || playerName(id)) + (winners.has(id) ? ' 🏆' : '') }),
        el('div', { class: 'roles' },
          el('span', { 'data-role': 'dealer:' + r.dealer }, C.icon(r.dealer), ' ' + tr('page.dealer-of', { resource: resName(r.dealer) })),
          el('span', { 'data-role': 'buyer:' + r.buyer }, C.icon(r.buyer), ' ' + tr('page.buyer-of', { resource: resName(r.buyer) }))),
        scoreParts(r),
        held),
      el('span', { class: 'score', text: num(r.score) })));
    }
    const rematch = $('rematch');
    rematch.disabled = t.rematchAsked;
    rematch.textContent = tr(t.rematchAsked ? 'page.opening-lobby' : 'page.play-again');
  }

  // How a score was made, from the parts the bot sent (nothing when it sent none).
  function scoreParts(r) {
    const parts = r.parts;
    if (!parts) return null;
    const pieces = [
      ['resources', parts.resources, trn('page.part.bought', parts.resources, { resource: resName(r.buyer) })],
      ['wrong', parts.wrong, trn('page.part.wrong', parts.wrong)],
      ['right', -5 * parts.right, trn('page.part.right', parts.right)],
    ].filter(([k, points]) => points !== 0 || k === 'resources');
    const how = el('div', { class: 'how' });
    pieces.forEach(([k, points, words], i) => {
      if (i) how.append(' · ');
      how.append(el('span', { 'data-part': k, 'data-points': String(points) },
        `${words} `, el('b', { text: points < 0 ? `\u2212${num(-points)}` : `+${num(points)}` })));
    });
    return how;
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

  function renderLog(ul, log) {
    const atBottom = ul.scrollTop + ul.clientHeight >= ul.scrollHeight - 4;
    clear(ul);
    for (const l of log) ul.append(el('li', { class: l.err ? 'err' : null, text: logText(l) }));
    if (atBottom) ul.scrollTop = ul.scrollHeight;
  }

  // ---- the trading room ----
  const trade = { give: {}, ask: {} };

  function renderRoom(t, p) {
    const h = p && p.hand;
    const roles = clear($('roles'));
    const hand = clear($('hand'));
    const sus = clear($('suspects'));
    // whoever does not play a running game watches it: no trading room, no offers
    const watching = !h && !!t.phase && t.phase !== 'lobby';
    $('room-title').textContent = tr(watching ? 'page.watching' : 'page.your-room');
    $('room-small').textContent = watching ? '' : tr('page.only-you');
    $('hand-wrap').hidden = !h;
    $('offers-box').hidden = watching;
    $('leave-game').hidden = !h || !t.phase || t.phase === 'lobby' || t.phase === 'over';
    if (!h) {
      roles.append(el('p', { class: 'hint', text: tr(watching ? 'page.watching-hint' : 'page.roles-later') }));
    } else {
      roles.append(card('dealer:' + h.dealer), card('buyer:' + h.buyer));
      const entries = Object.entries(h.hand || {}).filter(([, n]) => n > 0);
      if (!entries.length) hand.append(el('p', { class: 'hint', text: tr('page.no-resources') }));
      for (const [res, n] of entries) hand.append(card(res, { count: n }));
      for (const s of h.suspects || []) sus.append(card(s));
    }
    $('suspects-wrap').hidden = !(h && h.suspects && h.suspects.length);

    // offers
    const ul = clear($('offers'));
    const offers = p ? [...p.offers.values()].sort((a, b) => b.data.offer - a.data.offer) : [];
    if (!offers.length) ul.append(el('li', { class: 'hint', text: tr('page.no-offers') }));
    for (const o of offers) {
      const incoming = o.data.to && o.data.to.id === S.user;
      const li = el('li', { class: (o.closed ? 'closed ' : '') + (incoming ? 'incoming' : 'outgoing'), 'data-offer': String(o.data.offer) },
        el('div', { class: 'otext', text: pageText(o.frame) }));
      if (!o.closed) {
        const acts = el('div', { class: 'actions' });
        for (const c of o.data.choices || []) {
          const a = c.command || '', verb = a.split(' ')[0];
          acts.append(el('button', { type: 'button', 'data-action': verb, class: verb === 'accept' ? 'primary' : verb === 'decline' || verb === 'cancel' ? 'danger' : null,
            text: ['accept', 'decline', 'cancel'].includes(verb) ? tr('ui.' + verb) : verb, onclick: (ev) => { ev.target.disabled = true; sayDm(a); } }));
        }
        li.append(acts);
      }
      ul.append(li);
    }

    // trade builder
    const to = $('trade-to');
    const keep = to.value;
    clear(to);
    for (const x of (h && h.players) || []) to.append(el('option', { value: x.id, text: x.name || x.id }));
    if (keep) to.value = keep;
    // nothing to offer before the game deals, nor once the tribunal sits
    $('trade').hidden = !h || ['debate', 'vote', 'over'].includes(t.phase);
    const canTrade = !!h && t.phase === 'dealing' && !t.paused;
    $('trade-send').disabled = !canTrade || !to.value;
    const give = clear($('give-pick'));
    for (const [res, n] of Object.entries((h && h.hand) || {})) {
      if (n <= 0) continue;
      give.append(card(res, { count: n - (trade.give[res] || 0), onclick: () => {
        if ((trade.give[res] || 0) < n) trade.give[res] = (trade.give[res] || 0) + 1;
        renderTrade();
      } }));
    }
    const ask = clear($('ask-pick'));
    for (const res of inPlay(t, h)) {
      ask.append(card(res, { onclick: () => { trade.ask[res] = (trade.ask[res] || 0) + 1; renderTrade(); } }));
    }
    renderTrade();
    renderLog($('dm-log'), (p && p.dm) || []);
  }

  // The game's resources in play: as the game's start said, or else known from the hand, roles
  // and drops; all when unsure.
  function inPlay(t, h) {
    if (t.resources && t.resources.length) return C.RESOURCES.filter((r) => t.resources.includes(r));
    const set = new Set();
    if (h) {
      set.add(h.dealer);
      set.add(h.buyer);
      for (const r of Object.keys(h.hand || {})) set.add(r);
      for (const s of h.suspects || []) set.add(s.split(':')[1]);
    }
    for (const r of (t.drop && t.drop.shown) || []) set.add(r);
    const n = h ? (h.players || []).length + 1 : 0;
    if (set.size < n) return C.RESOURCES;
    return C.RESOURCES.filter((r) => set.has(r));
  }

  function cardsText(m) {
    const parts = Object.entries(m).filter(([, n]) => n > 0).map(([r, n]) => `${n} ${r}`);
    return parts.length ? parts.join(' ') : 'nothing';
  }

  function renderTrade() {
    for (const side of ['give', 'ask']) {
      const box = clear($(side));
      for (const [res, n] of Object.entries(trade[side])) {
        if (n <= 0) continue;
        box.append(el('span', { class: 'chip', 'data-chip': res, title: tr('page.take-back'),
          onclick: () => { trade[side][res]--; if (!trade[side][res]) delete trade[side][res]; renderTrade(); } },
        `${num(n)} × `, C.icon(res), ` ${resName(res)}`));
      }
    }
    const to = $('trade-to').value;
    $('trade-preview').textContent = to
      ? tr('page.trade-preview', { give: cardsWords(trade.give), ask: cardsWords(trade.ask), player: playerName(to) }) : '';
  }
  function cardsWords(m) {
    const parts = Object.entries(m).filter(([, n]) => n > 0).map(([r, n]) => `${num(n)} ${resName(r)}`);
    return parts.length ? list(parts) : tr('page.nothing');
  }

  $('trade-send').addEventListener('click', () => {
    const to = $('trade-to').value;
    if (!to) return;
    sayDm(`offer ${to} ${cardsText(trade.give)} for ${cardsText(trade.ask)}`);
    trade.give = {};
    trade.ask = {};
    renderTrade();
  });

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
    if (!t.result || t.playedNoted || !(t.result.reveal || []).some((r) => r.player && r.player.id === S.user)) return;
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
      if (t.host === S.user) return n >= 4 ? tr('page.now.lobby-start') : trn('page.now.lobby-wait-computers', 4 - n);
      return tr('page.now.lobby-host');
    }
    case 'dealing':
      return timed(plays ? 'page.now.dealing' : 'page.now.dealing-watch', { number: t.session || 1 });
    case 'drop-reveal':
      return tr('page.now.drop-reveal', { number: t.drop ? t.drop.drop : 1 });
    case 'drop-grab': {
      const took = t.drop && (t.drop.takers || []).some((x) => x && x.id === S.user);
      return timed(!plays ? 'page.now.drop-watch' : took ? 'page.now.drop-took' : 'page.now.drop-grab',
        { number: t.drop ? t.drop.drop : 1 });
    }
    case 'tribunal-hold':
      return tr('page.now.tribunal-hold');
    case 'debate':
      return timed('page.now.debate', { case: t.debate ? t.debate.case : 1 });
    case 'vote': {
      if (t.parallel && plays) return timed('page.now.vote-all', {});
      const n = t.vote ? t.vote.case : 1;
      const voted = mine && mine.myVotes && mine.myVotes[n];
      return timed(!plays ? 'page.now.vote-watch' : voted ? 'page.now.voted' : 'page.now.vote', { case: n });
    }
    case 'over':
      return tr('page.now.over');
    default:
      return '';
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
    renderConn();
    renderSound();
    renderInvite();
    renderTables();
    $('toast').hidden = true;
    render();
    tick();
  }

  // The words first; then a socket opens once there is a name to say hello with.
  loadWords().then(() => {
    renderAll();
    document.body.classList.remove('loading');
    document.body.classList.toggle('activity', A.on);
    setInterval(tick, 250);
    if (A.on) activityStart();
    else if (S.name) connect();
    else show('name');
  });
})();
