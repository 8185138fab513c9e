// mjtable referee / spectator display.  Reads config.json ({broker_ws, table, prefix}) and the query string
// (?table=T1&spectator=1&broker=ws://...), connects to the broker over websockets and renders the table.
"use strict";

const GLYPH = {};
(function buildGlyphs() {
  const suitBase = {m: 0x1F007, s: 0x1F010, p: 0x1F019};
  for (const s of "msp") for (let r = 1; r <= 9; r++) GLYPH[r + s] = String.fromCodePoint(suitBase[s] + r - 1);
  for (const s of "msp") GLYPH["0" + s] = GLYPH["5" + s];
  const honors = [0x1F000, 0x1F001, 0x1F002, 0x1F003, 0x1F006, 0x1F005, 0x1F004];
  honors.forEach((cp, i) => { GLYPH[(i + 1) + "z"] = String.fromCodePoint(cp); });
  const flowers = [0x1F026, 0x1F027, 0x1F028, 0x1F029, 0x1F022, 0x1F023, 0x1F025, 0x1F024];
  flowers.forEach((cp, i) => { GLYPH[(i + 1) + "f"] = String.fromCodePoint(cp); });
})();
const WIND_NAMES = {E: "East", S: "South", W: "West", N: "North"};

const app = {
  config: {broker_ws: "ws://" + location.hostname + ":9001", table: null, prefix: "mjtable/v1"},
  spectator: false, table: null, creds: null, client: null,
  pub: null, ref: null, timers: null, clockOffsetS: 0, status: null, tables: new Set(),
  pending: {}, cmdCounter: 0, lastError: null,
};

function el(tag, attrs, children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") e.className = v; else if (k === "text") e.textContent = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v); else e.setAttribute(k, v);
  }
  for (const c of children || []) if (c !== null && c !== undefined) e.append(c);
  return e;
}

function tileEl(code, extra) {
  if (code === null || code === undefined) return el("span", {class: "tile back", title: "face down"}, [el("span", {class: "g", text: "\u{1F02B}"}), el("small", {text: "?"})]);
  return el("span", {class: "tile" + (extra ? " " + extra : ""), "data-code": code, title: code},
            [el("span", {class: "g", text: GLYPH[code] || "?"}), el("small", {text: code})]);
}

function topic(leaf) {
  const p = app.config.prefix;
  if (app.spectator && ["state", "events", "timers"].includes(leaf)) return `${p}/spectator/${app.table}/${leaf}`;
  return `${p}/table/${app.table}/${leaf}`;
}

function setBadge(id, text, on) {
  const b = document.getElementById(id);
  b.textContent = text;
  b.className = "badge" + (on === true ? " on" : on === false ? " off" : "");
}

function connect() {
  if (app.client) { app.client.onclose = () => {}; app.client.close(); }
  const opts = app.creds ? {username: app.creds.user, password: app.creds.pass}
    : (app.config.public_user ? {username: app.config.public_user, password: app.config.public_password} : {});
  const c = new MqttWs(app.config.broker_ws, opts);
  app.client = c;
  app.ref = null;
  c.onconnect = () => {
    setBadge("conn", "broker connected", true);
    const p = app.config.prefix;
    const subs = [`${p}/table/+/status`];
    if (app.table) {
      subs.push(topic("state"), topic("timers"), topic("events"));
      if (app.creds) subs.push(topic("referee/state"), topic("referee/result"));
    } else {
      subs.push(`${p}/table/+/state`);
    }
    c.subscribe(subs, 1);
    setBadge("mode", app.creds ? "referee " + app.creds.user : (app.spectator ? "spectator (delayed)" : "public"), !!app.creds || null);
    document.getElementById("referee-panel").classList.toggle("hidden", !app.creds);
    document.getElementById("login").classList.toggle("hidden", !!app.creds);
    document.getElementById("logout-btn").classList.toggle("hidden", !app.creds);
  };
  c.onerror = (why) => {
    app.lastError = why;
    setBadge("conn", "broker: " + why, false);
    if (app.creds && /authorized|password/.test(why)) {
      app.creds = null;
      document.getElementById("login-error").textContent = "login refused: " + why;
      setTimeout(connect, 300);
    }
  };
  c.onclose = (reason) => {
    setBadge("conn", "broker disconnected: " + reason, false);
    setTimeout(() => { if (app.client === c) connect(); }, 1000);
  };
  c.onmessage = onMessage;
  c.connect();
}

