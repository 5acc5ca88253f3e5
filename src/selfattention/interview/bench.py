"""Benchmark the typed-answer check on a labelled answer corpus (``tests/data/answer_corpus/{dev,heldout}``).

    python3 tasks.py bench-checker            # dev and heldout, per language
    python -m selfattention.interview.bench tests/data/answer_corpus/dev

Each corpus entry: ``{card, lang, kind: complete|partial|myth|offtopic, text, key_points: [indices the answer
states], myths: ["CARD-ID#i", ...]}``. Measured per language:
- key-point agreement: over (answer, key point) pairs, the share where the check and the label agree;
  precision and recall of the ticks;
- myth detection: labelled myths (of the answer's card) that the check flags;
- false alarms: complete answers on which any myth is flagged;
- myth < partial: cards on which the myth answers score below the partial ones on average
  (`MatchResult.score`: key points ticked minus myths stated, over key points);
- false alarms on partial answers (labelled with no myth), and on the *hard negatives* among them: partial
  answers whose text rejects something (a framed belief, "many think …, but …", a rejection word, "… is a
  myth", or a negation, "并不是 …"), the ones that reject a myth among them;
- the similarity fallback (`similar`) is on, as in the rehearse command (``--patterns-only`` or
  ``SELFATTENTION_SIMILAR=0``: off; ``--similar`` is accepted and changes nothing), leave-one-out on dev (an
  answer is never compared with its own exemplars); "by similarity alone": labelled myths that only the
  fallback flags (the patterns missed them);
- echo: key points ticked when the card's own question is typed back (EN and 中文), over every card;
- ``--paraphrases``: the blind paraphrases of ``tests/data/paraphrases.yaml`` and ``paraphrases2.yaml``
  (two sets by different writers, neither an exemplar of the index), each on its own: myth sentences
  flagged as their myth, and correct near-misses flagged as any myth.
"""

from __future__ import annotations

import sys
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from . import bank, similar
from .similar import hard_negative

__all__ = ["Stats", "load_corpus", "measure", "echo_ticks", "report", "myth_vs_partial_all"]


@dataclass
class Stats:
    """Counts for one language (see the module docstring)."""

    pairs: int = 0
    agree: int = 0
    tp: int = 0
    fp: int = 0
    fn: int = 0
    myths: int = 0
    flagged: int = 0
    complete: int = 0
    alarms: int = 0
    partial: int = 0
    partial_alarms: int = 0
    hard: int = 0
    hard_alarms: int = 0
    sim_flagged: int = 0
    scores: dict[str, dict[str, list[float]]] = field(
        default_factory=lambda: defaultdict(lambda: defaultdict(list))
    )

    @property
    def agreement(self) -> float:
        return self.agree / self.pairs if self.pairs else 1.0

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 1.0

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 1.0

    @property
    def detection(self) -> float:
        return self.flagged / self.myths if self.myths else 1.0

    @property
    def false_alarms(self) -> float:
        return self.alarms / self.complete if self.complete else 0.0

    def myth_vs_partial(self) -> tuple[int, int, list[str]]:
        """(cards with both kinds, cards where myth < partial on average, the cards where it is not)."""
        both, below, bad = 0, 0, []
        for cid, by_kind in sorted(self.scores.items()):
            if by_kind.get("myth") and by_kind.get("partial"):
                both += 1
                m = sum(by_kind["myth"]) / len(by_kind["myth"])
                p = sum(by_kind["partial"]) / len(by_kind["partial"])
                if m < p:
                    below += 1
                else:
                    bad.append(f"{cid} ({m:.2f} vs {p:.2f})")
        return both, below, bad


def myth_vs_partial_all(stats: dict[str, Stats]) -> tuple[int, int, list[str]]:
    """`Stats.myth_vs_partial` over both languages together: per card, the myth answers' average share of key
    points ticked against the partial answers'."""
    merged = Stats()
    for st in stats.values():
        for cid, by_kind in st.scores.items():
            for kind, vals in by_kind.items():
                merged.scores[cid][kind] += vals
    return merged.myth_vs_partial()


def load_corpus(directory: Path) -> list[dict]:
    entries: list[dict] = []
    for path in sorted(Path(directory).glob("*.yaml")):
        entries += yaml.safe_load(path.read_text(encoding="utf-8")) or []
    return entries


def measure(entries: Iterable[dict], cards: list[bank.Card]) -> dict[str, Stats]:
    by_id = {c.id: c for c in cards}
    out: dict[str, Stats] = defaultdict(Stats)
    for e in entries:
        card = by_id.get(e["card"])
        if card is None:
            continue
        st = out[e["lang"]]
        r = card.check(e["text"])
        want = set(e.get("key_points") or [])
        got = set(r.covered)
        n = len(card.key_points["en"])
        for i in range(n):
            st.pairs += 1
            st.agree += (i in want) == (i in got)
            st.tp += i in want and i in got
            st.fp += i not in want and i in got
            st.fn += i in want and i not in got
        for label in e.get("myths") or []:
            cid, _, j = label.partition("#")
            if cid != card.id:
                continue
            st.myths += 1
            st.flagged += int(j) in r.stated
            st.sim_flagged += int(j) in r.similar
        if e["kind"] == "complete":
            st.complete += 1
            st.alarms += bool(r.stated)
        if e["kind"] == "partial" and not e.get("myths"):
            st.partial += 1
            st.partial_alarms += bool(r.stated)
            if hard_negative(e):
                st.hard += 1
                st.hard_alarms += bool(r.stated)
        st.scores[card.id][e["kind"]].append(r.score)
    return dict(out)


