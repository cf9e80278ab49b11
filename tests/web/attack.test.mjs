// The local table under attack, against web_host (the real adapter under a
// stand-in bot) with small limits from a --config file. Each test attacks
// from other loopback addresses (127.0.0.2 and up are other clients) and then
// checks that the limit held and that a player at 127.0.0.1 can still play.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, newToken, sleep, startServer } from './lib.mjs';

const HOST = process.env.WEB_HOST;
if (!HOST) throw new Error('set WEB_HOST to the web_host binary');

const dirs = [];
const hosts = []; // every web_host started: one a failed test left running is killed at the end
after(() => {
  for (const h of hosts) if (h.proc.exitCode === null && h.proc.signalCode === null) h.proc.kill('SIGKILL');
  dirs.forEach((d) => rmSync(d, { recursive: true, force: true }));
});

// Starts web_host with these [web] settings; fdLimit runs it under `ulimit -n`.
async function startHost(settings, { fdLimit, dir } = {}) {
  if (!dir) {
    dir = mkdtempSync(join(tmpdir(), 'illegald-web-attack-'));
    dirs.push(dir);
  }
  const config = join(dir, 'illegald.conf');
  writeFileSync(config, `[web]\n${settings}\n`);
  const stateFile = join(dir, 'state.json');
  const args = ['--config', config, '--state', stateFile];
  const server = fdLimit
    ? await startServer('sh', ['-c', `ulimit -n ${fdLimit} && exec "$0" "$@"`, HOST, ...args])
    : await startServer(HOST, args);
  server.dir = dir;
  server.state = () => JSON.parse(readFileSync(stateFile, 'utf8')); // (written whole, renamed)
  hosts.push(server);
  return server;
}

async function stopHost(server) {
  const killer = setTimeout(() => server.proc.kill('SIGKILL'), 15000);
  const r = await server.stop();
  clearTimeout(killer);
  assert.equal(r.code, 0, `web_host exited ${r.code} ${r.signal}: ${server.stderr.slice(-2000)}`);
}

async function waitFor(cond, what, ms = 8000) {
  for (let t = 0; t < ms; t += 20) {
    if (cond()) return;
    await sleep(20);
  }
  throw new Error(`timed out waiting for ${what}`);
}

// A player at 127.0.0.1 loads the page, takes a seat and is answered at a table.
let players = 0;
async function play(port, name = `Player${++players}`) {
  const page = await getPage(port, `127.0.0.1:${port}`);
  assert.equal(page.status, 200, 'the page loads');
  const c = await Client.open(port);
  const w = await c.hello(newToken(), name);
  assert.equal(w.type, 'welcome', JSON.stringify(w));
  c.send({ type: 'say', channel: 'home', text: '!illegal join' });
  await c.next((f) => f.kind === 'notice' && f.text === `${name} said !illegal join`, 5000, 'an answer');
  c.close();
}

// GET / with this Host header: resolves {status}.
function getPage(port, host, localAddress = '127.0.0.1') {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path: '/', localAddress, headers: { Host: host }, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode }));
    });
    req.on('error', reject);
    req.setTimeout(5000, () => req.destroy(new Error(`no answer to GET / with Host ${host}`)));
  });
}

// n TCP connections from localAddress that send half a request and wait.
function halfOpen(port, localAddress, n) {
  const socks = [];
  const state = { closed: 0, connected: 0 };
  for (let i = 0; i < n; i++) {
    const s = net.connect({ port, host: '127.0.0.1', localAddress });
    s.on('error', () => {});
    s.on('connect', () => {
      state.connected++;
      s.write(`GET / HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n`);
    });
    s.on('close', () => state.closed++);
    socks.push(s);
  }
  state.settled = () => state.closed + state.connected >= n && socks.every((s) => !s.connecting);
  state.held = () => socks.filter((s) => !s.destroyed && !s.connecting && s.readyState === 'open').length;
  state.destroy = () => socks.forEach((s) => s.destroy());
  return state;
}

