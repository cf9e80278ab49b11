// The Discord Activity's protocol against the real daemon and the Discord test server:
// who a page is comes from Discord alone (the OAuth2 code, /users/@me, the activity
// instance), bad input is refused with a clear code and nothing opened, a page plays its
// channel's game as a Discord player, and secrets stay where they belong.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { request } from 'node:http';
import { request as httpsRequest } from 'node:https';
import WebSocket from 'ws';
import { join } from 'node:path';
import { sleep } from './lib.mjs';
import { APP, Fake, GUILD, PROXY_ORIGIN, SECRET, TABLE, daemonConfig, freePort, openPage, startDaemon, tmp, until } from './fake.mjs';
import { appendFileSync } from 'node:fs';

const DAEMON = process.env.ILLEGALD;
const FAKE = process.env.FAKEDISCORD;
const dir = tmp('illegald-act-');
let fake, daemon, port;
const pages = [];

const A1 = '610000000000000011', A2 = '610000000000000012', OUT = '610000000000000013';
const D1 = '610000000000000001';

before(async () => {
  if (!DAEMON || !FAKE) throw new Error('set ILLEGALD and FAKEDISCORD');
  fake = await Fake.start(FAKE);
  port = await freePort();
  daemon = await startDaemon(DAEMON, daemonConfig(dir, fake, port));
  await until(fake, (s) => s.gateway.ready, 'the daemon on the gateway');
  await fake.call({ op: 'name', user: D1, name: 'dora' });
  await fake.call({ op: 'instance', instance: 'i-1-gc-1', channel: TABLE, guild: GUILD, users: [A1, A2, D1] });
  await fake.call({ op: 'instance', instance: 'i-2-pc-1', channel: '540000000000000001', guild: null, users: [A1] });
});

after(async () => {
  if (process.env.WEB_DEBUG) console.log(daemon.stderr);
  for (const p of pages) p.ws.close();
  const r = daemon ? await daemon.stop() : { code: 0 };
  if (fake) await fake.stop();
  assert.equal(r.code, 0, `illegald exited ${r.code} ${r.signal}: ${daemon && daemon.stderr.slice(-4000)}`);
  rmSync(dir, { recursive: true, force: true });
});

async function page(opts) {
  const p = await openPage(port, opts);
  pages.push(p);
  return p;
}

async function code(user, name) {
  return (await fake.call({ op: 'code', user, name })).code;
}

// A page let in by Discord: its authorized and welcome frames.
async function enter(user, name, instance = 'i-1-gc-1') {
  const p = await page();
  p.send({ type: 'activity', code: await code(user, name), instance, lang: 'en' });
  const auth = await p.next((f) => f.type === 'authorized' || f.type === 'error', 20000, 'authorized');
  assert.equal(auth.type, 'authorized', JSON.stringify(auth));
  const welcome = await p.next((f) => f.type === 'welcome', 8000, 'welcome');
  return { p, auth, welcome };
}

async function refusedWith(codeOrNull, instance, error, ms = 20000) {
  const p = await page();
  p.send({ type: 'activity', code: codeOrNull, instance, lang: 'en' });
  const f = await p.next((x) => x.type === 'error' || x.type === 'welcome', ms, error);
  assert.equal(f.error, error, JSON.stringify(f));
  await p.whenClosed();
  assert.ok(!p.frames.some((x) => x.type === 'welcome' || x.type === 'message'), 'nothing opened');
}

test('the page, its words and the SDK come through the proxy path, framed by Discord only', async () => {
  const r = await fetch(`http://127.0.0.1:${port}/.proxy/activity.json`);
  assert.equal(r.status, 200);
  assert.deepEqual(await r.json(), { client_id: APP });
  const html = await fetch(`http://127.0.0.1:${port}/`);
  const csp = html.headers.get('content-security-policy');
  assert.match(csp, /frame-ancestors https:\/\/discord\.com /);
  assert.match(csp, /script-src 'self';/);
  assert.equal(html.headers.get('x-frame-options'), null);
  const sdk = await fetch(`http://127.0.0.1:${port}/.proxy/sdk/index.mjs`);
  assert.equal(sdk.status, 200);
  assert.match(sdk.headers.get('content-type'), /javascript/);
  for (const path of ['/.proxy/catalog/en.json', '/.proxy/app.js', '/app.js']) {
    assert.equal((await fetch(`http://127.0.0.1:${port}${path}`)).status, 200, path);
  }
  // a Host the proxy's target is not is refused
  const status = (host) => new Promise((resolve, reject) => {
    request({ host: '127.0.0.1', port, path: '/.proxy/activity.json', headers: { Host: host } }, (res) => {
      res.resume();
      resolve(res.statusCode);
    }).on('error', reject).end();
  });
  assert.equal(await status('evil.example'), 403);
  assert.equal(await status(`activity.example.org:${port}`), 200);
});

