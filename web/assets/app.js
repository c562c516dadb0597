// Ocvist's page: play and analyse against the engine, watch two agents,
// and a live dashboard of training databases. Plain JavaScript, no build.
"use strict";

const $ = (id) => document.getElementById(id);
const N = 15, COLS = "abcdefghijklmno";
const S = {
  cfg: null, game: null, view: null, // view: the ply shown, null = the latest
  tab: "play", setup: null, cursor: 7 * N + 7,
  stream: null, analysing: false, info: null, hint: null,
  watching: false, dash: [], sources: [], chartMetric: {},
};

// ---------- helpers ----------
const pname = (p) => COLS[p % N] + (N - Math.floor(p / N));
function pparse(s) {
  const m = /^([a-o])(\d{1,2})$/.exec(s || "");
  if (!m) return -1;
  const x = COLS.indexOf(m[1]), row = +m[2];
  return row >= 1 && row <= N ? (N - row) * N + x : -1;
}
function el(tag, attrs = {}, ...kids) {
  const svg = ["svg", "line", "circle", "rect", "text", "g", "path", "polyline"].includes(tag);
  const e = svg ? document.createElementNS("http://www.w3.org/2000/svg", tag) : document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v == null) continue;
    if (k === "text") e.textContent = v; else if (k.startsWith("on")) e.addEventListener(k.slice(2), v); else e.setAttribute(k, v);
  }
  for (const k of kids) e.append(k);
  return e;
}
function showError(msg) {
  $("error-text").textContent = msg;
  $("error").hidden = false;
}
function clearError() { $("error").hidden = true; }
async function api(method, path, body) {
  const opt = { method, headers: {} };
  if (body !== undefined) { opt.body = JSON.stringify(body); opt.headers["Content-Type"] = "application/json"; }
  const r = await fetch(path, opt);
  const text = await r.text();
  let data;
  try { data = JSON.parse(text); } catch { data = text; }
  if (!r.ok) throw new Error((data && data.error) || `${r.status} ${r.statusText}`);
  return data;
}
// stream POSTs body to path and calls on(event, data) for each
// server-sent event of the response, until it ends or is aborted.
async function stream(path, body, on, signal) {
  const r = await fetch(path, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body), signal });
  if (!r.ok) {
    let msg = `${r.status} ${r.statusText}`;
    try { msg = (await r.json()).error || msg; } catch {}
    throw new Error(msg);
  }
  const reader = r.body.getReader(), dec = new TextDecoder();
  let buf = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buf += dec.decode(value, { stream: true });
    let i;
    while ((i = buf.indexOf("\n\n")) >= 0) {
      const chunk = buf.slice(0, i); buf = buf.slice(i + 2);
      let ev = "message", data = "";
      for (const line of chunk.split("\n")) {
        if (line.startsWith("event: ")) ev = line.slice(7);
        else if (line.startsWith("data: ")) data += line.slice(6);
      }
      on(ev, data ? JSON.parse(data) : null);
    }
  }
}
function stopStream() {
  if (S.stream) { S.stream.abort(); S.stream = null; }
}
const colourName = (s) => (s === "x" ? "Black" : "White");
function scoreText(info) {
  if (!info) return "–";
  const black = info.side === "x" ? 1 : -1;
  if (info.mate) {
    const winner = info.mate * black > 0 ? "Black" : "White";
    return `${winner} wins in ${Math.abs(info.mate)}`;
  }
  const s = info.score * black;
  return (s > 0 ? "+" : "") + s + " (Black)";
}
function blackShare(info) {
  if (!info) return 0.5;
  const black = info.side === "x" ? 1 : -1;
  if (info.mate) return info.mate * black > 0 ? 1 : 0;
  return 0.5 + 0.5 * Math.tanh((info.score * black) / 600);
}
const fmtInt = (n) => (n == null ? "–" : Number(n).toLocaleString("en-US"));
function fmtBytes(n) {
  const u = ["B", "KB", "MB", "GB", "TB"];
  let i = 0;
  while (n >= 1000 && i < u.length - 1) { n /= 1000; i++; }
  return `${n.toFixed(i ? 1 : 0)} ${u[i]}`;
}
const fmtNum = (v, d = 3) => (v == null || v < 0 || Number.isNaN(v) ? "–" : (+v).toFixed(d));

// infoFor is the search to show on the position after n moves: one made
// on it, or the one whose first move is the last stone.
function infoFor(n) {
  const i = S.info;
  if (!i || S.setup) return null;
  if (i.ply === n) return i;
  if (i.ply === n - 1 && n > 0 && moves()[n - 1] === pparse(i.pv[0])) return i;
  return null;
}

