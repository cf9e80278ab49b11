// The browser every page test drives: Debian's Chromium through playwright-core,
// headless, with nothing of its own reaching for the network.
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { chromium } from 'playwright-core';

const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';

export function launchChromium() {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync'],
  });
}

// A page test's teardown: the browser closed, the daemon stopped (it must exit
// 0, or its log's end is shown), the work directory removed.
export async function closeAll(browser, daemon, dir) {
  if (browser) await browser.close();
  if (daemon) {
    const r = await daemon.stop();
    assert.equal(r.code, 0, `illegald exited ${r.code} ${r.signal}: ${daemon.stderr.slice(-4000)}`);
  }
  rmSync(dir, { recursive: true, force: true });
}

// How long a page test waits for what must come: generous, for a loaded 2-core machine
// where an ASan daemon and a browser share the cores with other builds. A wait that runs
// out is a failure of what was awaited, never a measure of speed.
export const PATIENCE = 120000;

// How many frames the page has sent on its websocket since the test first asked: the page's
// socket (window.__illegal.ws, a new one after a reconnect) has its send counted from then on.
// A click whose press and release straddle a re-render of its button reaches no handler, and
// this is how the test knows. (Counted in the page, where the count is up to date when the
// click returns, which Playwright's websocket events are not.)
export const sends = (page) => page.evaluate(() => {
  const ws = window.__illegal && window.__illegal.ws;
  if (ws && !ws.counted) {
    const send = ws.send;
    ws.send = function counted(...args) {
      window.__sends = (window.__sends || 0) + 1;
      return send.apply(this, args);
    };
    ws.counted = true;
  }
  return window.__sends || 0;
});

// Clicks what locator finds until took() says the page acted on it, while wanted() says the
// click still makes sense (a prompt may close, a turn end, on the server's clock). A click's
// handlers have run when Playwright's click returns, so took() is asked at once. Each try
// waits a few seconds for the element, then asks wanted() again: a poll, not a limit.
// Returns whether the page took the click.
export async function clickUntil(locator, took, wanted = async () => true) {
  for (let i = 0; i < 50; i++) {
    if (!(await wanted())) return false;
    const clicked = await locator.click({ timeout: 5000 }).then(() => true, () => false);
    if (clicked && (await took())) return true;
  }
  throw new Error(`${locator} was clicked 50 times and never taken`);
}

// Clicks a button that sends a frame (a command, a vote...) until one is sent.
export async function clickSending(page, locator, wanted) {
  const before = await sends(page);
  return clickUntil(locator, async () => (await sends(page)) > before, wanted);
}

// Whether everyone has voted on the open case of the table, as the bot last counted on the page
// (target: a page or a frame).
export const everyoneVoted = (target, table) => target.evaluate((table) => {
  const t = window.__illegal.T[table];
  const v = t.phase === 'vote' && t.vote && t.votes[t.vote.case];
  return !!v && v.voted === v.voters;
}, table);
