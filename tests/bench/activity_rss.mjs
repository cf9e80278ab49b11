// The daemon's memory with the Discord Activity on: RSS idle on the Discord test server, with
// TABLES games open in as many channels, then with more and more Activity pages connected,
// spread evenly over the tables (TABLES = 1: all in one channel), each let in as Discord lets a
// page in (the OAuth2 code exchanged by the daemon, /users/@me, the activity instance), so
// every page holds a socket, a ticket, its table's mirrored lobby and its channel's presence.
// Figures are read (VmRSS, RssAnon of /proc/<pid>), never asserted.
//
//   node tests/bench/activity_rss.mjs ILLEGALD FAKEDISCORD [TABLES] [PAGES,PAGES,...]
//
// Defaults: 20 tables, pages 10,100,1000. Run it on a Release build (make bench does); an ASan
// build's figures are the sanitizer's. ACT_RSS_TRACE=1 prints the daemon's CPU as pages come.
import { readFileSync, appendFileSync, rmSync } from 'node:fs';
import { GUILD, Fake, daemonConfig, freePort, openPage, startDaemon, tmp, until } from '../web/fake.mjs';
import { sleep } from '../web/lib.mjs';

const [DAEMON, FAKE, tablesArg = '20', pagesArg = '10,100,1000'] = process.argv.slice(2);
if (!DAEMON || !FAKE) {
  console.error('usage: activity_rss.mjs ILLEGALD FAKEDISCORD [TABLES] [PAGES,...]');
  process.exit(2);
}
const TABLES = Number(tablesArg);
const STEPS = pagesArg.split(',').map(Number).sort((a, b) => a - b);
const MOST = STEPS[STEPS.length - 1];
const BATCH = 16; // pages let in at once: fewer than the test server's 64 live codes
const TABLE0 = 531000000000000001n; // the tables' channels
const channelOf = (t) => String(TABLE0 + BigInt(t));
const instanceOf = (t) => `i-bench-gc-${t}`;

// Kilobytes of the process's resident memory: all of it and its anonymous part (the heap).
function memory(pid) {
  const field = (text, name) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(text)[1]);
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return { rss: field(status, 'VmRSS'), anon: field(status, 'RssAnon') };
}

// The process's CPU so far in clock ticks: utime + stime of /proc/<pid>/stat.
function cpu(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

// Memory once it stops moving: the daemon answers what is queued, then is read twice alike.
async function settled(pid) {
  let last = memory(pid);
  for (let i = 0; i < 50; i++) {
    await sleep(200);
    const now = memory(pid);
    if (now.rss === last.rss) return now;
    last = now;
  }
  return last;
}

async function openTables(fake) {
  for (let t = 0; t < TABLES; t++) {
    const host = String(620000000000000001n + BigInt(t));
    await fake.call({ op: 'name', user: host, name: `host${t}` });
    await fake.call({ op: 'slash', id: fake.id(), guild: GUILD, channel: channelOf(t),
      user: host, sub: 'new', opts: null, perms: '32' });
  }
  const channels = new Set(Array.from({ length: TABLES }, (_, t) => channelOf(t)));
  await until(fake, (s) => new Set(s.messages.filter((m) => channels.has(m.channel)).map((m) => m.channel)).size === TABLES,
    `${TABLES} lobbies posted`, 120000);
}

const userOf = (i) => String(630000000000000001n + BigInt(i));
let retries = 0;

// Page i, let in by Discord to table i % TABLES: it holds its socket, its ticket and the
// table's lobby mirrored to it.
async function enterOnce(fake, port, i) {
  const { code } = await fake.call({ op: 'code', user: userOf(i), name: `p${i}` });
  const p = await openPage(port);
  const channel = channelOf(i % TABLES);
  p.send({ type: 'activity', code, instance: instanceOf(i % TABLES), lang: 'en' });
  const f = await p.next((x) => x.type === 'welcome' || x.type === 'error', 60000, 'welcome');
  if (f.type !== 'welcome') {
    p.ws.terminate();
    throw new Error(`page ${i} refused: ${JSON.stringify(f)}`);
  }
  await p.next((x) => x.type === 'message' && x.channel === channel, 60000, 'the lobby');
  p.frames.length = 0; // the client's copy is no part of the figure
  return p;
}

// A machine busy elsewhere can stall the daemon past the exchange's 10 s (it then refuses the
// page, as it should): such a page tries again, twice at most, and the retries are counted.
async function enter(fake, port, i) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await enterOnce(fake, port, i);
    } catch (e) {
      if (attempt === 3) throw e;
      retries++;
    }
  }
}

