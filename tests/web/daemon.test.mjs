// Websocket protocol tests against the real daemon: actions out of phase, by
// non-players or by non-hosts are refused with a clear answer, and private
// messages (answers, hands) reach only their owner's sockets.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, newToken, sleep, startServer } from './lib.mjs';

const DAEMON = process.env.ILLEGALD;
const dir = mkdtempSync(join(tmpdir(), 'illegald-wsd-'));
let daemon, daemonArgs;
const DAEMON_PORT_RE = /local table at http:\/\/[^ ]+:(\d+)\//;

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

before(async () => {
  if (!DAEMON) throw new Error('set ILLEGALD to the illegald binary');
  const conf = join(dir, 'illegald.conf');
  writeFileSync(conf, `[web]\nenabled = true\nbind = 127.0.0.1\nport = ${await freePort()}\n`);
  daemonArgs = ['--config', conf, '--store', join(dir, 'illegald.db')];
  daemon = await startServer(DAEMON, daemonArgs, { portRe: DAEMON_PORT_RE });
});

after(async () => {
  if (daemon) {
    const r = await daemon.stop();
    assert.equal(r.code, 0, `illegald exited ${r.code} ${r.signal}: ${daemon.stderr.slice(-4000)}`);
  }
  rmSync(dir, { recursive: true, force: true });
});

const isMsg = (kind) => (f) => f.type === 'message' && f.kind === kind;
// A refusal: an error, or a plain notice answering the input (no game event in it).
const refusal = (f) => f.type === 'message' &&
  (f.kind === 'error' || (f.kind === 'notice' && !(f.data && f.data.event) && !/ (joins|leaves) game /.test(f.text)));
const log = [];
// Sends text as c (after letting earlier frames settle) and waits for the answer.
async function refused(c, channel, text) {
  await sleep(150);
  c.frames.length = 0;
  c.send({ type: 'command', channel, text });
  const what = text;
  const f = await c.next(refusal, 5000, `a refusal of ${what}`);
  log.push(`${what}: ${f.kind}${f.dm ? ' (private)' : ''}: ${f.text}`);
  return f;
}

test('actions out of phase, by non-players or by non-hosts are refused; private answers reach the actor only', async () => {
  const names = ['Ann', 'Ben', 'Cid', 'Dee', 'Eve'];
  const cs = [];
  for (const n of names) {
    const c = await Client.open(daemon.port);
    const w = await c.hello(newToken(), n);
    assert.equal(w.type, 'welcome');
    c.user = w.user;
    c.send({ type: 'open', channel: 'phases' });
    await c.next((f) => f.type === 'opened');
    cs.push(c);
  }
  const [ann, ben, , , eve] = cs;

  // no game yet: joining, starting and trading are refused
  await refused(ben, 'phases', '!illegal join');
  await refused(ben, null, 'offer ann 1 guns for nothing');

  ann.send({ type: 'command', channel: 'phases', text: '!illegal new standard' });
  await ann.next(isMsg('lobby'));
  for (const c of cs.slice(0, 4)) {
    c.send({ type: 'command', channel: 'phases', text: '!illegal join' });
  }
  await ann.next((f) => isMsg('lobby')(f) && f.data.players.length === 4, 5000, 'a lobby of 4');

  // in the lobby: a grab, a vote, an offer are out of phase; only the host starts
  const e1 = await refused(ben, 'phases', '!illegal grab guns');
  await refused(ben, null, 'vote ann');
  await refused(ben, 'phases', '!illegal start');
  ann.send({ type: 'command', channel: 'phases', text: '!illegal start' });
  for (const c of cs.slice(0, 4)) c.hand = (await c.next(isMsg('hand'), 10000, 'a hand')).data;

  // dealing: grabbing and voting are out of phase; a non-player cannot trade or moderate
  const e2 = await refused(ben, 'phases', `!illegal grab ${ben.hand.dealer}`);
  assert.doesNotMatch(e2.text, /No card called/);
  await refused(ben, null, 'vote ann');
  await refused(eve, null, `offer ${ann.user} nothing for nothing`);
  await refused(eve, 'phases', '!illegal pause');
  await refused(ben, 'phases', '!illegal end');
  // a reaction to a drop that does not exist is refused by the adapter
  ben.send({ type: 'react', key: 'g1/drop/9', reaction: '🔫' });
  await ben.error('unknown-message');

  await sleep(300);
  if (process.env.WEB_DEBUG) console.log(log.join('\n'));
  // private refusals went to the one who erred only
  assert.equal(ann.frames.filter((f) => isMsg('error')(f) && f.dm).length, 0, 'Ann got no one else\'s error');
  assert.ok(e1.text.length > 0);

  // hands: each player got exactly their own; Eve, not playing, got none
  for (const c of cs.slice(0, 4)) {
    for (const f of c.frames.filter(isMsg('hand'))) assert.equal(f.key.split('/').pop(), c.user);
  }
  assert.equal(eve.frames.filter(isMsg('hand')).length, 0);
  cs.forEach((c) => c.close());
});

