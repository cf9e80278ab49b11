// Browser test of Palm & Drewes' Illegal on the local table: Ann opens a table of that game
// from the tables' screen (the game and its mode chosen in the create form), seats two
// computer players and starts; Ben opens the same table and watches. Ann plays the whole game
// on the page: in her turn she clicks a card of her hand and one of the play box's buttons
// (play it, aim it at a player, discard it), once she types a move in the play box's command
// line, and she answers every prompt (the pass, the Magnum's window, a loss, an offer) by its
// buttons. The game must reach its result on both pages. Secrecy: Ben's page never receives a
// private message and never shows a card of a hand; no table message carries a hand's cards
// but what the rules lay open; Ann's page draws every player's business at the table, and
// only her own hand. Every business on both pages lays its illegal deals left of the opening,
// its legal deals right and its burden on it, checked in the DOM. The daemon's seed and the test's choices come from PD_SEED (printed), so
// a failure replays the same deal; no assertion is made on time. Ann's clock is long (the
// turn, the pass, the choice): she acts as soon as the page lets her, so a long clock costs
// nothing, while a short one let the server play for her on a loaded machine. Every click is
// checked to have reached the page (a table update may redraw its button mid-click) and
// tried again while it still makes sense.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PATIENCE, clickSending, clickUntil, closeAll, launchChromium, sends } from './chromium.mjs';
import { freePort, startServer } from './lib.mjs';

const DAEMON = process.env.ILLEGALD;
const SHOTS = process.env.SCREENSHOT_DIR || join(process.cwd(), 'web-screenshots');
const SEED = Number(process.env.PD_SEED || Math.floor(Math.random() * 1e9));
const TABLE = 'pd';
const PORT_RE = /local table at http:\/\/[^ ]+:(\d+)\//;

const dir = mkdtempSync(join(tmpdir(), 'illegald-pd-browser-'));
let daemon, browser, base;
let en = {}; // the English catalog the daemon serves

// The test's own choices, replayed from the seed (a 32-bit xorshift).
let rngState = (SEED % 0xffffffff) || 1;
function random(n) {
  rngState ^= rngState << 13;
  rngState ^= rngState >>> 17;
  rngState ^= rngState << 5;
  return (rngState >>> 0) % n;
}

before(async () => {
  if (!DAEMON) throw new Error('set ILLEGALD to the illegald binary');
  console.log(`PD_SEED=${SEED} (set it to replay this game)`);
  mkdirSync(SHOTS, { recursive: true });
  const port = await freePort();
  const conf = join(dir, 'illegald.conf');
  writeFileSync(conf, [
    '[web]', 'enabled = true', 'bind = 127.0.0.1', `port = ${port}`,
    '[game]', 'computer_pace = 0',
    '[game.palm-drewes]', 'turn_seconds = 600', 'window_seconds = 4', 'pass_seconds = 600', 'choice_seconds = 600',
    'reminder_seconds = 0', '',
  ].join('\n'));
  daemon = await startServer(DAEMON, ['--config', conf, '--store', join(dir, 'illegald.db'), '--seed', String(SEED)],
    { portRe: PORT_RE });
  base = `http://127.0.0.1:${daemon.port}/`;
  en = (await (await fetch(`${base}catalog/en.json`)).json()).texts;
  browser = await launchChromium();
});

after(() => closeAll(browser, daemon, dir));

async function seat(name, hash = '') {
  const ctx = await browser.newContext({ locale: 'en-US', viewport: { width: 1280, height: 900 } });
  ctx.setDefaultTimeout(PATIENCE);
  await ctx.addInitScript(readState);
  const page = await ctx.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(new Error(m.text())); });
  await page.goto(base + hash);
  await page.locator('#name').fill(name);
  await page.locator('#name-go').click();
  await page.waitForFunction(() => !!window.__illegal.user);
  return { name, ctx, page, errors };
}
const shot = (p, name) => p.page.screenshot({ path: join(SHOTS, `pd-${name}-${p.name.toLowerCase()}.png`), fullPage: true });

