// Browser test of the local table: four players in four Chromium contexts (Dave's
// phone-sized) play a whole game through the page against the real daemon, and no
// context ever shows another player's secrets. Along the way: cards are pictures whose
// words fit, the phone keeps the phase and countdown in view and brings the drop to
// the player, the page words everything for buttons (never "DM the bot"), helps in place
// (how to play, what to do now, the Tribunal's question, tooltips), the table chats,
// players are called back (sound, title, vibration) when a drop or vote opens or an
// offer comes, the player panels follow the game, what cannot be undone is confirmed,
// the results explain every score, and Play again opens a new lobby. Then
// one page alone presses "Play alone" on the first screen and plays three computer players
// to the results. Then a page fed the messages of a bot without settings, vote counts or
// score parts, and a page in
// French, then German, whose every word is the catalog's. Then a game of four players
// scripted over the websocket, watched by a page: a player leaves and the page takes
// the seat over, then votes in a parallel tribunal. Last, a daemon open to the network,
// whose invite shows the address friends open with a QR code that reads back to it.
// A screenshot of every phase goes to $SCREENSHOT_DIR (build/web-screenshots).
// Each case's timeout is many times what it takes on a quiet machine (10 to 70 s): on a
// loaded 2-core machine a browser may take minutes, and a timeout is no check of speed.
// Nothing waits on the clock: every step's timer is long and the host moves each on once the
// pages have done what it asks; every wait is for a condition (PATIENCE at most), and every
// click is checked to have reached the page (a table update may redraw a button mid-click).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import jsQR from 'jsqr';
import { PATIENCE, clickSending, clickUntil, closeAll, everyoneVoted, launchChromium } from './chromium.mjs';
import { Client, newToken, sleep, startServer } from './lib.mjs';

const DAEMON = process.env.ILLEGALD;
const SHOTS = process.env.SCREENSHOT_DIR || join(process.cwd(), 'web-screenshots');
const NAMES = ['Alice', 'Bob', 'Carol', 'Dave'];
const TABLE = 'main';

function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

const dir = mkdtempSync(join(tmpdir(), 'illegald-browser-'));
let daemon, browser, base, daemonArgs;
const catalogs = {}; // the page's words, as the daemon serves them: /catalog/<lang>.json
const PORT_RE = /local table at http:\/\/[^ ]+:(\d+)\//;
const players = []; // {name, ctx, page, user}

// A page error fails the test, and so does any error it logs, except what a page's reconnect
// logs while the test itself kills and restarts the daemon: its websocket failing to connect
// and a request refused, which is the page doing its job. Any other error, and those outside
// that window, still count.
let restarting = false;
const RECONNECT_ERRORS = [/^WebSocket connection to 'ws:\/\/[^']+\/ws' failed/,
  /^Failed to load resource: net::ERR_CONNECTION_(REFUSED|RESET|CLOSED)/];
function watchErrors(page, errors) {
  page.on('pageerror', (e) => errors.push(e));
  page.on('console', (m) => {
    if (m.type() !== 'error') return;
    if (restarting && RECONNECT_ERRORS.some((re) => re.test(m.text()))) return;
    errors.push(new Error(m.text()));
  });
}

// No catalog key the page asked for may be missing (it would show as the key itself).
async function noMissingWords(p) {
  assert.deepEqual(await p.page.evaluate(() => [...window.__illegal.missing]), [], `${p.name}'s page asked for keys the catalog lacks`);
}

// The page words what chat users type as buttons to press: none of the bot's chat wording.
const CHAT_WORDS = ['DM the bot', 'Reply "', '!illegal', 'direct message', 'react with', '"offer ', '"vote ', 'is now '];
async function noChatWords(p) {
  const text = await p.page.evaluate(() => document.body.innerText);
  for (const w of CHAT_WORDS) assert.ok(!text.includes(w), `${p.name}'s page says "${w}": ${text.slice(Math.max(0, text.indexOf(w) - 80), text.indexOf(w) + 80)}`);
}

// Waits until the element shows exactly text (another page's news takes its time), then checks.
async function shows(page, sel, text, timeout = PATIENCE) {
  await page.waitForFunction(([s, t]) => { const e = document.querySelector(s); return !!e && e.textContent === t; },
    [sel, text], { timeout }).catch(() => {});
  assert.equal(await page.locator(sel).textContent(), text, sel);
}

// Waits until ok() (what the test records of a page's websocket, which Playwright reports
// after the page acts), asking again every 50 ms, for as long as PATIENCE.
async function until(ok, patience = PATIENCE) {
  for (const end = Date.now() + patience; !ok() && Date.now() < end;) await sleep(50);
}

// A key's English text with its {placeholders} filled.
function en(key, vars = {}, form = null) {
  let t = catalogs.en.texts[key];
  if (Array.isArray(t)) t = t[form === null ? t.length - 1 : form];
  assert.ok(typeof t === 'string', `no English text for ${key}`);
  return t.replace(/\{([A-Za-z_-]+)\}/g, (m, k) => (k in vars ? String(vars[k]) : m));
}

before(async () => {
  if (!DAEMON) throw new Error('set ILLEGALD to the illegald binary');
  mkdirSync(SHOTS, { recursive: true });
  const port = await freePort();
  const conf = join(dir, 'illegald.conf');
  writeFileSync(conf, [
    '[web]', 'enabled = true', 'bind = 127.0.0.1', `port = ${port}`,
    '[game]', 'session_seconds = 600', 'reveal_seconds = 1', 'grab_seconds = 600',
    'debate_seconds = 600', 'vote_seconds = 600', 'computer_pace = 10', '',
  ].join('\n'));
  daemonArgs = ['--config', conf, '--store', join(dir, 'illegald.db')];
  daemon = await startServer(DAEMON, daemonArgs, { portRe: PORT_RE });
  base = `http://127.0.0.1:${daemon.port}/`;
  // a new store is made, not upgraded four times over
  assert.match(daemon.stderr, /new store, schema version \d+/);
  assert.doesNotMatch(daemon.stderr, /schema upgraded/);
  for (const lang of ['en', 'fr', 'de']) {
    const r = await fetch(`${base}catalog/${lang}.json`);
    assert.equal(r.status, 200, `/catalog/${lang}.json`);
    catalogs[lang] = await r.json();
  }
  browser = await launchChromium();
});

after(() => closeAll(browser, daemon, dir));

const state = (page) => page.evaluate((table) => {
  const S = window.__illegal;
  const t = S.T[table] || {};
  return { user: S.user, phase: t.phase || null, paused: !!t.paused, game: t.game || null,
    voteCase: t.vote ? t.vote.case : null, lobby: t.lobby, result: t.result, tab: S.tab };
}, TABLE);

// The whole page (from its top, or the sticky head is drawn where the window was), or (view)
// only what the window shows, as a player sees it.
async function shot(p, name, view = false) {
  if (!view) await p.page.evaluate(() => window.scrollTo(0, 0));
  await p.page.screenshot({ path: join(SHOTS, `${name}-${p.name.toLowerCase()}.png`), fullPage: !view });
}

// Every card shown is a picture whose lines are whole words of its name, each fitting the
// card, at a size a phone can read.
async function checkCards(p) {
  const bad = await p.page.evaluate(() => {
    const out = [];
    const shown = [...document.querySelectorAll('.card')].filter((c) => c.getClientRects().length);
    if (!shown.length) out.push('no card shown');
    for (const c of shown) {
      const svg = c.querySelector('svg.art');
      if (!svg) {
        out.push(`${c.dataset.card} is not a picture`);
        continue;
      }
      const words = new Set(svg.getAttribute('aria-label').split(/[ ,:]+/));
      // (the layout width: a card that just appeared is still growing into place)
      const scale = c.offsetWidth / svg.viewBox.baseVal.width;
      for (const t of svg.querySelectorAll('text')) {
        for (const w of t.textContent.split(' ')) {
          if (!words.has(w) && !t.classList.contains('kind')) out.push(`${c.dataset.card}: "${w}" is not a whole word`);
        }
        if (t.getComputedTextLength() > Number(t.dataset.max) + 0.5) out.push(`${c.dataset.card}: "${t.textContent}" overflows`);
        // every word on a card, its small print too, is large enough to read on a phone
        const px = Number(t.getAttribute('font-size')) * scale;
        if (px < 8.5) out.push(`${c.dataset.card}: "${t.textContent}" at ${px.toFixed(1)} px`);
      }
    }
    return out;
  });
  assert.deepEqual(bad, [], `${p.name}'s cards`);
}

// Whether the element is all within the window, below the sticky head when it is not part of it.
const inView = (page, sel) => page.evaluate((sel) => {
  const e = document.querySelector(sel);
  const r = e.getBoundingClientRect();
  const head = document.getElementById('table-head');
  const top = head.contains(e) ? 0 : head.getBoundingClientRect().bottom;
  return r.height > 0 && r.top >= top - 1 && r.bottom <= window.innerHeight + 1;
}, sel);

// What each page has been sent in private, and what it shows: checked against the others.
async function snapshot(p) {
  return p.page.evaluate(() => {
    const S = window.__illegal;
    const dm = S.frames.filter((f) => f.type === 'message' && f.dm);
    const pub = S.frames.filter((f) => f.type === 'message' && !f.dm);
    const roleCards = [...document.querySelectorAll('[data-card^="dealer:"], [data-card^="buyer:"]')]
      .map((e) => ({ card: e.dataset.card, inRoom: !!e.closest('#roles') }));
    const offers = [...document.querySelectorAll('#offers [data-offer]')].map((e) => Number(e.dataset.offer));
    return { user: S.user, dm, pub, roleCards, offers, text: document.body.innerText };
  });
}

