// mjtable table view (broadcast layout) with a referee drawer.
// The broker address comes ONLY from the server's config.json (never from the URL: a link must not point the
// page, and a referee's password, at another broker); the page's CSP allows websockets to that broker only.
// Query string: ?table=T1 (which table) and ?spectator=1 (the delayed spectator topics).
"use strict";

const WIND_NAMES = {E: "East", S: "South", W: "West", N: "North"};
// what each engine timer means, as the people at the table say it
const TIMER_MEANING = {
  turn: "to discard", claim: "to claim", opening: "to start the hand", flowers: "to replace flowers",
  first_discard: "first discard", session: "session ends in", session_warning: "warning in",
};

const app = {
  config: {broker_ws: null, table: null, prefix: "mjtable/v1"},
  spectator: false, table: null, creds: null, client: null,
  pub: null, ref: null, timers: null, clockOffsetS: 0, status: null, tables: new Set(),
  pending: {}, cmdCounter: 0, lastError: null,
};

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

// The table's retained status: online/offline, and while online the parts that are down (failed: red) or off (not
// configured, e.g. no camera): the referee then enters what that part would have read or done. Reasons: tooltip.
function showTableStatus(table, doc) {
  const notOk = Object.entries(doc.parts || {})
    .filter(([, s]) => typeof s === "string" && (s.startsWith("down") || s.startsWith("off")));
  const online = doc.status === "online";
  const down = notOk.some(([, s]) => s.startsWith("down"));
  let text = `table ${table} ${doc.status}`;
  if (online && notOk.length) text += " \u00b7 " + notOk.map(([part, s]) => `${part} ${s.split(":")[0]}`).join(", ");
  setBadge("table-status", text, online && !down);
  document.getElementById("table-status").title = online ? notOk.map(([p, s]) => `${p}: ${s}`).join("\n") : "";
}

function connect() {
  if (app.client) { app.client.onclose = () => {}; app.client.close(); }
  if (!app.config.broker_ws) { setBadge("conn", "no broker configured", false); return; }
  const opts = app.creds ? {username: app.creds.user, password: app.creds.pass}
    : (app.config.public_user ? {username: app.config.public_user, password: app.config.public_password} : {});
  const c = new MqttWs(app.config.broker_ws, opts);
  app.client = c;
  app.ref = null;
  c.onconnect = () => {
    setBadge("conn", "live", true);
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
    render();
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
    if (table === app.table) { app.status = doc.status; showTableStatus(table, doc); }
    return;
  }
  if (!app.table && leaf === "state") { app.tables.add(table); renderTableSelect(); chooseTable(table); return; }
  if (table !== app.table) return;
  if (leaf === "state") app.pub = doc;
  else if (leaf === "referee/state") app.ref = doc;
  else if (leaf === "timers") { app.timers = doc; app.clockOffsetS = doc.now_s - Date.now() / 1000; }
  else if (leaf === "referee/result") { showCommandResult(doc); return; }
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

// "m:ss" (h:mm:ss from an hour on): how people read a clock.
function clock(seconds) {
  const s = Math.max(0, Math.ceil(seconds));
  const h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60), r = s % 60;
  return (h ? `${h}:${String(m).padStart(2, "0")}` : String(m)) + ":" + String(r).padStart(2, "0");
}

function timerEl(t) {
  return el("span", {class: "timer"}, [el("span", {class: "timer-label", text: (TIMER_MEANING[t.name] || t.name.replace(/_/g, " ")) + " "}),
    el("span", {class: "countdown", id: `timer-${t.name}-${t.seat}`, "data-deadline": t.deadline_s, "data-timer": t.name})]);
}

function timerList(doc) {
  return (app.timers && app.timers.timers) || doc.timers || [];
}

function nameOf(doc, seat) {
  return seat === null || seat === undefined || !doc.seats[seat] ? "?" : doc.seats[seat].player;
}

function isReferee() { return !!(app.creds && app.ref); }

