// The page as a Discord Activity, in Chromium: each Activity player's page is a frame of
// another origin (https://<app>.discordsays.com, as Discord's proxy serves it) inside a
// parent page at https://discord.com that answers the Embedded App SDK's messages as
// Discord's client does (the handshake, READY, AUTHORIZE with a code from the Discord test
// server, AUTHENTICATE, and the SDK's log captures). Both origins are the test's: requests
// to them are answered by the test (the proxy's, from the daemon, /.proxy/ stripped as
// Discord's proxy does; the websocket piped to the daemon with the proxy's Origin), so
// nothing leaves the machine. Two players play in the Activity and two through Discord
// (slash commands, buttons, DM text, reactions on the test server), a whole game, with a
// kill -9 of the daemon in the middle: nobody sees another's secrets, every page and every
// Discord player ends with the same results, and nothing is lost or doubled.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { PATIENCE, clickSending, everyoneVoted, launchChromium } from './chromium.mjs';
import WebSocket from 'ws';
import { sleep } from './lib.mjs';
import { APP, Fake, GUILD, PROXY_ORIGIN, SECRET, TABLE, daemonConfig, freePort, startDaemon, tmp, until } from './fake.mjs';

const DAEMON = process.env.ILLEGALD;
const FAKE = process.env.FAKEDISCORD;
const INSTANCE = 'i-1300-gc-7';
const TIMERS = 'session_seconds = 600\nreveal_seconds = 1\ngrab_seconds = 600\ndebate_seconds = 600\nvote_seconds = 600\n';
const dir = tmp('illegald-actb-');
let fake, daemon, conf, port, browser;
let restarting = false;

// Two in the Activity, two in Discord; dora hosts (she moderates the server).
const ANN = { id: '610000000000000021', name: 'ann' };
const BEN = { id: '610000000000000022', name: 'ben' };
const DORA = { id: '610000000000000023', name: 'dora' };
const EVE = { id: '610000000000000024', name: 'eve' };

before(async () => {
  if (!DAEMON || !FAKE) throw new Error('set ILLEGALD and FAKEDISCORD');
  fake = await Fake.start(FAKE);
  port = await freePort();
  conf = daemonConfig(dir, fake, port, TIMERS);
  daemon = await startDaemon(DAEMON, conf);
  await until(fake, (s) => s.gateway.ready, 'the daemon on the gateway');
  for (const p of [ANN, BEN, DORA, EVE]) await fake.call({ op: 'name', user: p.id, name: p.name });
  await fake.call({ op: 'guild', guild: GUILD, owner: DORA.id });
  await fake.call({ op: 'instance', instance: INSTANCE, channel: TABLE, guild: GUILD, users: [ANN.id, BEN.id] });
  browser = await launchChromium();
});

after(async () => {
  if (browser) await browser.close();
  const r = daemon ? await daemon.stop() : { code: 0 };
  if (fake) await fake.stop();
  assert.equal(r.code, 0, `illegald exited ${r.code} ${r.signal}: ${daemon && daemon.stderr.slice(-4000)}`);
  rmSync(dir, { recursive: true, force: true });
});

// Discord's client, as far as the SDK sees it: answers its handshake and commands.
function parentPage(frameSrc) {
  return `<!doctype html><html><head><meta charset="utf-8"><title>Discord</title></head><body style="margin:0">
<iframe id="activity" src="${frameSrc}" style="width:1200px;height:860px;border:0" allow="autoplay"></iframe>
<script>
window.__sdk = [];
const ORIGIN = ${JSON.stringify(PROXY_ORIGIN)};
window.addEventListener('message', async (ev) => {
  if (ev.origin !== ORIGIN || !Array.isArray(ev.data)) return;
  const [op, p] = ev.data;
  const reply = (frame) => ev.source.postMessage([1, frame], ev.origin);
  window.__sdk.push({ op, cmd: p && p.cmd, args: p && p.args });
  if (op === 0) {
    reply({ cmd: 'DISPATCH', evt: 'READY', nonce: null,
      data: { v: 1, config: { api_endpoint: '//discord.com/api', environment: 'production' } } });
    return;
  }
  if (op !== 1) return;
  if (p.cmd === 'AUTHORIZE') {
    const code = await window.discordCode(p.args);
    reply({ cmd: 'AUTHORIZE', evt: null, nonce: p.nonce, data: { code } });
  } else if (p.cmd === 'AUTHENTICATE') {
    const me = await window.discordMe(p.args.access_token);
    reply({ cmd: 'AUTHENTICATE', evt: null, nonce: p.nonce, data: { access_token: p.args.access_token,
      user: { id: me.id, username: me.name, discriminator: '0', global_name: me.name, avatar: null, public_flags: 0 },
      scopes: ['identify'], expires: new Date(Date.now() + 604800000).toISOString(),
      application: { id: ${JSON.stringify(APP)}, name: 'Illegal', description: '' } } });
  } else {
    reply({ cmd: p.cmd, evt: null, nonce: p.nonce, data: null });
  }
});
</script></body></html>`;
}