function onMessage(t, text) {
  let doc;
  try { doc = JSON.parse(text); } catch (e) { console.warn("bad JSON on", t); return; }
  const parts = t.split("/");
  const table = parts[3];
  const leaf = parts.slice(4).join("/");
  if (leaf === "status") {
    app.tables.add(table); renderTableSelect();
    if (table === app.table) { app.status = doc.status; setBadge("table-status", `table ${table} ${doc.status}`, doc.status === "online"); }
    return;
  }
  if (!app.table && leaf === "state") { app.tables.add(table); renderTableSelect(); chooseTable(table); return; }
  if (table !== app.table) return;
  if (leaf === "state") app.pub = doc;
  else if (leaf === "referee/state") app.ref = doc;
  else if (leaf === "timers") { app.timers = doc; app.clockOffsetS = doc.now_s - Date.now() / 1000; }
  else if (leaf === "referee/result") { showResult(doc); return; }
  else if (leaf === "events") { return; }
  render();
}

function chooseTable(id) {
  if (app.table === id) return;
  app.table = id; app.pub = null; app.ref = null; app.timers = null;
  const u = new URL(location.href); u.searchParams.set("table", id); history.replaceState(null, "", u);
  connect();
}

function renderTableSelect() {
  const s = document.getElementById("table-select");
  const have = new Set(Array.from(s.options).map((o) => o.value));
  for (const t of Array.from(app.tables).sort()) if (!have.has(t)) s.append(el("option", {value: t, text: "table " + t}));
  if (app.table) s.value = app.table;
}

function meldEl(m, seat) {
  const tiles = m.tiles || [null, null, null, null];
  let side = -1;
  if (m.claimed_from !== null && m.claimed_from !== undefined) {
    const rel = (m.claimed_from - seat + 4) % 4; // 3 = left (上家), 2 = opposite, 1 = right (下家)
    side = rel === 3 ? 0 : rel === 2 ? 1 : tiles.length - 1;
  }
  return el("span", {class: "meld", "data-type": m.type, "data-from": m.claimed_from === null ? "" : String(m.claimed_from)},
            tiles.map((c, i) => tileEl(c, i === side ? "side" : "")));
}

function timerFor(doc, seat) {
  const list = (app.timers && app.timers.timers) || (doc && doc.timers) || [];
  return list.filter((t) => t.seat === seat);
}

function render() {
  const doc = (app.creds && app.ref) ? app.ref : app.pub;
  if (!doc) return;
  const s = doc.session;
  document.getElementById("info").textContent =
    `${doc.rules} · hand ${s.hand_no}/${s.hands_total} · ${WIND_NAMES[s.round_wind]} round · phase ${doc.phase}` +
    (doc.wall_remaining !== null ? ` · wall ${doc.wall_remaining}` : "") + ` · seq ${doc.seq}`;
  document.getElementById("paused").classList.toggle("hidden", !doc.paused);
  for (const seat of doc.seats) renderSeat(doc, seat);
  const ld = doc.last_discard;
  document.getElementById("last-discard").replaceChildren(...(ld ? [el("span", {text: `last discard (seat ${ld.seat}) `}), tileEl(ld.tile)] : []));
  const cw = doc.claim_window;
  document.getElementById("claim-window").replaceChildren(...(cw ? [el("span", {text: `claims on seat ${cw.discard_seat}'s `}), tileEl(cw.tile), el("span", {class: "countdown", "data-deadline": cw.deadline_s, id: "claim-countdown"})] : []));
  const tl = (app.timers && app.timers.timers) || doc.timers || [];
  document.getElementById("timers").replaceChildren(...tl.map((t) => el("div", {}, [
    el("span", {text: `${t.name}${t.seat !== null ? " (seat " + t.seat + ")" : ""}: `}),
    el("span", {class: "countdown", id: `timer-${t.name}-${t.seat}`, "data-deadline": t.deadline_s})])));
  renderExtras(doc);
  renderResult(doc.result, doc);
  renderLists(doc);
  tickCountdowns();
}