function render() {
  const doc = isReferee() ? app.ref : app.pub;
  if (!doc) return;
  const s = doc.session;
  document.getElementById("hand-label").textContent = `Hand ${s.hand_no} of ${s.hands_total}`;
  document.getElementById("round-label").textContent = `${WIND_NAMES[s.round_wind]} round`;
  document.getElementById("rules-label").textContent = doc.rules;
  document.getElementById("center-hand").textContent = `Hand ${s.hand_no} / ${s.hands_total}`;
  document.getElementById("center-round").textContent = `${WIND_NAMES[s.round_wind]} round · dealer ${nameOf(doc, s.dealer)}`;
  document.getElementById("center-wall").textContent = doc.wall_remaining !== null && doc.wall_remaining !== undefined
    ? `wall ${doc.wall_remaining}` : (doc.phase === "session_over" ? "session over" : "");
  document.getElementById("paused").classList.toggle("hidden", !doc.paused);
  for (const seat of doc.seats) renderSeat(doc, seat);
  const ld = doc.last_discard;
  document.getElementById("last-discard").replaceChildren(...(ld && !doc.result ? [el("span", {text: `${nameOf(doc, ld.seat)} discarded`}), tileEl(ld.tile)] : []));
  const cw = doc.claim_window;
  document.getElementById("claim-window").replaceChildren(...(cw ? [el("span", {text: `claims on ${nameOf(doc, cw.discard_seat)}'s`}), tileEl(cw.tile),
    el("span", {class: "countdown", "data-deadline": cw.deadline_s, id: "claim-countdown"})] : []));
  document.getElementById("timers").replaceChildren(...timerList(doc).filter((t) => t.seat === null).map(timerEl));
  renderExtras(doc);
  renderResult(doc);
  renderLists(doc);
  renderSeatSelects(doc);
  tickCountdowns();
}

// the score people know: riichi players count points from 25 000, the others from 0
function scoreOf(doc, seat) {
  if (doc.riichi && doc.riichi.points) return doc.riichi.points[seat.seat];
  return seat.score;
}

function renderSeat(doc, seat) {
  const box = document.getElementById("seat-" + seat.seat);
  box.classList.toggle("turn", doc.turn === seat.seat);
  const notes = [];
  if (seat.penalties) notes.push(el("span", {class: "note", text: `penalties −${seat.penalties}`}));
  if (seat.dead) notes.push(el("span", {class: "note", text: "dead hand"}));
  if (doc.riichi && doc.riichi.riichi && doc.riichi.riichi[seat.seat]) notes.push(el("span", {class: "note", text: "riichi"}));
  if (doc.sichuan && doc.sichuan.voids && doc.sichuan.voids[seat.seat]) notes.push(el("span", {class: "note", text: `void ${doc.sichuan.voids[seat.seat]}`}));
  for (const t of timerList(doc).filter((x) => x.seat === seat.seat)) notes.push(el("span", {class: "note"}, [timerEl(t)]));
  const plate = el("div", {class: "plate"}, [
    el("div", {class: "who"}, [el("span", {class: "wind" + (doc.session.dealer === seat.seat ? " dealer" : ""), text: seat.wind, title: WIND_NAMES[seat.wind] + (doc.session.dealer === seat.seat ? " (dealer)" : "")}),
      el("span", {class: "player", text: seat.player})]),
    el("span", {class: "score", id: `score-${seat.seat}`, text: String(scoreOf(doc, seat))}),
    ...notes]);
  const rackParts = [];
  if ("concealed" in seat) {
    rackParts.push(el("div", {class: "hand concealed", id: `concealed-${seat.seat}`},
      seat.concealed ? seat.concealed.map((c) => tileEl(c)) : Array.from({length: seat.hand_size}, () => tileEl(null))));
  } else {
    rackParts.push(el("div", {class: "hand", id: `hand-${seat.seat}`, "data-size": String(seat.hand_size)},
      Array.from({length: seat.hand_size}, () => tileEl(null))));
  }
  rackParts.push(el("div", {class: "melds", id: `melds-${seat.seat}`}, seat.melds.map((m) => meldEl(m, seat.seat))));
  if (seat.flowers.length) rackParts.push(el("div", {class: "flowers"}, seat.flowers.map((c) => tileEl(c))));
  const last = doc.last_discard && doc.last_discard.seat === seat.seat ? seat.pond.length - 1 : -1;
  const area = el("div", {class: "area"}, [
    el("div", {class: "pond", id: `pond-${seat.seat}`}, seat.pond.map((p, i) => tileEl(p.tile, (p.called ? "called" : "") + (i === last ? " last" : "")))),
    el("div", {class: "rack"}, rackParts)]);
  const parts = [plate, el("div", {class: "cell"}, [area])];
  if (seat.waits && seat.waits.length) {
    plate.append(el("div", {class: "waits", id: `waits-${seat.seat}`},
      [el("span", {text: "waits"})].concat(seat.waits.map((w) => el("span", {}, [tileEl(w.tile), el("span", {text: ` ${w.total} `})])))));
  }
  box.replaceChildren(...parts);
}

