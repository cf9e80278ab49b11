// Illegal: the cards of the local table, drawn as inline SVG made for this project.
// One picture per resource, one frame per kind of card (resource, dealer, buyer and
// the two suspects). Their words come from the page's catalog (setText, from app.js),
// and are laid out here, whole words per line and shrunk to fit, so a name never
// breaks inside a word whatever the card's size or language.
'use strict';

window.IllegalCards = (function () {
  const NS = 'http://www.w3.org/2000/svg';
  const FONT = 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';
  const W = 100, H = 140, PAD = 6;

  // the colour of each resource (its words come from the catalog: card.<resource>)
  const RESOURCES = {
    'luxury-cars': '#b23a2e',
    guns: '#4b525c',
    jewelry: '#2479b0',
    alcohol: '#2e7a3a',
    pornography: '#8a3fa6',
    'secret-files': '#a7782a',
    'call-girls': '#cf3166',
    powder: '#5c6b7a',
  };
  // the frame of each kind: band colour, card background (the band's words: page.card.<kind>)
  const KINDS = {
    dealer: ['#2f7d4f', '#e7f5eb'],
    buyer: ['#6f3f98', '#f2eafa'],
    'suspect-dealer': ['#a3302b', '#fbeae8'],
    'suspect-buyer': ['#a3302b', '#fbeae8'],
  };

  // The words, from the page's catalog (setText); until then, the keys.
  let catalogText = (key) => key;
  let catalogFill = (key) => key;
  // t(key) is a key's text, f(key, vars) one with its {placeholders} filled.
  function setText(t, f) {
    catalogText = t;
    catalogFill = f;
  }

  // Each picture in a 40×40 box: [tag, attributes] with "C" for the resource's colour.
  const ICONS = {
    'luxury-cars': [
      ['path', { d: 'M2 27 L6 18 Q8 14 13 14 L26 14 Q30 14 33 18 L37 22 Q39 23 39 26 L39 30 L2 30 Z', fill: 'C' }],
      ['path', { d: 'M10 19 L13 16.5 L19 16.5 L19 21 L8.5 21 Z M21 16.5 L26 16.5 L30 21 L21 21 Z', fill: '#dde8f2' }],
      ['circle', { cx: 11, cy: 30, r: 4.5, fill: '#222' }],
      ['circle', { cx: 30, cy: 30, r: 4.5, fill: '#222' }],
      ['circle', { cx: 11, cy: 30, r: 1.8, fill: '#bbb' }],
      ['circle', { cx: 30, cy: 30, r: 1.8, fill: '#bbb' }],
    ],
    guns: [
      ['rect', { x: 3, y: 11, width: 32, height: 8, rx: 1.5, fill: 'C' }],
      ['rect', { x: 3, y: 11, width: 32, height: 2.5, fill: '#8d949e' }],
      ['path', { d: 'M23 19 L34 19 L37 34 Q37 36 35 36 L29 36 Q27 36 27 34 Z', fill: '#3a2a1e' }],
      ['path', { d: 'M17 19 Q17 27 24 26', fill: 'none', stroke: 'C', 'stroke-width': 2 }],
      ['rect', { x: 20, y: 19, width: 1.8, height: 4, fill: '#222' }],
    ],
    jewelry: [
      ['path', { d: 'M4 15 L12 6 L28 6 L36 15 L20 35 Z', fill: 'C' }],
      ['path', { d: 'M4 15 L36 15 M12 6 L16 15 L20 35 L24 15 L28 6 M16 15 L20 6 L24 15', fill: 'none',
        stroke: '#d6ecfa', 'stroke-width': 1.2, 'stroke-linejoin': 'round' }],
    ],
    alcohol: [
      ['path', { d: 'M17 3 L23 3 L23 11 Q29 15 29 22 L29 36 Q29 38 27 38 L13 38 Q11 38 11 36 L11 22 Q11 15 17 11 Z', fill: 'C' }],
      ['rect', { x: 16.5, y: 2, width: 7, height: 8, rx: 1, fill: '#e0b341' }],
      ['rect', { x: 13, y: 23, width: 14, height: 9, rx: 1, fill: '#f6efd9' }],
    ],
    pornography: [
      ['rect', { x: 2, y: 9, width: 36, height: 23, rx: 2.5, fill: '#26222b' }],
      ['rect', { x: 8, y: 13, width: 24, height: 10, rx: 1.5, fill: 'C' }],
      ['circle', { cx: 14, cy: 18, r: 3.6, fill: '#eee' }],
      ['circle', { cx: 26, cy: 18, r: 3.6, fill: '#eee' }],
      ['rect', { x: 8, y: 26, width: 24, height: 3.5, rx: 1, fill: 'C' }],
    ],
    'secret-files': [
      ['path', { d: 'M3 9 L15 9 L18 12 L37 12 L37 34 L3 34 Z', fill: 'C' }],
      ['path', { d: 'M3 15 L37 15 L37 34 L3 34 Z', fill: '#e2c27f' }],
      ['rect', { x: 7, y: 21, width: 26, height: 6, rx: 1, fill: '#c0392b', transform: 'rotate(-8 20 24)' }],
    ],
    'call-girls': [
      ['path', { d: 'M3 20 Q10 10 16 13 Q20 15 24 13 Q30 10 37 20 Q20 22 3 20 Z', fill: 'C' }],
      ['path', { d: 'M3 20 Q20 24 37 20 Q31 32 20 32 Q9 32 3 20 Z', fill: 'C', opacity: 0.8 }],
      ['path', { d: 'M6 20.5 Q20 23 34 20.5', fill: 'none', stroke: '#5a0f2a', 'stroke-width': 1 }],
    ],
    powder: [
      ['rect', { x: 9, y: 6, width: 22, height: 30, rx: 2.5, fill: '#eef3f7', stroke: 'C', 'stroke-width': 1.5 }],
      ['path', { d: 'M9 11 H31', stroke: 'C', 'stroke-width': 2.5 }],
      ['path', { d: 'M10.5 34.5 L10.5 25 Q20 19 29.5 25 L29.5 34.5 Z', fill: '#fff', stroke: '#cfd8df', 'stroke-width': 0.8 }],
    ],
  };

  function node(tag, attrs, colour) {
    const e = document.createElementNS(NS, tag);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v === 'C' ? colour : v);
    return e;
  }

  // The resource's picture, placed at (x, y) with side `size`.
  function picture(res, x, y, size) {
    const g = node('g', { transform: `translate(${x} ${y}) scale(${size / 40})` });
    const colour = colourOf(res);
    for (const [tag, attrs] of ICONS[res] || [['rect', { x: 4, y: 4, width: 32, height: 32, rx: 4, fill: '#999' }]]) {
      g.append(node(tag, attrs, colour));
    }
    return g;
  }

  // Widths measured with the page's own font, so the layout matches what is drawn.
  const ctx = document.createElement('canvas').getContext('2d');
  const widths = new Map();
  function width(text, size, weight) {
    const k = `${weight} ${size} ${text}`;
    if (!widths.has(k)) {
      ctx.font = `${weight} ${size}px ${FONT}`;
      widths.set(k, ctx.measureText(text).width);
    }
    return widths.get(k);
  }

  // Whole words on as few lines as fit `max` at `size` (at most `lines`), each line then
  // shrunk if it is still wider: returns [[text, fontSize], ...].
  function layout(text, size, weight, max, lines) {
    const words = text.split(' ');
    const out = [];
    for (const w of words) {
      const last = out[out.length - 1];
      if (last !== undefined && width(last + ' ' + w, size, weight) <= max) out[out.length - 1] = last + ' ' + w;
      else out.push(w);
    }
    // too many lines: pair up the shortest neighbours until it fits the height
    while (out.length > lines) {
      let best = 0;
      for (let i = 1; i < out.length - 1; i++) {
        if (out[i].length + out[i + 1].length < out[best].length + out[best + 1].length) best = i;
      }
      out.splice(best, 2, out[best] + ' ' + out[best + 1]);
    }
    // a little under the measure, for rounding
    return out.map((l) => [l, Math.min(size, (size * max * 0.98) / width(l, size, weight))]);
  }

  function label(svg, text, { y, size, weight = 700, max = W - 2 * PAD, lines = 3, lead = 1.15, fill = '#1c1c1c', cls }) {
    const rows = layout(text, size, weight, max, lines);
    let at = y - ((rows.length - 1) * size * lead) / 2; // centred on y
    for (const [t, s] of rows) {
      const e = node('text', { x: W / 2, y: at.toFixed(1), 'font-size': s.toFixed(2), 'font-weight': weight,
        'text-anchor': 'middle', 'dominant-baseline': 'middle', fill, 'data-max': max });
      if (cls) e.setAttribute('class', cls);
      e.textContent = t;
      svg.append(e);
      at += size * lead;
    }
  }

  // What a card id names: its kind, its resource, the title drawn and the full name read out.
  // The title is the role's name (illegal.card.dealer:guns), also on a suspect card, whose full name
  // reads as the accusation (card.suspect-dealer:guns).
  function names(id) {
    const [kind, res] = id.includes(':') ? id.split(':') : ['resource', id];
    const rname = resName(res);
    if (kind === 'resource' || !KINDS[kind]) return { kind, res, title: rname, full: rname };
    const dealer = kind.endsWith('dealer');
    const title = catalogText(`illegal.card.${dealer ? 'dealer' : 'buyer'}:${res}`);
    const role = kind.startsWith('suspect') ? catalogText(`illegal.card.${kind}:${res}`) : title;
    const full = catalogFill(dealer ? 'page.card.dealer-full' : 'page.card.buyer-full', { role, resource: rname });
    return { kind, res, title, full };
  }

  // The picture of one card: a resource ("guns"), a role ("dealer:guns") or a suspect
  // ("suspect-buyer:guns").
  function svg(id) {
    const { kind, res, title, full } = names(id);
    const colour = colourOf(res);
    const s = node('svg', { viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-label': full, class: 'art' });
    const frame = KINDS[kind];
    s.append(node('rect', { x: 1, y: 1, width: W - 2, height: H - 2, rx: 8, fill: frame ? frame[1] : '#fbf7ec',
      stroke: frame ? frame[0] : colour, 'stroke-width': 2, 'stroke-dasharray': kind.startsWith('suspect') ? '5 3' : 'none' }));
    if (!frame) {
      // a resource: its colour in the corners, a large picture, its name
      s.append(node('path', { d: `M1 9 Q1 1 9 1 L28 1 L1 28 Z M${W - 1} ${H - 9} Q${W - 1} ${H - 1} ${W - 9} ${H - 1} L${W - 28} ${H - 1} L${W - 1} ${H - 28} Z`, fill: colour }));
      s.append(picture(res, 18, 16, 64));
      label(s, title, { y: 110, size: 17, lines: 2, cls: 'name' });
      return s;
    }
    // a role or a suspect: a band naming the kind, the picture, the role, the resource; the
    // small print is large enough to read on a phone's narrowest card (8.5 px at 5rem)
    const two = layout(catalogText('page.card.' + kind), 11, 700, W - 2 * PAD, 2).length > 1;
    const band = two ? 30 : 20;
    s.append(node('path', { d: `M1 9 Q1 1 9 1 L${W - 9} 1 Q${W - 1} 1 ${W - 1} 9 L${W - 1} ${band} L1 ${band} Z`, fill: frame[0] }));
    label(s, catalogText('page.card.' + kind), { y: band / 2 + 1, size: 11, lines: 2, lead: 1.05, fill: '#fff', cls: 'kind' });
    const top = band + 3, side = two ? 38 : 44;
    s.append(picture(res, (W - side) / 2, top, side));
    if (kind.startsWith('suspect')) {
      // a magnifying glass over the picture
      const cx = W / 2 + side * 0.35, cy = top + side * 0.72;
      s.append(node('circle', { cx, cy, r: 8.5, fill: 'rgba(255,255,255,0.55)', stroke: frame[0], 'stroke-width': 3 }));
      s.append(node('path', { d: `M${cx + 6} ${cy + 6.5} L${cx + 14} ${cy + 14.5}`, stroke: frame[0], 'stroke-width': 4, 'stroke-linecap': 'round' }));
    }
    label(s, title, { y: 98, size: 14, lines: 3, cls: 'name' });
    label(s, resName(res), { y: 130, size: 12, weight: 600, lines: 1, fill: colour, cls: 'res' });
    return s;
  }

  // Another game's card, in the same frame: its name laid out large in the middle, its value
  // (when the game gives one) at the foot, the frame's colour saying what it is to the reader
  // ('own', 'burden', or none). The game's drawing gives the words (static/<module>.js).
  const FACES = { own: '#2f7d4f', burden: '#a3302b' };
  function face(name, { value, tone } = {}) {
    const colour = FACES[tone] || '#7a6a4f';
    const s = node('svg', { viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-label': name, class: 'art' });
    s.append(node('rect', { x: 1, y: 1, width: W - 2, height: H - 2, rx: 8, fill: '#fbf7ec', stroke: colour,
      'stroke-width': tone ? 4 : 2, 'stroke-dasharray': tone === 'burden' ? '5 3' : 'none' }));
    s.append(node('path', { d: `M1 9 Q1 1 9 1 L28 1 L1 28 Z M${W - 1} ${H - 9} Q${W - 1} ${H - 1} ${W - 9} ${H - 1} L${W - 28} ${H - 1} L${W - 1} ${H - 28} Z`, fill: colour }));
    label(s, name, { y: 62, size: 16, lines: 4, cls: 'name' });
    if (value) label(s, value, { y: 118, size: 12, weight: 600, lines: 1, fill: colour, cls: 'res' });
    return s;
  }

  // A small picture of a resource alone, for chips and lines of text.
  function icon(res) {
    const s = node('svg', { viewBox: '0 0 40 40', class: 'icon', 'aria-hidden': 'true' });
    s.append(picture(res, 0, 0, 40));
    return s;
  }

  function resName(id) { return RESOURCES[id] ? catalogText('illegal.card.' + id) : id; }
  function colourOf(id) { return RESOURCES[id] || '#777'; }

  return { svg, face, icon, names, resName, setText, RESOURCES: Object.keys(RESOURCES) };
})();