function renderSeat(doc, seat) {
  const box = document.getElementById("seat-" + seat.seat);
  box.classList.toggle("turn", doc.turn === seat.seat);
  const head = el("h2", {}, [el("span", {class: "wind", text: seat.wind}), el("span", {class: "player", text: seat.player}),
    el("span", {class: "score", id: `score-${seat.seat}`, text: String(seat.score)})]);
  const parts = [head];
  if (seat.penalties) parts.push(el("div", {text: `penalties: ${seat.penalties}`}));
  for (const t of timerFor(doc, seat.seat)) parts.push(el("div", {}, [el("span", {text: t.name + " "}), el("span", {class: "countdown", "data-deadline": t.deadline_s})]));
  if (seat.flowers.length) parts.push(el("div", {class: "tiles flowers"}, seat.flowers.map((c) => tileEl(c))));
  parts.push(el("div", {class: "tiles melds", id: `melds-${seat.seat}`}, seat.melds.map((m) => meldEl(m, seat.seat))));
  if ("concealed" in seat) {
    parts.push(el("div", {class: "tiles concealed", id: `concealed-${seat.seat}`},
      seat.concealed ? seat.concealed.map((c) => tileEl(c)) : [el("span", {text: `${seat.hand_size} tiles (not all known)`})]));
    if (seat.waits && seat.waits.length) parts.push(el("div", {class: "waits", id: `waits-${seat.seat}`},
      [el("span", {text: "waits: "})].concat(seat.waits.map((w) => el("span", {}, [tileEl(w.tile), el("span", {text: ` ${w.total} `})])))));
  } else {
    parts.push(el("div", {class: "hand-size", text: `${seat.hand_size} tiles in hand`}));
  }
  parts.push(el("div", {class: "pond", id: `pond-${seat.seat}`}, seat.pond.map((p) => tileEl(p.tile, p.called ? "called" : ""))));
  box.replaceChildren(...parts);
}

function renderExtras(doc) {
  const parts = [];
  const r = doc.riichi;
  if (r) {
    parts.push(el("div", {id: "dora"}, [el("span", {text: "dora indicators "}), ...(r.dora_indicators || []).map((c) => tileEl(c)),
      ...((r.ura_indicators || []).length ? [el("span", {text: " ura "}), ...r.ura_indicators.map((c) => tileEl(c))] : [])]));
    const inRiichi = (r.riichi || []).map((x, i) => (x ? doc.seats[i].player : null)).filter((x) => x);
    parts.push(el("div", {text: `honba ${r.honba} · deposits ${r.deposits}` +
      (r.points ? " · points " + r.points.join(" / ") : "") + (inRiichi.length ? " · riichi: " + inRiichi.join(", ") : "")}));
  }
  const sc = doc.sichuan;
  if (sc) {
    parts.push(el("div", {id: "voids", text: "定缺 voids: " + (sc.voids || []).map((v, i) => `${doc.seats[i].player} ${v || (sc.void_chosen && sc.void_chosen[i] ? "chosen" : "…")}`).join(" · ")}));
  }
  document.getElementById("extras").replaceChildren(...parts);
}

function renderResult(r, doc) {
  const box = document.getElementById("result");
  if (!r) { box.replaceChildren(); return; }
  const head = r.kind === "win" ? `win: ${r.winners.map((w) => doc.seats[w].player).join(", ")} · ${r.total} points`
                                : "draw";
  box.replaceChildren(el("h3", {text: head}),
    el("ul", {}, (r.fans || []).map((f) => el("li", {text: `${f.name} ${f.points}${f.count > 1 ? " ×" + f.count : ""}`}))),
    el("div", {text: "payments: " + r.payments.join(" / ")}),
    ...Object.entries(r.hands || {}).map(([s, h]) => el("div", {text: `seat ${s}: ${h}`})));
}

