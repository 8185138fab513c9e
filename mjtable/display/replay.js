// mjtable hawk-eye replay: steps through one hand of a journal.  Data comes from /api/* or, in an exported
// file, from window.REPLAY_DATA (everything inlined).
"use strict";

const GLYPH = {};
(function () {
  const base = {m: 0x1F007, s: 0x1F010, p: 0x1F019};
  for (const s of "msp") { for (let r = 1; r <= 9; r++) GLYPH[r + s] = String.fromCodePoint(base[s] + r - 1); GLYPH["0" + s] = GLYPH["5" + s]; }
  [0x1F000, 0x1F001, 0x1F002, 0x1F003, 0x1F006, 0x1F005, 0x1F004].forEach((cp, i) => { GLYPH[(i + 1) + "z"] = String.fromCodePoint(cp); });
  [0x1F026, 0x1F027, 0x1F028, 0x1F029, 0x1F022, 0x1F023, 0x1F025, 0x1F024].forEach((cp, i) => { GLYPH[(i + 1) + "f"] = String.fromCodePoint(cp); });
})();

const R = {meta: null, hand: null, steps: [], i: 0, handIndex: 0, exported: !!window.REPLAY_DATA};

// el(): dom.js, loaded before this file (inlined with it in an exported replay).
function tileEl(code, extra) {
  if (code === null || code === undefined) return el("span", {class: "tile back"}, [el("span", {class: "g", text: "\u{1F02B}"}), el("small", {text: "?"})]);
  return el("span", {class: "tile" + (extra ? " " + extra : ""), "data-code": code},
            [el("span", {class: "g", text: GLYPH[code] || "?"}), el("small", {text: code})]);
}
function meldEl(m, seat) {
  const tiles = m.tiles || [null, null, null, null];
  let side = -1;
  if (m.claimed_from !== null && m.claimed_from !== undefined) {
    const rel = (m.claimed_from - seat + 4) % 4;
    side = rel === 3 ? 0 : rel === 2 ? 1 : tiles.length - 1;
  }
  return el("span", {class: "meld"}, tiles.map((c, i) => tileEl(c, i === side ? "side" : "")));
}

function describe(ev) {
  const parts = [ev.type];
  for (const k of ["seat", "tile", "kind", "tiles", "command", "button"]) if (ev[k] !== undefined && ev[k] !== null) parts.push(`${k}=${JSON.stringify(ev[k])}`);
  return parts.join(" ");
}

function render() {
  const s = R.steps[R.i];
  if (!s) return;
  const v = s.view;
  document.getElementById("slider").value = String(R.i);
  document.getElementById("step-label").textContent = `step ${R.i + 1}/${R.steps.length} (seq ${s.n})`;
  document.getElementById("event").textContent = (s.mark ? `[${s.mark}] ` : "") + describe(s.event);
  document.getElementById("event").setAttribute("data-mark", s.mark || "");
  document.getElementById("info").textContent = `${R.meta.table} · ${R.meta.rules} · hand ${v.session.hand_no} · ${v.phase}`;
  for (const seat of v.seats) {
    const box = document.getElementById("seat-" + seat.seat);
    box.classList.toggle("turn", v.turn === seat.seat);
    box.replaceChildren(
      el("h2", {}, [el("span", {text: seat.wind}), el("span", {class: "player", text: seat.player}), el("span", {class: "score", text: String(seat.score)})]),
      el("div", {class: "tiles"}, seat.flowers.map((c) => tileEl(c))),
      el("div", {class: "tiles", id: `melds-${seat.seat}`}, seat.melds.map((m) => meldEl(m, seat.seat))),
      el("div", {class: "tiles concealed", id: `concealed-${seat.seat}`}, (seat.concealed || []).map((c) => tileEl(c))),
      el("div", {class: "pond", id: `pond-${seat.seat}`}, seat.pond.map((p) => tileEl(p.tile, p.called ? "called" : ""))));
  }
  const ld = v.last_discard;
  document.getElementById("last-discard").replaceChildren(...(ld ? [el("span", {text: `last discard (${v.seats[ld.seat].player}) `}), tileEl(ld.tile)] : []));
  const r = v.result;
  document.getElementById("result").replaceChildren(...(r ? [el("h3", {id: "result-head", text: r.kind === "win" ? `win: ${r.winners.map((w) => v.seats[w].player).join(", ")}` : "draw"}),
    ...((r.wins && r.wins.length ? r.wins : []).map((w) => el("div", {class: "win"}, [
      el("b", {text: `${v.seats[w.winner].player} · ${w.total} · `}),
      el("span", {text: (w.fans || []).map((f) => `${f.name} ${f.points}`).join(", ") || "no fan"}),
      el("div", {text: w.payments.map((p, s) => (p < 0 ? `${v.seats[s].player} pays ${v.seats[w.winner].player} ${-p}` : "")).filter((x) => x).join(" · ")})])))] : []));
  const img = document.getElementById("snapshot");
  if (s.snapshot) { img.src = s.snapshot; img.classList.remove("hidden"); } else { img.removeAttribute("src"); img.classList.add("hidden"); }
}

function go(i) { R.i = Math.max(0, Math.min(R.steps.length - 1, i)); render(); }
function jump(dir, marks) {
  for (let j = R.i + dir; j >= 0 && j < R.steps.length; j += dir) if (marks.includes(R.steps[j].mark)) { go(j); return; }
}

function loadHand(data) {
  R.meta = data.meta; R.hand = data.hand; R.steps = data.steps; R.handIndex = data.hand.index;
  const slider = document.getElementById("slider");
  slider.max = String(R.steps.length - 1);
  const exp = document.getElementById("export");
  if (R.exported) exp.classList.add("hidden"); else exp.href = `export/${R.handIndex}`;
  go(0);
}

async function showHand(k) {
  const r = await fetch(`api/hand/${k}`);
  loadHand(await r.json());
}

async function start() {
  document.getElementById("first").onclick = () => go(0);
  document.getElementById("last").onclick = () => go(R.steps.length - 1);
  document.getElementById("prev").onclick = () => go(R.i - 1);
  document.getElementById("next").onclick = () => go(R.i + 1);
  document.getElementById("next-call").onclick = () => jump(1, ["call"]);
  document.getElementById("prev-call").onclick = () => jump(-1, ["call"]);
  document.getElementById("next-win").onclick = () => jump(1, ["win", "result"]);
  document.getElementById("slider").oninput = (e) => go(Number(e.target.value));
  document.addEventListener("keydown", (e) => { if (e.key === "ArrowRight") go(R.i + 1); if (e.key === "ArrowLeft") go(R.i - 1); });
  if (R.exported) { loadHand(window.REPLAY_DATA); return; }
  const meta = await (await fetch("api/meta")).json();
  document.getElementById("hands").replaceChildren(...meta.hands.map((h) => el("button", {class: "hand-btn", "data-index": String(h.index),
    text: `hand ${h.hand_no}` + (h.result ? (h.result.kind === "win" ? " ✓" : " –") : ""), onclick: () => showHand(h.index)})));
  const withResult = meta.hands.find((h) => h.result) || meta.hands[0];
  await showHand(withResult ? withResult.index : 0);
}
start();
