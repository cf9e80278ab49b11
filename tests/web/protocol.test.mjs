// Websocket protocol tests of the web adapter against web_host, a stand-in bot
// that prints every input it gets and answers with scripted messages.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, newToken, sleep, startServer } from './lib.mjs';

const HOST = process.env.WEB_HOST;
if (!HOST) throw new Error('set WEB_HOST to the web_host binary');

const dir = mkdtempSync(join(tmpdir(), 'illegald-web-'));
const stateFile = join(dir, 'state.json');
let server;

before(async () => {
  server = await startServer(HOST, ['--state', stateFile]);
});

after(async () => {
  if (server) {
    const r = await server.stop();
    assert.equal(r.code, 0, `web_host exited ${r.code} ${r.signal}: ${server.stderr}`);
  }
  rmSync(dir, { recursive: true, force: true });
});

const inbound = (pred) => server.lines.filter((l) => l.type === 'inbound' && pred(l));

async function waitInbound(pred, what) {
  for (let i = 0; i < 100; i++) {
    const hit = inbound(pred);
    if (hit.length) return hit[hit.length - 1];
    await sleep(20);
  }
  throw new Error(`no inbound ${what}`);
}

test('serves the page and its files over HTTP, 404 for anything else', async () => {
  const base = `http://127.0.0.1:${server.port}`;
  let r = await fetch(`${base}/`);
  assert.equal(r.status, 200);
  assert.match(r.headers.get('content-type'), /text\/html/);
  assert.match(await r.text(), /<script src="app.js"/);
  r = await fetch(`${base}/app.js`);
  assert.equal(r.status, 200);
  assert.match(r.headers.get('content-type'), /javascript/);
  r = await fetch(`${base}/app.css`);
  assert.equal(r.status, 200);
  // the page's words, one file per language; one the catalog lacks is 404 (the page tries the next)
  r = await fetch(`${base}/catalog/en.json`);
  assert.equal(r.status, 200);
  const en = await r.json();
  assert.equal(en.lang, 'en');
  assert.ok(en.languages.some((l) => l.code === 'en' && l.name === en.name));
  assert.equal(typeof en.texts['page.title'], 'string');
  for (const l of en.languages) assert.equal((await fetch(`${base}/catalog/${l.code}.json`)).status, 200, l.code);
  r = await fetch(`${base}/catalog/xx.json`);
  assert.equal(r.status, 404);
  r = await fetch(`${base}/../../etc/passwd`);
  assert.equal(r.status, 404);
  r = await fetch(`${base}/nope.html`);
  assert.equal(r.status, 404);
});

test('malformed frames get clear errors and the socket goes on', async () => {
  const c = await Client.open(server.port);
  c.send('this is not json');
  await c.error('bad-json');
  c.send('{"type":"hello"');
  await c.error('bad-json');
  c.send('{"type":"hello"} trailing');
  await c.error('bad-json');
  c.send('[1,2,3]');
  await c.error('bad-frame');
  c.send('{"type":42}');
  await c.error('bad-frame');
  c.send('"\\u0000"');
  await c.error('bad-frame');
  c.sendRaw(Buffer.from([1, 2, 3]), { binary: true });
  await c.error('binary');
  c.send(JSON.stringify({ type: 'say', channel: 't', text: 'x'.repeat(9000) }));
  await c.error('too-large');
  // a large message in several websocket fragments is still one frame
  c.ws.send('{"type":', { fin: false });
  c.ws.send('"nonsense"}', { fin: true });
  await c.error('hello-first');
  // deep nesting does not blow the stack
  c.send('['.repeat(4000) + ']'.repeat(4000));
  await c.error('bad-json');
  const w = await c.hello(newToken(), 'Mal');
  assert.equal(w.type, 'welcome');
  c.send({ type: 'launch-missiles' });
  await c.error('unknown-type');
  c.send({ type: 'say', channel: 'bad/table', text: 'hi' });
  await c.error('bad-channel');
  c.send({ type: 'say', channel: null, text: '' });
  await c.error('bad-text');
  c.send({ type: 'say', channel: null, text: 'a\u0000b' });
  await c.error('bad-text');
  c.send({ type: 'react', key: 'nope', reaction: 'x' });
  await c.error('unknown-message');
  c.close();
});

