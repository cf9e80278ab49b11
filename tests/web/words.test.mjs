// Every word the local table's page shows is a catalog key that every language's catalog
// translates: no raw key on a screen ("page.variant.standard"), no English left in another
// language. The keys are read from the page's files: the data-i18n attributes of index.html,
// and every string of app.js, cards.js and each game's drawing (illegal.js, palm-drewes.js)
// that names a key; a key the page builds from a
// family ('page.phase.' + phase) is listed here with the members the page uses, and a family
// this test does not know fails it, so a new one is added here first. Each key must be in
// the template and, in every .po file, translated (not empty, not fuzzy). A page.say.<key>
// (the page's wording of a bot line) must word a key the catalog has, with no placeholder
// that key's text lacks.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const STATIC = join(ROOT, 'adapters', 'web', 'static');
const CATALOG = join(ROOT, 'core', 'catalog');
// Each game's catalog folder and id, as core/CMakeLists.txt lists them (ILLEGALD_CATALOG_MODULES).
const MODULES = [...readFileSync(join(ROOT, 'core', 'CMakeLists.txt'), 'utf8')
  .matchAll(/^\s*([a-z0-9-]+)=\$\{CMAKE_CURRENT_SOURCE_DIR\}\/([a-z0-9-]+\/catalog)$/gm)]
  .map((m) => ({ id: m[1], dir: join(ROOT, 'core', m[2]) }));

// A gettext file: {key (msgctxt): {texts: [msgid, msgid_plural?], strs: [msgstr...], fuzzy}}.
function readPo(path) {
  const out = {};
  for (const block of readFileSync(path, 'utf8').split(/\n\s*\n/)) {
    const e = { texts: [], strs: [], fuzzy: false, ctxt: null };
    let into = null;
    for (const line of block.split('\n')) {
      if (line.startsWith('#,')) e.fuzzy ||= /\bfuzzy\b/.test(line);
      if (line.startsWith('#')) continue;
      const m = /^(msgctxt|msgid_plural|msgid|msgstr(?:\[\d+\])?)\s+(".*")$/.exec(line);
      const piece = m ? m[2] : /^".*"$/.test(line) ? line : null;
      if (piece === null) continue;
      const text = JSON.parse(piece);
      if (m) {
        into = m[1];
        if (into === 'msgctxt') e.ctxt = text;
        else if (into === 'msgid' || into === 'msgid_plural') e.texts.push(text);
        else e.strs.push(text);
      } else if (into === 'msgctxt') {
        e.ctxt += text;
      } else if (into === 'msgid' || into === 'msgid_plural') {
        e.texts[e.texts.length - 1] += text;
      } else if (into) {
        e.strs[e.strs.length - 1] += text;
      }
    }
    if (e.ctxt !== null) out[e.ctxt] = e;
  }
  return out;
}

// A language's whole catalog as the build compiles it: the bot's file (illegald.pot or
// <code>.po), and each game's file of that language with its keys under the game's id.
function readCatalog(file) {
  const out = readPo(join(CATALOG, file));
  for (const { id, dir } of MODULES) {
    const name = file.endsWith('.pot') ? readdirSync(dir).find((f) => f.endsWith('.pot')) : file;
    for (const [k, e] of Object.entries(readPo(join(dir, name)))) out[`${id}.${k}`] = e;
  }
  return out;
}