test('half-open HTTP connections: capped per address and in all; a player still plays', async () => {
  const server = await startHost('max_connections = 24\nmax_per_address = 6');
  const one = halfOpen(server.port, '127.0.0.2', 40);
  await waitFor(() => one.closed >= 34, 'the connections over the cap closed');
  await sleep(300);
  assert.equal(one.closed, 34, 'six connections from 127.0.0.2 stay, the others are closed');
  await play(server.port);

  // seven more addresses: the total holds at 24 (a player's connections count too)
  const many = [];
  for (let a = 3; a < 10; a++) many.push(halfOpen(server.port, `127.0.0.${a}`, 6));
  await waitFor(() => many.every((m) => m.closed + m.connected >= 6), 'every attempt answered');
  await sleep(300);
  const held = one.held() + many.reduce((n, m) => n + m.held(), 0);
  assert.ok(held <= 24, `at most 24 connections held, got ${held}`);
  assert.ok(held >= 20, `the cap is not too low: ${held}`);
  [one, ...many].forEach((m) => m.destroy());
  await sleep(200);
  await play(server.port);
  await stopHost(server);
});

test('with few descriptors, connections stay under the limit: no accept() errors, no log flood', async () => {
  // 64 descriptors leave room for 32 connections; 120 are tried from 12 addresses
  const server = await startHost('max_connections = 512', { fdLimit: 64 });
  assert.match(server.stderr, /max_connections 512 is over what 64 descriptors allow/);
  const attackers = [];
  for (let a = 2; a < 14; a++) attackers.push(halfOpen(server.port, `127.0.0.${a}`, 10));
  await waitFor(() => attackers.every((m) => m.closed + m.connected >= 10), 'every attempt answered');
  await sleep(500);
  const held = attackers.reduce((n, m) => n + m.held(), 0);
  assert.ok(held <= 32, `at most 32 connections held, got ${held}`);
  assert.doesNotMatch(server.stderr, /accept: errno/);
  const lines = server.stderr.split('\n').length;
  assert.ok(lines < 200, `the log stays short: ${lines} lines`);
  attackers.forEach((m) => m.destroy());
  await sleep(200);
  await play(server.port);
  await stopHost(server);
});

test('silent websockets: a hello deadline, a cap per address, and idle sockets closed', async () => {
  const server = await startHost('hello_seconds = 1\nidle_seconds = 2\nmax_per_address = 6');
  const silent = [];
  for (let i = 0; i < 6; i++) silent.push(await Client.open(server.port, {}, { localAddress: '127.0.0.3' }));
  await assert.rejects(Client.open(server.port, {}, { localAddress: '127.0.0.3' }), 'a seventh socket from one address is refused');
  await play(server.port);
  await waitFor(() => silent.every((c) => c.closed), 'sockets that never said hello closed', 5000);

  // a seated socket that stops answering pings is closed; a live one stays
  const dead = await Client.open(server.port, {}, { localAddress: '127.0.0.4', autoPong: false });
  assert.equal((await dead.hello(newToken(), 'Sleepy')).type, 'welcome');
  const live = await Client.open(server.port, {}, { localAddress: '127.0.0.4' });
  assert.equal((await live.hello(newToken(), 'Awake')).type, 'welcome');
  await waitFor(() => dead.closed, 'the silent seated socket closed', 8000);
  assert.equal(live.closed, false, 'a socket that answers pings stays open');
  live.send({ type: 'say', channel: 'home', text: 'still here' });
  await live.next((f) => f.text === 'Awake said still here');
  live.close();
  await stopHost(server);
});