// What the page knows of the table and of its reader, for the loop (window.__pdState, put in
// every page so that a wait can ask it too): the hand with its counts, the open prompts.
function readState() {
  window.__pdState = () => {
    const S = window.__illegal;
    const t = S.T[S.current] || {}, p = S.P[S.current] || {};
    const hand = (p.hand && p.hand.hand) || {};
    const open = p.prompts ? [...p.prompts.values()].filter((f) => !f.data || f.data.open !== false) : [];
    return { me: S.user, phase: t.phase || null, turn: (t.pd && t.pd.turn) || null, result: !!t.result,
      game: t.game, frames: S.frames.length, table: S.frames.filter((f) => !f.dm).length,
      dms: S.frames.filter((f) => f.type === 'message' && f.dm).length, hand: Object.keys(hand).filter((k) => hand[k] > 0).sort(),
      counts: Object.keys(hand).sort().map((k) => `${k}:${hand[k]}`).join(' '),
      prompts: open.map((f) => `${f.key}:${JSON.stringify((f.data || {}).choices || [])}`).join(' '),
      errors: S.frames.filter((f) => f.type === 'message' && f.dm && f.form === 'error').length };
  };
}
const state = (page) => page.evaluate(() => window.__pdState());

// Nothing at the table names a card of a hand: a table view tells how many cards each holds,
// and no table message carries a hand but the Tax Audit's open hand and the reveal at the end.
function checkTableFrames(who, frames) {
  for (const f of frames) {
    if (f.type !== 'message' || f.dm) continue;
    const d = f.data || {};
    for (const x of d.players || []) {
      if ('hand' in x && f.form === 'table_view') assert.equal(typeof x.hand, 'number', `${who}: a table view shows ${x.player}'s hand`);
    }
    assert.notEqual(f.form, 'private_view', `${who}: a private view at the table: ${f.key}`);
  }
}

// The lines of a page's private messages that no table message has said so far, read from
// the frames the page got since the last call (the page's frames only grow: reading them all
// on each step of the game made the test slower the longer the game).
function privateLines(page) {
  const told = new Set();
  let from = 0;
  return async () => {
    const { msgs, end } = await page.evaluate((from) => {
      const S = window.__illegal;
      return { msgs: S.frames.slice(from).filter((f) => f.type === 'message' && f.text), end: S.frames.length };
    }, from);
    from = end;
    const lines = (fs) => fs.flatMap((f) => f.text.split('\n')).filter((l) => l.length > 12);
    for (const l of lines(msgs.filter((f) => !f.dm))) told.add(l);
    return lines(msgs.filter((f) => f.dm)).filter((l) => !told.has(l));
  };
}

// The deals of the box by the side of the opening the rulebook lays them (the test's own list,
// so that the page and the module are checked against the rulebook, not against each other).
const ILLEGAL = ['funny-money', 'dames', 'dope', 'guns', 'coup'];
const LEGAL = ['small-fry', 'brokerage', 'political'];

// Every business drawn on the page (each player's row, and one's own in private) lays its
// illegal deals left of the opening and its legal deals right, its burden on the opening: read
// from the DOM (which side a card is drawn in, its place in the row, and where it lands on the
// screen when it shares the opening's line). Returns how many deals it checked.
async function checkLayout(who, page) {
  const r = await page.evaluate(([ill, leg]) => {
    const found = { deals: 0, bad: [] };
    const before = (a, b) => !!(a.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING);
    for (const row of document.querySelectorAll('.pd-business')) {
      const opening = row.querySelector('[data-side=opening] [data-card=opening]');
      const o = opening && opening.getBoundingClientRect();
      for (const c of row.querySelectorAll('[data-card]')) {
        const id = c.dataset.card, side = c.parentElement.dataset.side, box = c.getBoundingClientRect();
        const where = `${row.closest('[data-user]') ? row.closest('[data-user]').dataset.user : row.id}: ${id}`;
        if (ill.includes(id) || leg.includes(id)) {
          const want = ill.includes(id) ? 'illegal' : 'legal';
          found.deals++;
          if (side !== want) found.bad.push(`${where} drawn on the ${side} side`);
          if (opening && before(c, opening) !== (want === 'illegal')) found.bad.push(`${where} on the wrong side of the opening in the row`);
          if (o && Math.abs(box.top - o.top) < 2 && (want === 'illegal' ? box.right > o.left + 1 : box.left < o.right - 1)) {
            found.bad.push(`${where} on the wrong side of the opening on the screen`);
          }
        } else if (id !== 'opening') {
          // a burden: on the opening, over it
          if (side !== 'opening') found.bad.push(`${where} (a burden) not on the opening`);
          if (o && (box.left >= o.right || box.right <= o.left || box.top >= o.bottom || box.bottom <= o.top)) {
            found.bad.push(`${where} (a burden) drawn away from the opening`);
          }
        }
      }
    }
    return found;
  }, [ILLEGAL, LEGAL]);
  assert.deepEqual(r.bad, [], `${who}'s page lays out a business wrongly`);
  return r.deals;
}

