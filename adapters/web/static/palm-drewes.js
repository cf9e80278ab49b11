// Illegal: how the local table draws Palm & Drewes' Illegal (the module "palm-drewes"): at
// the table every player's business as the rulebook lays it out (illegal deals left of the
// opening, legal deals right, the burden on it), their cards in hand, whose turn
// it is and who deals, the pile and the series; in private the hand and the business, with a
// play box (a card clicked is played, discarded or aimed at a player, or its command is
// completed by hand). The prompts (the pass, the Magnum's window, a loss, offers) are every
// game's, drawn by app.js from their choices. The data is the module's (core/README.md,
// Messages); every word is the catalog's: the cards' names and rules are the module's keys
// (palm-drewes.card.<id>, palm-drewes.card-rule.<id>), the rest the page's (page.pd.*).
'use strict';

(window.IllegalGames = window.IllegalGames || {})['palm-drewes'] = function (api) {
  const { $, el, clear, tr, trn, num, has, sayDm, render, playerName, S } = api;
  const C = window.IllegalCards;
  const cardName = (id) => (has('palm-drewes.card.' + id) ? tr('palm-drewes.card.' + id) : id);
  const euros = (n) => tr('palm-drewes.format.euros', { amount: num(n) });
  // A card: its name drawn, its rule in the tooltip (a tap shows it when it does nothing else).
  function pdCard(id, opts = {}) {
    const name = cardName(id);
    const rule = has('palm-drewes.card-rule.' + id) ? tr('palm-drewes.card-rule.' + id) : '';
    const tip = rule ? `${name}\n${rule}` : name;
    return api.card(id, { ...opts, tip, art: C.face(name, { tone: opts.tone }) });
  }
  // The cards of a bundle {card: count}, in the order the module gives them.
  function bundle(box, cards, opts = {}) {
    for (const [id, n] of Object.entries(cards || {})) {
      if (n > 0) box.append(pdCard(id, { ...opts, count: n > 1 ? n : undefined, onclick: opts.onclick && (() => opts.onclick(id)) }));
    }
    return box;
  }

  // A business as the rulebook lays it out (the module's `layout`): illegal deals left of the
  // opening, legal deals right of it, the burden on it.
  function businessRow(row, l, opts) {
    const opening = el('div', { class: 'pd-opening', 'data-side': 'opening' });
    if (l.opening) opening.append(pdCard('opening', opts));
    if (l.burden) opening.append(pdCard(l.burden, { tone: 'burden', cls: 'pd-burden' }));
    const parts = [bundle(el('div', { class: 'pd-side', 'data-side': 'illegal' }), l.illegal, opts),
      opening, bundle(el('div', { class: 'pd-side', 'data-side': 'legal' }), l.legal, opts)];
    for (const part of parts) if (part.childElementCount) row.append(part);
    return row;
  }

  // ---- what the frames tell ----
  function table(t, f, d) {
    if (f.form !== 'table_view') return false;
    t.pd = d;
    if (d.deadline) t.deadline = d.deadline;
    return true;
  }
  function own(p, f, d) {
    if (f.form !== 'private_view') return false;
    p.hand = d;
    return 'drawn';
  }
  // The table view of the table's game (one of an earlier game is not shown).
  const view = (t) => (t.pd && t.pd.game === t.game ? t.pd : null);
  function players(t) {
    const list = view(t) && t.pd.players;
    return list ? list.filter((x) => x.active !== false).map((x) => ({ id: x.player, name: playerName(x.player) })) : null;
  }
  const seatOf = (t, id) => ((view(t) && t.pd.players) || []).find((x) => x.player === id);
  // Whose turn it is and who deals, in the players' panel.
  function marks(t, p, x, box) {
    const seat = seatOf(t, x.id);
    if (!seat || t.phase === 'over') return;
    if (seat.current) box.append(el('span', { class: 'mark offers', 'data-mark': 'turn', text: tr('page.pd.turn') }));
    if (seat.dealer) box.append(el('span', { class: 'mark', 'data-mark': 'dealer', text: tr('page.pd.dealer') }));
  }
  // What to do now in each of the game's phases.
  function now(t, mine, plays, timed) {
    const turn = view(t) && t.pd.turn;
    if (!turn) return undefined; // (until the table view says whose turn it is)
    switch (t.phase) {
    case 'turn':
      return turn === S.user ? timed('page.pd.now.turn', {}) : timed('page.pd.now.turn-watch', { player: playerName(turn) });
    case 'window':
      return timed('page.pd.now.window', {});
    case 'pass':
      return timed(plays ? 'page.pd.now.pass' : 'page.pd.now.pass-watch', {});
    case 'loss':
      return timed('page.pd.now.loss', { player: playerName(turn) });
    default:
      return undefined;
    }
  }
  // How to play: the module's rules in a few lines.
  const help = () => tr('palm-drewes.rules');
  // The phase badge: the page's words for the module's phases (page.pd.phase.<id>).
  const phaseName = (phase) => (has('page.pd.phase.' + phase) ? tr('page.pd.phase.' + phase) : null);

  // ---- the table: every player's business ----
  function renderTable(t) {
    const host = clear($('game-table'));
    const d = view(t);
    if (!d || !d.players) return;
    const box = el('section', { id: 'pd-table', class: 'box pd-table' },
      el('h3', { text: d.title && has(d.title) ? tr(d.title) : tr('palm-drewes.game') }));
    const facts = [trn('page.pd.pile', d.pile || 0), trn('page.pd.discard', d.discard || 0)];
    if (d.series) facts.push(tr('page.pd.series', { goal: euros(d.series.goal), game: num(d.series.game) }));
    box.append(el('p', { class: 'hint', 'data-pd': 'pile', text: facts.join(' · ') }));
    for (const x of d.players) {
      if (x.active === false) continue;
      const head = el('div', { class: 'pd-head' },
        el('b', { text: x.player === S.user ? tr('page.you') : playerName(x.player) }),
        el('span', { 'data-pd': 'hand', text: trn('page.pd.hand-count', x.hand || 0) }),
        d.series ? el('span', { 'data-pd': 'score', text: tr('page.pd.total', { amount: euros(x.score || 0) }) }) : null);
      const row = businessRow(el('div', { class: 'cards small pd-business' }), x.layout || {}, { tone: x.player === S.user ? 'own' : undefined });
      if (!row.childElementCount) row.append(el('p', { class: 'hint', text: tr('page.pd.no-business') }));
      box.append(el('div', { class: 'pd-seat' + (x.current ? ' current' : ''), 'data-user': x.player }, head, row));
    }
    host.append(box);
  }

  // ---- the private side: the hand, the business, the play box ----
  // Drawn once and then kept, each card keyed (api.keyed): a frame changes what changed only,
  // so the card pressed, the button focused and the command half typed (its selection too)
  // stay as the player left them.
  const play = { card: null };
  function room() {
    const host = $('game-room');
    if ($('pd-play')) return host;
    clear(host);
    const input = el('input', { id: 'pd-cmd', maxlength: '200', autocomplete: 'off' });
    host.append(el('h4', { id: 'pd-hand-title' }), el('div', { id: 'pd-hand', class: 'cards' }),
      el('h4', { id: 'pd-own-title' }), el('div', { id: 'pd-own' }),
      el('div', { id: 'pd-play', class: 'pd-play' }, el('p', { id: 'pd-play-hint', class: 'hint' }),
        el('div', { id: 'pd-acts', class: 'actions' }),
        el('form', { class: 'cmd', onsubmit: (ev) => {
          ev.preventDefault();
          const text = input.value.trim();
          if (text) go(text);
        } }, input, el('button', { id: 'pd-send', type: 'submit' }))));
    return host;
  }
  // A command sent from the box: the card chosen and the line are done with.
  function go(text) {
    sayDm(text);
    play.card = null;
    $('pd-cmd').value = '';
    render();
  }
  function choose(id) {
    play.card = play.card === id ? null : id;
    $('pd-cmd').value = play.card ? `play ${play.card} ` : '';
    render();
    if (play.card) $('pd-cmd').focus();
  }
  const hintItem = api.hintItem;
  function renderRoom(t, p, watching) {
    const h = p && p.hand;
    if (!h) {
      clear($('game-room')).append(el('p', { class: 'hint', text: tr(watching ? 'page.pd.watching-hint' : 'page.pd.hand-later') }));
      return;
    }
    room();
    if (play.card && !(h.hand || {})[play.card]) play.card = null;
    $('pd-hand-title').textContent = tr('page.hand');
    $('pd-own-title').textContent = tr('page.pd.your-business');
    const held = Object.entries(h.hand || {}).filter(([, n]) => n > 0);
    api.keyed($('pd-hand'), !held.length ? [hintItem('page.pd.no-cards')] : held.map(([id, n]) => ({
      key: id, sig: `${api.lang()} ${n} ${id === play.card}`,
      make: () => {
        const c = pdCard(id, { count: n > 1 ? n : undefined, onclick: () => choose(id) });
        c.setAttribute('aria-pressed', String(id === play.card));
        return c;
      } })));
    // (the business is redrawn whole when it changes: a play lays one card at a time)
    const layout = h.layout || {};
    api.keyed($('pd-own'), [{ key: 'business', sig: api.lang() + JSON.stringify(layout), make: () => {
      const row = businessRow(el('div', { class: 'cards small pd-business' }), layout, { tone: 'own' });
      if (!row.childElementCount) row.append(el('p', { class: 'hint', text: tr('page.pd.no-business') }));
      return row;
    } }]);
    playBox(t);
  }
  // The card chosen: played alone, aimed at a player, or discarded; anything longer ("play
  // takeover, bob, dope") is typed after the command the box starts.
  function playBox(t) {
    $('pd-play-hint').textContent = play.card ? tr('page.pd.chosen', { card: cardName(play.card) }) : tr('page.pd.play-hint');
    $('pd-cmd').setAttribute('aria-label', tr('page.room-command'));
    $('pd-send').textContent = tr('page.send');
    const c = play.card;
    const button = (key, label, attrs, text) => ({ key, sig: `${label} ${c}`,
      make: () => el('button', { type: 'button', ...attrs, text: label, onclick: () => go(text) }) });
    const others = (players(t) || []).filter((x) => x.id !== S.user);
    api.keyed($('pd-acts'), !c ? [] : [
      button('play', tr('page.pd.play'), { class: 'primary', 'data-play': 'play' }, `play ${c}`),
      ...others.map((x) => button('on ' + x.id, tr('page.pd.play-on', { player: x.name }), { 'data-play': 'on', 'data-user': x.id },
        `play ${c}, ${x.name}`)),
      button('discard', tr('page.pd.discard-card'), { 'data-play': 'discard' }, `discard ${c}`)]);
  }

  function draw(t, p, watching) {
    renderTable(t);
    renderRoom(t, p, watching);
  }
  function hide() {
    clear($('game-table'));
    clear($('game-room'));
    play.card = null;
  }

  return { notice() {}, table, own, before() { return {}; }, callBacks() {}, attention() { return null; },
    players, marks, now, draw, hide, show() {}, phaseName, help, result: (t) => api.scoresRanking(t, euros) };
};