test('a missing hello, a bad token and a bad name are refused', async () => {
  const c = await Client.open(server.port);
  c.send({ type: 'say', channel: 't1', text: '!illegal join' });
  await c.error('hello-first');
  c.send({ type: 'open', channel: 't1' });
  await c.error('hello-first');
  assert.equal((await c.hello('short', 'Bob')).error, 'bad-token');
  assert.equal((await c.hello('bad token with spaces!!!', 'Bob')).error, 'bad-token');
  assert.equal((await c.hello(newToken(), 'two words')).error, 'bad-name');
  assert.equal((await c.hello(newToken(), 'x'.repeat(40))).error, 'bad-name');
  assert.equal((await c.hello(newToken())).error, 'bad-name', 'a new seat needs a name');
  assert.equal(inbound((l) => l.name === 'Bob').length, 0);
  c.close();
});

test('seats: a token is a seat, names are unique, a socket holds one seat', async () => {
  const tokA = newToken();
  const a = await Client.open(server.port);
  const wa = await a.hello(tokA, 'Alice');
  assert.equal(wa.type, 'welcome');
  assert.match(wa.user, /^w[0-9a-f]{16}$/);
  assert.equal(wa.name, 'Alice');
  // the games a new table may play, each with its modes, the default first
  assert.deepEqual(wa.games[0], { id: 'illegal', modes: ['standard', 'advanced', 'casual', 'casual-advanced'],
    mode_keys: 'illegal.variant', min: 4, max: 8 });
  await a.next((f) => f.type === 'tables');

  const b = await Client.open(server.port);
  assert.equal((await b.hello(newToken(), 'alice')).error, 'name-taken');
  const wb = await b.hello(newToken(), 'Bob');
  assert.equal(wb.type, 'welcome');
  assert.notEqual(wb.user, wa.user);
  // the socket is Bob's now: Alice's token cannot take it over
  assert.equal((await b.hello(tokA, 'Alice')).error, 'already-seated');

  // a second socket with Alice's token is Alice (a reload), the name may be omitted
  const a2 = await Client.open(server.port);
  const wa2 = await a2.hello(tokA);
  assert.equal(wa2.user, wa.user);
  assert.equal(wa2.name, 'Alice');

  // every input carries the user of the socket's own seat
  b.send({ type: 'say', channel: 'seats', text: 'hello from bob' });
  const ib = await waitInbound((l) => l.text === 'hello from bob', 'from bob');
  assert.equal(ib.user, wb.user);
  assert.equal(ib.name, 'Bob');
  assert.equal(ib.channel, 'seats');
  assert.equal(ib.moderator, false);
  a.send({ type: 'command', channel: null, text: 'hand' });
  const ia = await waitInbound((l) => l.text === 'hand' && l.kind === 'command', 'from alice');
  assert.equal(ia.user, wa.user);
  assert.equal(ia.channel, null);
  [a, a2, b].forEach((c) => c.close());
});