function renderExtras(doc) {
  const parts = [];
  const r = doc.riichi;
  if (r) {
    parts.push(el("span", {id: "dora"}, [el("span", {text: "dora"}), ...(r.dora_indicators || []).map((c) => tileEl(c)),
      ...((r.ura_indicators || []).length ? [el("span", {text: " ura"}), ...r.ura_indicators.map((c) => tileEl(c))] : [])]));
    parts.push(el("span", {text: `honba ${r.honba} · riichi sticks ${r.deposits}`}));
  }
  const sc = doc.sichuan;
  if (sc && !sc.revealed) {
    const chosen = (sc.void_chosen || []).filter((x) => x).length;
    parts.push(el("span", {id: "voids", text: `定缺 void suits: ${chosen} of 4 chosen`}));
  }
  document.getElementById("extras").replaceChildren(...parts);
}

// Who pays whom in one win: every seat that lost points pays the winner.
function payLines(doc, payments, winner) {
  const lines = [];
  payments.forEach((p, s) => { if (p < 0) lines.push(el("span", {}, [el("b", {text: nameOf(doc, s)}), ` pays ${nameOf(doc, winner)} `, el("b", {text: String(-p)})])); });
  return lines;
}

function renderResult(doc) {
  const box = document.getElementById("result");
  const r = doc.result;
  if (!r) { box.replaceChildren(); box.classList.add("hidden"); return; }
  box.classList.remove("hidden");
  const blocks = [];
  if (r.kind === "win") {
    const wins = r.wins && r.wins.length ? r.wins : r.winners.map((w) => ({winner: w, discarder: r.discarder, self_drawn: r.self_drawn,
      fans: r.fans, total: r.total, payments: r.payments, hand: (r.hands || {})[String(w)] || ""}));
    blocks.push(el("h2", {text: wins.length > 1 ? `${wins.length} winners` : `${nameOf(doc, wins[0].winner)} wins`}));
    for (const w of wins) {
      const how = w.self_drawn || w.discarder === null || w.discarder === undefined ? "self-drawn" : `on ${nameOf(doc, w.discarder)}'s discard`;
      blocks.push(el("div", {class: "win-block", "data-winner": String(w.winner)}, [
        el("h3", {text: `${nameOf(doc, w.winner)} · ${how}`}),
        handEl(w.hand),
        el("ul", {class: "fans"}, [...((w.fans || []).length ? [] : [el("li", {class: "plain", text: "plain win, no fan"})]), ...(w.fans || []).map((f) => el("li", {}, [el("span", {text: f.name + (f.count > 1 ? ` ×${f.count}` : "")}), el("span", {text: String(f.points * (f.count || 1))})])),
          el("li", {class: "total"}, [el("span", {text: "total"}), el("span", {text: String(w.total)})])]),
        el("div", {class: "payments"}, payLines(doc, w.payments, w.winner)),
      ]));
    }
  } else {
    blocks.push(el("h2", {text: r.kind === "draw" ? "Draw — nobody won" : "Hand stopped"}));
    const moves = r.payments.map((p, s) => [p, s]).filter(([p]) => p !== 0);
    if (moves.length) blocks.push(el("div", {class: "payments"}, moves.map(([p, s]) => el("span", {}, [el("b", {text: nameOf(doc, s)}), ` ${p > 0 ? "+" : "−"}${Math.abs(p)}`]))));
    for (const [s, h] of Object.entries(r.hands || {})) blocks.push(el("div", {class: "win-block"}, [el("h3", {text: nameOf(doc, Number(s))}), handEl(h)]));
  }
  blocks.push(el("div", {class: "payments"}, doc.seats.map((x) => el("span", {}, [`${x.player} `, el("b", {text: String(scoreOf(doc, x))})]))));
  box.replaceChildren(...blocks);
}

