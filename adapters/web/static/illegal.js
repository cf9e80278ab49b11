// Illegal: how the local table draws Christophe Boelinger's Illegal (the module "illegal"):
// the drop, the tribunal's cases and votes, the result's ranking, and in the trading room
// the roles, hand, suspect cards and offers (the offer form is the hand's compose, drawn by
// compose.js with this game's cards). app.js keeps what is the bot's (tables, lobby, seats,
// chat, log, prompts) and hands each frame of this game here; the data drawn is the
// module's (core/README.md, Messages). Every word is the catalog's.
'use strict';

(window.IllegalGames = window.IllegalGames || {}).illegal = function (api) {
  const { $, el, clear, keyed, hintItem, tr, trn, num, card, send, sayDm, render, pageText, playerName,
    learnPlayers, callBack, readBot, eventLines, answerButtons, settleAnswer, lang, S } = api;
  const C = window.IllegalCards;
  const resName = C.resName;

  // ---- what the frames tell ----
  // A table notice's facts of this game: the session open, the votes counted, the resources in
  // play, the cases opened and judged.
  function notice(t, f, d) {
    // which dealing session is open, as the bot said it (for the line of what to do now)
    for (const x of Array.isArray(d.say) ? d.say : []) {
      if (x && /^illegal\.msg\.session-opened/.test(x.key) && x.vars) t.session = Number(x.vars.number) || t.session;
    }
    if (f.form !== 'notice') return;
    // how many have voted on each case, from its vote's opening on
    if (d.event === 'votes-cast') t.votes[d.case] = { voted: d.voted, voters: d.voters, by: d.voted_by || null };
    if (d.resources) t.resources = d.resources; // the game's resources in play, from its start
    // a case opens with its debate: its cards show from then on
    if ((d.events || [d.event]).includes('case-opened') && !openCases(t, f, d)) t.debate = { case: d.case, cards: d.cards || [] };
    verdicts(t, f, d);
    if (d.phase && d.phase !== 'vote' && d.phase !== 'debate') t.vote = null;
  }

  // the number of the case a line tells of: as the bot's text `key` names it, else its first number
  function caseOfLine(t, key, line) {
    const v = readBot(t, key, line);
    const n = Number(String((v && v.number) || (line.match(/\d+/) || [])[0] || '').replace(/\D/g, ''));
    return n > 0 ? n : null;
  }
  // Every case opened at once (a parallel tribunal): each case's debate line, and the cards the
  // bot sends for the last one. The others' cards come with their votes.
  function openCases(t, f, d) {
    const opened = eventLines(f, d).filter((x) => x.event === 'case-opened');
    if (opened.length < 2 || !d.case) return false;
    t.parallel = true;
    t.debate = { case: d.case, cards: d.cards || [], cases: opened.map((x, i) => {
      const n = d.case - (opened.length - 1 - i);
      return { case: caseOfLine(t, 'illegal.msg.case-opened', x.line) || n, line: x.line, cards: i === opened.length - 1 ? d.cards || [] : null };
    }) };
    return true;
  }
  // A verdict judges its case: in a parallel tribunal the others stay open.
  function verdicts(t, f, d) {
    for (const { event, line } of eventLines(f, d)) {
      if (!/^verdict-/.test(event) || !line) continue;
      const n = caseOfLine(t, 'illegal.msg.' + event, line);
      if (n) t.judged[n] = line;
    }
  }

  // The table's frames of this game: the drop (its table view) and a case's vote (its ballot).
  // Returns whether the frame was one of them.
  function table(t, f, d) {
    switch (f.form) {
    case 'table_view': // the drop
      t.drop = d;
      if (d.open) t.phase = 'drop-grab';
      else if (t.phase !== 'drop-grab') t.phase = 'drop-reveal';
      if (d.deadline) t.deadline = d.deadline;
      return true;
    case 'ballot':
      t.vote = d;
      // every case's vote, by number; with every case open at once, the choices name their case
      if (d.case) t.cases[d.case] = d;
      // ("vote 2 bob", "abstain 2"; a Discord user id is all digits too: "vote 6100…" names a player)
      if ((d.choices || []).some((c) => /^(vote \d+ \S|abstain \d+$)/.test(c.command || ''))) t.parallel = true;
      learnPlayers(d.candidates);
      if (d.deadline) t.deadline = d.deadline;
      t.phase = 'vote';
      return true;
    default:
      return false;
    }
  }

  // The private frames of this game: the hand (its private view), an offer (a prompt), the
  // bot's word on an offer or a vote. Returns whether the frame was drawn here.
  function own(p, f, d) {
    switch (f.form) {
    case 'private_view': // the hand
      p.hand = d;
      learnPlayers(d.players);
      return 'drawn';
    case 'prompt': // an offer
      learnPlayers([d.from, d.to]);
      p.offers.set(d.offer, { data: d, frame: f, closed: false });
      settleAnswer(p, offerKey(d.offer), f);
      return true;
    case 'notice':
      if (d.offer !== undefined && p.offers.has(d.offer)) {
        const o = p.offers.get(d.offer);
        o.closed = true;
        o.frame = f;
        p.answers.delete(offerKey(d.offer));
      }
      // the bot's word on a vote, per case; which button it was is known from a click answered
      if (d.event === 'vote-recorded' || d.event === 'abstained') {
        const was = p.myVotes[d.case];
        const choice = d.event === 'abstained' ? 'abstain' : was && was.pending && was.choice !== 'abstain' ? was.choice : null;
        p.myVotes[d.case] = { case: d.case, frame: f, choice };
      }
      // the seat went to someone else: its offers are theirs now
      if (d.event === 'seat-handed') for (const [n, o] of p.offers) { o.closed = true; p.answers.delete(offerKey(n)); }
      return false;
    default:
      return false;
    }
  }

  // A player is called back when a drop opens, a vote does, or an offer comes: once each.
  function callBacks(t, p, f, d, was) {
    if (f.dm) {
      if (f.form === 'prompt' && d.to && d.to.id === S.user && !f.replace) callBack('offer', d.offer);
      return;
    }
    const plays = !!p.hand;
    if (f.form === 'table_view' && d.open && was.drop !== d.drop && plays) callBack('drop', d.drop);
    if (f.form === 'ballot' && was.vote !== d.case && plays) callBack('vote', d.case);
    if (f.form === 'table_view') settleReach(t, p);
  }
  // What the table showed before a frame, for callBacks.
  function before(t) {
    return { drop: t.drop && t.drop.open ? t.drop.drop : null, vote: t.vote ? t.vote.case : null };
  }

  // What a player must act on comes into view: a drop as it is revealed and again as it opens,
  // a tribunal case as it opens. [key, box], or null.
  function attention(f, d) {
    const events = d.events || [d.event];
    if (f.form === 'table_view' && !d.done) return [`drop ${d.drop} ${!!d.open}`, 'drop'];
    if (f.form === 'ballot') return [`vote ${d.case}`, 'tribunal'];
    if (f.form === 'notice' && events.includes('case-opened')) return [`case ${d.case}`, 'tribunal'];
    return null;
  }

  // The players of a running game, as the reader's hand names them (the reader first).
  function players(t, p) {
    return p && p.hand ? [{ id: S.user, name: S.name }, ...(p.hand.players || [])] : null;
  }
  // Where a player is in the step, as the table knows it: a card grabbed in this drop, a vote
  // cast on this case (never for whom); and the offers open between the reader and them.
  function marks(t, p, x, box) {
    const drop = t.drop && (t.phase === 'drop-reveal' || t.phase === 'drop-grab') ? t.drop : null;
    const count = t.phase === 'vote' && t.vote ? t.votes[t.vote.case] : null;
    const open = p && p.offers ? [...p.offers.values()].filter((o) => !o.closed) : [];
    if (drop && (drop.takers || []).some((k) => k && k.id === x.id)) {
      box.append(el('span', { class: 'mark done', 'data-mark': 'grabbed', text: tr('page.player.grabbed') }));
    }
    if (count && Array.isArray(count.by) && count.by.includes(x.id)) {
      box.append(el('span', { class: 'mark done', 'data-mark': 'voted', text: tr('page.player.voted') }));
    }
    const between = x.id === S.user ? 0 : open.filter((o) => (o.data.from && o.data.from.id === x.id) || (o.data.to && o.data.to.id === x.id)).length;
    if (between) box.append(el('span', { class: 'mark offers', 'data-mark': 'offers', text: trn('page.player.offers', between) }));
  }

  // What to do now, for this game's phases (plays: the reader has a hand; timed(key, vars)
  // adds the time left). Undefined for a phase that is not this game's.
  function now(t, mine, plays, timed) {
    switch (t.phase) {
    case 'dealing':
      return timed(plays ? 'page.now.dealing' : 'page.now.dealing-watch', { number: t.session || 1 });
    case 'drop-reveal':
      return tr('page.now.drop-reveal', { number: t.drop ? t.drop.drop : 1 });
    case 'drop-grab': {
      const took = t.drop && (t.drop.takers || []).some((x) => x && x.id === S.user);
      return timed(!plays ? 'page.now.drop-watch' : took ? 'page.now.drop-took' : 'page.now.drop-grab',
        { number: t.drop ? t.drop.drop : 1 });
    }
    case 'tribunal-hold':
      return tr('page.now.tribunal-hold');
    case 'debate':
      return timed('page.now.debate', { case: t.debate ? t.debate.case : 1 });
    case 'vote': {
      if (t.parallel && plays) return timed('page.now.vote-all', {});
      const n = t.vote ? t.vote.case : 1;
      const voted = mine && mine.myVotes && mine.myVotes[n];
      return timed(!plays ? 'page.now.vote-watch' : voted ? 'page.now.voted' : 'page.now.vote', { case: n });
    }
    default:
      return undefined;
    }
  }

  // ---- the table ----
  // The first frame of the drop after a reach settles it: the card is this player's (the drop
  // shows them as its taker), another's (the race is lost, not the drop), or nobody's, as the
  // bot refuses some reaches without a word; a closed drop or another one ends it too. Until
  // the player holds a card of an open drop, they may reach again.
  function settleReach(t, p) {
    const d = t.drop;
    if (!p || !p.grabbed) return;
    const i = d && d.drop === p.grabbed.drop ? (d.shown || []).indexOf(p.grabbed.res) : -1;
    const taker = i >= 0 && d.takers ? d.takers[i] : null;
    if (d && d.open && taker && taker.id !== S.user) p.beaten = { drop: d.drop, name: taker.name || playerName(taker.id) };
    p.grabbed = null;
  }
  // Whether this page reached for a card of drop d (each drop starts fresh).
  function grabbedIn(p, d) { return !!(p && p.grabbed && p.grabbed.drop === d.drop); }

  function renderDrop(t, p) {
    const box = $('drop');
    const d = t.drop;
    box.hidden = !d || !(t.phase === 'drop-reveal' || t.phase === 'drop-grab');
    if (box.hidden) return;
    $('drop-title').textContent = tr('page.drop-title', { number: d.drop });
    const byRes = {};
    for (const c of d.choices || []) if (c.emoji && c.card) byRes[c.card] = c.emoji;
    const took = (d.takers || []).some((x) => x && x.id === S.user);
    const canGrab = d.open && p && !took && !grabbedIn(p, d);
    const beaten = p && p.beaten && p.beaten.drop === d.drop ? p.beaten.name : null;
    $('drop-hint').textContent = d.done ? tr('page.drop-done')
      : d.open
        ? (grabbedIn(p, d) ? tr('page.drop-reached')
          : beaten ? tr('page.drop-beaten', { player: beaten }) : tr('page.drop-open'))
        : tr('page.drop-revealing');
    // (keyed: a card stays while it looks the same, so a frame does not take it from under a
    // press, a tap or the keyboard's focus; each frame gives it its current grab)
    const wrap = $('drop-cards');
    const before = wrap.childElementCount;
    keyed(wrap, (d.shown || []).map((res, i) => {
      const taken = d.taken && d.taken[i];
      const grab = canGrab && !taken && byRes[res]
        ? () => {
          if (p.grabbed) return; // (one reach at a time, even clicked twice before a redraw)
          p.grabbed = { drop: d.drop, res };
          p.beaten = null;
          send({ type: 'react', key: `${t.game}/drop/${d.drop}`, reaction: byRes[res] });
          render();
        }
        : null;
      const taker = d.takers && d.takers[i];
      const who = taker ? (taker.id === S.user ? tr('page.you') : taker.name || playerName(taker.id)) : '';
      return { key: `${d.drop} ${i}`, sig: [lang(), res, !!taken, who, !!grab].join(' '), act: grab || undefined,
        make: () => {
          const c = card(res, { cls: (taken ? 'taken' : '') + (i >= before ? ' new' : ''), onclick: grab });
          if (taker) c.append(el('span', { class: 'taker', text: who }));
          return c;
        } };
    }));
  }

  function renderVote(t, p) {
    const box = $('tribunal');
    if (t.parallel) return renderCases(t, p);
    $('cases-wrap').hidden = true;
    $('one-case').hidden = false;
    // the case in debate (its cards, no vote yet), or the case being voted on
    const debating = t.phase === 'debate' && t.debate;
    const v = t.phase === 'vote' ? t.vote : debating ? t.debate : null;
    box.hidden = !v;
    if (box.hidden) return;
    $('tribunal-title').textContent = tr(debating ? 'page.tribunal-debate' : 'page.tribunal-case', { case: v.case });
    $('tribunal-question').textContent = trn('page.tribunal-question', (v.cards || []).length || 2);
    const cards = clear($('case-cards'));
    for (const c of v.cards || []) cards.append(card(c));
    voteButtons(clear($('vote-buttons')), debating ? null : v, p, false);
    // a vote is shown for its own case only: each case starts unvoted
    $('my-vote').textContent = p && p.myVotes[v.case] ? myVoteText(p.myVotes[v.case]) : '';
    const n = !debating && t.votes[v.case];
    $('vote-count').textContent = n ? trn('page.votes-cast', n.voted, { voters: n.voters }) : '';
  }

  // The buttons of a case's vote (v, the vote message): one a candidate, and abstain. With mark,
  // the player's own choice is pressed.
  function voteButtons(btns, v, p, mark) {
    const isPlayer = !!(p && p.hand);
    const mine = v && p && p.myVotes[v.case];
    for (const c of (v && v.choices) || []) {
      // "vote bob", or "vote 2 bob" when every case is open at once; the player it names
      const a = c.command, target = c.player || null;
      if (!a || (c.by && !c.by.includes(S.user))) continue; // nobody may vote for themselves
      const label = target ? tr('page.vote-for', { player: playerName(target) }) : tr('ui.abstain');
      const choice = target || 'abstain';
      btns.append(el('button', { type: 'button', 'data-vote': choice, disabled: !isPlayer, text: label,
        'aria-pressed': mark ? String(!!mine && mine.choice === choice) : null,
        onclick: () => {
          sayDm(a);
          // the page's own words until the bot's answer comes (written at each render)
          p.myVotes[v.case] = { case: v.case, choice, pending: true };
          render();
        } }));
    }
  }
  function myVoteText(m) {
    if (m.frame) return pageText(m.frame);
    if (!m.choice) return '';
    return m.choice !== 'abstain' ? tr('page.my-vote', { player: playerName(m.choice) }) : tr('page.my-abstain');
  }

  // A parallel tribunal: every case open at once, each with its cards, its own vote and count;
  // a judged case shows its verdict while the others stay open.
  function renderCases(t, p) {
    const box = $('tribunal');
    const debating = t.phase === 'debate';
    const debated = (debating && t.debate && t.debate.cases) || [];
    const numbers = [...new Set([...debated.map((x) => x.case), ...Object.keys(t.cases).map(Number)])].sort((a, b) => a - b);
    box.hidden = !(t.phase === 'vote' || debating) || !numbers.length;
    if (box.hidden) return;
    $('one-case').hidden = true;
    $('cases-wrap').hidden = false;
    $('tribunal-title').textContent = tr(debating ? 'page.tribunal-all-debate' : 'page.tribunal-all');
    $('tribunal-question').textContent = trn('page.tribunal-question', 2);
    const list = clear($('cases'));
    for (const n of numbers) {
      const v = t.cases[n];
      const opened = debated.find((x) => x.case === n);
      const verdict = t.judged[n];
      const div = el('div', { class: verdict ? 'case judged' : 'case', 'data-case': String(n) },
        el('h4', { text: tr(verdict ? 'page.case-judged' : 'page.case', { case: n }) }));
      const cards = (v && v.cards) || (opened && opened.cards);
      if (cards) div.append(el('div', { class: 'cards small' }, ...cards.map((c) => card(c))));
      else if (opened) div.append(el('p', { class: 'hint', text: opened.line }));
      if (verdict) {
        div.append(el('p', { class: 'verdict', text: verdict }));
      } else if (v) {
        const count = t.votes[n];
        div.append(el('p', { class: 'vote-count', text: count ? trn('page.votes-cast', count.voted, { voters: count.voters }) : '' }));
        const btns = el('div', { class: 'actions' });
        voteButtons(btns, v, p, true);
        div.append(btns);
        div.append(el('p', { class: 'hint my-vote', text: p && p.myVotes[n] ? myVoteText(p.myVotes[n]) : '' }));
      }
      list.append(div);
    }
  }

  // The ranking as the bot sent it (rank order, ties sharing a rank): each player's roles,
  // the cards they ended with, and how their score was made.
  function renderResults(t) {
    const winners = new Set(t.result.winners || []);
    const ol = clear($('ranking'));
    for (const r of t.result.reveal || []) {
      const id = r.player && r.player.id;
      const held = el('div', { class: 'held' });
      for (const [c, n] of Object.entries(r.hand || {})) {
        const [kind, res] = c.includes(':') ? c.split(':') : ['resource', c];
        // a suspect card hits when it names the holder's own role
        const hit = (kind === 'suspect-dealer' && res === r.dealer) || (kind === 'suspect-buyer' && res === r.buyer);
        const cls = kind === 'resource' ? (res === r.buyer ? 'chip-card goods' : 'chip-card') : hit ? 'chip-card right' : 'chip-card wrong';
        const what = kind === 'resource' ? resName(res) : tr(kind === 'suspect-dealer' ? 'page.suspect-dealer' : 'page.suspect-buyer');
        held.append(el('span', { class: cls, 'data-card': c, title: C.names(c).full }, C.icon(res), ` ${n > 1 ? num(n) + ' ' : ''}${what}`));
      }
      ol.append(el('li', { class: winners.has(id) ? 'winner' : null, 'data-user': id, 'data-rank': String(r.rank),
        'data-score': String(r.score) },
      el('span', { class: 'rank', text: num(r.rank) }),
      el('div', { class: 'who' },
        el('div', { class: 'pname', text: ((r.player && r.player.name) || playerName(id)) + (winners.has(id) ? ' 🏆' : '') }),
        el('div', { class: 'roles' },
          el('span', { 'data-role': 'dealer:' + r.dealer }, C.icon(r.dealer), ' ' + tr('page.dealer-of', { resource: resName(r.dealer) })),
          el('span', { 'data-role': 'buyer:' + r.buyer }, C.icon(r.buyer), ' ' + tr('page.buyer-of', { resource: resName(r.buyer) }))),
        scoreParts(r),
        held),
      el('span', { class: 'score', text: num(r.score) })));
    }
  }

  // How a score was made, from the parts the bot sent (nothing when it sent none).
  function scoreParts(r) {
    const parts = r.parts;
    if (!parts) return null;
    const pieces = [
      ['resources', parts.resources, trn('page.part.bought', parts.resources, { resource: resName(r.buyer) })],
      ['wrong', parts.wrong, trn('page.part.wrong', parts.wrong)],
      ['right', -5 * parts.right, trn('page.part.right', parts.right)],
    ].filter(([k, points]) => points !== 0 || k === 'resources');
    const how = el('div', { class: 'how' });
    pieces.forEach(([k, points, words], i) => {
      if (i) how.append(' · ');
      how.append(el('span', { 'data-part': k, 'data-points': String(points) },
        `${words} `, el('b', { text: points < 0 ? `\u2212${num(-points)}` : `+${num(points)}` })));
    });
    return how;
  }


  // ---- the trading room ----
  // (keyed: a card or an offer stays while it looks the same, so a frame about something else
  // takes nothing from under a press or the keyboard's focus)
  const offerKey = (n) => 'offer ' + n;
  const cardItem = (id, count) => ({ key: id, sig: `${lang()} ${count}`, make: () => card(id, { count }) });
  function renderRoom(t, p, watching) {
    const h = p && p.hand;
    $('hand-wrap').hidden = !h;
    $('offers-box').hidden = watching;
    const entries = h ? Object.entries(h.hand || {}).filter(([, n]) => n > 0) : [];
    keyed($('roles'), !h ? [hintItem(watching ? 'page.watching-hint' : 'page.roles-later')]
      : ['dealer:' + h.dealer, 'buyer:' + h.buyer].map((c) => cardItem(c)));
    keyed($('hand'), !h ? [] : entries.length ? entries.map(([res, n]) => cardItem(res, n)) : [hintItem('page.no-resources')]);
    keyed($('suspects'), ((h && h.suspects) || []).map((c, i) => ({ ...cardItem(c), key: `${i} ${c}` })));
    $('suspects-wrap').hidden = !(h && h.suspects && h.suspects.length);
    renderOffers(p);
  }
  // The offers, newest first; an open one's answers are sent once (app.js: answerButtons).
  function renderOffers(p) {
    const offers = p ? [...p.offers.values()].sort((a, b) => b.data.offer - a.data.offer) : [];
    keyed($('offers'), !offers.length ? [{ key: '.none', sig: lang(), make: () => el('li', { class: 'hint', text: tr('page.no-offers') }) }]
      : offers.map((o) => {
        const key = offerKey(o.data.offer), a = p.answers.get(key);
        const incoming = o.data.to && o.data.to.id === S.user;
        return { key, sig: [lang(), o.closed, pageText(o.frame), JSON.stringify(o.data.choices || []), a ? a.command + ' ' + a.reason : ''].join('\n'),
          make: () => el('li', { class: (o.closed ? 'closed ' : '') + (incoming ? 'incoming' : 'outgoing'), 'data-offer': String(o.data.offer) },
            el('div', { class: 'otext', text: pageText(o.frame) }),
            ...(o.closed ? [] : answerButtons(p, key, o.data.choices,
              { cls: offerTone, label: offerLabel, attrs: (c) => ({ 'data-action': verbOf(c) }) }))) };
      }));
  }
  const verbOf = (c) => (c.command || '').split(' ')[0];
  const offerTone = (c) => (verbOf(c) === 'accept' ? 'primary' : ['decline', 'cancel'].includes(verbOf(c)) ? 'danger' : null);
  const offerLabel = (c) => (['accept', 'decline', 'cancel'].includes(verbOf(c)) ? tr('ui.' + verbOf(c)) : verbOf(c));

  // The offer form (the hand's compose, drawn by compose.js): shown while trades may be made
  // or offers wait, sendable in a dealing session that is not paused; each resource as its card.
  const compose = {
    state(t) {
      if (['debate', 'vote', 'over'].includes(t.phase)) return 'hidden';
      return t.phase === 'dealing' && !t.paused ? 'on' : 'off';
    },
    item(it, left, add) { return card(it.id, { count: left, onclick: add }); },
  };

  // Draws this game's boxes of the table and of the trading room.
  function draw(t, p, watching) {
    renderDrop(t, p);
    renderVote(t, p);
    renderRoom(t, p, watching);
  }
  // Hides them (the table shows another game).
  function hide() {
    for (const id of ['drop', 'tribunal', 'roles', 'hand-wrap', 'suspects-wrap', 'offers-box', 'score-hint']) $(id).hidden = true;
  }
  function show() {
    for (const id of ['roles', 'offers-box', 'score-hint']) $(id).hidden = false;
  }

  return { notice, table, own, before, callBacks, attention, players, marks, now, draw, hide, show,
    compose, result: renderResults };
};