// ---------- the board ----------
function moves() { return S.game ? S.game.moves.map(pparse) : []; }
function shownPly() { const n = S.setup ? S.setup.length : moves().length; return S.view == null ? n : Math.min(S.view, n); }
function drawBoard() {
  // The cells that take the clicks are made once and never replaced: a
  // redraw (an engine's event) between a press and its release would
  // otherwise remove the pressed cell, and the browser drop the click.
  const board = $("board");
  let svg = board.querySelector("g.layer");
  if (!svg) {
    svg = el("g", { class: "layer" });
    const cells = el("g", { class: "cells" });
    for (let p = 0; p < N * N; p++) {
      cells.append(el("rect", { class: "cell", x: 0.5 + (p % N), y: 0.5 + Math.floor(p / N), width: 1, height: 1, "data-p": pname(p), role: "gridcell", "aria-label": pname(p) }));
    }
    board.replaceChildren(svg, cells);
  }
  svg.replaceChildren();
  const g = el("g", { class: "grid" });
  for (let i = 0; i < N; i++) {
    g.append(el("line", { x1: 1, y1: 1 + i, x2: N, y2: 1 + i }), el("line", { x1: 1 + i, y1: 1, x2: 1 + i, y2: N }));
    svg.append(el("text", { class: "coord", x: 1 + i, y: 15.6, text: COLS[i] }), el("text", { class: "coord", x: 0.4, y: 1 + i, text: N - i }));
  }
  svg.append(g);
  for (const [x, y] of [[3, 3], [11, 3], [7, 7], [3, 11], [11, 11]]) svg.append(el("circle", { class: "star", cx: 1 + x, cy: 1 + y, r: 0.08 }));
  const all = S.setup || moves(), n = shownPly(), stones = new Map();
  all.slice(0, n).forEach((p, i) => stones.set(p, i));
  for (const [p, i] of stones) {
    const c = i % 2 ? "o" : "x", cx = 1 + (p % N), cy = 1 + Math.floor(p / N);
    svg.append(el("circle", { class: `stone ${c}`, cx, cy, r: 0.46, "data-stone": pname(p) }));
    if ($("moves-box").open && n <= 120) svg.append(el("text", { class: `num ${c}`, x: cx, y: cy + 0.02, text: i + 1 }));
  }
  if (n > 0 && !S.setup) {
    const p = all[n - 1];
    svg.append(el("circle", { class: "last", cx: 1 + (p % N), cy: 1 + Math.floor(p / N) + 0.3, r: 0.09 }));
  }
  const live = S.view == null || S.view >= moves().length;
  if (S.game && live && S.game.win_line && S.game.win_line.length) {
    const w = S.game.win_line.map(pparse), a = w[0], b = w[w.length - 1];
    svg.append(el("line", { class: "winline", x1: 1 + (a % N), y1: 1 + Math.floor(a / N), x2: 1 + (b % N), y2: 1 + Math.floor(b / N) }));
  }
  const info = infoFor(n);
  if (info) {
    // The line from the position shown: after the engine's move is played,
    // its continuation, numbered from 1.
    const played = info.ply === n - 1, line = played ? info.pv.slice(1) : info.pv;
    const first = played ? (info.side === "x" ? "o" : "x") : info.side;
    line.slice(0, 10).forEach((m, i) => {
      const p = pparse(m);
      if (p < 0 || stones.has(p)) return;
      const side = i % 2 === 0 ? first : first === "x" ? "o" : "x";
      const cx = 1 + (p % N), cy = 1 + Math.floor(p / N);
      svg.append(el("circle", { class: `pv ${side}`, cx, cy, r: 0.42, "data-pv": i + 1 }), el("text", { class: `pvnum ${side}`, x: cx, y: cy + 0.02, text: i + 1 }));
    });
  }
  if (S.game && live && !S.setup && S.game.forbidden) {
    // Renju: Black's forbidden points, marked with a cross.
    for (const m of S.game.forbidden) {
      const p = pparse(m), cx = 1 + (p % N), cy = 1 + Math.floor(p / N), d = 0.22;
      svg.append(el("path", { class: "forbid", d: `M${cx - d} ${cy - d}L${cx + d} ${cy + d}M${cx + d} ${cy - d}L${cx - d} ${cy + d}`, "data-forbid": m }));
    }
  }
  if (S.hint && S.hint.ply === n) {
    const p = pparse(S.hint.move);
    svg.append(el("circle", { class: "hint", cx: 1 + (p % N), cy: 1 + Math.floor(p / N), r: 0.5, "data-hint": S.hint.move }));
  }
  drawCursor();
}
// drawCursor shows the keyboard cursor while the board has the focus
// (without redrawing the board, so that a click is never lost).
function drawCursor() {
  const svg = $("board");
  let c = svg.querySelector(".cursor");
  if (document.activeElement !== svg) return c && c.remove();
  if (!c) svg.append((c = el("rect", { class: "cursor", width: 0.9, height: 0.9 })));
  c.setAttribute("x", 0.55 + (S.cursor % N));
  c.setAttribute("y", 0.55 + Math.floor(S.cursor / N));
}
// pointAt is the intersection under a click, or -1.
function pointAt(e) {
  const svg = $("board"), m = svg.getScreenCTM();
  if (!m) return -1;
  const pt = new DOMPoint(e.clientX, e.clientY).matrixTransform(m.inverse());
  const x = Math.round(pt.x - 1), y = Math.round(pt.y - 1);
  return x >= 0 && x < N && y >= 0 && y < N ? y * N + x : -1;
}

