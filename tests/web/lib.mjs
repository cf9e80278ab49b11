// Helpers shared by the web tests: start a server process, talk to its websocket.
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { randomBytes } from 'node:crypto';
import WebSocket from 'ws';

// Starts a process that prints a line matching portRe once it listens.
// Returns {port, proc, lines, stop()}; lines collects every JSON line of stdout.
export function startServer(cmd, args, { portRe = /^PORT (\d+)$/, env = {}, timeoutMs = 20000 } = {}) {
  return new Promise((resolve, reject) => {
    const proc = spawn(cmd, args, { env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
    const lines = [];
    let stderr = '';
    let port = 0;
    let buf = '';
    const onLine = (line) => {
      const m = portRe.exec(line);
      // the port line itself
      if (m && !port) {
        port = Number(m[1]);
        clearTimeout(timer);
        resolve(server);
        return;
      }
      try {
        lines.push(JSON.parse(line));
      } catch {
        /* not a JSON line */
      }
    };
    proc.stdout.on('data', (d) => {
      buf += d;
      let i;
      while ((i = buf.indexOf('\n')) >= 0) {
        onLine(buf.slice(0, i));
        buf = buf.slice(i + 1);
      }
    });
    proc.stderr.on('data', (d) => {
      stderr += d;
      for (const line of String(d).split('\n')) {
        const m = portRe.exec(line);
        if (m && !port) onLine(m[0]);
      }
    });
    const exited = new Promise((res) => proc.on('exit', (code, signal) => res({ code, signal })));
    const server = {
      get port() {
        return port;
      },
      proc,
      lines,
      get stderr() {
        return stderr;
      },
      exited,
      async stop() {
        if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGTERM');
        const r = await exited;
        return r;
      },
    };
    const timer = setTimeout(() => {
      proc.kill('SIGKILL');
      reject(new Error(`server did not start: ${stderr}`));
    }, timeoutMs);
    proc.on('exit', (code) => {
      if (!port) {
        clearTimeout(timer);
        reject(new Error(`server exited ${code}: ${stderr}`));
      }
    });
  });
}

export function newToken() {
  return randomBytes(24).toString('base64url');
}

// A websocket client that records every frame and waits for the ones it needs.
export class Client {
  // opts go to ws: localAddress (another loopback address is another client), autoPong
  static open(port, headers = {}, opts = {}) {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(`ws://127.0.0.1:${port}/ws`, { headers, handshakeTimeout: 5000, ...opts });
      const c = new Client(ws);
      ws.once('open', () => resolve(c));
      ws.once('error', reject);
      ws.once('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
    });
  }

  constructor(ws) {
    this.ws = ws;
    this.frames = [];
    this.waiters = [];
    this.closed = false;
    ws.on('message', (data, isBinary) => {
      const f = isBinary ? { type: '<binary>' } : JSON.parse(String(data));
      this.frames.push(f);
      this.waiters = this.waiters.filter((w) => !w(f));
    });
    ws.on('close', () => {
      this.closed = true;
    });
  }

  send(obj) {
    this.ws.send(typeof obj === 'string' ? obj : JSON.stringify(obj));
  }

  sendRaw(data, opts) {
    this.ws.send(data, opts);
  }

  // Resolves with the first frame (already received or to come) matching pred.
  next(pred, timeoutMs = 5000, what = 'a frame') {
    const seen = this.frames.find(pred);
    if (seen) {
      this.frames.splice(this.frames.indexOf(seen), 1);
      return Promise.resolve(seen);
    }
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}; got ${JSON.stringify(this.frames)}`)), timeoutMs);
      this.waiters.push((f) => {
        if (!pred(f)) return false;
        clearTimeout(timer);
        this.frames.splice(this.frames.indexOf(f), 1);
        resolve(f);
        return true;
      });
    });
  }

  error(code, timeoutMs) {
    return this.next((f) => f.type === 'error' && f.error === code, timeoutMs, `error ${code}`);
  }

  async hello(token, name) {
    this.send({ type: 'hello', token, name });
    return this.next((f) => f.type === 'welcome' || f.type === 'error', 5000, 'welcome');
  }

  close() {
    this.ws.close();
  }
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// A TCP port free on loopback now, for a server the test starts.
export function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}