// bind = 0.0.0.0, as the README suggests for friends in the room: the log names addresses a
// browser can open (not 0.0.0.0), and a connection is served (it once tripped the sanitizer)
test('a table bound to every interface names its real addresses and serves them', async () => {
  const conf = join(dir, 'any.conf');
  writeFileSync(conf, `[web]\nenabled = true\nbind = 0.0.0.0\nport = ${await freePort()}\n`);
  const any = await startServer(DAEMON, ['--config', conf, '--store', join(dir, 'any.db')], {
    portRe: /local table at http:\/\/127\.0\.0\.1:(\d+)\//,
  });
  try {
    assert.equal((await fetch(`http://127.0.0.1:${any.port}/`)).status, 200);
    const lan = Object.values(networkInterfaces()).flat()
      .filter((i) => i.family === 'IPv4' && !i.internal).map((i) => i.address);
    await sleep(100);
    for (const ip of lan) {
      assert.ok(any.stderr.includes(`open http://${ip}:${any.port}/`), `no line for ${ip}: ${any.stderr}`);
      assert.equal((await fetch(`http://${ip}:${any.port}/`)).status, 200);
    }
    assert.ok(!any.stderr.includes('http://0.0.0.0'));
  } finally {
    const r = await any.stop();
    assert.equal(r.code, 0, `illegald exited ${r.code} ${r.signal}: ${any.stderr.slice(-4000)}`);
  }
});

// Pages for each name, each with its token, seated and following table.
async function seated(names, table) {
  const cs = [];
  for (const n of names) {
    const c = await Client.open(daemon.port);
    c.token = newToken();
    c.user = (await c.hello(c.token, n)).user;
    c.send({ type: 'open', channel: table });
    await c.next((f) => f.type === 'opened');
    cs.push(c);
  }
  return cs;
}

// A finished game's table keeps its results for anyone who opens it later, even
// once every player has left and after a restart.
test('the results of a finished game stay at its table after everyone left, and after a restart', async () => {
  const cs = await seated(['Fay', 'Gus', 'Hal', 'Ivy'], 'finished');
  const [host] = cs;
  host.send({ type: 'command', channel: 'finished', text: '!illegal new' });
  await host.next(isMsg('lobby'));
  for (const c of cs) c.send({ type: 'command', channel: 'finished', text: '!illegal join' });
  await host.next((f) => isMsg('lobby')(f) && f.data.players.length === 4, 5000, 'a lobby of 4');
  host.send({ type: 'command', channel: 'finished', text: '!illegal start' });
  await host.next(isMsg('hand'), 10000, 'a hand');
  host.send({ type: 'command', channel: 'finished', text: '!illegal end' });
  const result = await host.next(isMsg('result'), 10000, 'the results');
  assert.equal(result.data.reveal.length, 4);
  cs.forEach((c) => c.close());
  await sleep(300);

  const look = async (when, name) => {
    const c = await Client.open(daemon.port);
    const w = await c.hello(newToken(), name);
    assert.equal(w.type, 'welcome', JSON.stringify(w));
    const list = await c.next((f) => f.type === 'tables', 5000, `the list of tables ${when}`);
    const t = list.tables.find((x) => x.id === 'finished');
    assert.ok(t, `the table is listed: ${JSON.stringify(list)}`);
    assert.equal(t.phase, 'over');
    c.send({ type: 'open', channel: 'finished' });
    const again = await c.next(isMsg('result'), 5000, 'the results, replayed');
    assert.deepEqual(again.data.reveal, result.data.reveal);
    c.close();
  };
  await look('once everyone left', 'Kim');
  const r = await daemon.stop();
  assert.equal(r.code, 0, `illegald exited ${r.code} ${r.signal}: ${daemon.stderr.slice(-4000)}`);
  daemon = await startServer(DAEMON, daemonArgs, { portRe: DAEMON_PORT_RE });
  await look('after a restart', 'Lou');
});

