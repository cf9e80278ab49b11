// The Discord test server (tests/discord/fakediscord_serve) and the daemon set up to play
// on it with the Activity on: what the Activity's tests share.
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { freePort, sleep, startServer } from './lib.mjs';

export { freePort };

export const APP = '900000000000000002'; // FD_APP_ID
export const GUILD = '700000000000000001'; // FD_GUILD_ID
export const TABLE = '530000000000000001';
export const SECRET = 'client-secret-' + Math.random().toString(36).slice(2);
export const PROXY_ORIGIN = `https://${APP}.discordsays.com`;

// The test server, asked one JSON line at a time.
export class Fake {
  static async start(path) {
    const f = new Fake(spawn(path, [], { stdio: ['pipe', 'pipe', 'pipe'] }));
    f.port = (await f.call({ op: 'port' })).port;
    // the variation's seed, so that a failure replays (FD_SEED=<n>)
    const seed = /variation seed (\d+)/.exec(f.stderr);
    console.log(`# fakediscord variation seed ${seed ? seed[1] : '?'} (FD_SEED=<n> replays it)`);
    await f.call({ op: 'client', id: APP, secret: SECRET });
    await f.call({ op: 'activities', on: true }); // the app has Activities enabled
    return f;
  }

  constructor(proc) {
    this.proc = proc;
    this.stderr = '';
    this.queue = [];
    this.ids = 820000000000000001n;
    let buf = '';
    proc.stdout.on('data', (d) => {
      buf += d;
      let i;
      while ((i = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, i);
        buf = buf.slice(i + 1);
        const w = this.queue.shift();
        if (w) w(JSON.parse(line));
      }
    });
    proc.stderr.on('data', (d) => { this.stderr += d; if (process.env.FA_DEBUG) process.stderr.write(d); });
    this.chain = Promise.resolve();
  }

  // One request and its answer, in the order asked.
  call(obj) {
    const p = this.chain.then(() => new Promise((resolve) => {
      this.queue.push(resolve);
      this.proc.stdin.write(JSON.stringify(obj) + '\n');
    }));
    this.chain = p.catch(() => {});
    return p;
  }

  id() { return String(this.ids++); }

  async stop() {
    await this.call({ op: 'quit' });
    await new Promise((r) => this.proc.once('exit', r));
  }

  snapshot() { return this.call({ op: 'snapshot' }); }
}

// The daemon's config: Discord on the test server, the Activity on, the web listener on
// port, the client secret from a file (as secrets should arrive).
export function daemonConfig(dir, fake, port, game = '') {
  const secret = join(dir, 'client_secret');
  writeFileSync(secret, SECRET + '\n');
  const conf = join(dir, 'illegald.conf');
  writeFileSync(conf, `[store]\npath = ${join(dir, 'illegald.db')}\n[log]\nlevel = ${process.env.WEB_DEBUG ? "debug" : "info"}\n[game]\n${game}` +
    `[discord]\ntoken = test-token\napplication_id = ${APP}\n` +
    `api_url = http://127.0.0.1:${fake.port}/api/v10\ngateway_url = ws://127.0.0.1:${fake.port}\n` +
    `guilds = ${GUILD}\nactivity = on\nclient_secret_file = ${secret}\n` +
    `[web]\nbind = 127.0.0.1\nport = ${port}\nhosts = 127.0.0.1, activity.example.org\n`);
  return conf;
}

export const DAEMON_PORT_RE = /Activity's pages at https?:\/\/[^ ]+:(\d+)\//;

export async function startDaemon(path, conf, seed = '4242') {
  const d = await startServer(path, ['--config', conf, '--seed', seed], { portRe: DAEMON_PORT_RE });
  return d;
}

export function tmp(prefix) {
  return mkdtempSync(join(tmpdir(), prefix));
}

// A socket of a page inside Discord, through the proxy's path and origin.
export function openPage(port, { origin = PROXY_ORIGIN, path = '/.proxy/ws' } = {}) {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}${path}`, { headers: { Origin: origin }, handshakeTimeout: 5000 });
    const frames = [];
    const waiters = [];
    const page = {
      ws, frames, closed: false,
      send(o) { ws.send(JSON.stringify(o)); },
      next(pred, ms = 8000, what = 'a frame') {
        const seen = frames.find(pred);
        if (seen) return Promise.resolve(seen);
        return new Promise((res, rej) => {
          const t = setTimeout(() => rej(new Error(`timed out waiting for ${what}; got ${JSON.stringify(frames).slice(-3000)}`)), ms);
          waiters.push((f) => {
            if (!pred(f)) return false;
            clearTimeout(t);
            res(f);
            return true;
          });
        });
      },
      whenClosed(ms = 8000) {
        if (page.closed) return Promise.resolve();
        return new Promise((res, rej) => {
          const t = setTimeout(() => rej(new Error('the socket stayed open')), ms);
          ws.once('close', () => { clearTimeout(t); res(); });
        });
      },
    };
    ws.on('message', (data) => {
      const f = JSON.parse(String(data));
      frames.push(f);
      for (let i = waiters.length - 1; i >= 0; i--) if (waiters[i](f)) waiters.splice(i, 1);
    });
    ws.on('close', () => { page.closed = true; });
    ws.once('open', () => resolve(page));
    ws.once('error', reject);
    ws.once('unexpected-response', (_q, res) => reject(new Error(`HTTP ${res.statusCode}`)));
  });
}

// Waits until pred(snapshot) is true.
export async function until(fake, pred, what, ms = 120000) {
  const end = Date.now() + ms;
  let s;
  while (Date.now() < end) {
    s = await fake.snapshot();
    if (pred(s)) return s;
    await sleep(100);
  }
  throw new Error(`timed out waiting for ${what}`);
}