def echo_ticks(cards: list[bank.Card]) -> tuple[int, int]:
    """(key points ticked, key points checked) when each card's question (EN, then 中文) is the answer."""
    ticked = total = 0
    for card in cards:
        for lang in ("en", "zh"):
            r = card.check(card.question[lang])
            ticked += len(r.covered)
            total += r.total
    return ticked, total


PARAPHRASES = Path(__file__).resolve().parents[3] / "tests" / "data" / "paraphrases.yaml"
# the blind sets `--paraphrases` measures: the first (four writers) and a second one written
# to the same brief by seven other writers who never saw the first (session 18)
PARAPHRASE_SETS = (PARAPHRASES, PARAPHRASES.with_name("paraphrases2.yaml"))


def paraphrase_split(cards: list[bank.Card], path: Path = PARAPHRASES) -> dict[str, list[int]]:
    """The blind paraphrases of the registry (6 myth and 3 correct sentences per myth and language, never
    loaded as exemplars): per language [myth sentences flagged as their myth on a card that cites it, myth
    sentences, correct sentences flagged on the first such card, correct sentences]."""
    cites: dict[str, list[tuple[bank.Card, int]]] = defaultdict(list)
    for card in cards:
        for j, tell in enumerate(card.tells):
            if tell.myth:
                cites[tell.myth].append((card, j))
    out = {"en": [0, 0, 0, 0], "zh": [0, 0, 0, 0]}
    for mid, sentences in similar.load_paraphrases(path).items():
        refs = cites.get(mid)
        if not refs:
            continue
        for lang, row in out.items():
            for text in sentences[f"myth_{lang}"]:
                row[0] += any(j in card.check(text).stated for card, j in refs)
                row[1] += 1
            for text in sentences[f"correct_{lang}"]:
                row[2] += bool(refs[0][0].check(text).stated)
                row[3] += 1
    return out


def report(name: str, stats: dict[str, Stats], sim: bool = False) -> str:
    lines = [f"== {name}"]
    for lang in sorted(stats):
        st = stats[lang]
        both, below, bad = st.myth_vs_partial()
        lines.append(
            f"  {lang}: key-point agreement {st.agreement:.1%} (precision {st.precision:.1%}, "
            f"recall {st.recall:.1%}, {st.pairs} pairs) · myths flagged {st.flagged}/{st.myths} "
            f"({st.detection:.1%}) · false alarms {st.alarms}/{st.complete} complete "
            f"({st.false_alarms:.1%}) · on partial {st.partial_alarms}/{st.partial}, "
            f"hard negatives {st.hard_alarms}/{st.hard} · "
            f"myth < partial on {below}/{both} cards"
        )
        if sim:
            lines.append(f"      by similarity alone: myths flagged {st.sim_flagged}/{st.myths}")
        if bad:
            lines.append("      myth >= partial: " + ", ".join(bad))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    sim = similar.auto_enable() and "--patterns-only" not in args  # SELFATTENTION_SIMILAR=0 also turns it off
    para = "--paraphrases" in args
    args = [a for a in args if a not in ("--similar", "--patterns-only", "--paraphrases")]
    similar.enable(sim)
    root = Path(__file__).resolve().parents[3] / "tests" / "data" / "answer_corpus"
    dirs = [Path(a) for a in args] or [root / "dev", root / "heldout"]
    stale = similar.CORPUS_DEV.is_dir() and similar.export_exemplars(None) != similar.EXEMPLARS.read_bytes()
    if sim and stale:
        # the index reads the packaged copy: a dev entry edited since would still be an exemplar of itself
        print("the packaged exemplars differ from tests/data (dev corpus or probes edited): run "
              "`python -m selfattention.interview.similar --export` first", file=sys.stderr)
        return 2
    cards = bank.load_cards()
    for d in dirs:
        entries = load_corpus(d)
        if not entries:
            print(f"== {d}: no corpus files")
            continue
        stats = measure(entries, cards)
        label = f"{d.name} ({len(entries)} answers{', similarity fallback on' if sim else ''})"
        print(report(label, stats, sim))
        both, below, bad = myth_vs_partial_all(stats)
        print(f"  both languages: myth answers score below partial ones on {below}/{both} cards"
              + (f"; not on {', '.join(bad)}" if bad else ""))
    for path in PARAPHRASE_SETS if para else ():
        if not path.is_file():
            continue
        for lang, (hit, n_myth, fa, n_ok) in paraphrase_split(cards, path).items():
            print(f"== {path.stem} {lang} (blind, not exemplars): myths flagged {hit}/{n_myth} "
                  f"({hit / n_myth:.1%}) · correct sentences flagged {fa}/{n_ok} ({fa / n_ok:.1%})")
    t, n = echo_ticks(cards)
    print(f"== echo: the card's own question typed back ticks {t}/{n} key points ({t / n:.1%})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
