/* Self-check questions made by the {quiz} directive (_ext/quiz.py). No network, no dependencies. */
(function () {
  "use strict";

  function answer(quiz, chosen) {
    var options = quiz.querySelectorAll(".quiz-option");
    var right = chosen.getAttribute("data-correct") === "true";
    var correct = null;
    options.forEach(function (opt) {
      opt.classList.remove("is-chosen", "is-right", "is-wrong", "is-answer");
      var radio = opt.querySelector("input[type=radio]");
      if (radio && opt === chosen) { radio.checked = true; }
      if (opt.getAttribute("data-correct") === "true") { correct = opt; }
    });
    chosen.classList.add("is-chosen", right ? "is-right" : "is-wrong");
    if (!right && correct) { correct.classList.add("is-answer"); }
    quiz.classList.remove("answered-right", "answered-wrong");
    quiz.classList.add(right ? "answered-right" : "answered-wrong");
    var feedback = quiz.querySelector(".quiz-feedback");
    if (feedback) {
      feedback.textContent = right
        ? "Correct (" + chosen.getAttribute("data-letter") + ")."
        : "Not quite: you chose " + chosen.getAttribute("data-letter") + ", the answer is " +
          (correct ? correct.getAttribute("data-letter") : "?") + ".";
    }
    var details = quiz.querySelector(".quiz-explanation");
    if (details) { details.open = true; }
  }

  function init() {
    document.querySelectorAll(".quiz").forEach(function (quiz) {
      // native radios: a click, a tap, Space or the arrow keys all check one and fire "change"
      quiz.querySelectorAll(".quiz-option").forEach(function (opt) {
        var radio = opt.querySelector("input[type=radio]");
        if (radio) { radio.addEventListener("change", function () { if (radio.checked) { answer(quiz, opt); } }); }
      });
    });
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", init);
  } else {
    init();
  }
})();