test('origins: the Activity\'s proxy is let in, another site is not; the local table is off', async () => {
  await assert.rejects(openPage(port, { origin: 'https://evil.example' }), /HTTP 403|socket hang up|Unexpected server response/);
  await assert.rejects(openPage(port, { origin: 'https://1.discordsays.com' }), /HTTP 403|socket hang up|Unexpected server response/);
  const p = await page();
  p.send({ type: 'hello', token: 'a'.repeat(24), name: 'Mallory' });
  const f = await p.next((x) => x.type === 'error');
  assert.equal(f.error, 'activity-only');
});

test('bad input: forged, replayed and malformed codes, users not in the instance, no server channel', async () => {
  await refusedWith('forged-code', 'i-1-gc-1', 'activity-bad-code');
  await refusedWith('', 'i-1-gc-1', 'activity-bad-code');
  await refusedWith(await code(A1, 'ann'), '../../users/@me', 'activity-bad-code');
  const once = await code(A2, 'ben');
  const { p } = await (async () => {
    const q = await page();
    q.send({ type: 'activity', code: once, instance: 'i-1-gc-1' });
    await q.next((f) => f.type === 'welcome', 20000, 'welcome');
    return { p: q };
  })();
  p.ws.close();
  await refusedWith(once, 'i-1-gc-1', 'activity-bad-code'); // replayed
  await refusedWith(await code(OUT, 'mallory'), 'i-1-gc-1', 'activity-not-in-instance');
  await refusedWith(await code(A1, 'ann'), 'i-9-unknown', 'activity-not-in-instance');
  await refusedWith(await code(A1, 'ann'), 'i-2-pc-1', 'activity-no-channel');
  const log = daemon.stderr;
  assert.match(log, /activity: refused a page \(a code or token Discord refused\)/);
  assert.match(log, /activity: refused a page \(the user is not in the instance\)/);
});

test('an exchange Discord never answers ends in time with a clear refusal', async () => {
  await fake.call({ op: 'hang', n: 1 });
  await refusedWith(await code(A1, 'ann'), 'i-1-gc-1', 'activity-unavailable', 30000);
  assert.match(daemon.stderr, /activity: refused a page \(Discord failed or did not answer in time\)/);
});

test('a page plays its channel\'s game as its Discord user; answers stay on the page; a ticket brings it back', async () => {
  const { p, auth, welcome } = await enter(A1, 'ann');
  assert.equal(welcome.user, A1);
  assert.equal(welcome.name, 'ann');
  assert.deepEqual(welcome.activity, { channel: TABLE, game: false });
  // the games the server has, as any welcome lists them (a message naming no module is the first's)
  assert.equal(welcome.games[0].id, 'illegal');
  assert.ok(auth.access_token && auth.ticket);
  assert.match(daemon.stderr, /activity: .* opened channel 530000000000000001, which has no game/);

  // a Discord player opens a game in the channel: the page sees the lobby
  await fake.call({ op: 'slash', id: fake.id(), guild: GUILD, channel: TABLE, user: D1, sub: 'new', opts: null, perms: '32' });
  const lobby = await p.next((f) => f.type === 'message' && f.kind === 'lobby' && f.channel === TABLE, 10000, 'the lobby');
  assert.equal(lobby.dm, false);
  // the page joins: the lobby in Discord names ann
  p.send({ type: 'command', channel: TABLE, text: '!illegal join' });
  const s = await until(fake, (x) => x.messages.some((m) => m.channel === TABLE && JSON.stringify(m.body).includes('ann')), 'ann in the Discord lobby');
  const posted = s.messages.length;
  // an answer to the page stays on the page: not posted in the channel, not DMed
  p.send({ type: 'command', channel: TABLE, text: '!illegal status' });
  const answer = await p.next((f) => f.type === 'message' && f.dm && f.channel === null && f.key === null && /g1 .*waiting for players/.test(f.text), 10000, 'the status answer');
  assert.ok(answer);
  await sleep(500);
  const after = await fake.snapshot();
  assert.equal(after.messages.length, posted, 'nothing posted for a page\'s answer');
  // a message of another channel is refused
  p.send({ type: 'command', channel: '530000000000000099', text: '!illegal join' });
  assert.equal((await p.next((f) => f.type === 'error')).error, 'bad-channel');
  p.ws.close();

  // the ticket: no new code needed
  const q = await page();
  q.send({ type: 'activity', ticket: auth.ticket });
  const again = await q.next((f) => f.type === 'welcome', 8000, 'welcome again');
  assert.equal(again.user, A1);
  assert.equal(again.activity.game, true);
  await q.next((f) => f.type === 'message' && f.kind === 'lobby', 8000, 'the lobby replayed');
  const bad = await page();
  bad.send({ type: 'activity', ticket: 'f'.repeat(48) });
  assert.equal((await bad.next((f) => f.type === 'error')).error, 'activity-bad-ticket');
});