test('secrets go only to their owner; table messages only to sockets that opened the table', async () => {
  const a = await Client.open(server.port);
  const wa = await a.hello(newToken(), 'Carol');
  const b = await Client.open(server.port);
  const wb = await b.hello(newToken(), 'Dave');
  const outsider = await Client.open(server.port);
  await outsider.hello(newToken(), 'Erin');

  a.send({ type: 'open', channel: 'Secret Table' });
  await a.next((f) => f.type === 'opened' && f.channel === 'secret-table');
  b.send({ type: 'open', channel: 'secret-table' });
  await b.next((f) => f.type === 'opened');

  a.send({ type: 'say', channel: 'secret-table', text: '!illegal secret' });
  const hand = await a.next((f) => f.type === 'message' && f.kind === 'hand');
  assert.equal(hand.dm, true);
  assert.equal(hand.channel, null);
  assert.equal(hand.table, 'secret-table');
  assert.equal(hand.key, `g1/hand/${wa.user}`);
  assert.deepEqual(hand.data.hand, { guns: 2 });
  await b.next((f) => f.type === 'message' && f.text === 'Carol said !illegal secret');

  b.send({ type: 'say', channel: null, text: 'psst' });
  await b.next((f) => f.type === 'message' && f.dm && f.text === 'dm from Dave: psst');
  await sleep(200);
  for (const f of b.frames) assert.doesNotMatch(JSON.stringify(f), /secret hand/);
  for (const f of a.frames) assert.doesNotMatch(JSON.stringify(f), /psst/);
  for (const f of outsider.frames) assert.doesNotMatch(JSON.stringify(f), /secret hand|psst|Carol said/);
  assert.ok(outsider.frames.some((f) => f.type === 'tables' && f.tables.some((t) => t.id === 'secret-table')),
    'the new table is announced in the list of tables');

  assert.ok(!b.frames.some((f) => f.kind === 'hand'), `${wb.user} got no hand`);
  a.close();
  b.close();
  outsider.close();
});

test('a reconnect with the same token gets the seat and its private messages back', async () => {
  const tok = newToken();
  const a = await Client.open(server.port);
  const wa = await a.hello(tok, 'Frank');
  a.send({ type: 'say', channel: 'replay', text: '!illegal secret' });
  await a.next((f) => f.kind === 'hand');
  a.send({ type: 'say', channel: 'replay', text: '!illegal secret' });
  await a.next((f) => f.kind === 'hand');
  a.close();

  const a2 = await Client.open(server.port);
  const w2 = await a2.hello(tok);
  assert.equal(w2.user, wa.user);
  const hands = [];
  await a2.next((f) => f.kind === 'hand');
  await sleep(100);
  hands.push(...a2.frames.filter((f) => f.kind === 'hand'));
  assert.equal(hands.length, 0, 'a replaced message is replayed once, in its latest form');
  a2.send({ type: 'open', channel: 'replay' });
  await a2.next((f) => f.type === 'opened');
  await a2.next((f) => f.kind === 'notice' && f.text === 'Frank said !illegal secret');
  a2.close();

  // someone else never gets Frank's messages replayed
  const other = await Client.open(server.port);
  await other.hello(newToken(), 'Grace');
  other.send({ type: 'open', channel: 'replay' });
  await other.next((f) => f.type === 'opened');
  await sleep(200);
  assert.ok(!other.frames.some((f) => f.kind === 'hand'));
  other.close();
});

test('reactions: only on a message the socket can see, with its table', async () => {
  const a = await Client.open(server.port);
  const wa = await a.hello(newToken(), 'Heidi');
  a.send({ type: 'react', key: 'g1/drop/1', reaction: '🔫' });
  await a.error('unknown-message');
  a.send({ type: 'say', channel: 'drops', text: '!illegal drop' });
  const drop = await a.next((f) => f.kind === 'drop');
  assert.deepEqual(drop.data.choices, [{ emoji: '🔫', card: 'guns' }]);
  assert.equal(drop.form, 'table_view'); // what it is; "kind" is its module's name for it
  a.send({ type: 'react', key: drop.key, reaction: '🔫' });
  const r = await waitInbound((l) => l.kind === 'reaction' && l.user === wa.user, 'reaction');
  assert.equal(r.channel, 'drops');
  assert.equal(r.key, 'g1/drop/1');
  assert.equal(r.reaction, '🔫');
  await a.next((f) => f.text === 'grab by Heidi: 🔫 on g1/drop/1');
  a.close();
});