function renderLists(doc) {
  const referee = isReferee();
  const alerts = doc.alerts || [];
  const open = alerts.filter((a) => a.open).length;
  const count = document.getElementById("alert-count");
  count.textContent = String(open);
  count.classList.toggle("hidden", open === 0);
  document.getElementById("alerts").replaceChildren(...alerts.map((a) => el("li", {class: a.open ? "alert-open" : "", "data-id": a.id}, [
    el("span", {text: `${a.kind.replace(/_/g, " ")}${a.message ? ": " + a.message : ""} `}),
    ...(referee && a.open ? [el("button", {text: "confirm", onclick: () => sendCommand({command: "confirm", alert_id: a.id})}),
                             el("button", {text: "reject", onclick: () => sendCommand({command: "reject", alert_id: a.id})})] : []),
    // a table fault: once the table is fixed, CLEAR_FAULT to the MCU and the build is retried
    ...(referee && a.open && a.kind === "mcu_fault" ? [el("button", {text: "clear fault", onclick: () => sendCommand({command: "clear_fault"})})] : [])])));
  document.getElementById("infractions").replaceChildren(...(doc.infractions || []).map((i) => el("li", {"data-id": i.id}, [
    el("span", {text: `${i.player || nameOf(doc, i.seat)}: ${i.kind.replace(/_/g, " ")} ${i.points} (${i.status}) ${i.message || ""} `}),
    ...(referee && i.status !== "waived" ? [el("button", {text: "waive", onclick: () => sendCommand({command: "waive_penalty", infraction_id: i.id})})] : []),
    ...(referee && i.status === "proposed" ? [el("button", {text: "confirm", onclick: () => sendCommand({command: "confirm_penalty", infraction_id: i.id})})] : [])])));
}

// Seats rotate between hands: a picker keeps the PLAYER chosen (not the seat number) when the seating changes,
// and the command names that player, so the engine refuses it if another sits at the seat by the time it lands.
function renderSeatSelects(doc) {
  for (const sel of document.querySelectorAll(".seat-select")) {
    const keptPlayer = sel.selectedOptions.length ? sel.selectedOptions[0].getAttribute("data-player") : null;
    const names = doc.seats.map((x) => `${x.player} (${x.wind})`);
    if (Array.from(sel.options).map((o) => o.text).join("|") === names.join("|")) continue;
    sel.replaceChildren(...doc.seats.map((x) => el("option", {value: String(x.seat), "data-player": x.player,
                                                             text: `${x.player} (${x.wind})`})));
    const again = doc.seats.find((x) => x.player === keptPlayer);
    if (again) sel.value = String(again.seat);
  }
}

function seatTarget(id) {
  const sel = document.getElementById(id);
  const opt = sel.selectedOptions.length ? sel.selectedOptions[0] : null;
  const player = opt ? opt.getAttribute("data-player") : null;
  return player ? {seat: Number(sel.value), player} : {seat: Number(sel.value)};
}

function tickCountdowns() {
  const now = Date.now() / 1000 + app.clockOffsetS;
  for (const e of document.querySelectorAll(".countdown[data-deadline]")) {
    const left = Math.max(0, Number(e.getAttribute("data-deadline")) - now);
    e.textContent = clock(left);
    e.setAttribute("data-left", left.toFixed(1));
    e.classList.toggle("low", left < 5 && !["session", "session_warning"].includes(e.getAttribute("data-timer")));
  }
}