// Ben watches: no private message, no hand, no prompt, and none of Ann's private words. Each
// frame is checked once: from = how many of Ben's frames were checked before (returned anew).
async function checkWatcher(ben, annPrivate, from = 0) {
  const seen = await ben.page.evaluate((from) => {
    const S = window.__illegal;
    const frames = S.frames.slice(from);
    return { dm: frames.filter((f) => f.type === 'message' && f.dm).map((f) => f.key), text: document.body.innerText,
      hand: document.querySelectorAll('#pd-hand, #game-room [data-card], #prompts li').length, frames, end: from + frames.length };
  }, from);
  assert.deepEqual(seen.dm, [], 'Ben was sent private messages');
  assert.equal(seen.hand, 0, 'Ben\'s page shows a hand or a prompt');
  for (const line of annPrivate) assert.ok(!seen.text.includes(line), `Ben's page shows Ann's private line "${line}"`);
  checkTableFrames('Ben', seen.frames);
  return seen.end;
}

// One move of Ann's turn: the n-th of her tries this turn. Each card of her hand is played
// alone, then aimed at each other player, then discarded, in an order drawn from the seed.
// The card is chosen (its click taken: the card shows pressed), then the way is clicked
// (taken: the page sent it), each again while it is still Ann's turn with the card in hand.
// Returns the move, or null when the turn went before it was made.
async function tryMove(ann, s, n, order) {
  const page = ann.page;
  const others = await page.locator('#pd-play [data-play=on]').count().catch(() => 0);
  const ways = ['play', ...Array.from({ length: Math.max(others, 1) }, (_, i) => `on:${i}`), 'discard'];
  const card = order[n % order.length];
  const way = ways[Math.floor(n / order.length) % ways.length];
  const chosen = page.locator(`#pd-hand [data-card="${card}"][aria-pressed=true]`);
  const playable = async () => {
    const now = await state(page);
    return now.phase === 'turn' && now.turn === now.me && now.hand.includes(card);
  };
  if (!(await clickUntil(page.locator(`#pd-hand [data-card="${card}"]`), async () => (await chosen.count()) > 0, playable))) return null;
  const button = way === 'play' ? page.locator('#pd-play [data-play=play]') : way === 'discard'
    ? page.locator('#pd-play [data-play=discard]') : page.locator('#pd-play [data-play=on]').nth(Number(way.slice(3)));
  const sent = await clickSending(page, button, async () => (await playable()) && (await chosen.count()) > 0);
  return sent ? `${way} ${card}` : null;
}

// Waits until the page has heard back after a move or an answer: an error or another private
// word, or the move's mark on the game (the hand, the turn, the phase, the prompts changed, or
// the result). Some
// answers change nothing Ann sees at once (a pass the others have yet to make): the loop
// then goes on after the wait.
async function answered(page, before) {
  await page.waitForFunction((b) => {
    const s = window.__pdState();
    return s.errors > b.errors || s.dms > b.dms || s.result || s.phase !== b.phase || s.turn !== b.turn ||
      s.counts !== b.counts || s.prompts !== b.prompts || s.game !== b.game;
  }, before, { timeout: PATIENCE }).catch(() => console.log('(no mark of the answer on the page yet)'));
}

// Waits until the page gets a frame it did not have (a computer's move, a prompt...).
const news = (page, before) => page.waitForFunction((n) => window.__illegal.frames.length > n, before.frames, { timeout: PATIENCE });