function checkSecrets(snaps) {
  const over = snaps.some((s) => s.pub.some((f) => f.kind === 'result'));
  for (const s of snaps) {
    const own = s.dm.filter((f) => f.kind === 'hand').map((f) => f.data);
    for (const f of s.dm) {
      if (f.kind === 'hand') assert.equal(f.key.split('/').pop(), s.user, `${s.user} got another's hand`);
      if (f.data && f.data.from && f.data.to) {
        assert.ok(f.data.from.id === s.user || f.data.to.id === s.user, `${s.user} got another's offer: ${f.text}`);
      }
    }
    for (const f of s.pub) {
      assert.notEqual(f.kind, 'hand', 'a hand in public');
      assert.notEqual(f.kind, 'offer', 'an offer in public');
      const ev = f.data && f.data.event;
      assert.ok(ev !== 'vote-recorded' && ev !== 'abstained' && ev !== 'dealt', `a private event in public: ${f.text}`);
      assert.ok(!(f.data && f.data.offer !== undefined), `a trade in public: ${f.text}`);
    }
    // role cards are shown only in the player's own room, and only their own
    const mine = new Set(own.length ? [`dealer:${own[own.length - 1].dealer}`, `buyer:${own[own.length - 1].buyer}`] : []);
    for (const r of s.roleCards) {
      assert.ok(r.inRoom, `a role card outside the trading room: ${r.card}`);
      assert.ok(mine.has(r.card), `${s.user} shows a role that is not theirs: ${r.card}`);
    }
    // no private sentence of another player is on this page (unless this player got the same one)
    if (!over) {
      const ownTexts = new Set(s.dm.map((f) => f.text));
      for (const o of snaps) {
        if (o === s) continue;
        for (const f of o.dm) {
          if (ownTexts.has(f.text) || f.text.length < 12) continue;
          assert.ok(!s.text.includes(f.text), `${s.user} shows ${o.user}'s private message: ${f.text}`);
        }
      }
      // offers: only those this player is part of
      const parties = new Map();
      for (const o of snaps) for (const f of o.dm) if (f.kind === 'offer') parties.set(f.data.offer, [f.data.from.id, f.data.to.id]);
      for (const n of s.offers) assert.ok((parties.get(n) || [s.user]).includes(s.user), `${s.user} shows offer #${n}`);
    }
  }
}

async function checkAll() {
  checkSecrets(await Promise.all(players.map(snapshot)));
}