const RESOURCES = ['luxury-cars', 'guns', 'jewelry', 'alcohol', 'pornography', 'secret-files', 'call-girls', 'powder'];
// The families of keys the page builds, with the members it builds them from.
const FAMILIES = {
  'page.phase.': ['lobby', 'dealing', 'drop-reveal', 'drop-grab', 'tribunal-hold', 'debate', 'vote', 'over'],
  'page.error.': ['bad-name', 'name-taken', 'too-many-tables', 'too-many-seats', 'bad-text', 'internal', 'other',
    'activity-bad-code', 'activity-not-in-instance', 'activity-no-channel', 'activity-unavailable', 'activity-only'],
  'page.alert.': ['drop', 'vote', 'offer'],
  'page.summary.': ['session', 'reveal', 'grab', 'debate', 'vote', 'language'],
  'page.card.': ['dealer', 'buyer', 'suspect-dealer', 'suspect-buyer'],
  'page.': ['join', 'leave', 'start'], // the lobby's buttons
  'illegal.preset.': ['quick', 'standard', 'casual', 'custom'],
  'illegal.variant.': ['standard', 'advanced', 'casual'],
  'ui.': ['accept', 'decline', 'cancel'],
  'illegal.card.': [...RESOURCES, ...['dealer', 'buyer', 'suspect-dealer', 'suspect-buyer'].flatMap((k) => RESOURCES.map((r) => `${k}:${r}`))],
  'page.say.': null, // every page.say.* key of the template (checked below)
  // Palm & Drewes' cards and their rules: every one
  'palm-drewes.card.': null,
  'palm-drewes.card-rule.': null,
  'page.pd.phase.': ['turn', 'window', 'pass', 'loss'], // Palm & Drewes' phases but over (page.phase.over)
};
// The page's scripts (app.js, cards.js, each game's drawing): every one names keys.
const SCRIPTS = readdirSync(STATIC).filter((f) => f.endsWith('.js'));

function usedKeys(template) {
  const keys = new Set();
  const html = readFileSync(join(STATIC, 'index.html'), 'utf8');
  for (const m of html.matchAll(/data-i18n(?:-[a-z-]+)?="([^"]+)"/g)) keys.add(m[1]);
  const prefixes = new Set();
  for (const file of SCRIPTS) {
    const js = readFileSync(join(STATIC, file), 'utf8');
    for (const m of js.matchAll(/'((?:illegal\.)?(?:page|card|ui|time|preset|variant|palm-drewes)\.[A-Za-z0-9.:-]*)'/g)) {
      if (m[1].endsWith('.')) prefixes.add(m[1]);
      else keys.add(m[1]);
    }
  }
  for (const p of prefixes) {
    assert.ok(p in FAMILIES, `the page builds keys from '${p}', a family this test does not list`);
    const members = FAMILIES[p] || Object.keys(template).filter((k) => k.startsWith(p)).map((k) => k.slice(p.length));
    for (const m of members) keys.add(p + m);
  }
  return keys;
}

const placeholders = (texts) => new Set(texts.flatMap((t) => [...t.matchAll(/\{([A-Za-z_][A-Za-z0-9_-]*)\}/g)].map((m) => m[1])));

test('every key the page uses is in every language\'s catalog', () => {
  assert.ok(MODULES.length >= 2, 'the games\' catalog folders are not found in core/CMakeLists.txt');
  const template = readCatalog('illegald.pot');
  const keys = usedKeys(template);
  assert.ok(keys.size > 150, `only ${keys.size} keys found: the scan is broken`);
  const missing = [...keys].filter((k) => !(k in template));
  assert.deepEqual(missing, [], 'keys the page uses that the catalog lacks');
  const languages = readdirSync(CATALOG).filter((f) => f.endsWith('.po'));
  assert.ok(languages.length >= 6, `${languages.length} translations`);
  for (const file of languages) {
    const po = readCatalog(file);
    const untranslated = [...keys].filter((k) => !po[k] || po[k].fuzzy || !po[k].strs.length || po[k].strs.some((s) => !s));
    assert.deepEqual(untranslated, [], `${file}: keys the page uses with no translation`);
  }
});

test('each of the page\'s wordings of a bot line words a line the bot writes', () => {
  const template = readCatalog('illegald.pot');
  const say = Object.keys(template).filter((k) => k.startsWith('page.say.'));
  assert.ok(say.length >= 10);
  for (const k of say) {
    const base = template[k.slice('page.say.'.length)];
    assert.ok(base, `${k} words a key the catalog lacks`);
    const have = placeholders(base.texts);
    for (const name of placeholders(template[k].texts)) assert.ok(have.has(name), `${k} uses {${name}}, which its line lacks`);
  }
});
