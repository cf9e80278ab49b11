// compose.js - the page's form for a "compose" (core/compose.h; core/README.md, Messages): a
// command a player puts together from parts, carried by a private view. It is drawn for any
// game as Discord draws its trade builder: a part of players is a menu, a part of items a row
// of picks (each up to its max), every label is the compose's catalog key, and Send fills the
// template. A game's drawing may give an item's picture (a card); the form knows no game.
'use strict';

window.IllegalCompose = function (api) {
  const { el, clear, tr, has, num, sayDm } = api;
  // what was picked, by part name: a player's id, or {item id: count}; kept while the
  // template stays, so a redraw (a new hand) keeps the form as the player left it
  let form = { command: null, picks: {} };

  function word(x, fallback) {
    return x && x.label_key && has(x.label_key) ? tr(x.label_key) : (x && (x.label || x.name)) || fallback;
  }

  // The template filled as core/compose.c fills it: "{name}" must be chosen, "{name|text}"
  // writes text when left empty. null while a part that must be chosen is not.
  function fill(tmpl, value) {
    let missing = false;
    const out = tmpl.replace(/\{([a-z0-9-]+)(?:\|([^{}]*))?\}/g, (all, name, empty) => {
      const v = value(name);
      if (v) return v;
      if (empty === undefined) missing = true;
      return empty || '';
    });
    return missing ? null : out;
  }

  // A part's picks as the command takes them (typed) or as the reader reads them.
  function partText(part, typed) {
    const pick = form.picks[part.name];
    if (part.players) {
      const x = part.players.find((y) => y.id === pick);
      return x ? (typed ? x.id : x.name || x.id) : '';
    }
    return (part.items || []).filter((it) => pick && pick[it.id] > 0)
      .map((it) => `${typed ? pick[it.id] : num(pick[it.id])} ${typed ? it.id : word(it, it.id)}`).join(' ');
  }
  function filled(c, typed) {
    return fill(c.command, (name) => {
      const part = c.parts.find((x) => x.name === name);
      return part ? partText(part, typed) : '';
    });
  }

  // The picks kept only where they still fit the parts drawn (a card given away, a player gone).
  function keep(c) {
    if (form.command !== c.command) form = { command: c.command, picks: {} };
    for (const part of c.parts) {
      const pick = form.picks[part.name];
      if (part.players && !part.players.some((x) => x.id === pick)) form.picks[part.name] = (part.players[0] || {}).id;
      if (!part.items) continue;
      const kept = {};
      for (const it of part.items) if (pick && pick[it.id] > 0) kept[it.id] = Math.min(pick[it.id], it.max || 1);
      form.picks[part.name] = kept;
    }
  }

  function playersPart(part, redraw) {
    const sel = el('select', { onchange: () => { form.picks[part.name] = sel.value; redraw(); } });
    for (const x of part.players) sel.append(el('option', { value: x.id, text: x.name || x.id }));
    if (form.picks[part.name]) sel.value = form.picks[part.name];
    return sel;
  }
  // A part of items: each item to pick, as the game's drawing shows it (opts.item) or as a
  // button, with what may still be picked; the picks below, each taken back by a click.
  function itemsPart(part, opts, redraw) {
    const pick = form.picks[part.name];
    const row = el('div', { class: 'pick cards small' });
    for (const it of part.items) {
      const left = (it.max || 1) - (pick[it.id] || 0);
      const add = () => { if ((pick[it.id] || 0) < (it.max || 1)) pick[it.id] = (pick[it.id] || 0) + 1; redraw(); };
      row.append((opts.item && opts.item(it, left, add)) ||
        el('button', { type: 'button', 'data-item': it.id, disabled: left <= 0 ? '' : null, onclick: add, text: `${word(it, it.id)} (${num(left)})` }));
    }
    const chosen = el('div', { class: 'chosen' });
    for (const it of part.items) {
      if (!(pick[it.id] > 0)) continue;
      chosen.append(el('span', { class: 'chip', 'data-chip': it.id, title: tr('page.take-back'),
        onclick: () => { pick[it.id]--; redraw(); } }, `${num(pick[it.id])} × ${word(it, it.id)}`));
    }
    return [row, chosen];
  }

  // Draws compose c into box (hidden when there is none). opts: enabled (Send may be pressed
  // now), item(item, left, add) (an item's picture, or nothing for a button).
  function draw(box, c, opts = {}) {
    box.hidden = !c || !c.command || !Array.isArray(c.parts);
    clear(box);
    if (box.hidden) return;
    keep(c);
    const redraw = () => draw(box, c, opts);
    for (const part of c.parts) {
      const wrap = el('div', { class: 'part', 'data-part': part.name }, el('h4', { text: word(part, part.name) }));
      if (part.players) wrap.append(playersPart(part, redraw));
      else if (part.items) wrap.append(...itemsPart(part, opts, redraw));
      box.append(wrap);
    }
    const command = filled(c, true);
    const send = el('button', { type: 'button', class: 'primary', 'data-send': '', text: word(c, 'Send'),
      disabled: !opts.enabled || !command ? '' : null,
      onclick: () => {
        sayDm(command);
        for (const part of c.parts) if (part.items) form.picks[part.name] = {};
        redraw();
      } });
    box.append(el('div', { class: 'row' }, el('code', { class: 'preview', text: command ? filled(c, false) : '' }), send));
  }

  return { draw, fill };
};