test('four players play a whole game through the page; nobody sees another\'s secrets', { timeout: 900000 }, async () => {
  for (const [i, name] of NAMES.entries()) {
    const phone = i === 3;
    const ctx = await browser.newContext(phone
      ? { locale: 'en-US', viewport: { width: 390, height: 844 }, deviceScaleFactor: 1, isMobile: true, hasTouch: true }
      : { locale: 'en-US', viewport: { width: 1200, height: 900 } });
    ctx.setDefaultTimeout(PATIENCE);
    if (phone) {
      // the phone vibrates (noted here), and its page is in another tab, so the title flashes
      await ctx.addInitScript(() => {
        window.__vibrated = [];
        navigator.vibrate = (p) => { window.__vibrated.push(p); return true; };
        document.hasFocus = () => false;
      });
    }
    const page = await ctx.newPage();
    const errors = [];
    watchErrors(page, errors);
    await page.goto(base);
    if (i === 0) {
      // the first screen says what the game is, and how to play is one click away
      await page.locator('#name-view').waitFor({ state: 'visible' });
      assert.equal(await page.locator('#name-view [data-i18n="page.intro"]').textContent(), en('page.intro'));
      await shot({ page, name }, '0-first-screen');
    }
    await page.locator('#name').fill(name);
    await page.locator('#name-go').click();
    await page.locator('#tables-view').waitFor({ state: 'visible' });
    players.push({ name, ctx, page, errors });
  }
  const [alice, bob, carol, dave] = players;
  // the games are named in words, not catalog keys, the default first; the modes are the chosen
  // game's, in its words
  const texts = (sel) => alice.page.locator(sel).evaluateAll((os) => os.map((o) => o.textContent));
  const capital = (w) => w[0].toUpperCase() + w.slice(1);
  assert.deepEqual(await texts('#game-choice option'), [en('illegal.game'), en('palm-drewes.game')]);
  assert.deepEqual(await texts('#variant option'), ['standard', 'advanced', 'casual', 'casual-advanced'].map((v) => capital(en(`illegal.variant.${v}`))));
  await alice.page.locator('#game-choice').selectOption('palm-drewes');
  assert.deepEqual(await texts('#variant option'), ['live', 'quick', 'casual'].map((v) => capital(en(`palm-drewes.preset.${v}`))));
  await alice.page.locator('#game-choice').selectOption('illegal');
  // the table listens on this computer alone: the invite says so, and how to open it to friends
  await alice.page.locator('#tables-view [data-invite] [data-invite-local]').waitFor();
  assert.equal(await alice.page.locator('#tables-view [data-invite] [data-invite-local]').textContent(), en('page.invite.local'));
  assert.equal(await alice.page.locator('#tables-view [data-invite] img.qr').count(), 0);
  await shot(alice, '0-tables');
  await shot(dave, '0-tables');
  // how to play: the rules in short, over the page, closed with its button or Escape
  for (const p of [alice, dave]) {
    await p.page.locator('#help-open').click();
    await p.page.locator('#help').waitFor({ state: 'visible' });
    assert.equal(await p.page.locator('#help [data-i18n="page.help.goal"]').textContent(), en('page.help.goal'));
    await shot(p, '0-how-to-play', true);
  }
  await alice.page.keyboard.press('Escape');
  await alice.page.locator('#help').waitFor({ state: 'hidden' });
  await dave.page.locator('#help-close').click();
  await dave.page.locator('#help').waitFor({ state: 'hidden' });

  // Alice creates the table, hosts and is seated at once; the others join through the lobby buttons
  await alice.page.locator('#new-table').fill('Main');
  await clickSending(alice.page, alice.page.locator('#create'));
  await alice.page.locator('#lobby-actions [data-action=join][disabled]').waitFor();
  await alice.page.locator(`#players li[data-user]`).nth(0).waitFor();
  for (const p of players.slice(1)) {
    await clickSending(p.page, p.page.locator(`#tables li[data-table="${TABLE}"] button`));
    await p.page.locator('#table-view').waitFor({ state: 'visible' });
  }
  for (const p of players.slice(1)) {
    await clickSending(p.page, p.page.locator('#lobby-actions [data-action=join]:not([disabled])'));
    await p.page.locator(`#players li[data-user]`).nth(0).waitFor();
  }
  for (const p of players) p.user = (await state(p.page)).user;
  await alice.page.locator('#players li[data-user]').nth(3).waitFor();
  // every player's panel says they are connected
  for (const p of players) {
    await alice.page.locator(`#players li[data-user="${p.user}"][data-online="true"]`).waitFor({ timeout: PATIENCE });
  }
  // what to do now: the host starts, the others wait for the host
  await alice.page.locator('#now', { hasText: en('page.now.lobby-start') }).waitFor();
  await shows(bob.page, '#now', en('page.now.lobby-host'));
  // the table chats; text typed there is never dropped: a private command typed at the
  // table is answered in the player's trading room and shown to nobody, a question alone
  // ("status") is asked of the bot
  await bob.page.locator('#chat-input').fill('hello table');
  await bob.page.locator('#chat-input').press('Enter');
  for (const p of players) await p.page.locator('#chat li', { hasText: 'hello table' }).waitFor({ state: 'attached', timeout: PATIENCE });
  assert.equal(await alice.page.locator('#chat li', { hasText: 'hello table' }).locator('b').textContent(), 'Bob: ');
  await carol.page.locator('#chat-input').fill('offer alice 1 guns for nothing');
  await carol.page.locator('#chat-input').press('Enter');
  await carol.page.locator('#dm-log li', { hasText: en('page.say.msg.private-at-table', { command: 'offer' }) }).waitFor({ timeout: PATIENCE });
  await carol.page.locator('#chat-input').fill('status');
  await carol.page.locator('#chat-input').press('Enter');
  await carol.page.locator('#log li', { hasText: /is waiting for players/ }).first().waitFor({ timeout: PATIENCE });
  for (const p of players) assert.equal(await p.page.locator('#chat li', { hasText: 'offer alice' }).count(), 0, `${p.name} reads a private command`);
  // the phone's player turns the sound on (it is off in a first game)
  assert.equal(await dave.page.locator('#sound').getAttribute('aria-pressed'), 'false');
  await dave.page.locator('#sound').click();
  assert.equal(await dave.page.locator('#sound').getAttribute('aria-pressed'), 'true');
  // the page speaks of its buttons, not of commands to type
  assert.ok(!(await alice.page.locator('#log').textContent()).includes('!illegal join'));
  assert.ok((await alice.page.locator('#log').textContent()).includes('Press Join to play'));
  // only the host may start
  assert.ok(await bob.page.locator('#lobby-actions [data-action=start]').isDisabled(), 'Start is the host\'s');
  assert.ok(await alice.page.locator('#lobby-actions [data-action=start]').isEnabled());
  // the host's settings form changes a timer; the others read the settings only
  const settings = (await state(alice.page)).lobby.settings;
  if (settings) {
    assert.ok(await alice.page.locator('#settings-form').isVisible(), 'the host has a settings form');
    assert.ok(!(await bob.page.locator('#settings-form').isVisible()), 'a player who does not host has no form');
    assert.ok(await bob.page.locator('#settings-summary').isVisible());
    // (a long session: the host moves it on, and a loaded machine never sees it end first)
    const want = settings.session === 1201 ? 1202 : 1201;
    await alice.page.locator('#settings-form [data-timer=session]').fill(`${want}s`);
    await alice.page.locator('#settings-form [data-timer=session]').press('Tab');
    await bob.page.waitForFunction(([t, n]) => ((window.__illegal.T[t].lobby || {}).settings || {}).session === n,
      [TABLE, want], { timeout: PATIENCE }).catch(() => {});
    assert.equal((await state(bob.page)).lobby.settings.session, want, 'the host changed the session timer');
    assert.ok((await bob.page.locator('#settings-summary').textContent())
      .includes(en('page.summary.session', { time: en('time.minutes-seconds', { a: 20, b: want - 1200 }) })));
    // (the host's page hears of it in its own time; until then it shows the timer it knew)
    await alice.page.waitForFunction((v) => document.querySelector('#settings-form [data-timer=session]').value === v, `${want}s`)
      .catch(() => {});
    assert.equal(await alice.page.locator('#settings-form [data-timer=session]').inputValue(), `${want}s`);
  } else {
    // a bot that sends no settings: no form, and nothing broken
    for (const p of players) assert.ok(!(await p.page.locator('#settings').isVisible()));
  }
  await shot(alice, '1-lobby');
  await shot(bob, '1-lobby');
  await shot(dave, '1-lobby');
  for (const p of players) await noChatWords(p);
  await clickSending(alice.page, alice.page.locator('#lobby-actions [data-action=start]'));

  // everyone sees their own roles and hand, drawn as cards; the phone turns to its trading room
  for (const p of players) await p.page.locator('#roles [data-card^="dealer:"]').waitFor({ state: 'attached', timeout: PATIENCE });
  const events = await dave.page.evaluate(() => window.__illegal.frames.map((f) => f.data && (f.data.events || f.data.event)));
  assert.equal((await state(dave.page)).tab, 'room', `the phone's pane at the start, after ${JSON.stringify(events)}`);
  for (const p of players) await p.page.locator('#roles [data-card^="dealer:"]').waitFor({ timeout: PATIENCE });
  await checkAll();
  for (const p of players) await checkCards(p);
  for (const p of players) await shot(p, '2-trading');
  // what to do now: the session, and what it asks, with the time left
  assert.match(await alice.page.locator('#now').textContent(),
    new RegExp(`^${en('page.now.dealing', { number: 1 })} · .+ left$`));
  // a role card's tooltip says what it is for
  const role = await alice.page.locator('#roles [data-card^="dealer:"]').getAttribute('data-card');
  const goods = catalogs.en.texts[`illegal.card.${role.split(':')[1]}`];
  assert.equal(await alice.page.locator('#roles [data-card^="dealer:"]').getAttribute('title'),
    `${en('page.card.dealer-full', { role: catalogs.en.texts[`illegal.card.${role}`], resource: goods })}\n${en('page.tip.dealer', { resource: goods })}`);
  for (const p of players) await noChatWords(p);

  // what cannot be undone asks first: End game and Kick, answered No, change nothing
  await clickUntil(alice.page.locator('#mod [data-mod=end]'), () => alice.page.locator('#confirm').isVisible());
  assert.equal(await alice.page.locator('#confirm-text').textContent(), en('page.confirm.end'));
  await shot(alice, '2-confirm-end', true);
  await alice.page.locator('#confirm-no').click();
  await alice.page.locator('#kick-who').selectOption(bob.user);
  await clickUntil(alice.page.locator('#kick'), () => alice.page.locator('#confirm').isVisible());
  assert.equal(await alice.page.locator('#confirm-text').textContent(), en('page.confirm.kick', { player: 'Bob' }));
  await alice.page.keyboard.press('Escape');
  await alice.page.locator('#confirm').waitFor({ state: 'hidden' });
  await sleep(500);
  assert.equal((await state(alice.page)).phase, 'dealing', 'the game goes on');
  assert.equal(await alice.page.locator('#players li[data-user]').count(), 4, 'nobody was kicked');
  // Pause and Resume are one button that shows the state
  const toggle = alice.page.locator('#pause-toggle');
  assert.equal(await toggle.textContent(), en('page.pause'));
  await clickSending(alice.page, toggle);
  await alice.page.locator('#pause-toggle[aria-pressed="true"]').waitFor({ timeout: PATIENCE });
  assert.equal(await toggle.textContent(), en('page.resume'));
  await shows(bob.page, '#now', en('page.now.paused'));
  await shot(alice, '2-paused');
  await clickSending(alice.page, toggle);
  await alice.page.locator('#pause-toggle[aria-pressed="false"]').waitFor({ timeout: PATIENCE });

  // what is typed in the trading room is answered there, errors included
  await bob.page.locator('#tabs [data-tab=log]').count();
  await bob.page.locator('#room-cmd').fill('offer alice 1 unicorns for nothing');
  await bob.page.locator('#room-cmd').press('Enter');
  await bob.page.locator('#dm-log li', { hasText: 'unicorns' }).first().waitFor({ timeout: PATIENCE });

  // a trade through the form drawn from the hand's compose: Alice gives Bob one card for
  // nothing (ask left empty: a gift); Bob accepts. The form asks only for the game's resources
  // in play (one a player), is labelled by the compose's catalog words, and shows the command
  // it will send, with names.
  assert.equal(await alice.page.locator('#compose [data-part=ask] .pick .card').count(), NAMES.length);
  assert.equal(await alice.page.locator('#compose [data-part=ask] h4').textContent(), en('ui.you-ask'));
  await alice.page.locator('#compose [data-part=to] select').selectOption(bob.user);
  await clickUntil(alice.page.locator('#compose [data-part=give] .pick .card').first(),
    async () => /^offer Bob 1 /.test(await alice.page.locator('#compose .preview').textContent()));
  assert.match(await alice.page.locator('#compose .preview').textContent(),
    /^offer Bob 1 [A-Z][a-z]+.* for nothing$/);
  await clickSending(alice.page, alice.page.locator('#compose [data-send]'));
  const accept = bob.page.locator('#offers li.incoming [data-action=accept]');
  await accept.waitFor({ timeout: PATIENCE });
  // Bob is called back; both see the offer open between them on the other's panel
  assert.ok((await bob.page.evaluate(() => window.__illegal.alerts)).some((a) => a.kind === 'offer'), 'Bob was called back');
  await alice.page.locator(`#players li[data-user="${bob.user}"] [data-mark=offers]`).waitFor();
  await bob.page.locator(`#players li[data-user="${alice.user}"] [data-mark=offers]`).waitFor();
  assert.equal(await bob.page.locator(`#players li[data-user="${alice.user}"] [data-mark=offers]`).textContent(), en('page.player.offers', { count: 1 }, 0));
  assert.equal(await bob.page.locator(`#players li[data-user="${carol.user}"] [data-mark=offers]`).count(), 0);
  // the offer reads as the page's, with its buttons, not "Reply accept 1"
  const say = await bob.page.evaluate(() => [...window.__illegal.P.main.offers.values()][0].frame.data.say[0]);
  assert.equal(say.key, 'illegal.msg.offer-received');
  assert.equal(await bob.page.locator('#offers li.incoming .otext').textContent(), en('page.say.illegal.msg.offer-received', say.vars));
  await shot(bob, '3-offer');
  await checkAll();
  await clickSending(bob.page, accept);
  await bob.page.locator('#offers li.closed').first().waitFor({ timeout: PATIENCE });
  await bob.page.locator(`#players li[data-user="${alice.user}"] [data-mark=offers]`).waitFor({ state: 'detached' });
  await checkAll();

  // kill -9 and a restart: with no reload, every page shows its roles, hand, offers and the
  // phase again (a page clears its private view when its socket closes, so this is the replay),
  // and never shows the table without its game meanwhile, only that it is reconnecting
  for (const p of players) {
    await p.page.evaluate(() => {
      window.__flashes = [];
      new MutationObserver(() => {
        const phase = document.getElementById('phase').textContent;
        if (phase === 'No game yet' || phase === 'Opening…' || document.querySelector('[data-action=new]')) {
          window.__flashes.push(phase);
        }
      }).observe(document.body, { subtree: true, childList: true, characterData: true });
    });
  }
  restarting = true; // the pages' reconnect errors from here are expected
  daemon.proc.kill('SIGKILL');
  await daemon.exited;
  for (const p of players) await p.page.locator('#conn.off', { hasText: 'reconnecting' }).waitFor({ timeout: PATIENCE });
  daemon = await startServer(DAEMON, daemonArgs, { portRe: PORT_RE });
  for (const p of players) {
    await p.page.locator('#conn.on').waitFor({ timeout: PATIENCE });
    await p.page.locator('#roles [data-card^="dealer:"]').waitFor({ timeout: PATIENCE });
    await p.page.locator('#hand .card').first().waitFor({ timeout: PATIENCE });
    assert.deepEqual(await p.page.evaluate(() => window.__flashes), [], `${p.name}'s page lost its game for a while`);
  }
  await sleep(500); // (what a page logged while reconnecting has reached the test)
  restarting = false;
  await bob.page.locator('#offers li.closed').first().waitFor({ timeout: PATIENCE });
  await alice.page.locator('#offers li.closed').first().waitFor({ timeout: PATIENCE });
  await checkAll();
  for (const p of players) await shot(p, '3-after-restart');
  // the chat is kept with the game: a line said now comes with the one said before the crash
  for (const p of players) await p.page.locator('#chat li', { hasText: 'hello table' }).waitFor({ state: 'attached', timeout: PATIENCE });
  await alice.page.locator('#chat-input').fill('back after the restart');
  await alice.page.locator('#chat-input').press('Enter');
  await bob.page.locator('#chat li', { hasText: 'back after the restart' }).waitFor({ timeout: PATIENCE });
  assert.deepEqual(await bob.page.evaluate(() => window.__illegal.T.main.chat.map((l) => l.text)),
    ['hello table', 'back after the restart'], 'the game kept its chat');

  // On the phone, deep in the trading room, the phase and the countdown stay in view
  await dave.page.locator('#tabs [data-tab=room]').click();
  assert.ok(!(await dave.page.locator('#players').isVisible()), 'the phone shows one pane at a time');
  await dave.page.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
  await dave.page.waitForFunction(() => window.scrollY > 0).catch(() => {});
  assert.ok(await dave.page.evaluate(() => window.scrollY > 0), 'the trading room is longer than the phone');
  assert.ok(await inView(dave.page, '#phase'), 'the phase is in view');
  assert.ok(await inView(dave.page, '#countdown'), 'the countdown is in view');
  assert.match(await dave.page.locator('#countdown').textContent(), /^\d+:\d\d$/);
  await shot(dave, '3-phone-trading-view', true);

  // then play on: the host moves each step on once the pages have done what it asks (every
  // step's clock is long, so a loaded machine never ends one before the pages act), players
  // grab and vote through the page
  const seen = new Set();
  let nexts = 0;
  // What the host waits on: the phase, its case or its drop; and a page's news.
  const step = (page) => page.evaluate((table) => {
    const t = window.__illegal.T[table] || {};
    return `${t.phase}|${t.vote ? t.vote.case : ''}|${t.debate ? t.debate.case : ''}|${t.drop ? t.drop.drop : ''}`;
  }, TABLE);
  const moved = (page, from) => page.waitForFunction(([table, from]) => {
    const t = window.__illegal.T[table] || {};
    return `${t.phase}|${t.vote ? t.vote.case : ''}|${t.debate ? t.debate.case : ''}|${t.drop ? t.drop.drop : ''}` !== from;
  }, [TABLE, from]);
  const news = (page, timeout = PATIENCE) => page.evaluate(() => window.__illegal.frames.length)
    .then((n) => page.waitForFunction((n) => window.__illegal.frames.length > n, n, { timeout }));
  // the host presses Next (again only while its click was lost) and waits for the next step
  const next = async () => {
    const from = await step(alice.page);
    if (await clickSending(alice.page, alice.page.locator('#mod [data-mod=next]'), async () => (await step(alice.page)) === from)) nexts++;
    await moved(alice.page, from);
  };
  // A drop's grab: the drop comes to the phone; every page reaches for the first card it may
  // take (a page that lost the race may reach again: the losers grab another card); players
  // are called back once a drop, and who took a card shows on their panel.
  const grabRound = async () => {
    if (!seen.has('phone-drop')) {
      // the drop came to the phone's player, who was down in the trading room
      seen.add('phone-drop');
      await dave.page.locator('#drop-cards .card').first().waitFor();
      assert.equal((await state(dave.page)).tab, 'table');
      assert.ok(await inView(dave.page, '#drop'), 'the drop is in view on the phone');
      await checkCards(dave);
      await shot(dave, '5-phone-drop-view', true);
    }
    await Promise.all(players.map(async (p) => {
      const c = p.page.locator('#drop-cards .card.clickable').first();
      await clickSending(p.page, c, async () => (await state(p.page)).phase === 'drop-grab' && (await c.count()) > 0);
    }));
    if (!seen.has('drop-alerts')) {
      seen.add('drop-alerts');
      // every player was called back as the drop opened, once a drop: the phone vibrated and its
      // title flashed, and only the phone, whose player turned it on, made a sound
      for (const p of players) {
        await p.page.waitForFunction(() => window.__illegal.alerts.some((a) => a.kind === 'drop'));
        const alerts = await p.page.evaluate(() => window.__illegal.alerts.filter((a) => a.kind === 'drop'));
        assert.equal(new Set(alerts.map((a) => a.what)).size, alerts.length, `${p.name} was called back once a drop: ${JSON.stringify(alerts)}`);
        for (const a of alerts) assert.equal(a.sound, p === dave, `${p.name}'s sound`);
      }
      const [call] = await dave.page.evaluate(() => window.__illegal.alerts.filter((a) => a.kind === 'drop'));
      assert.ok(call.vibrate && call.flashed, JSON.stringify(call));
      assert.ok((await dave.page.evaluate(() => window.__vibrated.length)) >= 1);
    }
    // who has taken a card shows on their panel (read at once: a grab may land between two reads)
    const { takers, marked, phase } = await alice.page.evaluate(() => ({
      takers: ((window.__illegal.T.main.drop || {}).takers || []).filter(Boolean).map((x) => x.id),
      marked: [...document.querySelectorAll('#players [data-mark=grabbed]')].map((e) => e.closest('li').dataset.user),
      phase: window.__illegal.T.main.phase }));
    if (takers.length && phase === 'drop-grab' && marked.length) {
      seen.add('grabbed-marks');
      for (const u of marked) assert.ok(takers.includes(u), `${u} is marked, not a taker`);
    }
    if (!seen.has('drop-grab')) {
      seen.add('drop-grab');
      // (the phone's table pane may have no cards left: a drop all grabbed ends at once)
      for (const p of players) if (p !== dave) await checkCards(p);
      for (const p of players) await shot(p, '5-drop-grab');
    }
  };
  // A case's vote: its cards and question, everyone called back; each page votes once a case
  // (for someone else), and the count and the panels' marks follow what the bot counted.
  const voteRound = async () => {
    if (!seen.has('vote-cards')) {
      seen.add('vote-cards');
      await dave.page.locator('#case-cards .card').first().waitFor();
      await checkCards(dave);
      // the Tribunal asks its question; everyone was called back
      await shows(alice.page, '#tribunal-question', en('page.tribunal-question', {}, 1));
      for (const p of players) {
        await p.page.waitForFunction(() => window.__illegal.alerts.some((a) => a.kind === 'vote'))
          .catch(() => assert.fail(`${p.name} was not called to vote`));
      }
    }
    const voted = await Promise.all(players.map(async (p) => {
      const c = (await state(p.page)).voteCase;
      if (c === null || p.votedCase === c) return false; // one vote per case
      // each case starts unvoted: the page never shows the last case's vote as this one's
      assert.equal(await p.page.locator('#my-vote').textContent(), '', `case ${c} shows a vote`);
      const b = p.page.locator(`#vote-buttons button[data-vote]:not([data-vote="${p.user}"]):not([disabled])`).first();
      if (!(await b.count())) return false;
      const sent = await clickSending(p.page, b, async () => (await state(p.page)).voteCase === c && (await b.count()) > 0);
      // a click that never left the page (its buttons redrawn away, the case still open) is
      // tried again on the next round, not taken for a vote
      if (sent) p.votedCase = c;
      return sent;
    }));
    if (!seen.has('vote') && voted.some(Boolean)) {
      seen.add('vote');
      await checkAll();
      for (const p of players) await shot(p, '6-tribunal');
    }
    // how many have voted on this case, as the bot last counted (unless the vote closed)
    // (read at once: a vote may land between two reads)
    const { votes, voteCase, shown } = await alice.page.evaluate((table) => {
      const t = window.__illegal.T[table];
      const voteCase = t.phase === 'vote' && t.vote ? t.vote.case : null;
      return { votes: voteCase && t.votes[voteCase], voteCase, shown: document.getElementById('vote-count').textContent };
    }, TABLE);
    if (voteCase && votes) {
      const forms = catalogs.en.texts['page.votes-cast'];
      assert.equal(shown, forms[votes.voted === 1 ? 0 : 1].replace('{count}', votes.voted).replace('{voters}', votes.voters));
      if (votes.voted > 0) seen.add('vote-count');
      // who has voted (never for whom) shows on their panels, as the bot counted
      if (votes.by) {
        const marked = await alice.page.locator('#players [data-mark=voted]').evaluateAll((es) => es.map((e) => e.closest('li').dataset.user).sort());
        const now = await alice.page.evaluate((t) => { const x = window.__illegal.T[t]; return x.vote && x.votes[x.vote.case]; }, TABLE);
        if (now && now.by && now.voted === votes.voted) {
          assert.deepEqual(marked, [...now.by].sort());
          if (marked.length) seen.add('voted-marks');
        }
      }
    } else if (voteCase) {
      assert.equal(shown, '');
    }
  };
  for (;;) {
    const st = await state(alice.page);
    if (process.env.WEB_DEBUG) console.log('step', await step(alice.page), Date.now() % 100000);
    if (st.phase === 'over') break;
    if (st.phase === 'dealing') {
      await next();
    } else if (st.phase === 'drop-reveal') {
      if (!seen.has('drop-reveal')) {
        seen.add('drop-reveal');
        await shot(alice, '4-drop-reveal');
      }
      await moved(alice.page, await step(alice.page));
    } else if (st.phase === 'drop-grab') {
      await grabRound();
      // the host moves on once no page may take a card (each holds one, or none is left) and no
      // page's reach waits for the bot's answer; a page that lost a race shows the cards left
      // clickable again, and grabs on the next round (the drop's last card taken ends it at once)
      const pages = await Promise.all(players.map((p) => p.page.evaluate((t) => {
        const S = window.__illegal;
        const d = S.T[t].drop || {}, g = S.P[t] && S.P[t].grabbed;
        const took = (d.takers || []).some((x) => x && x.id === S.user);
        return { user: S.user, took, clickable: document.querySelectorAll('#drop-cards .card.clickable').length,
          pending: !!g && g.drop === d.drop && !took, phase: S.T[t].phase };
      }, TABLE)));
      if (process.env.WEB_DEBUG) console.log('grab', JSON.stringify(pages));
      if (pages.some((p) => p.clickable)) continue;
      // (a reach the bot let pass unanswered was seen pending for minutes, once: a page that
      // reached for a card already taken; after 30 s with no news the host moves on)
      if (pages.some((p) => p.pending) && (await news(alice.page, 30000).then(() => true, () => false))) continue;
      if ((await state(alice.page)).phase === 'drop-grab') await next();
    } else if (st.phase === 'debate') {
      // the case's cards show through its debate, before the vote opens
      await alice.page.locator('#tribunal:not([hidden]) #case-cards .card').first().waitFor();
      seen.add('debate-cards');
      await next();
    } else if (st.phase === 'vote') {
      await voteRound();
      // everyone voted, as the bot counted: the host closes the case
      const all = await everyoneVoted(alice.page, TABLE);
      if (all) await next();
      else await news(alice.page);
    } else {
      await news(alice.page);
    }
    if (Math.random() < 0.3) await checkAll();
  }
  assert.ok(nexts >= 1, 'the host moved the game on');
  assert.ok(seen.has('drop-grab'), 'a drop was grabbed through the page');
  assert.ok(seen.has('vote'), 'votes were cast through the page');
  assert.ok(seen.has('debate-cards'), 'a case showed its cards during its debate');
  assert.ok(seen.has('drop-alerts'), 'a drop called the players back');
  assert.ok(seen.has('voted-marks'), 'the panels showed who had voted');
  const counted = await alice.page.evaluate(() => window.__illegal.frames.some((f) => f.data && f.data.event === 'votes-cast'));
  assert.equal(seen.has('vote-count'), counted, 'the page showed how many had voted');
  // Everyone reaches for the same first card at once: the losers grab another card instead
  // of waiting for a leftover, in every drop.
  const drops = await alice.page.evaluate(() => window.__illegal.frames
    .filter((f) => f.kind === 'drop' && f.data && f.data.done).map((f) => f.text));
  assert.ok(drops.length >= 1, 'no drop ended');
  // a drop edited in place is one line of the table's log, not one line per edit
  const dropLines = await alice.page.locator('#log li', { hasText: /^Drop 1/ }).count();
  assert.equal(dropLines, 1, `drop 1 takes ${dropLines} lines of the log`);
  for (const text of drops) {
    const grabbed = text.split(/, |: /).filter((c) => c.includes('\u2192') && !c.includes('(left over)'));
    assert.ok(grabbed.length >= 2, `a drop with ${grabbed.length} cards grabbed: ${text}`);
  }

  // the results, on every page: the bot's ranking in rank order, each player's roles, and
  // how each score was made (buyer's resources, wrong and right suspects) adding up
  const { result } = await state(alice.page);
  assert.ok(result && result.reveal, 'the game sent its results');
  const hasParts = result.reveal.every((r) => r.parts);
  for (const p of players) {
    await p.page.locator('#ranking li').nth(3).waitFor({ timeout: PATIENCE });
    const rows = await p.page.locator('#ranking li').evaluateAll((lis) => lis.map((li) => ({
      user: li.dataset.user, rank: Number(li.dataset.rank), score: Number(li.dataset.score),
      shown: Number(li.querySelector('.score').textContent), winner: li.classList.contains('winner'),
      roles: [...li.querySelectorAll('[data-role]')].map((e) => e.dataset.role),
      points: [...li.querySelectorAll('[data-part]')].map((e) => Number(e.dataset.points)) })));
    assert.deepEqual(rows.map((r) => r.user), result.reveal.map((r) => r.player.id), `${p.name}: rank order`);
    rows.forEach((row, i) => {
      const r = result.reveal[i];
      assert.equal(row.shown, r.score);
      if (i) assert.ok(row.rank >= rows[i - 1].rank && row.score <= rows[i - 1].score, 'ranked by score');
      assert.deepEqual(row.roles, [`dealer:${r.dealer}`, `buyer:${r.buyer}`]);
      assert.equal(row.winner, (result.winners || []).includes(row.user));
      if (hasParts) {
        assert.equal(row.points.reduce((a, b) => a + b, 0), row.score, `${row.user}'s score adds up`);
      } else {
        assert.deepEqual(row.points, [], 'no breakdown without the parts');
      }
    });
    await shot(p, '7-results');
  }
  await checkAll();
  for (const p of players) {
    await noChatWords(p);
    assert.deepEqual(p.errors.map(String), [], `${p.name}'s page had errors`);
  }

  // a reload gives the seat back, with the game as it was
  await bob.page.reload();
  await bob.page.locator('#ranking li').nth(3).waitFor({ timeout: PATIENCE });
  assert.equal((await state(bob.page)).user, bob.user);
  await shot(bob, '8-reloaded');

  // Play again, pressed on the phone by a player who did not host: a new lobby with the
  // same players, hosted by whoever asked for it
  const ended = (await state(alice.page)).game;
  await clickSending(dave.page, dave.page.locator('#rematch'));
  for (const p of players) {
    await p.page.waitForFunction(([t, g]) => {
      const x = window.__illegal.T[t];
      return x.game !== g && x.lobby && (x.lobby.players || []).length === 4;
    }, [TABLE, ended], { timeout: PATIENCE });
    const { lobby } = await state(p.page);
    assert.deepEqual(lobby.players.map((x) => x.id).sort(), players.map((x) => x.user).sort());
    assert.ok(await p.page.locator('#lobby-actions [data-action=start]').isVisible());
  }
  const { lobby } = await state(dave.page);
  assert.equal(lobby.host, dave.user);
  assert.ok(await dave.page.locator('#lobby-actions [data-action=start]').isEnabled());
  assert.ok(await alice.page.locator('#lobby-actions [data-action=start]').isDisabled());
  // the new host picks a preset, which sets every timer
  if (lobby.settings) {
    assert.ok(!(await alice.page.locator('#settings-form').isVisible()), 'the form went with the host');
    const other = (lobby.presets || []).find((x) => x !== lobby.settings.preset);
    await clickSending(dave.page, dave.page.locator(`#presets [data-preset=${other}]`));
    await dave.page.locator(`#presets [data-preset=${other}][aria-pressed=true]`).waitFor({ timeout: PATIENCE });
    await bob.page.waitForFunction(([t, v]) => ((window.__illegal.T[t].lobby || {}).settings || {}).preset === v, [TABLE, other])
      .catch(() => {});
    const after = (await state(bob.page)).lobby.settings;
    assert.equal(after.preset, other);
    // (a preset's name starts the summary, with a capital)
    const label = catalogs.en.texts[`illegal.preset.${other}`].replace(/^./, (c) => c.toUpperCase());
    assert.ok((await bob.page.locator('#settings-summary').textContent()).startsWith(label + ':'));
  }
  await shot(alice, '9-rematch-lobby');
  await shot(dave, '9-rematch-lobby');
  // Carol closes her page: the others see her panel say she is gone
  await carol.ctx.close();
  await alice.page.locator(`#players li[data-user="${carol.user}"][data-online="false"]`).waitFor({ timeout: PATIENCE });
  assert.equal(await alice.page.locator(`#players li[data-user="${carol.user}"]`).getAttribute('title'), en('page.player.offline'));
  for (const p of [alice, bob, dave]) {
    await noMissingWords(p);
    assert.deepEqual(p.errors.map(String), [], `${p.name}'s page had errors`);
  }
  if (process.env.WEB_DEBUG) console.log('seen', [...seen], 'parts', hasParts, 'settings', !!settings);
});