test('DM probes are answered from the loop', async () => {
  const a = await Client.open(server.port);
  const wa = await a.hello(newToken(), 'Ivan');
  a.send({ type: 'say', channel: 'probe', text: '!illegal probe' });
  for (let i = 0; i < 100 && !server.lines.some((l) => l.type === 'dm_result' && l.user === wa.user); i++)
    await sleep(20);
  const res = server.lines.find((l) => l.type === 'dm_result' && l.user === wa.user);
  assert.ok(res, 'dm_result reported');
  assert.equal(res.reachable, true);
  a.close();
});

test('websockets from another origin or path are refused', async () => {
  await assert.rejects(Client.open(server.port, { Origin: 'http://evil.example' }));
  const ok = await Client.open(server.port, { Origin: `http://127.0.0.1:${server.port}` });
  ok.close();
  await assert.rejects(
    new Promise((resolve, reject) => {
      import('ws').then(({ default: WebSocket }) => {
        const ws = new WebSocket(`ws://127.0.0.1:${server.port}/other`);
        ws.once('open', () => {
          ws.close();
          resolve();
        });
        ws.once('error', reject);
      });
    }),
  );
});

test('a restart keeps seats and tables', async () => {
  const tok = newToken();
  const a = await Client.open(server.port);
  const wa = await a.hello(tok, 'Judy');
  // a game opens at 'kept' (the stand-in bot answers with a phase); 'bare' only was opened
  a.send({ type: 'say', channel: 'kept', text: '!illegal open' });
  await a.next((f) => f.kind === 'notice' && f.channel === 'kept');
  a.send({ type: 'open', channel: 'bare' });
  await a.next((f) => f.type === 'opened');
  a.close();
  const r = await server.stop();
  assert.equal(r.code, 0, server.stderr);
  server = await startServer(HOST, ['--state', stateFile]);
  const a2 = await Client.open(server.port);
  const w2 = await a2.hello(tok);
  assert.equal(w2.user, wa.user);
  assert.equal(w2.name, 'Judy');
  const tables = await a2.next((f) => f.type === 'tables');
  assert.ok(tables.tables.some((t) => t.id === 'kept'));
  assert.ok(!tables.tables.some((t) => t.id === 'bare'), 'a table with no game is not listed');
  assert.equal(tables.tables.find((t) => t.id === 'kept').phase, 'dealing', 'its phase is kept');
  // what the table showed is shown again
  a2.send({ type: 'open', channel: 'kept' });
  await a2.next((f) => f.kind === 'notice' && f.text === 'Judy said !illegal open');
  a2.close();
  // names stay taken after a restart, even before their seat comes back
  const b = await Client.open(server.port);
  assert.equal((await b.hello(newToken(), 'judy')).error, 'name-taken');
  assert.equal((await b.hello(newToken(), 'alice')).error, 'name-taken');
  b.close();
});

test('stored caches that do not read are skipped, never fatal', async () => {
  const r = await server.stop();
  assert.equal(r.code, 0, server.stderr);
  const st = JSON.parse(readFileSync(stateFile, 'utf8'));
  st.tables = JSON.stringify(['kept', 'gone', 5]);
  st['cache-users'] = JSON.stringify(['nobody', 7, null, '']);
  st['cache-user/nobody'] = JSON.stringify({ frames: 7 });
  st['cache-table/gone'] = 'not JSON at all';
  st['cache-table/kept'] = JSON.stringify({
    frames: [5, { key: 3 }, { frame: '{"type":"message","kind":"notice","channel":"kept","text":"kept"}' }],
    phase: 9, players: 'many' });
  writeFileSync(stateFile, JSON.stringify(st));
  server = await startServer(HOST, ['--state', stateFile]);
  const a = await Client.open(server.port);
  await a.hello(newToken(), 'Ken');
  a.send({ type: 'open', channel: 'kept' });
  await a.next((f) => f.kind === 'notice' && f.text === 'kept');
  a.close();
  // the after() hook stops this server and checks that it exits 0
});
