/* The practise page's scheduling core: the review log, replayed with ts-fsrs (the npm package, pinned in
 * web/package-lock.json), the same settings as the terminal's py-fsrs Scheduler. One file for the page and
 * for tests/test_practise_parity.py (which runs it under Node.js): what the test checks is what the page runs.
 *
 * The log is the truth: a list of {card, rating, at (ISO UTC), seconds, lang}. A card's state is its reviews
 * replayed in time order, so merging two logs (phone and terminal) is a union, and both sides agree.
 *
 * One convention differs between the two libraries and is bridged here, not rewritten: py-fsrs counts the
 * days since the last review as whole 24-hour periods (timedelta.days), ts-fsrs as UTC calendar days. Before
 * each review the card's last_review is moved to the same time of day as the review, k days earlier, where k
 * is py-fsrs's count: ts-fsrs then sees exactly k elapsed days. Everything else is ts-fsrs's own code.
 */
(function (root, factory) {
  if (typeof module === "object" && module.exports) module.exports = factory(require("ts-fsrs"));
  else root.PractiseCore = factory(root.FSRS);
})(typeof self !== "undefined" ? self : this, function (FSRS) {
  "use strict";
  const DAY_MS = 86400000;
  const STEP_MIN = { learning: [1, 10], relearning: [10] };
  // py-fsrs 6.3.2's Scheduler defaults (selfattention.interview.schedule._scheduler): desired retention 0.9,
  // learning steps 1 min and 10 min, relearning step 10 min, at most 36500 days, no fuzzing.
  const SETTINGS = {
    request_retention: 0.9,
    maximum_interval: 36500,
    enable_fuzz: false,
    enable_short_term: true,
    learning_steps: STEP_MIN.learning.map((m) => m + "m"),
    relearning_steps: STEP_MIN.relearning.map((m) => m + "m"),
  };
  // py-fsrs 6.3.2's DEFAULT_PARAMETERS (FSRS-6, 21 weights); the page uses the log's own when it has them.
  const DEFAULTS = [
    0.212, 1.2931, 2.3065, 8.2956, 6.4133, 0.8334, 3.0194, 0.001, 1.8722, 0.1666, 0.796, 1.4835, 0.0614,
    0.2629, 1.6483, 0.6014, 1.8729, 0.5425, 0.0912, 0.0658, 0.1542,
  ];
  const RATINGS = [1, 2, 3, 4];

  

  // ts-fsrs's learning-steps hook (StrategyMode.LEARNING_STEPS) with py-fsrs's rules: 'hard' waits the
  // current step (the mean of the first two on the first step), 'good' moves to the next step or graduates,
  // 'easy' graduates (no entry: ts-fsrs then schedules whole days from the stability, as py-fsrs does).
  function pyLearningSteps(params, state, step) {
    const steps = state === FSRS.State.Learning || state === FSRS.State.New
      ? STEP_MIN.learning : STEP_MIN.relearning;
    const out = {};
    if (state === FSRS.State.Review) {
      out[1] = { scheduled_minutes: steps[0], next_step: 0 };
      return out;
    }
    if (step >= steps.length) return out;
    out[1] = { scheduled_minutes: steps[0], next_step: 0 };
    const hard = step > 0 ? steps[step] : steps.length === 1 ? steps[0] * 1.5 : (steps[0] + steps[1]) / 2;
    out[2] = { scheduled_minutes: hard, next_step: step };
    if (step + 1 < steps.length) out[3] = { scheduled_minutes: steps[step + 1], next_step: step + 1 };
    return out;
  }

  function scheduler(parameters) {
    const w = parameters && parameters.length === 21 ? parameters.slice() : DEFAULTS.slice();
    const f = FSRS.fsrs(FSRS.generatorParameters(Object.assign({ w: w }, SETTINGS)));
    return f.useStrategy(FSRS.StrategyMode.LEARNING_STEPS, pyLearningSteps);
  }

  function newCard(at) {
    return FSRS.createEmptyCard(new Date(at));
  }

  // the card as ts-fsrs must see it at `at` so that it counts py-fsrs's elapsed days (see the header)
  function aligned(card, at) {
    if (!card.last_review || card.state === FSRS.State.New) return card;
    const last = new Date(card.last_review).getTime();
    const k = Math.max(0, Math.floor((at.getTime() - last) / DAY_MS));
    return Object.assign({}, card, { last_review: new Date(at.getTime() - k * DAY_MS) });
  }

  // py-fsrs gives a reviewed card round(interval of its new stability) days; ts-fsrs then also keeps
  // hard <= good < easy apart by a day (its next_interval ordering), which py-fsrs does not: the day count
  // of a Review card rated hard/good/easy is ts-fsrs's own algorithm.next_interval of the new stability.
  function settle(f, before, after, rating, when) {
    if (before.state !== FSRS.State.Review || rating === 1) return after;
    const days = f.next_interval(after.stability, 0);
    return Object.assign(after, { scheduled_days: days, due: new Date(when.getTime() + days * DAY_MS) });
  }

  function review(f, card, rating, at) {
    const when = new Date(at);
    return settle(f, card, f.next(aligned(card, when), when, rating).card, rating, when);
  }

  // the four outcomes of rating `card` now: {1: card, 2: card, 3: card, 4: card}
  function preview(f, card, now) {
    const when = new Date(now);
    const p = f.repeat(aligned(card, when), when);
    const out = {};
    for (const r of RATINGS) out[r] = settle(f, card, p[r].card, r, when);
    return out;
  }

  function key(r) {
    return r.card + "|" + r.at + "|" + r.rating;
  }

  // reviews of both logs, each once, in time order (an answer is the same answer if card, moment, rating agree)
  function merge(a, b) {
    const seen = new Map();
    for (const r of a.concat(b)) if (!seen.has(key(r))) seen.set(key(r), r);
    return Array.from(seen.values()).sort((x, y) => (x.at < y.at ? -1 : x.at > y.at ? 1 : 0));
  }

  // card id -> {card (ts-fsrs), reps, lapses, last}: every card's reviews replayed in time order
  function replay(reviews, parameters) {
    const f = scheduler(parameters);
    const states = {};
    for (const r of merge(reviews, [])) {
      const prev = states[r.card];
      const card = prev ? prev.card : newCard(r.at);
      const next = review(f, card, r.rating, r.at);
      const lapse = prev && prev.card.state === FSRS.State.Review && r.rating === 1 ? 1 : 0;
      states[r.card] = {
        card: next,
        reps: (prev ? prev.reps : 0) + 1,
        lapses: (prev ? prev.lapses : 0) + lapse,
        last: r.at,
      };
    }
    return states;
  }

  function intervalText(ms, lang) {
    const zh = lang === "zh";
    const min = Math.round(ms / 60000);
    if (min < 60) return zh ? min + " 分钟" : min + " min";
    const h = Math.round(min / 60);
    if (h < 24) return zh ? h + " 小时" : h + " h";
    const d = Math.round(ms / DAY_MS);
    if (d < 31) return zh ? d + " 天" : d + (d === 1 ? " day" : " days");
    const mo = Math.round(d / 30);
    if (d < 365) return zh ? mo + " 个月" : mo + " mo";
    const y = Math.round((d / 365) * 10) / 10;
    return zh ? y + " 年" : y + " yr";
  }

  return {
    DAY_MS: DAY_MS,
    DEFAULTS: DEFAULTS,
    SETTINGS: SETTINGS,
    State: FSRS.State,
    scheduler: scheduler,
    newCard: newCard,
    review: review,
    preview: preview,
    merge: merge,
    replay: replay,
    intervalText: intervalText,
  };
});