// One page alone: "Play alone" on the first screen, with no name typed, is a running game
// against three computer players in one click. The reader answers the computers' offers,
// grabs, votes and moves each step on as the host, to the results; the computers' moves
// come to the page as a person's would, and their own secrets never do.
test('one page plays alone with three computer players, from the first screen to the results', { timeout: 600000 }, async () => {
  const ctx = await browser.newContext({ locale: 'en-US', viewport: { width: 1200, height: 900 } });
  ctx.setDefaultTimeout(PATIENCE);
  const page = await ctx.newPage();
  const errors = [];
  watchErrors(page, errors);
  const me = { name: 'Solo', ctx, page, errors };
  await page.goto(base);
  await page.locator('#name-view').waitFor({ state: 'visible' });
  assert.equal(await page.locator('#play-alone').textContent(), en('page.play-alone'));
  await shot(me, '10-play-alone');
  await page.locator('#play-alone').click();
  const now = () => page.evaluate(() => {
    const S = window.__illegal;
    const t = S.T[S.current] || {};
    const v = t.vote && t.votes[t.vote.case];
    return { table: S.current, user: S.user, phase: t.phase || null, host: t.host || null,
      voteCase: t.phase === 'vote' && t.vote ? t.vote.case : null, allVoted: !!(v && v.voted === v.voters),
      computers: Object.keys(S.computers) };
  });
  await page.waitForFunction(() => { const S = window.__illegal; const t = S.T[S.current]; return !!t && t.phase === 'dealing'; },
    null, { timeout: PATIENCE });
  const start = await now();
  assert.equal(await page.locator('#me').textContent(), en('page.solo-name'));
  assert.equal(start.host, start.user, 'the reader hosts the game');
  await page.locator('#players li[data-user]').nth(3).waitFor();
  assert.equal(await page.locator('#players [data-mark=computer]').count(), 3);
  assert.equal(start.computers.length, 3);
  await shot(me, '10-alone-dealt');
  const done = { offers: 0, grabs: 0, votes: 0, nexts: 0 };
  const voted = new Set();
  let phase = null, since = Date.now(), offersInStep = 0;
  // (a bound for a clear message, far beyond what the game takes on a loaded machine)
  const deadline = Date.now() + 540000;
  // whether the reader holds a card of this drop, as the page was told
  const took = () => page.evaluate(() => {
    const S = window.__illegal;
    const d = (S.T[S.current] || {}).drop;
    return !!d && (d.takers || []).some((x) => x && x.id === S.user);
  });
  while (!(await page.locator('#results').isVisible())) {
    assert.ok(Date.now() < deadline, `the game reaches its results (now ${JSON.stringify(await now())}, ${JSON.stringify(done)})`);
    const s = await now();
    if (s.phase !== phase) {
      phase = s.phase;
      since = Date.now();
      offersInStep = 0;
    }
    const offer = page.locator('#offers li.incoming:not(.closed) [data-action=accept]:not([disabled])');
    const grab = page.locator('#drop-cards .card.clickable').first();
    const vote = page.locator('#vote-buttons button[data-vote]:not([disabled])').first();
    const same = async () => { const n = await now(); return n.phase === s.phase && n.voteCase === s.voteCase; };
    if (await offer.count()) {
      // every other offer accepted: the trade goes through, the hand changes
      const button = done.offers % 2 ? offer.first() : page.locator('#offers li.incoming:not(.closed) [data-action=decline]').first();
      if (await clickSending(page, button, async () => (await button.count()) > 0)) {
        done.offers++;
        offersInStep++;
      }
    } else if (s.phase === 'drop-grab' && (await grab.count())) {
      // (a race lost to a computer makes the drop's cards clickable again: another is grabbed)
      if (await clickSending(page, grab, async () => (await same()) && (await grab.count()) > 0)) done.grabs++;
    } else if (s.voteCase && !voted.has(s.voteCase) && (await vote.count())) {
      if (await clickSending(page, vote, async () => (await same()) && (await vote.count()) > 0)) done.votes++;
      voted.add(s.voteCase);
    } else if ((s.phase === 'dealing' && (offersInStep > 0 || Date.now() - since > 15000)) || s.phase === 'debate' ||
               (s.phase === 'drop-grab' && (await took())) || (s.voteCase && voted.has(s.voteCase) && s.allVoted)) {
      // the host moves on once the computers have had their say (in a drop, once the reader
      // holds a card: the computers grab at once, at this pace)
      if (await clickSending(page, page.locator('[data-mod=next]'), same)) done.nexts++;
      await page.waitForFunction(([p, c]) => {
        const S = window.__illegal;
        const t = S.T[S.current] || {};
        return t.phase !== p || (t.phase === 'vote' && t.vote && t.vote.case !== c);
      }, [s.phase, s.voteCase]).catch(() => {});
    }
    await sleep(250);
  }
  await shot(me, '10-alone-results');
  // the computers offered, the reader grabbed in every drop and voted; the results name all four
  assert.ok(done.offers >= 1, `the computers made offers: ${JSON.stringify(done)}`);
  const drops = await page.evaluate(() => {
    const S = window.__illegal;
    const mine = S.frames.filter((f) => f.kind === 'drop' && f.data && (f.data.takers || []).some((x) => x && x.id === S.user));
    return [...new Set(mine.map((f) => f.data.drop))].sort();
  });
  assert.deepEqual(drops, [1, 2, 3, 4], `a card in each drop: ${JSON.stringify(done)}`);
  assert.ok(done.votes >= 1);
  assert.equal(await page.locator('#ranking li').count(), 4);
  // nothing of a computer's own came to the page, and the page words it all for buttons
  const frames = await page.evaluate(() => window.__illegal.frames.filter((f) => f.type === 'message'));
  for (const f of frames) assert.ok(!f.dm || !(f.user || '').startsWith('cpu:'), 'a computer\'s message reached a page');
  await noMissingWords(me);
  await noChatWords(me);
  assert.deepEqual(errors.map(String), [], 'the page had errors');
  await ctx.close();
});

