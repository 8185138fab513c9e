// Tile drawing for the mjtable pages: one <span class="tile"> per tile, the face as an <img> of the CC0
// riichi-mahjong-tiles art (tiles/*.svg, public domain, FluffyStuff/riichi-mahjong-tiles) on the tile body.
// A face-down tile (a concealed tile on the public page, a concealed kong) is drawn as a back and carries no
// tile code at all: nothing of it is in the DOM.
"use strict";

const TILE_ART = {m: "Man", p: "Pin", s: "Sou"};
const HONOR_ART = ["Ton", "Nan", "Shaa", "Pei", "Haku", "Hatsu", "Chun"];
const FLOWER_TEXT = ["梅", "兰", "竹", "菊", "春", "夏", "秋", "冬"];

// el(): dom.js, loaded before this file.

function tileArt(code) {
  const rank = code[0], suit = code[1];
  if (TILE_ART[suit]) return rank === "0" ? `tiles/${TILE_ART[suit]}5-Dora.svg` : `tiles/${TILE_ART[suit]}${rank}.svg`;
  if (suit === "z") return `tiles/${HONOR_ART[Number(rank) - 1]}.svg`;
  return null;
}

// code: "5p" etc., or null for a face-down tile.  extra: more classes ("side" = turned, "win", "called").
function tileEl(code, extra) {
  const cls = extra ? " " + extra : "";
  if (code === null || code === undefined) return el("span", {class: "tile back" + cls, title: "face down"});
  const art = tileArt(code);
  const face = art ? el("img", {src: art, alt: code, draggable: "false"})
    : el("span", {class: "flower", text: FLOWER_TEXT[Number(code[0]) - 1] || code});
  return el("span", {class: "tile" + cls, "data-code": code, title: code}, [face]);
}

// A meld: the claimed tile turned sideways at the side it came from (left = from the previous player).
function meldEl(m, seat) {
  const tiles = m.tiles || (m.type === "concealed_kong" ? [null, null, null, null] : [null, null, null]);
  let side = -1;
  if (m.claimed_from !== null && m.claimed_from !== undefined) {
    const rel = (m.claimed_from - seat + 4) % 4; // 3 = left (上家), 2 = opposite, 1 = right (下家)
    side = rel === 3 ? 0 : rel === 2 ? 1 : tiles.length - 1;
  }
  const faceDown = m.type === "concealed_kong" && m.tiles;
  return el("span", {class: "meld", "data-type": m.type, "data-from": m.claimed_from === null || m.claimed_from === undefined ? "" : String(m.claimed_from)},
    tiles.map((c, i) => tileEl(faceDown && (i === 0 || i === 3) ? null : c, i === side ? "side" : "")));
}

// A compact hand as the engine writes it ("[123m]{5555p}11z45p 6p": melds, concealed tiles, win tile) as tiles.
function parseHand(text) {
  const out = {melds: [], concealed: [], win: null};
  const [body, win] = text.split(" ");
  if (win) out.win = win;
  const re = /\[([^\]]*)\]|\{([^}]*)\}|([0-9?]+[mpszf])|(\?)/g;
  let m;
  while ((m = re.exec(body)) !== null) {
    if (m[1] !== undefined) out.melds.push({type: "meld", tiles: expand(m[1])});
    else if (m[2] !== undefined) out.melds.push({type: "concealed_kong", tiles: expand(m[2])});
    else if (m[3] !== undefined) out.concealed.push(...expand(m[3]));
  }
  return out;
}

function expand(text) {
  const codes = [];
  let digits = "";
  for (const ch of text) {
    if (/[0-9]/.test(ch)) digits += ch;
    else if ("mpszf".includes(ch)) { for (const d of digits) codes.push(d + ch); digits = ""; }
  }
  return codes;
}

function handEl(text) {
  const h = parseHand(text || "");
  return el("div", {class: "win-hand"}, [
    el("span", {class: "hand-concealed"}, h.concealed.map((c) => tileEl(c))),
    ...h.melds.map((m) => el("span", {class: "meld"}, m.tiles.map((c) => tileEl(c)))),
    ...(h.win ? [el("span", {class: "win-tile"}, [tileEl(h.win, "win")])] : []),
  ]);
}