// The proxy: https://<app>.discordsays.com/... is the daemon's /... (/.proxy/ stripped).
async function proxy(route) {
  const req = route.request();
  const u = new URL(req.url());
  const path = u.pathname.replace(/^\/\.proxy(?=\/)/, '');
  try {
    const r = await fetch(`http://127.0.0.1:${port}${path}${u.search}`, { method: req.method(), headers: { 'user-agent': 'discord-proxy-test' } });
    const headers = {};
    r.headers.forEach((v, k) => { headers[k] = v; });
    await route.fulfill({ status: r.status, headers, body: Buffer.from(await r.arrayBuffer()) });
  } catch {
    await route.abort('connectionrefused');
  }
}

// Its websocket, piped to the daemon with the proxy's Origin.
function proxySocket(ws) {
  const server = new WebSocket(`ws://127.0.0.1:${port}/.proxy/ws`, { headers: { Origin: PROXY_ORIGIN } });
  const early = [];
  server.on('open', () => { for (const m of early.splice(0)) server.send(m); });
  server.on('message', (d) => ws.send(String(d)));
  server.on('close', () => ws.close().catch(() => {}));
  server.on('error', () => ws.close().catch(() => {}));
  ws.onMessage((m) => { if (server.readyState === WebSocket.OPEN) server.send(m); else early.push(m); });
  ws.onClose(() => server.close());
}

const RECONNECT_ERRORS = [/WebSocket connection to '[^']+' failed/, /Failed to load resource/];

async function activityPlayer(who) {
  const ctx = await browser.newContext({ locale: 'en-US', viewport: { width: 1220, height: 880 } });
  ctx.setDefaultTimeout(PATIENCE);
  await ctx.route('https://*.discordsays.com/**', proxy);
  await ctx.routeWebSocket(/discordsays\.com/, proxySocket);
  const src = `https://${APP}.discordsays.com/?frame_id=frame-${who.name}&instance_id=${INSTANCE}&platform=desktop` +
    `&guild_id=${GUILD}&channel_id=${TABLE}`;
  await ctx.route('https://discord.com/**', (route) => route.fulfill({ status: 200, contentType: 'text/html', body: parentPage(src) }));
  const page = await ctx.newPage();
  const errors = [];
  const tokens = new Set();
  page.on('pageerror', (e) => errors.push(e));
  page.on('console', (m) => {
    if (m.type() !== 'error') return;
    if (restarting && RECONNECT_ERRORS.some((re) => re.test(m.text()))) return;
    errors.push(new Error(m.text()));
  });
  await page.exposeFunction('discordCode', async (args) => {
    assert.deepEqual(args.scope, ['identify']);
    assert.equal(args.client_id, APP);
    return (await fake.call({ op: 'code', user: who.id, name: who.name })).code;
  });
  await page.exposeFunction('discordMe', async (token) => { tokens.add(token); return who; });
  await page.goto('https://discord.com/channels/' + GUILD + '/' + TABLE);
  const frame = await (async () => {
    for (const end = Date.now() + PATIENCE; Date.now() < end;) {
      const f = page.frames().find((x) => x.url().startsWith(`https://${APP}.discordsays.com/`));
      if (f) return f;
      await sleep(100);
    }
    throw new Error('no Activity frame');
  })();
  return { ...who, ctx, page, f: frame, errors, tokens };
}

const st = (p) => p.f.evaluate((table) => {
  const S = window.__illegal;
  const t = S.T[table] || {};
  return { user: S.user, phase: t.phase || null, voteCase: t.vote ? t.vote.case : null, result: t.result || null,
    game: t.game || null };
}, TABLE);