// A bot from before the lobby settings, the vote count and the score's parts: the page
// shows what it is sent and nothing breaks. The frames are handed to the page's socket
// as if they came from the server, at a table of their own.
test('the page does without settings, vote counts and score parts', { timeout: 300000 }, async () => {
  const ctx = await browser.newContext({ locale: 'en-US', viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
  ctx.setDefaultTimeout(PATIENCE);
  const page = await ctx.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e));
  await page.goto(`${base}#t=oldbot`);
  await page.locator('#name').fill('Eve');
  await page.locator('#name-go').click();
  await page.locator('#table-view').waitFor({ state: 'visible' });
  // (the server's replay of the table wipes what was fed before it: fed once it is in)
  await page.waitForFunction(() => window.__illegal.user && window.__illegal.opened.has('oldbot'));
  const feed = (kind, data, extra = {}) => page.evaluate(([kind, data, extra]) => {
    const S = window.__illegal;
    const me = { id: S.user, name: 'Eve' };
    const players = [me, { id: 'w1', name: 'Finn' }, { id: 'w2', name: 'Gus' }, { id: 'w3', name: 'Hal' }];
    const d = JSON.parse(JSON.stringify(data).replaceAll('"ME"', JSON.stringify(me.id)));
    if (d.players === 'ALL') d.players = players;
    S.ws.onmessage({ data: JSON.stringify({ type: 'message', kind, channel: 'oldbot', table: 'oldbot', dm: false,
      key: null, replace: false, text: `a ${kind}`, data: { game: 'g90', table: 'oldbot', ...d }, ...extra }) });
  }, [kind, data, extra]);

  await feed('lobby', { variant: 'standard', host: 'ME', players: 'ALL', actions: ['join', 'leave', 'start'] });
  await page.locator('#lobby-actions [data-action=start]:not([disabled])').waitFor();
  assert.ok(!(await page.locator('#settings').isVisible()), 'no settings shown without settings');

  // a drop that is over no longer says its cards are being revealed
  const drop = { drop: 1, shown: ['guns', 'jewelry'], taken: [true, false], takers: [{ id: 'w1', name: 'Finn' }, null] };
  await feed('drop', { ...drop, open: true,
    choices: [{ emoji: '\u{1F52B}', card: 'guns' }, { emoji: '\u{1F48E}', card: 'jewelry' }], pick: 'first', deadline: Date.now() + 9000 },
    { key: 'g90/drop/1', replace: true });
  await page.locator('#drop-hint', { hasText: en('page.drop-open') }).waitFor();
  await feed('drop', { ...drop, taken: [true, true], takers: [{ id: 'w1', name: 'Finn' }, { id: 'w2', name: 'Gus' }], open: false, done: true },
    { key: 'g90/drop/1', replace: true });
  await page.locator('#drop-hint', { hasText: en('page.drop-done') }).waitFor();

  await feed('notice', { events: ['game-started', 'case-opened'], event: 'case-opened', phase: 'debate', case: 1,
    cards: ['suspect-dealer:guns', 'suspect-buyer:jewelry'] });
  await feed('vote', { case: 1, cards: ['suspect-dealer:guns', 'suspect-buyer:jewelry'], candidates: 'ALL',
    choices: [{ command: 'vote w1', label: 'Finn', player: 'w1' }, { command: 'vote w2', label: 'Gus', player: 'w2' },
      { command: 'abstain', label_key: 'ui.abstain' }], deadline: Date.now() + 20000 });
  await page.locator('#tribunal #case-cards .card').nth(1).waitFor();
  assert.equal(await page.locator('#vote-count').textContent(), '');

  const reveal = [
    { player: { id: 'w1', name: 'Finn' }, dealer: 'guns', buyer: 'jewelry', hand: { jewelry: 3 }, score: 3, rank: 1 },
    { player: { id: 'w2', name: 'Gus' }, dealer: 'jewelry', buyer: 'guns', hand: { guns: 1, 'suspect-dealer:guns': 1 }, score: 2, rank: 2 },
  ];
  await feed('result', { reveal, scores: { w1: 3, w2: 2 }, winners: ['w1'] });
  await page.locator('#ranking li').nth(1).waitFor();
  assert.deepEqual(await page.locator('#ranking li').evaluateAll((lis) => lis.map((li) => li.dataset.user)), ['w1', 'w2']);
  assert.equal(await page.locator('#ranking [data-part]').count(), 0, 'no breakdown without parts');
  assert.equal(await page.locator('#ranking li.winner .score').textContent(), '3');
  await shot({ page, name: 'Eve' }, '10-old-bot-results');
  assert.deepEqual(errors.map(String), []);
  await ctx.close();
});

