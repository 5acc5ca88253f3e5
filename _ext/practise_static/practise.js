/* The practise page (see _ext/practise.py): one card at a time, scheduled by ts-fsrs through core.js.
 * State lives in localStorage under KEY as {version, reviews, parameters, fitted, settings}; the reviews are
 * the truth and every card's schedule is their replay. Without storage (private mode, blocked) the page
 * says so and keeps the state in memory for the visit. */
(function () {
  "use strict";
  const core = window.PractiseCore;
  const root = document.getElementById("sa-practise");
  if (!root || !core) return;
  const KEY = "selfattention.practise";
  const VERSION = 1;
  const DAY_START_HOUR = 4; // the study day turns at 4 am local time, as in the terminal (and Anki)
  const LOG_FORMAT = "selfattention.review-log";
  const meta = JSON.parse(document.getElementById("sa-pr-meta").textContent);
  const $ = (id) => document.getElementById(id);

  const T = {
    en: {
      chapter: "Chapter", level: "Level", newPerDay: "New cards a day", allChapters: "All chapters",
      allLevels: "All levels", back: "← Back", show: "Show answer", next: "Show more →",
      keys: "Keys: Space shows the answer · → / ← step through it · 1–4 rate",
      r1: "Again", r2: "Hard", r3: "Good", r4: "Easy", export: "Export progress", import: "Import progress",
      reset: "Reset", erase: "Erase", keep: "Keep", short: "Short answer", spoken: "Say it in 60–90 seconds",
      points: "Key points: tick what you said", myths: "Common misconceptions", rate: "Rate your answer",
      summary: (s) => `Due today ${s.due} · learned ${s.learned} · reviews ${s.reviews} · new left today ${s.newLeft}`,
      where: (i, n, c, lv) => `Card ${i} of ${n} · chapter ${c} · ${lv}`,
      done: "Nothing is due in this selection.", nextDue: (t) => ` The next card is due in ${t}.`,
      doneNew: " The day's new cards are used up: raise the limit, or come back tomorrow.",
      storage: "This browser does not let the page store anything (private mode, or storage blocked): your " +
        "ratings last only until you close this tab. Export progress to keep them.",
      confirm: (n) => `Erase ${n} review(s) from this browser?`, erased: "Progress erased.",
      exported: (n) => `Wrote ${n} review(s) to a file.`,
      imported: (a, n) => `Imported ${a} new review(s) (${n} already here).`,
      badImport: (e) => `Not a review log this page can read: ${e}`,
      shown: (q) => `Question: ${q}`, revealed: "Answer shown.",
      rated: (r, t) => `Rated ${r}: next in ${t}.`, timer: (t) => `Time ${t}`, lang: "English",
      levels: { basic: "basic", "follow-up": "follow-up", deep: "deep" },
      newer: "Progress saved by a newer version of this page was kept aside, not read.",
    },
    zh: {
      chapter: "章节", level: "难度", newPerDay: "每天新卡", allChapters: "全部章节", allLevels: "全部难度",
      back: "← 上一步", show: "显示答案", next: "继续展开 →",
      keys: "快捷键：空格显示答案 · → / ← 逐步展开 · 1–4 打分",
      r1: "重来", r2: "困难", r3: "良好", r4: "简单", export: "导出进度", import: "导入进度", reset: "重置",
      erase: "清除", keep: "保留", short: "简短回答", spoken: "面试时可以这样答", points: "要点：勾选你说到的",
      myths: "常见误区", rate: "给你的回答打分",
      summary: (s) => `今日到期 ${s.due} · 已掌握 ${s.learned} · 复习次数 ${s.reviews} · 今日剩余新卡 ${s.newLeft}`,
      where: (i, n, c, lv) => `第 ${i} / ${n} 张 · 第 ${c} 章 · ${lv}`,
      done: "当前范围内没有到期的卡片。", nextDue: (t) => `下一张卡片 ${t} 后到期。`,
      doneNew: "今天的新卡已用完：调高上限，或明天再来。",
      storage: "此浏览器不允许本页保存数据（隐私模式或存储被禁用）：评分只保留到关闭此标签页为止。" +
        "请导出进度以保存。",
      confirm: (n) => `从此浏览器清除 ${n} 条复习记录？`, erased: "进度已清除。",
      exported: (n) => `已把 ${n} 条复习记录写入文件。`,
      imported: (a, n) => `导入了 ${a} 条新的复习记录（${n} 条已存在）。`,
      badImport: (e) => `无法读取这个复习日志：${e}`,
      shown: (q) => `问题：${q}`, revealed: "答案已显示。",
      rated: (r, t) => `评为${r}：${t}后再复习。`, timer: (t) => `用时 ${t}`, lang: "中文",
      levels: { basic: "基础", "follow-up": "追问", deep: "深入" },
      newer: "由更新版本的页面保存的进度已另存，没有读取。",
    },
  };

  // ------------------------------------------------------------------------------------------ storage
  function fresh() {
    return { version: VERSION, reviews: [], parameters: null, fitted: null,
             settings: { lang: "en", chapter: "", level: "", newPerDay: 10 } };
  }
  // schema changes: MIGRATIONS[n] turns a version-n state into version n + 1 (none yet: version 1 is the first)
  const MIGRATIONS = {};
  function migrate(raw) {
    let s = raw;
    while (s && typeof s.version === "number" && s.version < VERSION && MIGRATIONS[s.version]) {
      s = MIGRATIONS[s.version](s);
    }
    if (!s || s.version !== VERSION || !Array.isArray(s.reviews)) return null;
    const base = fresh();
    s.settings = Object.assign(base.settings, s.settings || {});
    return s;
  }
  let storage = null;
  let state = fresh();
  let notice = "";
  try {
    const ls = window.localStorage;
    const probe = KEY + ".probe";
    ls.setItem(probe, "1");
    ls.removeItem(probe);
    storage = ls;
  } catch (e) {
    storage = null;
  }
  if (storage) {
    const text = storage.getItem(KEY);
    if (text) {
      let raw = null;
      try { raw = JSON.parse(text); } catch (e) { raw = null; }
      const s = migrate(raw);
      if (s) state = s;
      else {
        storage.setItem(KEY + ".unreadable." + Date.now(), text); // kept aside, never destroyed
        notice = "newer";
      }
    }
  }
  function save() {
    if (!storage) return;
    try { storage.setItem(KEY, JSON.stringify(state)); } catch (e) { showStorageProblem(); }
  }
  function showStorageProblem() {
    storage = null;
    const el = $("sa-pr-storage");
    el.hidden = false;
    el.textContent = t().storage;
  }

  // ------------------------------------------------------------------------------------------ schedule
  const byId = {};
  meta.cards.forEach((c, i) => { byId[c.id] = Object.assign({ order: i }, c); });
  const t = () => T[state.settings.lang] || T.en;
  const now = () => new Date();
  function dayStart(d) {
    const s = new Date(d.getFullYear(), d.getMonth(), d.getDate(), DAY_START_HOUR);
    if (d < s) s.setDate(s.getDate() - 1);
    return s;
  }
  function inSelection(c) {
    return (!state.settings.chapter || c.chapter === state.settings.chapter) &&
      (!state.settings.level || c.level === state.settings.level);
  }
  function known(reviews) { return reviews.filter((r) => byId[r.card]); }
  function schedule() {
    const states = core.replay(known(state.reviews), state.parameters);
    const at = now();
    const start = dayStart(at);
    const end = new Date(start.getTime() + core.DAY_MS);
    const first = {};
    for (const r of core.merge(state.reviews, [])) if (!(r.card in first)) first[r.card] = new Date(r.at);
    const newToday = Object.values(first).filter((d) => d >= start && d < end).length;
    const limit = Math.max(0, Number(state.settings.newPerDay) || 0);
    const sel = meta.cards.filter(inSelection);
    const due = sel.filter((c) => states[c.id] && states[c.id].card.due <= at)
      .sort((a, b) => states[a.id].card.due - states[b.id].card.due || byId[a.id].order - byId[b.id].order);
    const unseen = sel.filter((c) => !states[c.id]);
    const newLeft = Math.max(0, limit - newToday);
    const queue = due.concat(unseen.slice(0, newLeft)).map((c) => c.id);
    const later = sel.filter((c) => states[c.id] && states[c.id].card.due > at)
      .map((c) => states[c.id].card.due).sort((a, b) => a - b);
    return {
      states, queue, at, newLeft: Math.min(newLeft, unseen.length), unseen: unseen.length, nextDue: later[0],
      dueToday: sel.filter((c) => states[c.id] && states[c.id].card.due < end).length,
      learned: sel.filter((c) => states[c.id] && states[c.id].card.state === core.State.Review).length,
      reviews: known(state.reviews).filter((r) => inSelection(byId[r.card])).length,
    };
  }

  // ------------------------------------------------------------------------------------------ rendering
  let plan = null;
  let current = null; // {id, step, started, seconds}
  let timer = null;
  const STEPS = ["q", "short", "spoken", "points", "myths"];

  function fmt(sec) {
    const m = Math.floor(sec / 60), s = Math.floor(sec % 60);
    return m + ":" + String(s).padStart(2, "0");
  }
  function announce(text) {
    const live = $("sa-pr-live");
    live.textContent = "";
    window.setTimeout(() => { live.textContent = text; }, 30);
  }
  function texts() {
    const L = t();
    document.documentElement.lang = state.settings.lang === "zh" ? "zh-CN" : "en";
    root.querySelectorAll("[data-i18n]").forEach((el) => {
      const v = L[el.dataset.i18n];
      if (typeof v === "string") el.textContent = v;
    });
    root.querySelectorAll(".sa-pr-lang").forEach((b) => {
      b.setAttribute("aria-pressed", String(b.dataset.lang === state.settings.lang));
    });
    $("sa-pr-rates").setAttribute("aria-label", L.rate);
    const lv = $("sa-pr-level");
    Array.from(lv.options).forEach((o) => { if (o.value) o.textContent = L.levels[o.value] || o.value; });
    if (!storage && !$("sa-pr-storage").hidden) $("sa-pr-storage").textContent = L.storage;
  }
  function cardPart(id) {
    const box = document.getElementById("pr-" + id);
    return box.querySelector(".sa-pr-" + state.settings.lang);
  }
  function questionText(id) {
    return cardPart(id).querySelector(".sa-pr-q").textContent.trim();
  }
  function lastStep(id) {
    return cardPart(id).querySelector(".sa-pr-myths li") ? 4 : 3;
  }
  function drawCard() {
    const L = t();
    const slot = $("sa-pr-slot");
    slot.textContent = "";
    const part = cardPart(current.id);
    STEPS.forEach((name, i) => {
      if (i > current.step) return;
      const src = part.querySelector(".sa-pr-" + name);
      if (!src || (name === "myths" && !src.querySelector("li"))) return;
      const block = document.createElement("div");
      block.className = "sa-pr-block sa-pr-block-" + name;
      if (name !== "q") {
        const h = document.createElement("h3");
        h.className = "sa-pr-label";
        h.textContent = L[name];
        block.appendChild(h);
      }
      const body = src.cloneNode(true);
      body.removeAttribute("id");
      if (name === "points") {
        body.querySelectorAll("li").forEach((li, k) => {
          const key = current.id + ":" + k;
          const label = document.createElement("label");
          label.className = "sa-pr-check";
          const box = document.createElement("input");
          box.type = "checkbox";
          box.checked = !!(current.ticked && current.ticked[key]);
          box.addEventListener("change", () => { current.ticked = current.ticked || {}; current.ticked[key] = box.checked; });
          label.appendChild(box);
          const span = document.createElement("span");
          while (li.firstChild) span.appendChild(li.firstChild);
          label.appendChild(span);
          li.appendChild(label);
        });
      }
      block.appendChild(body);
      slot.appendChild(block);
    });
    const c = byId[current.id];
    $("sa-pr-where").textContent = L.where(plan.queue.indexOf(current.id) + 1, plan.queue.length,
      meta.chapters[c.chapter].number, L.levels[c.level] || c.level);
    $("sa-pr-back").disabled = current.step === 0;
    const more = current.step < lastStep(current.id);
    const show = $("sa-pr-show");
    show.disabled = !more;
    show.textContent = current.step === 0 ? L.show : L.next;
    drawRates();
  }
  function drawRates() {
    const L = t();
    const st = plan.states[current.id];
    const card = st ? st.card : core.newCard(plan.at);
    const outcomes = core.preview(core.scheduler(state.parameters), card, plan.at);
    root.querySelectorAll(".sa-pr-rate-btn").forEach((b) => {
      const r = Number(b.dataset.rating);
      const due = outcomes[r].due;
      const ivl = core.intervalText(due - plan.at, state.settings.lang);
      b.querySelector(".sa-pr-ivl").textContent = ivl;
      b.dataset.due = due.toISOString();
      b.dataset.interval = ivl;
      b.disabled = current.step === 0;
      b.setAttribute("aria-label", L["r" + r] + ", " + ivl + " (" + r + ")");
    });
  }
  function tick() {
    if (!current) return;
    const sec = current.seconds != null ? current.seconds : (Date.now() - current.started) / 1000;
    const el = $("sa-pr-timer");
    el.textContent = fmt(sec);
    el.setAttribute("aria-label", t().timer(fmt(sec)));
  }
  function drawSummary() {
    $("sa-pr-summary").textContent = t().summary({ due: plan.dueToday, learned: plan.learned,
      reviews: plan.reviews, newLeft: plan.newLeft });
  }
  function refresh(keepCurrent, said) {
    const prefix = said ? said + " " : "";
    plan = schedule();
    root.dataset.queue = plan.queue.join(" ");
    drawSummary();
    const id = keepCurrent && current && plan.queue.includes(current.id) ? current.id : plan.queue[0];
    if (!id) {
      current = null;
      $("sa-pr-stage").hidden = true;
      $("sa-pr-done").hidden = false;
      const L = t();
      let msg = L.done;
      if (plan.nextDue) msg += L.nextDue(core.intervalText(plan.nextDue - plan.at, state.settings.lang));
      if (plan.unseen > 0 && plan.newLeft === 0) msg += L.doneNew;
      $("sa-pr-done-text").textContent = msg;
      announce(prefix + msg);
      return;
    }
    $("sa-pr-done").hidden = true;
    $("sa-pr-stage").hidden = false;
    if (!current || current.id !== id) {
      current = { id: id, step: 0, started: Date.now(), seconds: null };
      announce(prefix + t().shown(questionText(id)));
    }
    root.dataset.card = id;
    drawCard();
    tick();
  }
  function step(delta) {
    if (!current) return;
    const to = Math.max(0, Math.min(lastStep(current.id), current.step + delta));
    if (to === current.step) return;
    if (current.step === 0 && to > 0 && current.seconds == null) {
      current.seconds = (Date.now() - current.started) / 1000;
    }
    current.step = to;
    drawCard();
    tick();
    const blocks = $("sa-pr-slot").querySelectorAll(".sa-pr-block");
    if (delta > 0) announce(t().revealed + " " + blocks[blocks.length - 1].textContent.trim().slice(0, 300));
  }
  function rate(r) {
    if (!current || current.step === 0) return;
    const L = t();
    const btn = root.querySelector('.sa-pr-rate-btn[data-rating="' + r + '"]');
    const seconds = current.seconds != null ? current.seconds : (Date.now() - current.started) / 1000;
    state.reviews.push({ card: current.id, rating: r, at: plan.at.toISOString(),
                         seconds: Math.round(seconds * 10) / 10, lang: state.settings.lang });
    save();
    const msg = L.rated(L["r" + r], btn.dataset.interval);
    current = null;
    refresh(false, msg);
    $("sa-pr-slot").focus({ preventScroll: true });
  }

  // ------------------------------------------------------------------------------------------ log files
  function logFile() {
    const states = core.replay(known(state.reviews), state.parameters);
    const due = {};
    Object.keys(states).sort().forEach((id) => { due[id] = states[id].card.due.toISOString(); });
    return { format: LOG_FORMAT, version: 1, exported_at: new Date().toISOString(), source: "site",
             parameters: state.parameters || core.DEFAULTS.slice(), fitted: state.fitted,
             reviews: core.merge(state.reviews, []), due: due };
  }
  function exportLog() {
    const log = logFile();
    const blob = new Blob([JSON.stringify(log, null, 1) + "\n"], { type: "application/json" });
    const a = document.createElement("a");
    a.href = URL.createObjectURL(blob);
    a.download = "practise-log-" + new Date().toISOString().slice(0, 10) + ".json";
    document.body.appendChild(a);
    a.click();
    window.setTimeout(() => { URL.revokeObjectURL(a.href); a.remove(); }, 1000);
    note(t().exported(log.reviews.length));
  }
  function importLog(text) {
    const L = t();
    let log;
    try {
      log = JSON.parse(text);
      if (!log || log.format !== LOG_FORMAT) throw new Error("no \"format\": \"" + LOG_FORMAT + "\"");
      if (typeof log.version !== "number" || log.version > 1) throw new Error("log version " + log.version);
      if (!Array.isArray(log.reviews)) throw new Error("no reviews");
      log.reviews.forEach((r) => {
        if (typeof r.card !== "string" || [1, 2, 3, 4].indexOf(r.rating) < 0 || isNaN(Date.parse(r.at))) {
          throw new Error("a malformed review " + JSON.stringify(r).slice(0, 80));
        }
      });
    } catch (e) {
      note(L.badImport(e.message));
      return;
    }
    const reviews = log.reviews.map((r) => ({ card: r.card, rating: r.rating,
      at: new Date(r.at).toISOString(), seconds: r.seconds || 0, lang: r.lang || "en" }));
    const before = core.merge(state.reviews, []).length;
    state.reviews = core.merge(state.reviews, reviews);
    const added = state.reviews.length - before;
    if (Array.isArray(log.parameters) && log.parameters.length === 21 && log.fitted &&
        (!state.fitted || String(log.fitted.fitted_at) > String(state.fitted.fitted_at))) {
      state.parameters = log.parameters.map(Number); // a fit made in the terminal travels with its log
      state.fitted = log.fitted;
    }
    save();
    current = null;
    refresh(false);
    note(L.imported(added, reviews.length - added));
  }
  function note(text) {
    $("sa-pr-note").textContent = text;
  }

  // ------------------------------------------------------------------------------------------ wiring
  function setSetting(name, value) {
    state.settings[name] = value;
    save();
  }
  function fromUrl() {
    const q = new URLSearchParams(window.location.search);
    const ch = q.get("chapter");
    if (ch && meta.chapters[ch]) state.settings.chapter = ch;
    const lang = q.get("lang");
    if (lang === "en" || lang === "zh") state.settings.lang = lang;
  }
  fromUrl();
  $("sa-pr-chapter").value = state.settings.chapter;
  $("sa-pr-level").value = state.settings.level;
  $("sa-pr-newlimit").value = state.settings.newPerDay;
  root.querySelectorAll(".sa-pr-lang").forEach((b) => b.addEventListener("click", () => {
    setSetting("lang", b.dataset.lang);
    texts();
    if (current) drawCard();
    refresh(true);
  }));
  $("sa-pr-chapter").addEventListener("change", (e) => { setSetting("chapter", e.target.value); refresh(true); });
  $("sa-pr-level").addEventListener("change", (e) => { setSetting("level", e.target.value); refresh(true); });
  $("sa-pr-newlimit").addEventListener("change", (e) => {
    const n = Math.max(0, Math.min(999, parseInt(e.target.value, 10) || 0));
    e.target.value = n;
    setSetting("newPerDay", n);
    refresh(true);
  });
  $("sa-pr-show").addEventListener("click", () => step(1));
  $("sa-pr-back").addEventListener("click", () => step(-1));
  root.querySelectorAll(".sa-pr-rate-btn").forEach((b) => b.addEventListener("click", () => rate(Number(b.dataset.rating))));
  $("sa-pr-export").addEventListener("click", exportLog);
  $("sa-pr-import").addEventListener("change", (e) => {
    const file = e.target.files && e.target.files[0];
    if (!file) return;
    file.text().then(importLog);
    e.target.value = "";
  });
  $("sa-pr-reset").addEventListener("click", () => {
    $("sa-pr-confirm").hidden = false;
    $("sa-pr-confirm-text").textContent = t().confirm(state.reviews.length);
    $("sa-pr-reset-no").focus();
  });
  $("sa-pr-reset-no").addEventListener("click", () => { $("sa-pr-confirm").hidden = true; });
  $("sa-pr-reset-yes").addEventListener("click", () => {
    state.reviews = [];
    save();
    $("sa-pr-confirm").hidden = true;
    current = null;
    refresh(false);
    note(t().erased);
  });
  document.addEventListener("keydown", (e) => {
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    const tag = (e.target && e.target.tagName) || "";
    if (/^(INPUT|SELECT|TEXTAREA)$/.test(tag) && e.target.type !== "checkbox") return;
    if (e.key === " " || e.key === "Spacebar") {
      if (tag === "BUTTON" || tag === "SUMMARY" || tag === "A") return; // Space presses a focused button
      if (!current) return;
      e.preventDefault();
      step(1);
    } else if (e.key === "ArrowRight") { if (current) { e.preventDefault(); step(1); } }
    else if (e.key === "ArrowLeft") { if (current) { e.preventDefault(); step(-1); } }
    else if (/^[1-4]$/.test(e.key)) { if (current && current.step > 0) { e.preventDefault(); rate(Number(e.key)); } }
  });
  texts();
  if (!storage) showStorageProblem();
  else if (notice) note(t()[notice]);
  refresh(false);
  timer = window.setInterval(tick, 1000);
  root.dataset.ready = "true";
  window.saPractise = { schedule: schedule, state: () => state, storage: () => !!storage };
})();