test('table churn: tables are listed once a game opens, dropped when empty, capped per seat', async () => {
  const server = await startHost('tables_per_seat = 3');
  const c = await Client.open(server.port);
  await c.hello(newToken(), 'Churner');
  for (let i = 0; i < 300; i++) {
    c.send({ type: 'open', channel: `churn-${i}` });
    c.send({ type: 'close', channel: `churn-${i}` });
  }
  await c.next((f) => f.type === 'closed' && f.channel === 'churn-299', 20000, 'the last close');
  c.frames.length = 0;
  c.send({ type: 'tables' });
  let list = await c.next((f) => f.type === 'tables', 5000, 'tables');
  assert.deepEqual(list.tables, [], 'no table was listed');
  assert.ok(!String(server.state().tables ?? '').includes('churn'), 'nor stored');

  // three new tables at once, not a fourth until a game opens at one
  for (const t of ['new-a', 'new-b', 'new-c']) {
    c.send({ type: 'open', channel: t });
    await c.next((f) => f.type === 'opened' && f.channel === t);
  }
  c.send({ type: 'open', channel: 'new-d' });
  await c.error('too-many-tables');
  c.send({ type: 'say', channel: 'new-a', text: '!illegal open' });
  await c.next((f) => f.type === 'tables' && f.tables.some((t) => t.id === 'new-a'), 5000, 'new-a listed');
  c.send({ type: 'open', channel: 'new-d' });
  await c.next((f) => f.type === 'opened' && f.channel === 'new-d');
  c.close();

  // across a restart, only the table with a game is listed
  await stopHost(server);
  const again = await startHost('tables_per_seat = 3', { dir: server.dir });
  const d = await Client.open(again.port);
  await d.hello(newToken(), 'Looker');
  list = await d.next((f) => f.type === 'tables');
  assert.deepEqual(list.tables.map((t) => t.id), ['new-a']);
  d.close();
  await play(again.port);
  await stopHost(again);
});

test('seat churn: renames leave no rows behind; refused hellos make no seat', async () => {
  const server = await startHost('');
  const tok = newToken();
  const c = await Client.open(server.port);
  for (let i = 0; i < 100; i++) assert.equal((await c.hello(tok, `r${i}`)).type, 'welcome');
  const keys = (prefix) => Object.keys(server.state()).filter((k) => k.startsWith(prefix));
  // a seat's row holds its name: no row of its own per name
  assert.deepEqual(keys('name:'), []);
  assert.equal(keys('seat:').length, 1);
  assert.equal(JSON.parse(server.state()[keys('seat:')[0]]).name, 'r99');
  // an old name is free again
  const other = await Client.open(server.port);
  assert.equal((await other.hello(newToken(), 'r0')).type, 'welcome');
  other.close();
  // refused hellos with fresh tokens store nothing
  for (let i = 0; i < 50; i++) {
    const r = await Client.open(server.port);
    assert.equal((await r.hello(newToken(), 'r99')).error, 'name-taken');
    assert.equal((await r.hello(newToken())).error, 'bad-name');
    r.close();
  }
  assert.equal(keys('seat:').length, 2);
  assert.equal(keys('name:').length, 0);
  c.close();
  await play(server.port);
  await stopHost(server);
});

// One address made 5,000 seats in 18 s, and seats and their names were never released, so
// common names could be squatted (issue 33). Each address makes at most seats_per_address
// seats; a seat that never played (no table opened, nothing typed) is forgotten
// unused_seat_seconds after its last visit, and its name is free again.
test('seats: capped per address; unused seats are forgotten and free their names', { timeout: 60000 }, async () => {
  const settings = 'seats_per_address = 3\nunused_seat_seconds = 2';
  const server = await startHost(settings);
  const from = (n) => ({ localAddress: `127.0.0.${n}` });
  const open = (n) => Client.open(server.port, {}, from(n));
  // 127.0.0.9 makes three seats; a fourth is refused, and stores nothing
  const tokens = [];
  for (let i = 0; i < 3; i++) {
    const c = await open(9);
    tokens.push(newToken());
    assert.equal((await c.hello(tokens[i], `Squat${i}`)).type, 'welcome');
    c.close();
  }
  const extra = await open(9);
  assert.equal((await extra.hello(newToken(), 'Squat3')).error, 'too-many-seats');
  // its own seats still sit down, and another address makes its own
  assert.equal((await extra.hello(tokens[0])).type, 'welcome');
  extra.close();
  const seats = () => Object.keys(server.state()).filter((k) => k.startsWith('seat:')).length;
  assert.equal(seats(), 3);
  // a seat that plays (opens a table) is kept; the others are forgotten once unused
  const player = await open(9);
  assert.equal((await player.hello(tokens[1])).type, 'welcome');
  player.send({ type: 'open', channel: 'kept' });
  await player.next((f) => f.type === 'opened');
  player.close();
  await waitFor(() => seats() === 1, 'the unused seats to be forgotten', 15000);
  // their names are free again, and the address may make seats again
  const other = await open(10);
  assert.equal((await other.hello(newToken(), 'Squat0')).type, 'welcome');
  const again = await open(9);
  assert.equal((await again.hello(newToken(), 'Squat2')).type, 'welcome');
  // the forgotten token has no seat (and no name) any more; the kept one has both
  const old = await open(9);
  assert.equal((await old.hello(tokens[0])).error, 'bad-name');
  assert.equal((await old.hello(newToken(), 'Squat1')).error, 'name-taken');
  // a held seat is never forgotten, however long it sits
  await sleep(3000);
  assert.equal(seats(), 3, 'the played seat and the two held ones');
  assert.equal((await other.hello(newToken(), 'x')).error, 'already-seated');
  other.send({ type: 'tables' });
  await other.next((f) => f.type === 'tables');
  // the count per address survives a restart: the store has the seats
  for (const c of [other, again, old]) c.close();
  await stopHost(server);
  const back = await startHost(settings, { dir: server.dir });
  const counted = [];
  for (let i = 0; i < 3; i++) {
    const c = await Client.open(back.port, {}, from(11));
    counted.push((await c.hello(newToken(), `Late${i}`)).type);
    c.close();
  }
  assert.deepEqual(counted, ['welcome', 'welcome', 'welcome']);
  const late = await Client.open(back.port, {}, from(11));
  assert.equal((await late.hello(newToken(), 'Late3')).error, 'too-many-seats');
  late.close();
  await play(back.port);
  await stopHost(back);
});