// One whole game at a new table, every check above made on it; returns how many deals the
// layout checks saw. A later game's players get new names (n: its number): a name is a
// player's for the daemon's life.
async function playWhole(table, n) {
  const ann = await seat(`Ann${n || ''}`);
  await ann.page.locator('#tables-view').waitFor({ state: 'visible' });
  // the game is chosen in the create form, by its name, and its modes are its own
  await ann.page.locator('#game-choice').selectOption('palm-drewes');
  await ann.page.locator('#variant').selectOption('live');
  await ann.page.locator('#new-table').fill(table);
  await clickSending(ann.page, ann.page.locator('#create'));
  const addComputer = ann.page.locator('#lobby-actions [data-action="add computer"]:not([disabled])');
  await addComputer.waitFor();
  assert.match(await ann.page.locator('#lobby-variant').textContent(), new RegExp(en['palm-drewes.game'].replace(/[()&]/g, '\\$&')));
  for (let i = 0; i < 2; i++) {
    await clickSending(ann.page, addComputer);
    await ann.page.locator('#players li[data-user]').nth(i + 1).waitFor();
  }
  const ben = await seat(`Ben${n || ''}`, `#t=${table}`);
  await ben.page.locator('#lobby').waitFor({ state: 'visible' });
  await clickSending(ann.page, ann.page.locator('#lobby-actions [data-action=start]:not([disabled])'));
  await ann.page.waitForFunction(() => { const S = window.__illegal; const t = S.T[S.current]; return t && t.pd && t.pd.players; });
  await ann.page.locator('#pd-hand .card').first().waitFor();
  await shot(ann, 'started');

  const done = { clicked: 0, refused: 0, typed: 0, prompts: 0, turns: 0, deals: 0, missed: 0 };
  const annPrivate = new Set();
  const annLines = privateLines(ann.page);
  let turnKey = null, tries = 0, order = [], benChecked = 0, laidOut = -1;
  for (;;) {
    const s = await state(ann.page);
    if (s.result) break;
    const open = await ann.page.locator('#prompts li.incoming button[data-command]:not([disabled])').evaluateAll((bs) =>
      bs.map((b) => ({ prompt: b.closest('li').dataset.prompt, command: b.dataset.command })));
    if (open.length) {
      // an answer, clicked until the page sends it or the prompt closes (a Magnum's window
      // runs on the server's clock)
      const { prompt, command } = open[random(open.length)];
      const button = ann.page.locator(`#prompts li.incoming[data-prompt="${prompt}"] button[data-command="${command}"]`);
      const sent = await clickSending(ann.page, button, async () => (await button.count()) > 0);
      console.log(`prompt: ${command}${sent ? '' : ' (closed before the click)'}`);
      if (sent) {
        done.prompts++;
        await answered(ann.page, s);
      } else {
        done.missed++;
      }
    } else if (s.phase === 'turn' && s.turn === s.me && s.hand.length) {
      const key = `${s.game} ${done.turns}`;
      if (turnKey !== key) {
        turnKey = key;
        tries = 0;
        order = [...s.hand].sort(() => random(3) - 1);
      }
      let what;
      if (!done.typed) {
        // the first move of the game is typed, as a player may: the play box sends it
        what = `discard ${order[0]}`;
        const before = await sends(ann.page);
        await ann.page.locator('#pd-cmd').fill(what);
        await ann.page.locator('#pd-cmd').press('Enter');
        assert.equal(await sends(ann.page), before + 1, 'the play box sent the typed move');
        done.typed++;
      } else {
        what = await tryMove(ann, s, tries, order);
      }
      tries++;
      if (what) {
        await answered(ann.page, s);
        const after = await state(ann.page);
        if (after.errors > s.errors) done.refused++;
        else done.clicked++;
        if (after.turn !== s.me || after.phase !== 'turn' || after.errors === s.errors) {
          done.turns++;
          turnKey = null;
        }
        console.log(`${what}: ${after.errors > s.errors ? 'refused' : 'taken'}`);
      }
    } else {
      // nothing for Ann to do until the game moves
      await news(ann.page, s);
    }
    // what Ann is told in private and the table is not, which Ben must never see: checked when
    // Ben's page got a frame or Ann a line (a page shows nothing it was not sent); the
    // businesses, when a table frame came (a refused move's answer is Ann's alone)
    const known = annPrivate.size;
    for (const line of await annLines()) annPrivate.add(line);
    const benFrames = await ben.page.evaluate(() => window.__illegal.frames.length);
    if (benFrames !== benChecked || annPrivate.size !== known) benChecked = await checkWatcher(ben, annPrivate, benChecked);
    const table = (await state(ann.page)).table + benChecked;
    if (table !== laidOut) {
      laidOut = table;
      done.deals = Math.max(done.deals, await checkLayout('Ann', ann.page), await checkLayout('Ben', ben.page));
    }
  }
  await ann.page.locator('#results').waitFor({ state: 'visible' });
  await ben.page.locator('#results').waitFor({ state: 'visible' });
  await shot(ann, 'results');
  await shot(ben, 'results');
  console.log(JSON.stringify(done));
  // the result ranks the three players, Ann among them, on both pages
  for (const p of [ann, ben]) {
    const ranked = await p.page.locator('#ranking li').evaluateAll((lis) => lis.map((li) => li.dataset.user));
    assert.equal(ranked.length, 3, `${p.name}'s ranking`);
    assert.ok(ranked.includes(await ann.page.evaluate(() => window.__illegal.user)), `${p.name}'s ranking has Ann`);
  }
  assert.ok(done.clicked > 0, 'Ann played cards by clicking them');
  assert.equal(done.typed, 1);
  // Ann's private frames were all hers; the table's carried no hand
  const annFrames = await ann.page.evaluate(() => ({ user: window.__illegal.user, frames: window.__illegal.frames }));
  for (const f of annFrames.frames) {
    const parts = f.type === 'message' && f.dm && f.key ? f.key.split('/') : [];
    if (parts.length >= 3) assert.equal(parts[parts.length - 1], annFrames.user, `Ann got ${f.key}`);
  }
  checkTableFrames('Ann', annFrames.frames);
  await checkWatcher(ben, annPrivate);
  for (const p of [ann, ben]) {
    assert.deepEqual(await p.page.evaluate(() => [...window.__illegal.missing]), [], `${p.name}'s page asked for keys the catalog lacks`);
    assert.deepEqual(p.errors.map(String), [], `${p.name}'s page errors`);
  }
  await ann.ctx.close();
  await ben.ctx.close();
  return done.deals;
}