// ---------- the panel ----------
function render() {
  drawBoard();
  const g = S.game, n = shownPly(), total = S.setup ? S.setup.length : moves().length;
  $("ply").textContent = `move ${n} of ${total}`;
  const ol = $("moves");
  ol.replaceChildren();
  const list = S.setup ? S.setup.map(pname) : g ? g.moves : [];
  list.forEach((m, i) => {
    const li = el("li", { text: m, title: (g && g.reasons[i]) || "", "data-ply": i + 1 });
    if (g && i < g.book) li.classList.add("book");
    if (i + 1 === n) li.classList.add("cur");
    li.addEventListener("click", () => browse(i + 1));
    ol.append(li);
  });
  $("status").textContent = statusText();
  $("undo").disabled = !g || g.moves.length === 0 || S.watching;
  $("resign").disabled = !g || g.over || !(isHuman("x") || isHuman("o")) || S.watching;
  $("hint").disabled = !g || g.over || S.watching;
  $("analyse").disabled = !g || S.watching;
  $("setup").setAttribute("aria-pressed", S.setup ? "true" : "false");
  $("setup").textContent = S.setup ? "Play from here" : "Set up";
  document.body.dataset.busy = S.stream ? "1" : "0";
  renderInfo();
}
function isHuman(side) {
  const g = S.game;
  if (!g || !side) return false;
  return (side === "x" ? g.black : g.white).agent === "human";
}
function statusText() {
  const g = S.game;
  if (S.setup) return `Setting up: click to place ${S.setup.length % 2 ? "White" : "Black"}; "Play from here" starts the game.`;
  if (!g) return "Start a game.";
  if (g.over) return g.result[0].toUpperCase() + g.result.slice(1) + ".";
  if (S.view != null && S.view < g.moves.length) return `Showing move ${S.view} of ${g.moves.length}.`;
  const who = colourName(g.to_move), p = g.to_move === "x" ? g.black : g.white;
  if (p.agent === "human") return `${who} to move${isHuman("x") && isHuman("o") ? "" : " — your move"}.`;
  return S.stream ? `${who} (${p.agent}) is thinking…` : `${who} (${p.agent}) to move.`;
}
function renderInfo() {
  const info = infoFor(shownPly());
  $("evalfill").style.width = `${(blackShare(info) * 100).toFixed(1)}%`;
  $("score").textContent = scoreText(info);
  $("depth").textContent = info ? (info.depth ? `depth ${info.depth}, ${fmtInt(info.nodes)} nodes, ${info.ms} ms` : `${info.reason.split(";")[0]}`) : "";
  $("pv").textContent = info ? "line: " + info.pv.join(" ") : "";
  const tb = $("top").tBodies[0];
  tb.replaceChildren();
  // Scores from Black's view, like the bar; a bound is an upper bound for
  // the mover, so a lower one for the other side.
  const black = info && info.side === "x" ? 1 : -1;
  $("top").tHead.rows[0].cells[1].textContent = info && info.top.some((t) => t.p) ? "agent's estimate" : "score (Black)";
  for (const t of info ? info.top : []) {
    let sc;
    if (t.p) sc = `p ${t.p.toFixed(2)}`;
    else if (t.mate) sc = `${t.mate * black > 0 ? "Black" : "White"} wins in ${Math.abs(t.mate)}`;
    else sc = (t.bound ? (black > 0 ? "≤ " : "≥ ") : "") + (t.score * black > 0 ? "+" : "") + t.score * black;
    tb.append(el("tr", {}, el("td", { text: t.move }), el("td", { text: sc })));
  }
}
function setReason(who, move, text) {
  const r = $("reason");
  r.replaceChildren(el("span", { class: "who", text: `${who} ${move}: ` }), el("span", { id: "reason-text", text: text || "a quiet move" }));
}