// A network blip: a page that loses its socket mid-game and connects again with its
// token is sent its whole view again: its hand, the offers waiting for it, the table.
test('a page that reconnects mid-game gets its hand, its offers and its table back', async () => {
  const cs = await seated(['Mo', 'Ned', 'Oz', 'Pia'], 'blip');
  const [mo, ned] = cs;
  mo.send({ type: 'command', channel: 'blip', text: '!illegal new' });
  await mo.next(isMsg('lobby'));
  for (const c of cs) c.send({ type: 'command', channel: 'blip', text: '!illegal join' });
  await mo.next((f) => isMsg('lobby')(f) && f.data.players.length === 4, 5000, 'a lobby of 4');
  mo.send({ type: 'command', channel: 'blip', text: '!illegal start' });
  for (const c of cs) c.hand = await c.next(isMsg('hand'), 10000, 'a hand');
  ned.close();
  await sleep(200);
  mo.send({ type: 'command', channel: null, text: `offer ${ned.user} 1 ${mo.hand.data.dealer} for nothing` });
  await mo.next((f) => isMsg('offer')(f) && f.dm, 5000, 'the offer sent');

  const back = await Client.open(daemon.port);
  const w = await back.hello(ned.token);
  assert.equal(w.type, 'welcome', JSON.stringify(w));
  assert.equal(w.user, ned.user);
  const hand = await back.next(isMsg('hand'), 5000, 'the hand, replayed');
  assert.deepEqual(hand.data, ned.hand.data);
  const offer = await back.next(isMsg('offer'), 5000, 'the offer, replayed');
  assert.equal(offer.data.from.id, mo.user);
  back.send({ type: 'open', channel: 'blip' });
  const status = await back.next((f) => isMsg('notice')(f) && f.data && f.data.phase === 'dealing',
    5000, 'the table, replayed');
  assert.ok(status.data.deadline > 0);
  back.close();
  cs.forEach((c) => c.close());
});

// Text typed at a web table that is no command is its chat; the chat belongs to the table's
// game, so with none it is answered (in private) and shown to nobody. A private command typed
// there is answered in private and never shown.
test('the table chat: kept with a game, refused without one; private commands stay private', async () => {
  const [a, b] = [await Client.open(daemon.port), await Client.open(daemon.port)];
  for (const [c, n] of [[a, 'Chat1'], [b, 'Chat2']]) {
    c.user = (await c.hello(newToken(), n)).user;
    c.send({ type: 'open', channel: 'talk' });
    await c.next((f) => f.type === 'opened');
  }
  a.send({ type: 'say', channel: 'talk', text: 'anyone here?' });
  const none = await a.next((f) => f.type === 'message' && f.dm, 5000, 'the answer');
  assert.equal(none.data.say[0].key, 'msg.chat-no-game');
  a.send({ type: 'command', channel: 'talk', text: '!illegal new' });
  await a.next(isMsg('lobby'));
  b.send({ type: 'say', channel: 'talk', text: '  hello\u0007 there\nfriend  ' });
  const chat = await a.next((f) => f.type === 'message' && f.data && f.data.event === 'chat', 5000, 'the chat');
  assert.deepEqual(chat.data.lines.map((l) => [l.from.id, l.text]), [[b.user, 'hello there friend']], 'cleaned like a name');
  assert.match(chat.key, /^g\d+\/chat$/);
  b.send({ type: 'say', channel: 'talk', text: 'offer chat1 1 guns for nothing' });
  const private_ = await b.next((f) => f.type === 'message' && f.dm && f.data && f.data.say, 5000, 'the private answer');
  assert.equal(private_.data.say[0].key, 'msg.private-at-table');
  await sleep(300);
  for (const c of [a, b]) assert.ok(!c.frames.some((f) => /offer chat1/.test(JSON.stringify(f))), 'the private command was shown');
  // bounded: the last GAME_CHAT_LINES lines are kept
  for (let i = 0; i < 25; i++) a.send({ type: 'say', channel: 'talk', text: `line ${i}` });
  const last = await b.next((f) => f.type === 'message' && f.data && f.data.event === 'chat' &&
    f.data.lines.some((l) => l.text === 'line 24'), 10000, 'the last line');
  assert.equal(last.data.lines.length, 20);
  assert.equal(last.data.lines[0].text, 'line 5');
  a.close();
  b.close();
});

// With no platform configured the daemon says how to configure one and fails, rather than
// exiting 0 as if it had served.
test('with no platform to play on the daemon explains and exits 2', async () => {
  const conf = join(dir, 'none.conf');
  writeFileSync(conf, '[web]\nenabled = false\n');
  const { spawnSync } = await import('node:child_process');
  const r = spawnSync(DAEMON, ['--config', conf, '--store', join(dir, 'none.db')], { encoding: 'utf8', timeout: 30000 });
  assert.equal(r.status, 2, r.stderr);
  assert.match(r.stderr, /has no platform to play on/);
});
