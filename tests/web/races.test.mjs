// The page's clicks against the table's updates: a page fed frames as if they came from the
// server (at tables of their own, after the server's replay) is clicked while frames keep
// coming, at desktop and phone sizes and with the keyboard alone. An answer to a prompt is
// sent once and stays marked sent until the prompt's next frame answers it; a refusal turns
// it on again with the bot's words. The hand and the play box keep the element pressed, the
// focus and the command line's selection across frames. A reach for a drop card that the bot
// leaves unanswered ends with the drop's next frame. Each wait is for a condition; no click
// is made on the clock.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PATIENCE, clickUntil, closeAll, launchChromium } from './chromium.mjs';
import { freePort, startServer } from './lib.mjs';

const DAEMON = process.env.ILLEGALD;
const PORT_RE = /local table at http:\/\/[^ ]+:(\d+)\//;
const dir = mkdtempSync(join(tmpdir(), 'illegald-races-'));
let daemon, browser, base, en;

before(async () => {
  if (!DAEMON) throw new Error('set ILLEGALD to the illegald binary');
  const conf = join(dir, 'illegald.conf');
  writeFileSync(conf, ['[web]', 'enabled = true', 'bind = 127.0.0.1', `port = ${await freePort()}`, ''].join('\n'));
  daemon = await startServer(DAEMON, ['--config', conf, '--store', join(dir, 'illegald.db')], { portRe: PORT_RE });
  base = `http://127.0.0.1:${daemon.port}/`;
  en = (await (await fetch(`${base}catalog/en.json`)).json()).texts;
  browser = await launchChromium();
});

after(() => closeAll(browser, daemon, dir));

let readers = 0;
const SIZES = { desktop: { viewport: { width: 1200, height: 900 } },
  phone: { viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true } };

// A seated page at table `table`, once the server's replay of it is in. What the page sends is
// kept (page.sent) and never reaches the server, whose answers would be news the test did not
// feed; feed(form, data, extra) hands the page a frame of game g90 at that table.
async function fedPage(size, table, module) {
  const ctx = await browser.newContext({ locale: 'en-US', ...SIZES[size] });
  ctx.setDefaultTimeout(PATIENCE);
  const page = await ctx.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(new Error(m.text())); });
  await page.goto(`${base}#t=${table}`);
  await page.locator('#name').fill(`Eve${++readers}`); // (a name is one seat's)
  await page.locator('#name-go').click();
  await page.waitForFunction((table) => window.__illegal.user && window.__illegal.opened.has(table), table);
  // (frames right after the replay are taken as replayed: fed once the page is past them)
  await page.waitForFunction(() => Date.now() >= window.__illegal.quietUntil);
  await page.evaluate(() => {
    const S = window.__illegal;
    S.sent = [];
    S.ws.send = (text) => { S.sent.push(JSON.parse(text)); };
  });
  const feed = (form, data, extra = {}) => page.evaluate(([form, data, extra, table, module]) => {
    const S = window.__illegal;
    const d = JSON.parse(JSON.stringify(data).replaceAll('"ME"', JSON.stringify(S.user)));
    S.ws.onmessage({ data: JSON.stringify({ type: 'message', kind: form, form, channel: extra.dm ? null : table, table,
      dm: false, key: null, replace: false, text: `the ${form}`, ...extra,
      data: { game: 'g90', table, module, lang: 'en', ...d } }) });
  }, [form, data, extra, table, module]);
  const sent = () => page.evaluate(() => window.__illegal.sent.filter((f) => f.type !== 'hello'));
  // the pane that shows sel (on a phone the panes are tabs), as a reader would open it
  const pane = async (name) => {
    if (!(await page.locator('#tabs').isVisible())) return;
    const tab = page.locator(`#tabs [data-tab=${name}]`);
    await clickUntil(tab, async () => (await tab.getAttribute('aria-selected')) === 'true');
  };
  return { ctx, page, errors, feed, sent, pane };
}

const OTHERS = [{ id: 'w1', name: 'Finn' }, { id: 'w2', name: 'Gus' }, { id: 'w3', name: 'Hal' }];
// A game started with the reader and three others, at the table's module.
async function started(feed) {
  await feed('lobby', { variant: 'standard', host: 'w1', players: [{ id: 'ME', name: 'Eve' }, ...OTHERS], actions: ['join'] },
    { key: 'g90/lobby' });
  await feed('notice', { phase: 'turn', events: ['game-started'], event: 'game-started' });
}

// A Palm & Drewes table: its view, and the reader's hand.
const pdView = (pile) => ['table_view', { turn: 'ME', pile, discard: 0,
  players: [{ player: 'ME', hand: 2, current: true, layout: {} }, ...OTHERS.map((x) => ({ player: x.id, hand: 3, layout: {} }))] },
{ key: 'g90/table', replace: true }];
const pdHand = (hand) => ['private_view', { hand, layout: {} }, { dm: true, key: 'g90/hand/me', replace: true }];