// ---------- playing ----------
function newGameBody() {
  const c = $("color").value, agent = { agent: $("agent").value, model: $("model").value };
  const human = { agent: "human" };
  return {
    rule: $("rule").value, move_time_ms: +$("time").value,
    black: c === "x" || c === "both" ? human : agent,
    white: c === "o" || c === "both" ? human : agent,
  };
}
async function startGame(extra = {}) {
  stopStream();
  S.analysing = false; $("analyse").setAttribute("aria-pressed", "false");
  clearError();
  try {
    S.game = await api("POST", "/api/games", { ...newGameBody(), ...extra });
    S.view = null; S.info = null; S.hint = null; S.setup = null;
    $("reason").replaceChildren();
    if (S.game.notice) setReason("Note", "", S.game.notice);
    render();
    refreshGames();
    await maybeEngine();
  } catch (e) { showError(e.message); render(); }
}
async function play(p) {
  const g = S.game;
  if (S.setup) {
    if (S.setup.slice(0, shownPly()).includes(p)) return showError(`${pname(p)}: cell is occupied`);
    S.setup = S.setup.slice(0, shownPly()); S.setup.push(p); S.view = null;
    return render();
  }
  if (!g) return startGame().then(() => S.game && play(p));
  if (S.view != null && S.view < g.moves.length) return showError(`Showing move ${S.view}: go to the last move (End) to play.`);
  if (g.over) return showError(`The game is over: ${g.result}. Start a new game or undo.`);
  if (!isHuman(g.to_move)) return showError("It is the engine's turn.");
  clearError();
  stopStream();
  try {
    S.game = await api("POST", `/api/games/${g.id}/move`, { move: pname(p) });
    S.view = null; S.hint = null;
    setReason(`You (${colourName(g.to_move)})`, pname(p), S.game.reasons[S.game.reasons.length - 1]);
    render();
    await maybeEngine();
    if (S.analysing) analyse();
  } catch (e) { showError(e.message); }
}
async function maybeEngine() {
  const g = S.game;
  if (!g || g.over || isHuman(g.to_move)) return;
  await engineMove();
}
async function engineMove() {
  const g = S.game, ctl = new AbortController();
  stopStream();
  S.stream = ctl;
  render();
  const ply = g.moves.length, side = g.to_move, agent = (side === "x" ? g.black : g.white).agent;
  try {
    await stream(`/api/games/${g.id}/engine`, {}, (ev, data) => {
      if (ev === "info") { S.info = { ...data, ply }; renderInfo(); drawBoard(); $("depth").textContent += " (thinking)"; }
      else if (ev === "done") {
        S.game = data; S.view = null;
        if (data.last) { S.info = { ...data.last, ply }; setReason(`${colourName(side)} (${agent})`, data.last.move, data.last.reason); }
      } else if (ev === "error") throw new Error(data.error);
    }, ctl.signal);
  } catch (e) {
    if (e.name !== "AbortError") showError(e.message);
  } finally {
    if (S.stream === ctl) S.stream = null;
    render();
    refreshGames();
  }
}
async function analyse(hint = false) {
  const g = S.game;
  if (!g) return;
  stopStream();
  const ctl = new AbortController(), ply = shownPly();
  S.stream = ctl;
  render();
  $("depth").textContent = "queued…";
  try {
    await stream(`/api/games/${g.id}/analyse`, { ply, hint }, (ev, data) => {
      if (ev === "info" || ev === "done") {
        S.info = { ...data, ply };
        if (ev === "done" && hint) { S.hint = { move: data.move, ply }; setReason(`Hint for ${colourName(data.side)}`, data.move, data.reason); }
        if (ev === "done" && !hint) setReason(`Analysis: ${colourName(data.side)}`, data.move, data.reason);
        renderInfo(); drawBoard();
      } else if (ev === "error") throw new Error(data.error);
    }, ctl.signal);
  } catch (e) {
    if (e.name !== "AbortError") showError(e.message);
  } finally {
    if (S.stream === ctl) S.stream = null;
    if (!hint) { S.analysing = false; $("analyse").setAttribute("aria-pressed", "false"); }
    render();
  }
}
async function undo() {
  const g = S.game;
  if (!g) return;
  stopStream();
  try {
    S.game = await api("POST", `/api/games/${g.id}/undo`, {});
    S.view = null; S.info = null; S.hint = null;
    $("reason").replaceChildren();
    clearError();
    render();
    refreshGames();
  } catch (e) { showError(e.message); }
}
async function resign() {
  if (!S.game) return;
  stopStream();
  try { S.game = await api("POST", `/api/games/${S.game.id}/resign`, {}); render(); refreshGames(); } catch (e) { showError(e.message); }
}
function browse(ply) {
  const total = S.setup ? S.setup.length : moves().length;
  S.view = Math.max(0, Math.min(total, ply));
  if (S.view === total) S.view = null;
  if (S.analysing) analyse(); else render();
}
function toggleSetup() {
  if (!S.setup) {
    stopStream();
    S.setup = moves().slice(0, shownPly()); S.view = null; S.info = null;
    return render();
  }
  const ms = S.setup.map(pname);
  S.setup = null;
  startGame({ moves: ms });
}
async function saveSGF() {
  if (!S.game) return showError("No game to save.");
  try {
    const r = await fetch(`/api/games/${S.game.id}/sgf`);
    const text = await r.text();
    if (!r.ok) throw new Error(JSON.parse(text).error);
    $("sgf").value = text;
    const a = el("a", { href: URL.createObjectURL(new Blob([text], { type: "application/x-go-sgf" })), download: `ocvist-${S.game.id}.sgf` });
    document.body.append(a); a.click(); a.remove();
  } catch (e) { showError(e.message); }
}
function loadSGF(text) {
  if (!text.trim()) return showError("SGF: paste a game first.");
  startGame({ sgf: text, rule: "" });
}
async function refreshGames() {
  try {
    const list = await api("GET", "/api/games");
    const ul = $("games");
    ul.replaceChildren();
    for (const g of list) {
      const label = `${g.id}: ${g.black.agent} – ${g.white.agent}, ${g.rule}, ${g.moves.length} moves${g.over ? ", " + g.result : ""}`;
      ul.append(el("li", {}, el("button", { text: label, "data-game": g.id, onclick: () => openGame(g.id) })));
    }
  } catch (e) { /* the list is a convenience */ }
}
async function openGame(id) {
  stopStream();
  try { S.game = await api("GET", `/api/games/${id}`); S.view = null; S.info = S.game.last ? { ...S.game.last, ply: S.game.moves.length - 1 } : null; render(); }
  catch (e) { showError(e.message); }
}