// A game can end before anyone lays a deal (seen: three turns); the layout is checked on the
// next game then, at another table of the same daemon, whose deal the seed replays too.
const WHOLE_GAMES_MAX = 4;

test('one page and two computer players play Palm & Drewes\' Illegal whole; a watcher sees no hand', { timeout: 1200000 }, async () => {
  let deals = 0;
  for (let g = 0; g < WHOLE_GAMES_MAX && !deals; g++) {
    if (g) console.log(`no deal was laid out in game ${g}: one more game at another table`);
    deals = await playWhole(`${TABLE}${g || ''}`, g);
  }
  assert.ok(deals > 0, 'a deal was laid out beside an opening');
});

// The first screen, before any name is given, speaks of the server's games in the reader's
// language: a line a game (its name, how many play it, what it is), and "Play alone" names
// the first game, the one it starts.
test('the first screen names the server\'s games', { timeout: 300000 }, async () => {
  const games = await (await fetch(`${base}games.json`)).json();
  assert.deepEqual(games.map((g) => g.id), ['illegal', 'palm-drewes']);
  for (const locale of ['en-US', 'fr-FR']) {
    const lang = locale.slice(0, 2);
    const words = lang === 'en' ? en : (await (await fetch(`${base}catalog/${lang}.json`)).json()).texts;
    const ctx = await browser.newContext({ locale, viewport: { width: 1280, height: 900 } });
    ctx.setDefaultTimeout(PATIENCE);
    const page = await ctx.newPage();
    await page.goto(base);
    await page.locator('#intro-games li').nth(games.length - 1).waitFor();
    const lines = await page.locator('#intro-games li').evaluateAll((lis) => lis.map((li) => [li.dataset.game, li.textContent]));
    assert.deepEqual(lines.map((x) => x[0]), games.map((g) => g.id));
    for (const [id, text] of lines) {
      const g = games.find((x) => x.id === id);
      assert.ok(text.includes(words[id + '.game']) && text.includes(words[id + '.about']), `${lang}: ${text}`);
      assert.ok(text.includes(String(g.min)) && text.includes(String(g.max)), `${lang}: ${text}`);
    }
    assert.ok((await page.locator('#play-alone-hint').textContent()).includes(words[games[0].id + '.game']));
    assert.equal(await page.locator('#name-view p[data-i18n="page.intro"]').textContent(), words['page.intro']);
    assert.deepEqual(await page.evaluate(() => [...window.__illegal.missing]), []);
    await ctx.close();
  }
});