function sendCommand(fields) {
  if (!app.creds || !app.client || !app.table) return;
  if (app.status !== "online") {  // the broker does not queue commands for an offline table: they would vanish
    const box = document.getElementById("command-result");
    box.textContent = `${fields.command}: not sent: table ${app.table} is ${app.status || "not reporting"} ` +
      "(commands are not queued; send again once it is online)";
    box.setAttribute("data-ok", "false");
    return;
  }
  const id = `${app.creds.user}-${Date.now()}-${++app.cmdCounter}`.replace(/[^A-Za-z0-9_.:-]/g, "_");
  const doc = Object.assign({schema: "mjtable.command/1", id, referee: app.creds.user}, fields);
  app.pending[id] = doc;
  // under the referee's own user name: the broker ACL allows only that, and the table takes the referee from it
  app.client.publish(topic(`referee/command/${app.creds.user}`), JSON.stringify(doc), 1, false);
  document.getElementById("command-result").textContent = `sent ${fields.command} (${id})…`;
}

function showCommandResult(doc) {
  const cmd = app.pending[doc.command_id];
  const name = cmd ? cmd.command : doc.command_id;
  const box = document.getElementById("command-result");
  box.textContent = doc.ok ? `${name}: done` : `${name}: refused: ${doc.error}`;
  box.setAttribute("data-ok", String(doc.ok));
}

function setDrawer(open) {
  document.getElementById("drawer").classList.toggle("hidden", !open);
  document.getElementById("referee-toggle").setAttribute("aria-expanded", String(open));
}

function wire() {
  document.getElementById("referee-toggle").addEventListener("click", () => setDrawer(document.getElementById("drawer").classList.contains("hidden")));
  document.getElementById("drawer-close").addEventListener("click", () => setDrawer(false));
  document.getElementById("login").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const user = document.getElementById("login-user").value.trim();
    const pass = document.getElementById("login-pass").value;
    if (!user) return;
    document.getElementById("login-error").textContent = "";
    app.creds = {user, pass}; connect();
  });
  document.getElementById("logout-btn").addEventListener("click", () => { app.creds = null; app.ref = null; connect(); });
  document.getElementById("table-select").addEventListener("change", (ev) => chooseTable(ev.target.value));
  document.getElementById("cmd-pause").addEventListener("click", () => sendCommand({command: "pause"}));
  document.getElementById("cmd-resume").addEventListener("click", () => sendCommand({command: "resume"}));
  document.getElementById("cmd-end").addEventListener("click", () => { if (confirm("End the session?")) sendCommand({command: "end_session"}); });
  const num = (id) => Number(document.getElementById(id).value);
  document.getElementById("correct-form").addEventListener("submit", (ev) => { ev.preventDefault();
    sendCommand({command: "correct_tile", ...seatTarget("correct-seat"), position: num("correct-pos") - 1, tile: document.getElementById("correct-tile").value.trim()}); });
  document.getElementById("penalty-form").addEventListener("submit", (ev) => { ev.preventDefault();
    sendCommand({command: "apply_penalty", ...seatTarget("penalty-seat"), points: num("penalty-points")}); });
  document.getElementById("dead-form").addEventListener("submit", (ev) => { ev.preventDefault();
    sendCommand({command: "dead_hand", ...seatTarget("dead-seat")}); });
  setInterval(tickCountdowns, 250);
}

async function start() {
  wire();
  try {
    const r = await fetch("config.json", {cache: "no-store"});
    if (r.ok) Object.assign(app.config, await r.json());
  } catch (e) { console.warn("no config.json"); }
  const q = new URLSearchParams(location.search);
  app.table = q.get("table") || app.config.table || null;
  app.spectator = q.get("spectator") === "1" || app.config.spectator === true;
  if (app.table) app.tables.add(app.table);
  renderTableSelect();
  connect();
}

start();