for (const size of Object.keys(SIZES)) {
  test(`${size}: an answer to a prompt is sent once, and a refused one may be sent again`, { timeout: 300000 }, async () => {
    const { ctx, page, errors, feed, sent, pane } = await fedPage(size, `ask-${size}`, 'palm-drewes');
    await started(feed);
    await feed(...pdView(20));
    const ask = { open: true, choices: [{ command: 'pass 1', label: 'One', tone: 'yes' }, { command: 'pass 2', label: 'Two' }] };
    await feed('prompt', ask, { dm: true, key: 'g90/pass/me', text: 'Pass a card.' });
    const two = page.locator('#prompts li[data-prompt="g90/pass/me"] button[data-command="pass 2"]');
    await pane('room');
    // a frame about something else takes no focus from a prompt's button
    await page.locator('#prompts button[data-command="pass 1"]').focus();
    await feed(...pdView(21));
    await page.locator('#pd-table [data-pd=pile]', { hasText: '21' }).waitFor({ state: 'attached' });
    assert.equal(await page.evaluate(() => document.activeElement.dataset.command), 'pass 1', 'the focus left the prompt');
    await two.click();
    assert.deepEqual((await sent()).map((f) => f.text), ['g90 pass 2']);
    // the table moves on and the prompt comes again, unanswered yet: the answer stays sent
    await feed(...pdView(19));
    await feed('prompt', ask, { dm: true, key: 'g90/pass/me', text: 'Pass a card.', replace: true });
    await page.locator('#pd-table [data-pd=pile]', { hasText: '19' }).waitFor({ state: 'attached' });
    assert.ok(await two.isDisabled(), 'the answer sent is off after a table update');
    assert.ok(await page.locator('#prompts button[data-command="pass 1"]').isDisabled(), 'and so is the other choice');
    assert.equal(await two.getAttribute('data-sent'), '', 'the answer sent is marked');
    assert.equal(await page.locator('#prompts [data-answer=sent]').textContent(), en['page.answer-sent']);
    await two.click({ force: true }).catch(() => {});
    assert.equal((await sent()).length, 1, 'an answer is sent once');
    // the bot refuses it: on again, with its words
    await feed('error', { say: [] }, { dm: true, channel: null, text: 'You cannot pass that card now.' });
    await page.locator('#prompts [data-answer=refused]', { hasText: 'You cannot pass that card now.' }).waitFor();
    assert.ok(await two.isEnabled(), 'a refused answer may be sent again');
    // by the keyboard alone this time
    await page.locator('#prompts button[data-command="pass 1"]').focus();
    await page.keyboard.press('Enter');
    assert.deepEqual((await sent()).map((f) => f.text), ['g90 pass 2', 'g90 pass 1']);
    await page.locator('#prompts button[data-command="pass 1"][data-sent]').waitFor();
    // answered: the prompt is gone
    await feed('prompt', { open: false }, { dm: true, key: 'g90/pass/me', text: 'You passed One.', replace: true });
    await page.locator('#prompts-box').waitFor({ state: 'hidden' });
    assert.deepEqual(errors.map(String), []);
    await ctx.close();
  });

  test(`${size}: an offer's answer stays sent across table updates until the offer closes`, { timeout: 300000 }, async () => {
    const { ctx, page, errors, feed, sent, pane } = await fedPage(size, `offer-${size}`, 'illegal');
    await started(feed);
    await feed('notice', { phase: 'dealing', events: ['session-opened'], event: 'session-opened' });
    await feed('private_view', { dealer: 'guns', buyer: 'jewelry', hand: { guns: 2 }, players: OTHERS },
      { dm: true, key: 'g90/hand/me', replace: true });
    await feed('prompt', { offer: 1, from: OTHERS[0], to: { id: 'ME', name: 'Eve' },
      choices: [{ command: 'accept 1' }, { command: 'decline 1' }] }, { dm: true, key: 'g90/offer/1', text: 'Finn offers.' });
    const accept = page.locator('#offers li[data-offer="1"] [data-action=accept]');
    await pane('room');
    await accept.click();
    await feed('notice', { phase: 'dealing', paused: false });
    await feed('notice', { votes: 1 });
    assert.ok(await accept.isDisabled(), 'the accept sent is off after table updates');
    assert.equal(await accept.getAttribute('data-sent'), '');
    assert.deepEqual((await sent()).map((f) => f.text), ['g90 accept 1']);
    await feed('notice', { offer: 1, event: 'offer-accepted' }, { dm: true, text: 'Offer 1 accepted.' });
    await page.locator('#offers li.closed[data-offer="1"]').waitFor();
    assert.equal(await page.locator('#offers li[data-offer="1"] button').count(), 0);
    assert.deepEqual(errors.map(String), []);
    await ctx.close();
  });

  test(`${size}: the hand and the play box keep the press, the focus and the selection across frames`, { timeout: 300000 }, async () => {
    const { ctx, page, errors, feed, sent, pane } = await fedPage(size, `hand-${size}`, 'palm-drewes');
    await started(feed);
    await feed(...pdView(20));
    await feed(...pdHand({ dope: 1, guns: 1 }));
    const dope = page.locator('#pd-hand [data-card=dope]');
    await pane('room');
    await dope.waitFor();
    await dope.scrollIntoViewIfNeeded();
    // a press that spans a frame changing the card pressed: the element stays until released,
    // and the click lands
    await page.evaluate(() => { document.querySelector('#pd-hand [data-card=dope]').pressedOne = true; });
    const box = await dope.boundingBox();
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.down();
    await feed(...pdHand({ dope: 2, guns: 1 }));
    await feed(...pdView(19));
    assert.ok(await page.evaluate(() => !!document.querySelector('#pd-hand [data-card=dope]').pressedOne),
      'the card under a press was replaced');
    await page.mouse.up();
    await page.locator('#pd-hand [data-card=dope][aria-pressed=true]').waitFor();
    await page.locator('#pd-hand [data-card=dope] .count', { hasText: '2' }).waitFor();
    await page.locator('#pd-play [data-play=play]').waitFor();
    // the keyboard alone: a card focused stays focused through a frame, and Enter chooses it
    await page.locator('#pd-hand [data-card=guns]').focus();
    await feed(...pdView(18));
    await feed(...pdHand({ dope: 2, guns: 1, cash: 1 }));
    await page.locator('#pd-hand [data-card=cash]').waitFor();
    assert.equal(await page.evaluate(() => document.activeElement.dataset.card), 'guns', 'the focus left the card');
    await page.keyboard.press('Enter');
    await page.locator('#pd-hand [data-card=guns][aria-pressed=true]').waitFor();
    // the command line: what is typed and its selection stay through frames
    const cmd = page.locator('#pd-cmd');
    assert.equal(await page.evaluate(() => document.activeElement.id), 'pd-cmd');
    await page.keyboard.type(', finn');
    await page.evaluate(() => document.getElementById('pd-cmd').setSelectionRange(5, 9));
    await feed(...pdView(17));
    await feed(...pdHand({ dope: 2, guns: 1, cash: 2 }));
    await page.locator('#pd-hand [data-card=cash] .count', { hasText: '2' }).waitFor();
    assert.deepEqual(await cmd.evaluate((e) => [document.activeElement === e, e.value, e.selectionStart, e.selectionEnd]),
      [true, 'play guns , finn', 5, 9]);
    await page.keyboard.press('End');
    await page.keyboard.press('Enter');
    assert.deepEqual((await sent()).map((f) => f.text), ['g90 play guns , finn']);
    assert.deepEqual(errors.map(String), []);
    await ctx.close();
  });

  test(`${size}: a reach the bot leaves unanswered ends with the drop's next frame`, { timeout: 300000 }, async () => {
    const { ctx, page, errors, feed, sent, pane } = await fedPage(size, `drop-${size}`, 'illegal');
    await started(feed);
    await feed('private_view', { dealer: 'guns', buyer: 'jewelry', hand: { guns: 2 }, players: OTHERS },
      { dm: true, key: 'g90/hand/me', replace: true });
    const shown = ['guns', 'jewelry', 'alcohol'];
    const choices = [{ emoji: '\u{1F52B}', card: 'guns' }, { emoji: '\u{1F48E}', card: 'jewelry' }, { emoji: '\u{1F377}', card: 'alcohol' }];
    const drop = (takers, open = true) => feed('table_view', { drop: 1, shown, choices, open, taken: takers.map(Boolean), takers,
      deadline: Date.now() + 600000 }, { key: 'g90/drop/1', replace: true });
    await drop([null, null, null]);
    const hint = page.locator('#drop-hint');
    await pane('table');
    await hint.filter({ hasText: en['page.drop-open'] }).waitFor();
    await page.locator('#drop-cards [data-card=guns]').click();
    await hint.filter({ hasText: en['page.drop-reached'] }).waitFor();
    // a second click before any answer reaches nothing more
    await page.locator('#drop-cards [data-card=jewelry]').click();
    assert.equal((await sent()).filter((f) => f.type === 'react').length, 1, 'one reach at a time');
    // the drop's next frame shows another card taken, and not this reader's: the reach is over
    await drop([null, OTHERS[0], null]);
    await hint.filter({ hasText: en['page.drop-open'] }).waitFor();
    // another card may be tried, by the keyboard alone
    await page.locator('#drop-cards [data-card=alcohol]').focus();
    await page.keyboard.press('Enter');
    await hint.filter({ hasText: en['page.drop-reached'] }).waitFor();
    assert.deepEqual((await sent()).filter((f) => f.type === 'react').map((f) => f.reaction), ['\u{1F52B}', '\u{1F377}']);
    // this reach gets no frame either, and the drop closes: nothing is left reached
    await drop([null, OTHERS[0], OTHERS[1]], false);
    await page.waitForFunction(() => !window.__illegal.P[window.__illegal.current].grabbed);
    assert.notEqual(await hint.textContent(), en['page.drop-reached']);
    assert.deepEqual(errors.map(String), []);
    await ctx.close();
  });
}