// ---------- watching ----------
async function startWatch() {
  const agent = (v) => ({ agent: v });
  S.watching = true;
  $("w-start").disabled = true; $("w-stop").disabled = false;
  clearError();
  try {
    S.game = await api("POST", "/api/games", { rule: $("w-rule").value, move_time_ms: +$("w-time").value, black: agent($("w-black").value), white: agent($("w-white").value) });
    S.view = null; S.info = null; S.hint = null;
    render();
    refreshGames();
    while (S.watching && S.game && !S.game.over) await engineMove();
  } catch (e) { showError(e.message); }
  stopWatch();
}
function stopWatch() {
  S.watching = false;
  stopStream();
  $("w-start").disabled = false; $("w-stop").disabled = true;
  render();
}

// ---------- dashboard ----------
function openDash() {
  closeDash();
  const box = $("dbs");
  if (!S.cfg.dbs.length) { box.replaceChildren(el("p", { text: "No database: start the server with -db FILE (for example: go run ./cmd/train web -db data/ocvist.db)." })); return; }
  S.cfg.dbs.forEach((name, i) => {
    if (!$(`db-${i}`)) box.append(el("div", { id: `db-${i}`, class: "db card" }, el("h2", { text: name }), el("p", { text: "reading…" })));
    const src = new EventSource(`/api/dbs/${i}/events`);
    src.addEventListener("snapshot", (e) => renderDB(JSON.parse(e.data)));
    src.onerror = () => { const c = $(`db-${i}`); if (c && src.readyState === EventSource.CLOSED) c.prepend(el("p", { class: "err", text: "connection to the server lost" })); };
    S.sources.push(src);
  });
}
function closeDash() { for (const s of S.sources) s.close(); S.sources = []; }
function figure(k, v, id) { return el("div", { class: "figure" }, el("div", { class: "v", text: v, ...(id ? { id } : {}) }), el("div", { class: "k", text: k })); }
// renderDB shows a snapshot: the figures every time, the other sections
// only when their data changed (so that a menu or a tooltip the reader is
// using is not rebuilt under them every second).
function renderDB(s, force) {
  S.dash[s.index] = s;
  const c = $(`db-${s.index}`);
  if (!c.dataset.built) {
    c.replaceChildren(...["title", "err", "figs", "runs", "curve", "gens", "models"].map((k) => el("div", { "data-part": k })));
    c.dataset.built = "1";
  }
  const part = (k, data, build) => {
    const box = c.querySelector(`[data-part="${k}"]`), key = JSON.stringify(data);
    if (!force && box.dataset.key === key) return;
    box.dataset.key = key;
    box.replaceChildren(...build());
  };
  part("title", [s.name, s.rule], () => [el("h2", { text: s.name + (s.rule ? ` — ${s.rule}` : "") })]);
  part("err", s.error || "", () => (s.error ? [el("p", { class: "err", role: "alert", text: s.error })] : []));
  part("figs", [s.games, s.games_per_s, s.bytes, s.black_wins, s.white_wins, s.draws, (s.generations || []).length], () => [el("div", { class: "figures" },
    figure("games", fmtInt(s.games), `db-${s.index}-games`), figure("games/s", s.games_per_s.toFixed(1), `db-${s.index}-rate`),
    figure("size", fmtBytes(s.bytes)), figure("black wins", fmtInt(s.black_wins)), figure("white wins", fmtInt(s.white_wins)),
    figure("draws", fmtInt(s.draws)), figure("generations", fmtInt((s.generations || []).length), `db-${s.index}-gens`))]);
  part("runs", s.runs || [], () => {
    if (!s.runs || !s.runs.length) return [];
    const rows = s.runs.map((r) => {
      const c = r.config || {};
      const dur = c.duration ? `${(c.duration / 1e9).toFixed(0)} s` : "–";
      return el("tr", {}, ...[r.n, r.started, r.seed, c.workers ?? "–", c.games || "–", dur, (c.game && c.game.rule) || "–", c.version || "–"].map((v) => el("td", { text: String(v) })));
    });
    return [el("h3", { text: "Runs" }), el("div", { class: "tablewrap" }, el("table", { class: "data" },
      el("thead", {}, el("tr", {}, ...["run", "started", "seed", "workers", "games", "duration", "rule", "version"].map((h) => el("th", { text: h })))),
      el("tbody", {}, ...rows)))];
  });
  const gens = s.generations || [];
  part("curve", [gens, S.chartMetric[s.index] || ""], () => (gens.length ? [el("h3", { text: "Learning curve" }), chart(s)] : []));
  part("gens", gens, () => (gens.length ? [el("h3", { text: "Generations" }), genTable(s)] : []));
  part("models", s.models || [], () => {
    if (!s.models || !s.models.length) return [];
    const ul = el("ul", {});
    for (const m of s.models) {
      const base = (f) => f.split("/").pop();
      ul.append(el("li", { title: m.policy + (m.value ? " + " + m.value : "") }, `generation ${m.gen}: ${base(m.policy)}${m.value ? " + " + base(m.value) : ""} `,
        el("button", { text: `Play gen ${m.gen}`, "data-model": m.ref, disabled: m.ready ? null : "", title: m.ready ? null : "the model file is missing", onclick: () => playModel(m.ref) })));
    }
    return [el("h3", { text: "Models" }), ul];
  });
}
function det(g) { return g.details || {}; }
const metrics = {
  "gate score": { get: (g) => g.score, lo: (g) => g.score_low, hi: (g) => g.score_high },
  "policy top-1": { get: (g) => det(g).top1 },
  "policy AUC": { get: (g) => (g.details ? det(g).auc : g.auc) },
  "value AUC": { get: (g) => det(g).value_auc },
  "Elo vs random": { get: (g) => anchor(g, "random", "elo"), lo: (g) => anchor(g, "random", "elo_low"), hi: (g) => anchor(g, "random", "elo_high") },
  "Elo vs patterns": { get: (g) => anchor(g, "patterns", "elo"), lo: (g) => anchor(g, "patterns", "elo_low"), hi: (g) => anchor(g, "patterns", "elo_high") },
  "Elo vs gen 0": { get: (g) => anchor(g, "gen0", "elo"), lo: (g) => anchor(g, "gen0", "elo_low"), hi: (g) => anchor(g, "gen0", "elo_high") },
  games: { get: (g) => g.games },
};
function anchor(g, name, k) {
  const a = (det(g).anchors || []).find((a) => a.against === name || a.against.startsWith(name));
  return a ? a[k] : undefined;
}
function genTable(s) {
  const cols = [["gen", (g) => g.gen], ["games", (g) => fmtInt(g.games)], ["rows", (g) => fmtInt(g.rows)], ["fit s", (g) => fmtNum(g.fit_seconds, 1)],
    ["AUC", (g) => fmtNum(g.auc, 4)], ["gate", (g) => `${fmtNum(g.score)} [${fmtNum(g.score_low)}, ${fmtNum(g.score_high)}]`],
    ["top-1", (g) => fmtNum(det(g).top1)], ["value AUC", (g) => fmtNum(det(g).value_auc)],
    ["samples", (g) => fmtInt(det(g).samples)], ["held out", (g) => fmtInt(det(g).held_out)],
    ["teacher s", (g) => fmtNum(det(g).teacher_seconds, 1)], ["match s", (g) => fmtNum(det(g).match_seconds, 1)],
    ["gate verdict", (g) => (det(g).gate ? (det(g).gate.decision || (det(g).gate.by_interval ? "by interval" : "–")) : "–")],
    ["anchors (Elo)", (g) => (det(g).anchors || []).map((a) => `${a.against} ${a.elo.toFixed(0)}`).join(", ") || "–"],
    ["adopted", (g) => (g.details ? (det(g).adopted ? "yes" : "no") : g.score >= 0.5 ? "yes" : "no")], ["seed", (g) => g.seed], ["created", (g) => g.created]];
  return el("div", {}, el("div", { class: "tablewrap" }, el("table", { class: "data", id: `gens-${s.index}` },
    el("thead", {}, el("tr", {}, ...cols.map(([h]) => el("th", { text: h })))),
    el("tbody", {}, ...s.generations.map((g) => el("tr", {}, ...cols.map(([, f]) => el("td", { text: String(f(g) ?? "–") }))))))),
    el("details", {}, el("summary", { text: "Every figure (as train stats -json prints them)" }),
      el("pre", { class: "json", text: JSON.stringify(s.generations, null, 1) })));
}
function chart(s) {
  const key = S.chartMetric[s.index] || "gate score";
  const sel = el("select", { "aria-label": "Metric", onchange: (e) => { S.chartMetric[s.index] = e.target.value; renderDB(S.dash[s.index]); $(`db-${s.index}`).querySelector("select").focus(); } });
  for (const k of Object.keys(metrics)) sel.append(el("option", { value: k, text: k, ...(k === key ? { selected: "" } : {}) }));
  const cv = el("canvas", { tabindex: "0", "aria-label": `learning curve: ${key}` }), tip = el("div", { class: "tip", hidden: "" });
  const box = el("div", { class: "chart" }, el("label", {}, "Metric ", sel), cv, tip);
  requestAnimationFrame(() => drawChart(cv, tip, s.generations, metrics[key]));
  return box;
}
function drawChart(cv, tip, gens, m) {
  const dpr = window.devicePixelRatio || 1, W = cv.clientWidth, H = cv.clientHeight;
  if (!W) return;
  cv.width = W * dpr; cv.height = H * dpr;
  const ctx = cv.getContext("2d");
  ctx.scale(dpr, dpr);
  const pts = gens.map((g) => ({ x: g.gen, y: m.get(g), lo: m.lo ? m.lo(g) : undefined, hi: m.hi ? m.hi(g) : undefined })).filter((p) => p.y != null && p.y >= -1e9 && !Number.isNaN(p.y));
  ctx.font = "12px system-ui"; ctx.fillStyle = "#666";
  if (!pts.length) { ctx.fillText("no data for this metric", 20, 30); return; }
  const ys = pts.flatMap((p) => [p.y, p.lo, p.hi].filter((v) => v != null));
  let y0 = Math.min(...ys), y1 = Math.max(...ys);
  if (y0 === y1) { y0 -= 1e-3 + Math.abs(y0) * 0.1; y1 += 1e-3 + Math.abs(y1) * 0.1; }
  const pad = (y1 - y0) * 0.08; y0 -= pad; y1 += pad;
  const x0 = Math.min(...pts.map((p) => p.x)), x1 = Math.max(x0 + 1, ...pts.map((p) => p.x));
  const L = 52, R = 12, T = 12, B = 28;
  const X = (x) => L + ((x - x0) / (x1 - x0)) * (W - L - R), Y = (y) => T + (1 - (y - y0) / (y1 - y0)) * (H - T - B);
  ctx.strokeStyle = "#ddd"; ctx.lineWidth = 1;
  for (let i = 0; i <= 4; i++) {
    const v = y0 + ((y1 - y0) * i) / 4, y = Y(v);
    ctx.beginPath(); ctx.moveTo(L, y); ctx.lineTo(W - R, y); ctx.stroke();
    ctx.fillText(Math.abs(v) >= 100 ? v.toFixed(0) : v.toFixed(3), 4, y + 4);
  }
  for (const p of pts) ctx.fillText(String(p.x), X(p.x) - 4, H - 8);
  ctx.strokeStyle = "rgba(31,95,191,.35)"; ctx.lineWidth = 6;
  for (const p of pts) if (p.lo != null && p.hi != null) { ctx.beginPath(); ctx.moveTo(X(p.x), Y(p.lo)); ctx.lineTo(X(p.x), Y(p.hi)); ctx.stroke(); }
  ctx.strokeStyle = "#1f5fbf"; ctx.lineWidth = 2; ctx.beginPath();
  pts.forEach((p, i) => (i ? ctx.lineTo(X(p.x), Y(p.y)) : ctx.moveTo(X(p.x), Y(p.y))));
  ctx.stroke();
  ctx.fillStyle = "#1f5fbf";
  for (const p of pts) { ctx.beginPath(); ctx.arc(X(p.x), Y(p.y), 4, 0, 7); ctx.fill(); }
  const show = (p) => {
    tip.hidden = false;
    tip.textContent = `gen ${p.x}: ${(+p.y).toFixed(4)}` + (p.lo != null ? ` [${(+p.lo).toFixed(3)}, ${(+p.hi).toFixed(3)}]` : "");
    tip.style.left = `${Math.min(X(p.x) + 8, W - 160)}px`; tip.style.top = `${Y(p.y) + 24}px`;
  };
  cv.onmousemove = (e) => {
    const r = cv.getBoundingClientRect(), mx = e.clientX - r.left;
    let best = pts[0];
    for (const p of pts) if (Math.abs(X(p.x) - mx) < Math.abs(X(best.x) - mx)) best = p;
    show(best);
  };
  cv.onmouseleave = () => (tip.hidden = true);
  let k = pts.length - 1;
  cv.onkeydown = (e) => {
    if (e.key === "ArrowLeft") k = Math.max(0, k - 1); else if (e.key === "ArrowRight") k = Math.min(pts.length - 1, k + 1); else return;
    e.preventDefault(); show(pts[k]);
  };
}
function playModel(ref) {
  setTab("play");
  let o = [...$("model").options].find((o) => o.value === ref);
  if (!o) $("model").append((o = el("option", { value: ref, text: ref })));
  $("model").value = ref;
  $("agent").value = "search";
  startGame();
}