// Every text a page shows: its visible text nodes (one selected option of a menu), the
// attributes read to users (title, placeholder, aria-label, alt) and the document's title.
const shownTexts = (page) => page.evaluate(() => {
  const out = [document.title];
  const visible = (e) => !!e && e.getClientRects().length > 0 && getComputedStyle(e).visibility !== 'hidden';
  const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walk.nextNode(); n; n = walk.nextNode()) {
    const e = n.parentElement;
    const option = e.closest('option');
    if (option ? !option.selected || !visible(option.closest('select')) : !visible(e) || e.closest('script, style')) continue;
    const text = n.textContent.trim();
    if (text) out.push(text);
  }
  for (const e of document.querySelectorAll('[title], [placeholder], [aria-label], [alt]')) {
    if (!visible(e)) continue;
    for (const a of ['title', 'placeholder', 'aria-label', 'alt']) if (e.getAttribute(a)) out.push(e.getAttribute(a).trim());
  }
  return out;
});

// The English of the page's own words (page.*) that the other catalog words differently,
// each as a pattern for a whole text, a placeholder standing for anything. A text made of
// placeholders and punctuation only says nothing English and is left out.
function englishOf(other) {
  const forms = (v) => (Array.isArray(v) ? v : [v]);
  const theirs = new Set(Object.values(other.texts).flatMap(forms));
  const out = [];
  for (const [key, en] of Object.entries(catalogs.en.texts)) {
    if (!key.startsWith('page.')) continue;
    for (const [i, text] of forms(en).entries()) {
      if (forms(other.texts[key])[i] === text || theirs.has(text)) continue;
      if (!/\p{L}{2,}/u.test(text.replace(/\{[^}]*\}/g, ''))) continue;
      const re = text.split(/\{[^}]*\}/).map((x) => x.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('.+');
      out.push({ key, text, re: new RegExp(`^${re}$`, 'u') });
    }
  }
  return out;
}

// A desktop-sized page in a browser of that locale, with its errors and the
// frames it sends kept for the test to look at.
async function watchedPage(locale) {
  const ctx = await browser.newContext({ locale, viewport: { width: 1200, height: 900 } });
  ctx.setDefaultTimeout(PATIENCE);
  const page = await ctx.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(new Error(m.text())); });
  const sent = [];
  page.on('websocket', (ws) => ws.on('framesent', (f) => { try { sent.push(JSON.parse(f.payload)); } catch { /* */ } }));
  return { ctx, page, errors, sent };
}