test('presence: the pages of a channel hear who of that channel is online, and no one else', async () => {
  const OTHER = '530000000000000002';
  await fake.call({ op: 'instance', instance: 'i-3-gc-2', channel: OTHER, guild: GUILD, users: [A1, A2] });
  const online = (p, pred, what) => p.next((f) => f.type === 'presence' && pred(f.online), 10000, what);
  const a = await enter(A1, 'ann');
  const b = await enter(A2, 'ben', 'i-3-gc-2');
  await online(b.p, (o) => o.length === 1 && o[0] === A2, 'ben alone in the other channel');
  await online(a.p, (o) => o.includes(A1) && !o.includes(A2), 'ann in hers, without ben');
  const c = await enter(A2, 'ben');
  await online(a.p, (o) => o.includes(A1) && o.includes(A2), 'ben now in ann\'s channel too');
  await online(c.p, (o) => o.includes(A1) && o.includes(A2), 'ben\'s page in ann\'s channel');
  for (const p of [a.p, b.p, c.p]) p.ws.close();
});

test('a Discord that fails and answers slowly, from a seed: pages still get in, as who they are', async () => {
  await fake.call({ op: 'vary', on: true });
  for (let i = 0; i < 4; i++) {
    const { welcome } = await enter(A2, 'ben');
    assert.equal(welcome.user, A2);
    assert.equal(welcome.name, 'ben');
  }
  await fake.call({ op: 'vary', on: false });
  const s = await fake.snapshot();
  assert.ok(s.activity.tokens >= 4);
});

test('launching: the Entry Point command registered globally, answered with LAUNCH_ACTIVITY', async () => {
  let s = await fake.snapshot();
  const global = s.commands.filter((c) => c.path === `/applications/${APP}/commands`).pop();
  assert.ok(global, 'the global commands were registered');
  const entry = JSON.parse(typeof global.body === 'string' ? global.body : JSON.stringify(global.body))
    .filter((c) => c.type === 4);
  assert.equal(entry.length, 1, 'one Entry Point command');
  assert.equal(entry[0].name, 'launch');
  assert.equal(entry[0].handler, 1); // APP_HANDLER: the bot answers it
  const id = fake.id();
  await fake.call({ op: 'launch', id, guild: GUILD, channel: TABLE, user: A1 });
  s = await until(fake, (x) => x.callbacks.some((c) => c.id === id), 'the answer to the Entry Point command');
  const cb = s.callbacks.find((c) => c.id === id);
  assert.equal(cb.type, 12);
  assert.equal(cb.data === undefined || cb.data === null, true);
});

test('secrets: the client secret goes to the token endpoint alone, and no token is logged', async () => {
  const s = await fake.snapshot();
  assert.equal(s.activity.secret_seen, false);
  assert.ok(s.activity.tokens >= 2);
  for (const p of pages) {
    for (const f of p.frames) assert.ok(!JSON.stringify(f).includes(SECRET), 'a page got the client secret');
  }
  const log = daemon.stderr;
  assert.ok(!log.includes(SECRET), 'the log has the client secret');
  for (const p of pages) {
    for (const f of p.frames.filter((x) => x.type === 'authorized')) {
      assert.ok(!log.includes(f.access_token), 'the log has an access token');
      assert.ok(!log.includes(f.ticket), 'the log has a ticket');
    }
  }
  const store = readFileSync(join(dir, 'illegald.db'));
  assert.ok(!store.includes(Buffer.from(SECRET)), 'the store has the client secret');
});

test('HTTPS of its own: with tls_cert and tls_key the listener speaks TLS, the Activity\'s socket too', async () => {
  const tdir = tmp('illegald-act-tls-');
  const cert = join(tdir, 'cert.pem'), key = join(tdir, 'key.pem');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert,
    '-days', '2', '-subj', '/CN=activity.example.org'], { stdio: 'ignore' });
  const tport = await freePort();
  const conf = daemonConfig(tdir, fake, tport);
  appendFileSync(conf, `tls_cert = ${cert}\ntls_key = ${key}\n`);
  const d = await startDaemon(DAEMON, conf);
  try {
    assert.match(d.stderr, /Activity's pages at https:\/\/127\.0\.0\.1:\d+\/ \(TLS\)/);
    const body = await new Promise((resolve, reject) => {
      httpsRequest({ host: '127.0.0.1', port: tport, path: '/.proxy/activity.json', rejectUnauthorized: false }, (res) => {
        let b = '';
        res.on('data', (x) => { b += x; });
        res.on('end', () => resolve(b));
      }).on('error', reject).end();
    });
    assert.deepEqual(JSON.parse(body), { client_id: APP });
    const ws = new WebSocket(`wss://127.0.0.1:${tport}/.proxy/ws`, { headers: { Origin: PROXY_ORIGIN }, rejectUnauthorized: false });
    const first = await new Promise((resolve, reject) => {
      ws.once('open', () => ws.send(JSON.stringify({ type: 'activity', code: 'forged', instance: 'i-1-gc-1' })));
      ws.once('message', (m) => resolve(JSON.parse(String(m))));
      ws.once('error', reject);
    });
    assert.equal(first.error, 'activity-bad-code');
    ws.close();
  } finally {
    const r = await d.stop();
    rmSync(tdir, { recursive: true, force: true });
    assert.equal(r.code, 0, d.stderr.slice(-2000));
  }
});