// What a page was sent and shows, for the secrecy checks.
const seenBy = (p) => p.f.evaluate(() => {
  const S = window.__illegal;
  return {
    user: S.user,
    dm: S.frames.filter((f) => f.type === 'message' && f.dm),
    pub: S.frames.filter((f) => f.type === 'message' && !f.dm),
    roles: [...document.querySelectorAll('[data-card^="dealer:"], [data-card^="buyer:"]')].map((e) => e.dataset.card),
    text: document.body.innerText,
  };
});

function checkSecrets(snaps, others) {
  for (const s of snaps) {
    for (const f of s.dm) {
      if (f.key && /\/hand\//.test(f.key)) assert.equal(f.key.split('/').pop(), s.user, `${s.user} got another's hand`);
      if (f.data && f.data.from && f.data.to) assert.ok(f.data.from.id === s.user || f.data.to.id === s.user, `${s.user} got another's offer`);
    }
    for (const f of s.pub) {
      assert.notEqual(f.kind, 'hand', 'a hand in public');
      assert.notEqual(f.kind, 'offer', 'an offer in public');
    }
    const hands = s.dm.filter((f) => f.kind === 'hand' && f.data);
    const own = hands.length ? hands[hands.length - 1].data : null;
    if (own) for (const r of s.roles) assert.ok(r === `dealer:${own.dealer}` || r === `buyer:${own.buyer}`, `${s.user} shows ${r}`);
    for (const o of others) {
      // no Discord player's private message (its words) on an Activity page
      for (const t of o) if (t.length > 24) assert.ok(!s.text.includes(t), `${s.user}'s page shows another's private message: ${t}`);
    }
  }
}

// ---- Discord's players, on the test server ----
async function slash(p, sub, opts = null) {
  await fake.call({ op: 'slash', id: fake.id(), guild: GUILD, channel: TABLE, user: p.id, sub,
    opts: opts ? JSON.stringify(opts) : null, perms: p === DORA ? '32' : '0' });
}
const rows = (m) => ((m.body && m.body.components) || []).flatMap((r) => r.components || []);
const control = (m, action) => rows(m).find((c) => c.custom_id && c.custom_id.split('#')[1] === action);
async function click(p, m, customId, dm) {
  await fake.call({ op: 'click', id: fake.id(), guild: dm ? null : GUILD, channel: m.channel, user: p.id,
    message: m.id, custom_id: customId, values: null });
}
const tableMessages = (s) => s.messages.filter((m) => m.channel === TABLE);
const title = (m) => (((m.body && m.body.embeds) || [])[0] || {}).title || '';
const dmsOf = (s, p) => s.messages.filter((m) => m.dm_user === p.id);

test('two players in the Activity and two in Discord play one game through a kill -9', { timeout: 1200000 }, async () => {
  const ann = await activityPlayer(ANN);
  const ben = await activityPlayer(BEN);
  const act = [ann, ben];
  // the page is a frame of another origin, let in by Discord: the channel with no game yet
  for (const p of act) {
    await p.f.locator('#table-view').waitFor({ state: 'visible', timeout: PATIENCE });
    assert.notEqual(new URL(p.f.url()).origin, new URL(p.page.url()).origin);
    await p.f.locator('[data-activity=no-game]').waitFor({ timeout: PATIENCE });
    assert.equal((await st(p)).user, p.id);
    const sdk = await p.page.evaluate(() => window.__sdk.map((x) => x.cmd || x.op));
    assert.ok(sdk.includes(0) && sdk.includes('AUTHORIZE') && sdk.includes('AUTHENTICATE'), JSON.stringify(sdk));
    assert.equal(p.tokens.size, 1, 'the page authenticated with the token the daemon got');
  }

  // dora opens a game in the channel and joins; eve joins by the lobby's button; ann and ben by the page's
  await slash(DORA, 'new', [{ name: 'variant', type: 3, value: 'standard' }]);
  await slash(DORA, 'join');
  let s = await until(fake, (x) => tableMessages(x).some((m) => /lobby/i.test(title(m)) && control(m, '!illegal join')), 'the lobby');
  const lobby = tableMessages(s).find((m) => /lobby/i.test(title(m)));
  assert.ok(control(lobby, 'activity') === undefined, '(the launch button has no game key)');
  assert.ok(rows(lobby).some((c) => c.custom_id === 'activity#launch'), 'the lobby has Play in Discord');
  await click(EVE, lobby, control(lobby, '!illegal join').custom_id, false);
  for (const p of act) {
    await p.f.locator('#lobby-actions [data-action=join]:not([disabled])').waitFor();
    await clickSending(p.f, p.f.locator('#lobby-actions [data-action=join]:not([disabled])'));
    await p.f.locator(`#players li[data-user="${p.id}"]`).waitFor({ timeout: PATIENCE });
  }
  s = await until(fake, (x) => tableMessages(x).some((m) => m.id === lobby.id && ['ann', 'ben', 'dora', 'eve'].every((n) => JSON.stringify(m.body).includes(n))), 'four in the Discord lobby');
  // Play in Discord answers with LAUNCH_ACTIVITY
  await click(EVE, lobby, 'activity#launch', false);
  await until(fake, (x) => x.callbacks.some((c) => c.type === 12), 'a LAUNCH_ACTIVITY answer');
  await click(DORA, lobby, control(tableMessages(s).find((m) => m.id === lobby.id), '!illegal start').custom_id, false);

  // every player's hand: on the pages, and in Discord's DMs
  for (const p of act) await p.f.locator('#roles [data-card^="dealer:"]').waitFor({ timeout: PATIENCE });
  s = await until(fake, (x) => [DORA, EVE].every((p) => dmsOf(x, p).some((m) => control(m, 'tb:give'))), 'the Discord players\' hands');

  // the trades of the first session: dora gives ann a card by DM text, ann accepts on the page;
  // ben gives eve a card with the page's builder, eve accepts with the DM's button
  const doraHand = dmsOf(s, DORA).filter((m) => control(m, 'tb:give')).pop();
  const give = control(doraHand, 'tb:give').options[0].value;
  await fake.call({ op: 'message', id: fake.id(), guild: null, channel: doraHand.channel, user: DORA.id, text: `offer ann ${give} for nothing` });
  await ann.f.locator('#offers li.incoming [data-action=accept]').waitFor();
  await clickSending(ann.f, ann.f.locator('#offers li.incoming [data-action=accept]'));
  await ann.f.locator('#offers li.closed').first().waitFor({ timeout: PATIENCE });
  await ben.f.locator('#compose [data-part=to] select').selectOption(EVE.id);
  await ben.f.locator('#compose [data-part=give] .pick .card').first().click();
  await clickSending(ben.f, ben.f.locator('#compose [data-send]'));
  s = await until(fake, (x) => dmsOf(x, EVE).some((m) => rows(m).some((c) => /#accept \d+$/.test(c.custom_id || ''))), 'ben\'s offer in eve\'s DMs');
  const offer = dmsOf(s, EVE).filter((m) => rows(m).some((c) => /#accept \d+$/.test(c.custom_id || ''))).pop();
  await click(EVE, offer, rows(offer).find((c) => /#accept \d+$/.test(c.custom_id)).custom_id, true);
  await ben.f.locator('#offers li.closed').first().waitFor({ timeout: PATIENCE });
  checkSecrets(await Promise.all(act.map(seenBy)), []);

  // then the game goes on, the host moving it along once everyone has done what the step asks
  // (every step's clock is long: a loaded machine never ends one before the players act); a
  // kill -9 once the first drop is over
  const done = new Set();
  let last = null, killed = false, sessions = 0;
  const dropMessages = new Set(), ballots = new Set();
  // What the host waits on: the phase, its case or its drop, as ann's page has them.
  const stepOf = (p) => p.f.evaluate((table) => {
    const t = window.__illegal.T[table] || {};
    return `${t.phase}|${t.vote ? t.vote.case : ''}|${t.drop ? t.drop.drop : ''}`;
  }, TABLE);
  const moved = (from) => ann.f.waitForFunction(([table, from]) => {
    const t = window.__illegal.T[table] || {};
    return `${t.phase}|${t.vote ? t.vote.case : ''}|${t.drop ? t.drop.drop : ''}` !== from;
  }, [TABLE, from]);
  // A new frame on ann's page since it had `since` (read before the state the wait follows from,
  // so that a frame landing between that look and the wait still ends it).
  const frameCount = () => ann.f.evaluate(() => window.__illegal.frames.length);
  const news = (since) =>
    ann.f.waitForFunction((n) => window.__illegal.frames.length > n, since, { timeout: PATIENCE });
  const next = async () => {
    const from = await stepOf(ann);
    await slash(DORA, 'next');
    await moved(from);
  };
  for (;;) {
    const seen = await frameCount();
    const now = await st(ann);
    if (now.phase !== last) {
      last = now.phase;
      if (last === 'dealing') sessions++;
      if (process.env.WEB_DEBUG) console.log('phase', last, sessions);
    }
    if (last === 'over') break;
    if (last === 'dealing' && sessions === 2 && !killed) {
      killed = true;
      restarting = true;
      daemon.proc.kill('SIGKILL');
      await daemon.exited;
      daemon = await startDaemon(DAEMON, conf);
      await until(fake, (x) => x.gateway.ready && x.gateway.connected, 'the daemon back on the gateway');
      for (const p of act) {
        await p.f.locator('#conn.on').waitFor();
        await p.f.locator('#roles [data-card^="dealer:"]').waitFor();
      }
      await sleep(500);
      restarting = false;
      continue;
    }
    if (last === 'dealing' || last === 'debate') {
      await next();
    } else if (last === 'drop-grab') {
      const key = `grab-${sessions}`;
      for (const p of act) {
        // each page reaches for a card while it shows one it may take (a race lost to another
        // player makes the others clickable again)
        const c = p.f.locator('#drop-cards .card.clickable').first();
        if (await c.count()) {
          if (await clickSending(p.f, c, async () => (await st(p)).phase === 'drop-grab' && (await c.count()) > 0)) {
            done.add(`${key}-${p.name}`);
          }
        }
      }
      if (!done.has(key)) {
        done.add(key);
        // eve reacts on this drop's message (a new one a drop), once it has every card's
        // reaction, to the last card (Discord's side of the daemon may lag behind the pages')
        const shown = (await ann.f.evaluate((t) => (window.__illegal.T[t].drop || {}).shown || [], TABLE)).length;
        s = await until(fake, (x) => tableMessages(x).some((m) => /drop/i.test(title(m)) && !dropMessages.has(m.id) &&
          (m.reactions || []).length >= shown), 'the drop\'s message with its reactions');
        const d = tableMessages(s).filter((m) => /drop/i.test(title(m)) && !dropMessages.has(m.id)).pop();
        dropMessages.add(d.id);
        if (process.env.WEB_DEBUG) console.log('eve reacts', d.id, d.reactions);
        await fake.call({ op: 'react', guild: GUILD, channel: TABLE, message: d.id, user: EVE.id, emoji: d.reactions[d.reactions.length - 1] });
        // the bot answers it: she takes a card (the drop's last grab, so it ends), or the last one
        // was taken first. Until then the host waits: a reaction is never dropped.
        await ann.f.waitForFunction(([t, eve]) => {
          const dr = window.__illegal.T[t].drop || {};
          return (dr.takers || []).some((x) => x && x.id === eve) ||
            !!(dr.taken && dr.taken[(dr.shown || []).length - 1]) || window.__illegal.T[t].phase !== 'drop-grab';
        }, [TABLE, EVE.id], { timeout: PATIENCE }).catch(() => assert.fail(`eve's reaction on drop ${sessions} went unanswered`));
      }
      // the host moves on once no page may take a card and no reach waits for the bot's answer
      const since = await frameCount();
      const pages = await Promise.all(act.map((p) => p.f.evaluate((t) => {
        const S = window.__illegal;
        const d = S.T[t].drop || {}, g = S.P[t] && S.P[t].grabbed;
        const took = (d.takers || []).some((x) => x && x.id === S.user);
        return { clickable: document.querySelectorAll('#drop-cards .card.clickable').length,
          pending: !!g && g.drop === d.drop && !took };
      }, TABLE)));
      const d = await ann.f.evaluate((t) => window.__illegal.T[t].drop || {}, TABLE);
      const shown = d.shown || [];
      const eve = (d.takers || []).some((x) => x && x.id === EVE.id) || !!(d.taken && d.taken[shown.length - 1]);
      if (process.env.WEB_DEBUG) console.log('grab', JSON.stringify({ pages, eve, d: { shown: d.shown, taken: d.taken, takers: d.takers, open: d.open } }));
      if (pages.some((p) => p.clickable)) continue;
      if (pages.some((p) => p.pending)) await news(since);
      else if ((await st(ann)).phase === 'drop-grab') await next();
    } else if (last === 'vote') {
      const c = now.voteCase;
      const key = `vote-${c}`;
      for (const p of act) {
        // each page votes once its buttons show, for someone else
        const b = p.f.locator(`#vote-buttons button[data-vote]:not([data-vote="${p.id}"]):not([disabled])`).first();
        if (c !== null && !done.has(`${key}-${p.name}`) && await b.count()) {
          await clickSending(p.f, b, async () => (await st(p)).voteCase === c && (await b.count()) > 0);
          done.add(`${key}-${p.name}`);
        }
      }
      if (c !== null && !done.has(key)) {
        done.add(key);
        // dora and eve vote on this case's ballot in Discord, once it is there (a new message a
        // case; Discord's side of the daemon may lag behind the pages')
        const ballot = (m) => rows(m).some((x) => / ?vote \d+$|#vote /.test(x.custom_id || ''));
        s = await until(fake, (x) => tableMessages(x).some((m) => ballot(m) && !ballots.has(m.id)), 'the case\'s ballot', 30000)
          .catch(() => fake.snapshot());
        const v = tableMessages(s).filter(ballot).pop();
        if (v) ballots.add(v.id);
        if (v) {
          for (const p of [DORA, EVE]) {
            const b = rows(v).find((x) => (x.custom_id || '').includes('#vote ') && !(x.custom_id || '').endsWith(p.id));
            if (b) await click(p, v, b.custom_id, false);
          }
        }
      }
      // everyone voted, as the bot counted: the host closes the case; until then each vote's news
      // is awaited (a click is never dropped: one that went unanswered fails the test)
      const since = await frameCount();
      if (await everyoneVoted(ann.f, TABLE)) await next();
      else await news(since);
    } else {
      await news(seen);
    }
  }
  if (process.env.WEB_DEBUG) console.log('done', [...done]);
  assert.ok(killed, 'the daemon was killed mid-game');
  assert.ok([...done].some((k) => k.startsWith('vote-')), 'votes were cast');

  // the same results everywhere, once
  s = await until(fake, (x) => tableMessages(x).some((m) => /result/i.test(title(m))), 'the results in Discord');
  const results = tableMessages(s).filter((m) => /result/i.test(title(m)));
  assert.equal(results.length, 1, 'one result message in the channel');
  const text = JSON.stringify(results[0].body);
  for (const n of ['ann', 'ben', 'dora', 'eve']) assert.ok(text.includes(n), `${n} in the results`);
  const scores = [];
  for (const p of act) {
    await p.f.locator('#results').waitFor({ state: 'visible', timeout: PATIENCE });
    const r = (await st(p)).result;
    assert.ok(r && r.scores, `${p.name}'s page has the results`);
    scores.push(JSON.stringify(r.scores));
    assert.equal(await p.f.locator('#results [data-user]').count(), 4, `${p.name}'s page shows four results`);
  }
  assert.equal(scores[0], scores[1], 'both pages show the same scores');
  // the Discord players' moves count as much as the pages': a vote of all four, a card eve grabbed
  const frames = await ann.f.evaluate(() => window.__illegal.frames.filter((f) => f.type === 'message' && f.data));
  const voted = frames.filter((f) => f.data.event === 'votes-cast').map((f) => f.data.voted);
  assert.equal(Math.max(...voted), 4, `votes counted: ${voted}`);
  const takers = frames.filter((f) => f.kind === 'drop').flatMap((f) => (f.data.takers || []).filter(Boolean).map((x) => x.id || x));
  assert.ok(takers.includes(EVE.id), 'eve grabbed a card by reacting in Discord');
  assert.ok(takers.includes(ANN.id) && takers.includes(BEN.id), 'ann and ben grabbed on the page');
  // nothing doubled in Discord: one lobby, four drops at most, each player's hand one live message
  assert.equal(tableMessages(s).filter((m) => /lobby/i.test(title(m))).length, 1);
  assert.ok(tableMessages(s).filter((m) => /drop/i.test(title(m))).length <= 4);
  // secrets: each page its own; no Discord player's DM on a page; the client secret nowhere
  const privateTexts = [DORA, EVE].map((p) => dmsOf(s, p).map((m) => m.body && m.body.content).filter(Boolean));
  checkSecrets(await Promise.all(act.map(seenBy)), privateTexts);
  for (const p of act) {
    const html = await p.f.content();
    assert.ok(!html.includes(SECRET));
    const frames = JSON.stringify(await p.f.evaluate(() => window.__illegal.frames));
    assert.ok(!frames.includes(SECRET));
    assert.deepEqual(p.errors.map((e) => e.message), [], `${p.name}'s page errors`);
    assert.deepEqual(await p.f.evaluate(() => [...window.__illegal.missing]), [], `${p.name}'s missing words`);
  }
  assert.equal(s.activity.secret_seen, false);
  assert.ok(!daemon.stderr.includes(SECRET));
});