test('DNS rebinding: only the configured Host names are served', async () => {
  let server = await startHost('');
  const port = server.port;
  assert.equal((await getPage(port, `evil.example:${port}`)).status, 403);
  assert.equal((await getPage(port, `127.0.0.1:1`)).status, 403, 'another port');
  assert.equal((await getPage(port, `localhost:${port}`)).status, 200);
  assert.equal((await getPage(port, `[::1]:${port}`)).status, 200);
  // a rebound name: the page's Origin equals Host, and both name another site
  await assert.rejects(Client.open(port, { Host: `evil.example:${port}`, Origin: `http://evil.example:${port}` }));
  const ok = await Client.open(port, { Host: `localhost:${port}`, Origin: `http://localhost:${port}` });
  ok.close();
  await play(port);
  await stopHost(server);

  server = await startHost('hosts = table.lan, 127.0.0.1');
  assert.equal((await getPage(server.port, `table.lan:${server.port}`)).status, 200);
  assert.equal((await getPage(server.port, `localhost:${server.port}`)).status, 403, 'not listed');
  await play(server.port);
  await stopHost(server);
});

test('slow readers: output queued to all sockets stays under queue_bytes', async () => {
  const limit = 1 << 20;
  const server = await startHost(`queue_bytes = ${limit}`);
  // 256 messages of 2 KB at one table: its replay is half a megabyte
  const host = await Client.open(server.port);
  await host.hello(newToken(), 'Talker');
  for (let i = 0; i < 256; i++)
    host.send({ type: 'say', channel: 'flood', text: `${i} ${'x'.repeat(1900)}` });
  await host.next((f) => f.text?.startsWith('Talker said 255 '), 20000, 'the last message');

  // readers that never read, asking for the replay again and again
  const slow = [];
  for (let i = 0; i < 3; i++) {
    const s = await Client.open(server.port, {}, { localAddress: '127.0.0.5' });
    await s.hello(newToken(), `Slow${i}`);
    s.ws._socket.pause();
    slow.push(s);
  }
  for (let round = 0; round < 40; round++)
    for (const s of slow) {
      s.send({ type: 'open', channel: 'flood' });
      s.send({ type: 'close', channel: 'flood' });
    }
  await waitFor(() => /\(queue_bytes\)/.test(server.stderr), 'a slow reader dropped for queue_bytes', 20000);
  const totals = [...server.stderr.matchAll(/bytes queued, (\d+) to all sockets/g)].map((m) => Number(m[1]));
  assert.ok(totals.length > 0);
  for (const t of totals) assert.ok(t <= limit, `${t} bytes queued in all, over ${limit}`);
  slow.forEach((s) => s.ws.terminate());
  host.send({ type: 'say', channel: 'flood', text: 'after' });
  await host.next((f) => f.text === 'Talker said after', 5000, 'an answer after the flood');
  host.close();
  await play(server.port);
  await stopHost(server);
});