function renderLists(doc) {
  const referee = !!(app.creds && app.ref);
  document.getElementById("alerts").replaceChildren(...(doc.alerts || []).map((a) => el("li", {class: a.open ? "alert-open" : "", "data-id": a.id}, [
    el("span", {text: `[${a.kind}] ${a.message} `}),
    ...(referee && a.open ? [el("button", {text: "confirm", onclick: () => sendCommand({command: "confirm", alert_id: a.id})}),
                             el("button", {text: "reject", onclick: () => sendCommand({command: "reject", alert_id: a.id})})] : []),
    // a table fault: once the table is fixed, CLEAR_FAULT to the MCU and the build is retried
    ...(referee && a.open && a.kind === "mcu_fault" ? [el("button", {text: "clear fault", onclick: () => sendCommand({command: "clear_fault"})})] : [])])));
  document.getElementById("infractions").replaceChildren(...(doc.infractions || []).map((i) => el("li", {"data-id": i.id}, [
    el("span", {text: `seat ${i.seat} ${i.player || ""}: ${i.kind} ${i.points} (${i.status}) ${i.message || ""} `}),
    ...(referee && i.status !== "waived" ? [el("button", {text: "waive", onclick: () => sendCommand({command: "waive_penalty", infraction_id: i.id})})] : []),
    ...(referee && i.status === "proposed" ? [el("button", {text: "confirm", onclick: () => sendCommand({command: "confirm_penalty", infraction_id: i.id})})] : [])])));
}

function tickCountdowns() {
  const now = Date.now() / 1000 + app.clockOffsetS;
  for (const e of document.querySelectorAll(".countdown[data-deadline]")) {
    const left = Math.max(0, Number(e.getAttribute("data-deadline")) - now);
    e.textContent = left.toFixed(1) + " s";
    e.classList.toggle("low", left < 3);
  }
}

function sendCommand(fields) {
  if (!app.creds || !app.client || !app.table) return;
  const id = `${app.creds.user}-${Date.now()}-${++app.cmdCounter}`.replace(/[^A-Za-z0-9_.:-]/g, "_");
  const doc = Object.assign({schema: "mjtable.command/1", id, referee: app.creds.user}, fields);
  app.pending[id] = doc;
  // under the referee's own user name: the broker ACL allows only that, and the table takes the referee from it
  app.client.publish(topic(`referee/command/${app.creds.user}`), JSON.stringify(doc), 1, false);
  document.getElementById("command-result").textContent = `sent ${fields.command} (${id})…`;
}

function showResult(doc) {
  const cmd = app.pending[doc.command_id];
  const name = cmd ? cmd.command : doc.command_id;
  const box = document.getElementById("command-result");
  box.textContent = doc.ok ? `${name}: done` : `${name}: refused: ${doc.error}`;
  box.setAttribute("data-ok", String(doc.ok));
}

function wire() {
  document.getElementById("login").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const user = document.getElementById("login-user").value.trim();
    const pass = document.getElementById("login-pass").value;
    if (!user) return;
    document.getElementById("login-error").textContent = "";
    app.creds = {user, pass}; connect();
  });
  document.getElementById("logout-btn").addEventListener("click", () => { app.creds = null; connect(); });
  document.getElementById("table-select").addEventListener("change", (ev) => chooseTable(ev.target.value));
  document.getElementById("cmd-pause").addEventListener("click", () => sendCommand({command: "pause"}));
  document.getElementById("cmd-resume").addEventListener("click", () => sendCommand({command: "resume"}));
  document.getElementById("cmd-end").addEventListener("click", () => { if (confirm("End the session?")) sendCommand({command: "end_session"}); });
  const num = (id) => Number(document.getElementById(id).value);
  document.getElementById("correct-form").addEventListener("submit", (ev) => { ev.preventDefault();
    sendCommand({command: "correct_tile", seat: num("correct-seat"), position: num("correct-pos"), tile: document.getElementById("correct-tile").value.trim()}); });
  document.getElementById("penalty-form").addEventListener("submit", (ev) => { ev.preventDefault();
    sendCommand({command: "apply_penalty", seat: num("penalty-seat"), points: num("penalty-points")}); });
  document.getElementById("dead-form").addEventListener("submit", (ev) => { ev.preventDefault();
    sendCommand({command: "dead_hand", seat: num("dead-seat")}); });
  setInterval(tickCountdowns, 100);
}

async function start() {
  wire();
  try {
    const r = await fetch("config.json", {cache: "no-store"});
    if (r.ok) Object.assign(app.config, await r.json());
  } catch (e) { console.warn("no config.json; using defaults"); }
  const q = new URLSearchParams(location.search);
  if (q.get("broker")) app.config.broker_ws = q.get("broker");
  app.table = q.get("table") || app.config.table || null;
  app.spectator = q.get("spectator") === "1" || app.config.spectator === true;
  if (app.table) app.tables.add(app.table);
  renderTableSelect();
  connect();
}

start();