const kb = (k) => `${(k / 1024).toFixed(1)} MB`;
const dir = tmp('illegald-act-rss-');
const fake = await Fake.start(FAKE);
const port = await freePort();
const conf = daemonConfig(dir, fake, port);
appendFileSync(conf, `max_connections = ${MOST + 64}\nmax_per_address = ${MOST + 64}\n`);
const daemon = await startDaemon(DAEMON, conf);
const pid = daemon.proc.pid;
const pages = [];
const rows = [];
try {
  await until(fake, (s) => s.gateway.ready, 'the daemon on the gateway');
  const idle = await settled(pid);
  rows.push(['idle, connected to the gateway, Activity on', idle, '–']);
  await openTables(fake);
  const tables = await settled(pid);
  rows.push([`${TABLES} tables open (a lobby each)`, tables, `${((tables.rss - idle.rss) / TABLES).toFixed(1)} KB a table`]);
  for (let t = 0; t < TABLES; t++) {
    const users = Array.from({ length: MOST }, (_, i) => i).filter((i) => i % TABLES === t).map(userOf);
    await fake.call({ op: 'instance', instance: instanceOf(t), channel: channelOf(t), guild: GUILD, users });
  }
  const t0 = Date.now();
  for (const n of STEPS) {
    while (pages.length < n) {
      const batch = [];
      for (let i = pages.length; i < Math.min(n, pages.length + BATCH); i++) batch.push(enter(fake, port, i));
      pages.push(...(await Promise.all(batch)));
      if (process.env.ACT_RSS_TRACE) console.log(`# ${pages.length} pages at ${Date.now() - t0} ms, daemon CPU ${cpu(pid)} ticks`);
    }
    const m = await settled(pid);
    rows.push([`${n} Activity pages connected (${TABLES === 1 ? 'one table' : `over ${TABLES} tables`})`, m,
      `${((m.rss - tables.rss) / n).toFixed(1)} KB a page`]);
  }
  const secs = (Date.now() - t0) / 1000;
  console.log(`# illegald ${DAEMON}, ${TABLES} tables, pages ${STEPS.join(', ')}; let in: ${MOST} pages in ${secs.toFixed(1)} s, ${retries} retried`);
  console.log('| state | VmRSS | RssAnon (heap) | per table or page |');
  console.log('| --- | ---: | ---: | ---: |');
  for (const [what, m, per] of rows) console.log(`| ${what} | ${kb(m.rss)} | ${kb(m.anon)} | ${per} |`);
  const last = memory(pid);
  for (const p of pages) p.ws.close();
  await sleep(1000);
  const after = await settled(pid);
  console.log(`# after the pages closed: VmRSS ${kb(after.rss)} (was ${kb(last.rss)})`);
} catch (e) {
  console.error(daemon.stderr.split('\n').filter((l) => !/ info /.test(l)).slice(-30).join('\n'));
  throw e;
} finally {
  for (const p of pages) p.ws.terminate();
  const r = await daemon.stop();
  await fake.stop();
  rmSync(dir, { recursive: true, force: true });
  if (r.code !== 0) {
    console.error(daemon.stderr.slice(-4000));
    process.exitCode = 1;
  }
}