// A French browser gets the page in French without asking; the reader picks German in the
// header's menu and the whole page is written again in German (its cards too), the bot is
// told so that private messages follow, and the choice outlives a reload.
test('the page speaks the reader\'s language, from the browser\'s or the menu\'s choice', { timeout: 300000 }, async () => {
  const { fr, de } = catalogs;
  const { ctx, page, errors, sent } = await watchedPage('fr-FR');
  await page.goto(`${base}#t=lingua`);
  await page.locator('#name-view').waitFor({ state: 'visible' });
  assert.equal(await page.evaluate(() => document.documentElement.lang), 'fr');
  assert.equal(await page.locator('#lang').inputValue(), 'fr');
  assert.equal(await page.locator('#name-go').textContent(), fr.texts['page.sit-down']);
  assert.equal(await page.title(), fr.texts['page.title']);
  // the menu lists every language of the catalog, each in its own name
  assert.deepEqual(await page.locator('#lang option').evaluateAll((os) => os.map((o) => [o.value, o.textContent])),
    fr.languages.map((l) => [l.code, l.name]));
  assert.ok(fr.languages.some((l) => l.code === 'de'), 'the catalog has German');

  await page.locator('#name').fill('Zoe');
  await page.locator('#name-go').click();
  await page.locator('#table-view').waitFor({ state: 'visible' });
  await page.waitForFunction(() => window.__illegal.user && window.__illegal.opened.has('lingua'));
  // a game in its lobby, hosted by this page, and this player's roles and hand: handed to the
  // page's socket as if they came from the server, so that most of the page shows
  const feed = (kind, data, extra = {}) => page.evaluate(([kind, data, extra]) => {
    const S = window.__illegal;
    const players = [{ id: S.user, name: 'Zoe' }, { id: 'w1', name: 'Finn' }, { id: 'w2', name: 'Gus' }, { id: 'w3', name: 'Hal' }];
    const d = JSON.parse(JSON.stringify(data).replaceAll('"ME"', JSON.stringify(S.user)));
    if (d.players === 'ALL') d.players = players;
    if (d.players === 'OTHERS') d.players = players.slice(1);
    S.ws.onmessage({ data: JSON.stringify({ type: 'message', kind, channel: 'lingua', table: 'lingua', dm: false,
      key: null, replace: false, text: `a ${kind}`, data: { game: 'g91', table: 'lingua', ...d }, ...extra }) });
  }, [kind, data, extra]);
  await feed('lobby', { variant: 'standard', host: 'ME', players: 'ALL', actions: ['join', 'leave', 'start'],
    settings: { preset: 'quick', session: 60, reveal: 5, grab: 15, debate: 20, vote: 15 }, presets: ['quick', 'standard', 'casual'] },
  { key: 'g91/lobby', replace: true });
  await feed('hand', { dealer: 'guns', buyer: 'jewelry', hand: { guns: 2, alcohol: 1, powder: 1 }, players: 'OTHERS',
    suspects: ['suspect-buyer:powder'] }, { channel: null, dm: true, key: 'g91/hand/ME' });
  await page.locator('#roles [data-card="dealer:guns"]').waitFor();
  await page.locator('#settings-form').waitFor({ state: 'visible' });
  assert.equal(await page.locator('#lobby-actions [data-action=start]').textContent(), fr.texts['page.start']);
  await shot({ page, name: 'Zoe' }, '11-french');

  // German, chosen in the menu: no English of the page's own words is left in view
  await page.locator('#lang').selectOption('de');
  await page.waitForFunction(() => document.documentElement.lang === 'de');
  const english = englishOf(de);
  assert.ok(english.length > 0, 'the German catalog words none of the page\'s texts differently from English ' +
    '(core/catalog/de.po has no page.* entries)');
  const shown = await shownTexts(page);
  const left = [];
  for (const text of shown) {
    for (const part of new Set([text, ...text.split(' · ')])) {
      for (const e of english) if (e.re.test(part)) left.push(`${e.key}: "${part}"`);
    }
  }
  assert.deepEqual(left, [], 'English texts left on the German page');
  assert.ok(shown.includes(de.texts['page.your-room']));
  assert.equal(await page.title(), de.texts['page.title']);
  // the cards are drawn with the catalog's German names
  const cards = await page.locator('#roles .card, #hand .card, #suspects .card').evaluateAll((cs) => cs.map((c) => ({
    id: c.dataset.card,
    name: [...c.querySelectorAll('svg text.name')].map((x) => x.textContent).join(' '),
    res: [...c.querySelectorAll('svg text.res')].map((x) => x.textContent).join(' '),
    kind: [...c.querySelectorAll('svg text.kind')].map((x) => x.textContent).join(' ') })));
  assert.equal(cards.length, 6, JSON.stringify(cards));
  for (const c of cards) {
    const [kind, res] = c.id.includes(':') ? c.id.split(':') : ['resource', c.id];
    if (kind === 'resource') {
      assert.equal(c.name, de.texts[`illegal.card.${res}`], c.id);
    } else {
      assert.equal(c.name, de.texts[`illegal.card.${kind.replace('suspect-', '')}:${res}`], c.id);
      assert.equal(c.res, de.texts[`illegal.card.${res}`], c.id);
      assert.equal(c.kind, de.texts[`page.card.${kind}`], c.id);
    }
  }
  // the bot is told, in private, for this player's private messages in the game; the host
  // may set the table's language
  const told = (f) => f.type === 'command' && f.channel === null && f.text === 'g91 language de';
  await until(() => sent.some(told));
  assert.equal(sent.filter(told).length, 1, `the page told the bot: ${JSON.stringify(sent)}`);
  assert.deepEqual(await page.locator('#table-lang option').evaluateAll((os) => os.map((o) => o.value)),
    de.languages.map((l) => l.code));
  await page.locator('#table-lang').selectOption('fr');
  await until(() => sent.some((f) => f.text === '!illegal set language fr'));
  assert.ok(sent.some((f) => f.type === 'command' && f.channel === 'lingua' && f.text === '!illegal set language fr'));
  await shot({ page, name: 'Zoe' }, '11-german');

  // a reload keeps German, and does not tell the bot again
  sent.length = 0;
  await sleep(200);
  await page.reload();
  await page.locator('#table-view').waitFor({ state: 'visible' });
  await page.waitForFunction(() => window.__illegal.user);
  assert.equal(await page.evaluate(() => document.documentElement.lang), 'de');
  assert.equal(await page.locator('#lang').inputValue(), 'de');
  assert.equal(await page.locator('#tabs [data-tab=room] span').first().textContent(), de.texts['page.tab-room']);
  await feed('lobby', { variant: 'standard', host: 'ME', players: 'ALL', actions: ['join', 'leave', 'start'] },
    { key: 'g91/lobby', replace: true });
  await page.locator('#lobby-actions [data-action=start]').waitFor();
  assert.equal(await page.locator('#lobby-actions [data-action=start]').textContent(), de.texts['page.start']);
  await sleep(200);
  assert.ok(!sent.some((f) => /language/.test(f.text || '')), `the bot was told again: ${JSON.stringify(sent)}`);
  assert.deepEqual(errors.map(String), []);
  await ctx.close();
});