// A game the page has no drawing for: its table view and ballot show as their text with a
// button a choice, its private view as its text, its prompts with their choices; a button
// sends its choice's command in private (named by game), and a closed prompt is gone.
test('a game with no drawing shows its messages\' text and choices', { timeout: 300000 }, async () => {
  const p = await seat('Cid', '#t=other');
  await p.page.locator('#table-view').waitFor({ state: 'visible' });
  // (the server's replay of the table wipes what was fed before it: fed once it is in)
  await p.page.waitForFunction(() => window.__illegal.opened.has('other'));
  await p.page.evaluate(() => {
    const S = window.__illegal;
    S.sent = [];
    const send = S.ws.send.bind(S.ws);
    S.ws.send = (text) => { S.sent.push(JSON.parse(text)); send(text); };
  });
  const feed = (form, data, extra = {}) => p.page.evaluate(([form, data, extra]) => {
    const S = window.__illegal;
    S.ws.onmessage({ data: JSON.stringify({ type: 'message', kind: form, form, channel: extra.dm ? null : 'other', table: 'other',
      dm: false, key: null, replace: false, text: `the ${form}`, ...extra,
      data: { game: 'g77', table: 'other', module: 'no-such-game', lang: 'en', ...data } }) });
  }, [form, data, extra]);
  await feed('lobby', { variant: 'one', host: 'x1', players: [{ id: 'x1', name: 'Xena' }], actions: ['join'] }, { key: 'g77/lobby' });
  await feed('notice', { phase: 'step', events: ['game-started'], event: 'game-started' });
  await feed('table_view', { title: 'ui.title-results', choices: [{ command: 'go left', label: 'Left' }, { command: 'go right', label_key: 'ui.accept' }] },
    { key: 'g77/board', text: 'The board, in words.' });
  await feed('private_view', { hand: { x: 1 } }, { dm: true, key: 'g77/mine/me', text: 'Your things: x.' });
  await feed('prompt', { open: true, choices: [{ command: 'pick 1', label: 'One', tone: 'yes' }, { command: 'pick 2', label: 'Two' }] },
    { dm: true, key: 'g77/ask/me', text: 'Pick one.' });
  await p.page.locator('#views .view').waitFor();
  assert.equal(await p.page.locator('#views .vtext').textContent(), 'The board, in words.');
  assert.deepEqual(await p.page.locator('#views button').evaluateAll((bs) => bs.map((b) => b.textContent)), ['Left', en['ui.accept']]);
  assert.equal(await p.page.locator('#private-view').textContent(), 'Your things: x.');
  await p.page.locator('#prompts li button[data-command="pick 2"]').click();
  await p.page.locator('#views button[data-command="go left"]').click();
  const sent = await p.page.evaluate(() => window.__illegal.sent.filter((f) => f.type === 'command' && f.channel === null).map((f) => f.text));
  assert.deepEqual(sent.filter((t) => /pick|go/.test(t)), ['g77 pick 2', 'g77 go left']);
  // the prompt closed by an edit under its key is gone
  await feed('prompt', { open: false }, { dm: true, key: 'g77/ask/me', text: 'You picked two.', replace: true });
  await p.page.locator('#prompts-box').waitFor({ state: 'hidden' });
  assert.equal(await p.page.locator('#drop, #tribunal, #pd-table, #pd-hand').count(), 2); // (Illegal's two boxes, hidden)
  assert.ok(!(await p.page.locator('#drop').isVisible()) && !(await p.page.locator('#tribunal').isVisible()));
  assert.deepEqual(p.errors.map(String), []);
  await p.ctx.close();
});
