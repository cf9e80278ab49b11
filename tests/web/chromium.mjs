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