// A game of four players scripted over the websocket, with every case of the tribunal open at
// once and each closing once everyone has voted on it (parallel, close-early). Uma's page
// watches: when Sid leaves, it offers Sid's seat, takes it over with the button and then shows
// the seat's roles and hand; in the tribunal it shows every case at once, votes on two of them,
// and sees the first judged while the others stay open.
test('a page takes over a leaving player\'s seat, then votes in a parallel tribunal', { timeout: 300000 }, async () => {
  const table = 'parallel';
  const en = catalogs.en.texts;
  const isMsg = (kind) => (f) => f.type === 'message' && f.kind === kind;
  const bots = [];
  for (const name of ['Pam', 'Quin', 'Rex', 'Sid']) {
    const c = await Client.open(daemon.port);
    c.user = (await c.hello(newToken(), name)).user;
    c.name = name;
    c.send({ type: 'open', channel: table });
    await c.next((f) => f.type === 'opened');
    bots.push(c);
  }
  const [pam, , , sid] = bots;
  const say = (c, text, channel = table) => c.send({ type: 'command', channel, text });

  const { ctx, page, errors, sent } = await watchedPage('en-US');
  await page.goto(`${base}#t=${table}`);
  await page.locator('#name').fill('Uma');
  await page.locator('#name-go').click();
  await page.locator('#table-view').waitFor({ state: 'visible' });
  const uma = await page.evaluate(() => window.__illegal.user);

  say(pam, '!illegal new');
  await pam.next(isMsg('lobby'), PATIENCE, 'a lobby');
  for (const c of bots) say(c, '!illegal join');
  await pam.next((f) => isMsg('lobby')(f) && f.data.players.length === 4, PATIENCE, 'a lobby of 4');
  say(pam, '!illegal set tribunal parallel, close-early');
  say(pam, '!illegal set vote 20m');
  await pam.next((f) => isMsg('lobby')(f) && f.data.settings && f.data.settings.vote === 1200 &&
    /parallel/.test(f.data.settings.tribunal), PATIENCE, 'a parallel tribunal set');
  say(pam, '!illegal start');
  for (const c of bots) c.hand = (await c.next((f) => isMsg('hand')(f) && f.dm, 10000, `${c.name}'s hand`)).data;
  await page.waitForFunction((t) => (window.__illegal.T[t] || {}).phase === 'dealing', table, { timeout: PATIENCE });
  assert.ok(await page.locator('#seat-offer').isHidden(), 'no seat is offered yet');
  // who does not play watches: no trading room, no offers, and the line of what to do says so
  // (the page draws a replay once it is all in: wait for it)
  await page.locator('#room-title', { hasText: en['page.watching'] }).waitFor({ timeout: PATIENCE });
  assert.ok(await page.locator('#offers-box').isHidden());
  assert.ok(await page.locator('#compose').isHidden());
  await page.locator('#now', { hasText: en['page.now.dealing-watch'].replace('{number}', '1') }).waitFor({ timeout: PATIENCE });

  // Sid leaves: Uma, who does not play, is offered the seat, and takes it over
  say(sid, '!illegal leave');
  const takeOver = page.locator('#seat-offer #take-over');
  await takeOver.waitFor({ timeout: PATIENCE });
  assert.equal(await takeOver.textContent(), en['page.take-over'].replace('{player}', 'Sid'));
  assert.ok(!(await page.locator('#roles .card').count()), 'no roles before the seat is taken');
  await shot({ page, name: 'Uma' }, '12-seat-offered');
  await clickSending(page, takeOver);
  assert.ok(sent.some((f) => f.type === 'command' && f.channel === table && f.text === '!illegal join'), 'the button joins');
  const { dealer, buyer, hand } = sid.hand;
  await page.locator(`#roles [data-card="dealer:${dealer}"]`).waitFor({ timeout: PATIENCE });
  await page.locator(`#roles [data-card="buyer:${buyer}"]`).waitFor();
  const shown = await page.locator('#hand .card').evaluateAll((cs) => Object.fromEntries(
    cs.map((c) => [c.dataset.card, Number(c.querySelector('.count').textContent)])));
  assert.deepEqual(shown, Object.fromEntries(Object.entries(hand).filter(([, n]) => n > 0)), 'the seat\'s hand');
  await page.locator('#seat-offer').waitFor({ state: 'hidden' });
  await page.locator('#room-title', { hasText: en['page.your-room'] }).waitFor({ timeout: PATIENCE });
  await sid.next((f) => f.dm && f.data && f.data.event === 'seat-handed', PATIENCE, 'Sid told');
  await checkCards({ page, name: 'Uma' });

  // the host moves the game on to the tribunal, which opens every case at once
  const phase = () => {
    const n = pam.frames.filter((f) => f.type === 'message' && !f.dm && f.data && f.data.phase).pop();
    return n ? n.data.phase : null;
  };
  // (one Next at a time, each awaited: Nexts sent ahead of the bot on a loaded machine would
  // run on through the tribunal)
  // A drop's cards are revealed on the bot's clock: Next waits for its grab to open.
  const notices = () => pam.frames.filter((f) => f.type === 'message' && !f.dm && f.data && f.data.phase).length;
  const grabbing = () => {
    const d = pam.frames.filter((f) => f.type === 'message' && !f.dm && f.form === 'table_view').pop();
    return !!d && !!d.data && d.data.open === true;
  };
  for (let i = 0; i < 60 && !['debate', 'vote'].includes(phase()); i++) {
    const n = notices();
    if (process.env.WEB_DEBUG) console.log('parallel', i, phase(), grabbing());
    if (phase() === 'drop-reveal' && !grabbing()) {
      await until(() => notices() > n || grabbing());
      continue;
    }
    say(pam, '!illegal next');
    await until(() => notices() > n);
  }
  assert.ok(['debate', 'vote'].includes(phase()), `the tribunal opened; phase ${phase()}`);
  // in the debate (when the page is still in it), every case shows, each with its line or cards
  const opened = pam.frames.find((f) => isMsg('notice')(f) && f.data && (f.data.events || []).includes('case-opened'));
  if (opened && phase() === 'debate') {
    const n = opened.data.events.filter((e) => e === 'case-opened').length;
    const seen = await page.waitForFunction((n) => document.querySelectorAll('#cases .case').length === n ||
      window.__illegal.frames.some((f) => f.kind === 'vote'), n, { timeout: PATIENCE }).then(() => page.evaluate(() => ({
      title: document.getElementById('tribunal-title').textContent,
      cases: [...document.querySelectorAll('#cases .case')].map((c) => c.dataset.case),
      voting: window.__illegal.frames.some((f) => f.kind === 'vote') })));
    if (!seen.voting) {
      assert.equal(seen.title, en['page.tribunal-all-debate']);
      assert.deepEqual(seen.cases, Array.from({ length: n }, (_, i) => String(i + 1)));
      await shot({ page, name: 'Uma' }, '12-parallel-debate');
    }
    if (process.env.WEB_DEBUG) console.log('parallel debate', seen);
  }
  // (every case's vote comes at once, as the debate ends: the host ends it)
  if (phase() === 'debate') say(pam, '!illegal next');
  const first = await pam.next(isMsg('vote'), PATIENCE, 'the votes');
  // (the other cases' votes follow the first: one for every case opened)
  const opens = opened ? opened.data.events.filter((e) => e === 'case-opened').length : 2;
  await until(() => 1 + pam.frames.filter(isMsg('vote')).length >= opens);
  const votes = [first.data, ...pam.frames.filter(isMsg('vote')).map((f) => f.data)];
  assert.ok(votes.length >= 2, `${votes.length} cases`);
  const cases = page.locator('#tribunal #cases .case');
  await page.waitForFunction((n) => document.querySelectorAll('#cases .case button[data-vote]:not([disabled])').length >= n * 2,
    votes.length, { timeout: PATIENCE });
  assert.equal(await cases.count(), votes.length, 'every case at once');
  assert.equal(await page.locator('#tribunal-title').textContent(), en['page.tribunal-all']);
  assert.ok(await page.locator('#one-case').isHidden());
  for (const v of votes) {
    const c = page.locator(`#cases .case[data-case="${v.case}"]`);
    assert.deepEqual(await c.locator('.card').evaluateAll((cs) => cs.map((x) => x.dataset.card)), v.cards);
    assert.equal(await c.locator('h4').textContent(), en['page.case'].replace('{case}', v.case));
  }
  await checkCards({ page, name: 'Uma' });

  // Uma votes on the first two cases, each with its own buttons
  const [one, two] = votes.map((v) => v.case);
  const target = () => pam.user;
  for (const n of [one, two]) {
    await clickSending(page, page.locator(`#cases .case[data-case="${n}"] button[data-vote="${target(n)}"]`));
  }
  for (const n of [one, two]) {
    const c = page.locator(`#cases .case[data-case="${n}"]`);
    await page.waitForFunction((n) => /\S/.test(document.querySelector(`#cases [data-case="${n}"] .my-vote`).textContent) &&
      window.__illegal.frames.some((f) => f.dm && f.data && f.data.event === 'vote-recorded' && f.data.case === n), n, { timeout: PATIENCE });
    assert.equal(await c.locator(`button[aria-pressed=true]`).getAttribute('data-vote'), target(n), `case ${n}: the choice is marked`);
    assert.equal(await c.locator('button[aria-pressed=true]').count(), 1);
  }
  const voted = sent.filter((f) => f.type === 'command' && f.channel === null && / vote \d+ /.test(f.text)).map((f) => f.text.replace(/^g\d+ /, ''));
  assert.deepEqual(voted, [`vote ${one} ${target(one)}`, `vote ${two} ${target(two)}`]);
  await shot({ page, name: 'Uma' }, '12-parallel-tribunal');

  // everyone else votes on the first case: it is judged, the others stay open
  for (const b of bots.filter((x) => x !== sid)) say(b, `vote ${one} ${b.user === uma ? pam.user : uma}`, null);
  const judged = page.locator(`#cases .case.judged[data-case="${one}"]`);
  await judged.waitFor({ timeout: PATIENCE });
  assert.match(await judged.locator('.verdict').textContent(), new RegExp(`^Verdict on case ${one}: `));
  assert.equal(await judged.locator('h4').textContent(), en['page.case-judged'].replace('{case}', one));
  assert.equal(await judged.locator('button').count(), 0, 'a judged case has no vote');
  assert.equal(phase(), 'vote', 'the tribunal goes on');
  const open = page.locator(`#cases .case:not(.judged)[data-case="${two}"]`);
  assert.ok(await open.locator('button[data-vote]:not([disabled])').count() >= 2, 'the other case stays open');
  assert.equal(await open.locator('.vote-count').textContent(), en['page.votes-cast'][0].replace('{count}', '1').replace('{voters}', '4'));
  assert.equal(await page.locator('#cases .case:not(.judged)').count(), votes.length - 1);
  await shot({ page, name: 'Uma' }, '12-parallel-judged');

  say(pam, '!illegal end');
  await page.locator('#ranking li').nth(3).waitFor({ timeout: PATIENCE });
  assert.ok(await page.locator('#tribunal').isHidden());
  assert.deepEqual(errors.map(String), []);
  bots.forEach((c) => c.close());
  await ctx.close();
});

// A table open to the network (bind = 0.0.0.0): the invite names the address each network
// reaches it at, as this machine's interfaces say, each with a QR code that reads back to it.
test('the invite of a table open to the network: its addresses and their QR codes', { timeout: 300000 }, async () => {
  const port = await freePort();
  const conf = join(dir, 'network.conf');
  writeFileSync(conf, ['[web]', 'enabled = true', 'bind = 0.0.0.0', `port = ${port}`, ''].join('\n'));
  const net = await startServer(DAEMON, ['--config', conf, '--store', join(dir, 'network.db')], { portRe: PORT_RE });
  try {
    const want = Object.entries(networkInterfaces()).flatMap(([, list]) => list)
      .filter((a) => a.family === 'IPv4' && !a.internal).map((a) => `http://${a.address}:${port}/`).sort();
    for (const [size, phone] of [[{ width: 1200, height: 900 }, false], [{ width: 390, height: 844 }, true]]) {
      const ctx = await browser.newContext({ locale: 'en-US', viewport: size, isMobile: phone, hasTouch: phone });
      ctx.setDefaultTimeout(PATIENCE);
      const page = await ctx.newPage();
      const errors = [];
      watchErrors(page, errors);
      await page.goto(`http://127.0.0.1:${port}/`);
      await page.locator('#name').fill(phone ? 'Net2' : 'Net1');
      await page.locator('#name-go').click();
      await page.locator('#tables-view').waitFor({ state: 'visible' });
      const box = page.locator('#tables-view [data-invite]');
      if (!want.length) {
        await box.locator('p', { hasText: en('page.invite.no-network') }).waitFor();
      } else {
        await box.locator('.invite-url').nth(want.length - 1).waitFor();
        const urls = await box.locator('.invite-url').evaluateAll((es) => es.map((e) => e.dataset.url));
        assert.deepEqual([...urls].sort(), want, 'the addresses friends open');
        assert.equal(await box.locator('[data-invite-local]').count(), 0);
        for (const [i, url] of urls.entries()) {
          assert.equal(await box.locator('.invite-url a.url').nth(i).textContent(), url);
          // the QR code, drawn by the daemon, reads back to the address
          const side = 264;
          const pixels = await page.evaluate(async ([i, side]) => {
            const img = document.querySelectorAll('#tables-view img.qr')[i];
            await img.decode();
            const c = document.createElement('canvas');
            c.width = c.height = side;
            const g = c.getContext('2d');
            g.imageSmoothingEnabled = false;
            g.fillStyle = '#fff';
            g.fillRect(0, 0, side, side);
            g.drawImage(img, 0, 0, side, side);
            return Array.from(g.getImageData(0, 0, side, side).data);
          }, [i, side]);
          const code = jsQR(Uint8ClampedArray.from(pixels), side, side);
          assert.ok(code, `QR code ${i} does not read`);
          assert.equal(code.data, url);
        }
      }
      await shot({ page, name: phone ? 'phone' : 'desktop' }, '13-invite-network');
      await noMissingWords({ page, name: 'invite' });
      assert.deepEqual(errors.map(String), []);
      await ctx.close();
    }
    // an address the invite does not have is not found
    assert.equal((await fetch(`http://127.0.0.1:${port}/invite/7.svg`)).status, 404);
  } finally {
    const r = await net.stop();
    assert.equal(r.code, 0, net.stderr.slice(-2000));
  }
});
