// Node.js: read {"parameters": [...] | null, "reviews": [{card, rating, at}, ...]} on stdin, print every card's
// state after the log as ts-fsrs schedules it through core.js (the page's code): used by the parity test.
"use strict";
const core = require("./core.js");
let input = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (d) => (input += d));
process.stdin.on("end", () => {
  const job = JSON.parse(input);
  const out = {};
  for (const [id, s] of Object.entries(core.replay(job.reviews, job.parameters))) {
    out[id] = { due: s.card.due.toISOString(), stability: s.card.stability, difficulty: s.card.difficulty,
                state: s.card.state, reps: s.reps, lapses: s.lapses };
  }
  process.stdout.write(JSON.stringify(out));
});