// ---------- tabs, forms, keys ----------
function setTab(t) {
  S.tab = t;
  for (const b of document.querySelectorAll("nav button")) b.setAttribute("aria-selected", b.dataset.tab === t ? "true" : "false");
  $("board-view").hidden = t === "dash";
  $("dash-view").hidden = t !== "dash";
  $("play-controls").hidden = t !== "play";
  $("watch-controls").hidden = t !== "watch";
  if (t === "dash") openDash(); else closeDash();
  if (t !== "watch" && S.watching) stopWatch();
}
function fill(sel, values, label = (v) => v) {
  sel.replaceChildren(...values.map((v) => el("option", { value: v, text: label(v) })));
}
function onKey(e) {
  if (e.target.closest("input, textarea, select") || e.ctrlKey || e.metaKey || e.altKey) return;
  const onBoard = e.target === $("board");
  if (onBoard && ["ArrowLeft", "ArrowRight", "ArrowUp", "ArrowDown", "Enter", " "].includes(e.key)) {
    e.preventDefault();
    const x = S.cursor % N, y = Math.floor(S.cursor / N);
    if (e.key === "ArrowLeft") S.cursor = y * N + Math.max(0, x - 1);
    if (e.key === "ArrowRight") S.cursor = y * N + Math.min(N - 1, x + 1);
    if (e.key === "ArrowUp") S.cursor = Math.max(0, y - 1) * N + x;
    if (e.key === "ArrowDown") S.cursor = Math.min(N - 1, y + 1) * N + x;
    if (e.key === "Enter" || e.key === " ") return play(S.cursor);
    $("board").setAttribute("aria-label", `Board, cursor at ${pname(S.cursor)}`);
    return drawCursor();
  }
  if (S.tab === "dash") return;
  const act = { n: () => startGame(), u: undo, h: () => analyse(true), a: () => $("analyse").click(), s: toggleSetup,
    "[": () => browse(shownPly() - 1), "]": () => browse(shownPly() + 1), Home: () => browse(0), End: () => browse(1e9) }[e.key];
  if (act && !(S.tab === "watch" && "nuhas".includes(e.key))) { e.preventDefault(); act(); }
}
async function init() {
  S.cfg = await api("GET", "/api/config");
  const times = S.cfg.move_times_ms, tl = (v) => (v < 1000 ? `${v} ms` : `${v / 1000} s`);
  for (const id of ["rule", "w-rule"]) fill($(id), S.cfg.rules);
  for (const id of ["time", "w-time"]) { fill($(id), times, tl); $(id).value = times.includes(1000) ? 1000 : times[0]; }
  fill($("agent"), S.cfg.agents);
  fill($("w-black"), S.cfg.agents); fill($("w-white"), S.cfg.agents);
  $("w-white").value = S.cfg.agents[S.cfg.agents.length - 1];
  $("new-form").addEventListener("submit", (e) => { e.preventDefault(); startGame(); });
  $("watch-form").addEventListener("submit", (e) => { e.preventDefault(); startWatch(); });
  $("w-stop").addEventListener("click", stopWatch);
  $("undo").addEventListener("click", undo);
  $("resign").addEventListener("click", resign);
  $("hint").addEventListener("click", () => analyse(true));
  $("analyse").addEventListener("click", () => {
    if (S.analysing) { S.analysing = false; stopStream(); render(); return; }
    S.analysing = true; $("analyse").setAttribute("aria-pressed", "true"); analyse();
  });
  $("setup").addEventListener("click", toggleSetup);
  $("sgf-save").addEventListener("click", saveSGF);
  $("sgf-load").addEventListener("click", () => loadSGF($("sgf").value));
  $("sgf-file").addEventListener("change", async (e) => { const f = e.target.files[0]; if (f) { $("sgf").value = await f.text(); loadSGF($("sgf").value); } });
  $("first").addEventListener("click", () => browse(0));
  $("prev").addEventListener("click", () => browse(shownPly() - 1));
  $("next").addEventListener("click", () => browse(shownPly() + 1));
  $("last").addEventListener("click", () => browse(1e9));
  $("error-close").addEventListener("click", clearError);
  $("moves-box").addEventListener("toggle", drawBoard);
  for (const b of document.querySelectorAll("nav button")) b.addEventListener("click", () => setTab(b.dataset.tab));
  $("board").addEventListener("click", (e) => { const p = pointAt(e); if (p >= 0) { S.cursor = p; drawCursor(); play(p); } });
  $("board").addEventListener("focus", drawCursor);
  $("board").addEventListener("blur", drawCursor);
  document.addEventListener("keydown", onKey);
  window.addEventListener("resize", () => { if (S.tab === "dash") S.dash.forEach((s) => s && renderDB(s, true)); });
  if (S.cfg.dbs.length) {
    api("GET", "/api/dbs").then((list) => {
      for (const s of list) for (const m of s.models || []) if (m.ready) $("model").append(el("option", { value: m.ref, text: `${s.name} gen ${m.gen}` }));
    }).catch(() => {});
  }
  const q = new URLSearchParams(location.search);
  if (q.get("tab")) setTab(q.get("tab"));
  render();
  refreshGames();
  document.body.dataset.ready = "1";
}
init().catch((e) => showError("The page could not start: " + e.message));
