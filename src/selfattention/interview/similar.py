"""A similarity fallback for misconceptions: ON in the rehearse command, the benchmark and the tests
(`auto_enable`; ``SELFATTENTION_SIMILAR=0`` switches it off); `Card.check` alone uses the patterns only
until `enable` (or `auto_enable`) is called, so that `bank` never imports this module (it imports `bank`).

The hand-written myth patterns (`myths.yaml`) miss phrasings that use other words. This fallback compares each
*affirmed* clause of an answer (not framed, not a question, not a condition, not rejected by a later clause of
its sentence or by a short rejecting sentence right after it) with exemplars, as bags of IDF-weighted content
units (`language.units_of` units: English lemma+stem, Chinese characters, synonym sets ``@name``; stop-words,
negation, rejection and conditional words dropped; Chinese also by adjacent-character bigrams):

- **myth exemplars** of each misconception of the card (its tells): the myth's claim (first sentence of its
  ``en`` and ``zh``), its registry ``also:`` examples, and the clause that states it in each dev-corpus answer
  labelled with it (the clause the patterns flag; else the clause nearest to the claim);
- **correct exemplars** of the card: its key points (EN, 中文), the clauses of its short and spoken answers,
  the myth's correction (second sentence) and the clauses of the dev corpus's complete and partial answers
  of the card (every clause, of either polarity: a variant that kept only affirmed clauses of the clause's
  polarity did worse on dev, 45.6 % vs 53.3 % of myths at ≤ 1 complete alarm, and was dropped), and the
  sentences the review tests require unflagged (`PROBES`, written by ``tests/export_probes.py``).

The dev corpus and the probes live under ``tests/data``; the index reads their packaged copy, `EXEMPLARS`
(``exemplars.json.gz``, `export_exemplars`), so that an install without the tests folder checks alike.

A myth whose correction swaps its roles (`SWAPPED`: cross-attention's queries and keys, column- and
row-parallel) has no exemplars: the same bag of words states it and its correction, so only its patterns
flag it.

A clause the fallback flags is still vetoed in context, as a pattern's match would be
(`matcher.check_answer`): when a condition or limitation of its sentence applies, when the speaker takes it
back, and (here) when it names another method than the myth's claim does (`_other_subject`: "ALiBi's slopes
are fixed" is no RoPE myth) or another setting than the myth does (`_other_setting`: "In cross-attention the
queries come from another input" is no self-attention myth).

A clause states misconception j when its similarity to the best myth exemplar of the same negation polarity
(parity of negation / rejection words: "not …" does not meet an affirmative myth) is ≥ ``TAU`` and exceeds its
similarity to the best correct exemplar by ≥ ``DELTA``. Similarity: ``SIM`` of the weighted overlap
(`_sim_w`; "geo": overlap over the geometric mean of both weights).
Exemplars taken from a corpus entry whose text is the answer being checked are left out (leave-one-out: a dev
answer is never compared with itself). ``TAU``, ``DELTA``, ``SIM`` were chosen on dev only (`sweep`).
"""

from __future__ import annotations

import functools
import gzip
import hashlib
import json
import math
import os
import re
import sys
import tempfile
import threading
import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import yaml

from . import bank
from .language import _ASIDE, Clause, clauses, has_cjk, split_misconception

__all__ = [
    "TAU", "DELTA", "SIM", "Index", "index", "enable", "enabled", "auto_enable", "fallback", "clause_scores",
    "sweep", "export_exemplars", "load_exemplars",
    "cache_dir", "warm", "names",
]

TAU = 0.45
DELTA = 0.15
SIM = "geo"

CORPUS_DEV = Path(__file__).resolve().parents[3] / "tests" / "data" / "answer_corpus" / "dev"
PROBES = CORPUS_DEV.parent / "probes.json"
PARAPHRASES = Path(__file__).resolve().parent / "paraphrases.yaml"
# what the index takes from the dev corpus and the probes, shipped with the package (an install without the
# tests folder has the same exemplars); written by `export_exemplars`, kept equal to its sources by a test
EXEMPLARS = Path(__file__).resolve().parent / "exemplars.json.gz"
_CACHE_VERSION = 1
_KEEP_CACHES = 3

_EN_STOP_WORDS = """
a an the is are was were be been being am do does did doing done have has had having will shall can may
must should would could might of to in on at by for with from into onto over under as than then that this
these those it its it's they them their there here we our us you your i me my he she his her him and or but
so because since while whereas although though however also just very really quite rather about which who
whom whose what when where why how all any each every both either some such more most much many other
another same own one way thing things get gets got make makes made let lets use used uses using well yes
basically actually simply like say says said think mean means meaning kind sort lot lots bit
"""
_ZH_STOP = set(
    "的了是在和与及就都也而会要把被这那个些们有对为以其中之于从到让使它他她我你吗呢吧啊么呀嘛啦哦嗯着过很更还又"
    "再能可等得地所即则便该种样做用来去说讲看想"
)


def enable(on: bool = True) -> None:
    """Switch the fallback on (or off) for `bank.Card.check`."""
    bank.FALLBACK = fallback if on else None


def enabled() -> bool:
    return bank.FALLBACK is fallback


def auto_enable() -> bool:
    """Switch the fallback on unless ``SELFATTENTION_SIMILAR=0`` (or ``off`` / ``false`` / ``no``); True if
    on."""
    on = os.environ.get("SELFATTENTION_SIMILAR", "1").strip().lower() not in ("0", "off", "false", "no")
    enable(on)
    return on


def load_corpus(directory: Path) -> list[dict]:
    """The entries of a corpus directory (``NN.yaml`` files)."""
    entries: list[dict] = []
    for path in sorted(Path(directory).glob("*.yaml")):
        entries += yaml.safe_load(path.read_text(encoding="utf-8")) or []
    return entries


def hard_negative(entry: dict, cls: Sequence[Clause] | None = None) -> bool:
    """A partial answer whose text rejects something: a framed belief, a rejection word or a negation."""
    if entry["kind"] != "partial":
        return False
    cls = clauses(entry["text"]) if cls is None else cls
    return any(c.framed or any(u.neg or u.post for u in c.units) for c in cls)


@functools.lru_cache(maxsize=1)
def _en_stop() -> frozenset[str]:
    out = set()
    for w in _EN_STOP_WORDS.split():
        for c in clauses(w):
            out.update(u.text for u in c.units)
        out.add(w)
    return frozenset(out)


def _is_cjk(t: str) -> bool:
    return len(t) == 1 and has_cjk(t)


# a speaker's Chinese lead-in that says nothing about the topic ("我理解的是", "我觉得", "如果我没记错", a
# clause-opening "问题是"): its characters are no content (理解 / 记得 would otherwise meet "我理解是 X")
_ZH_LEAD = re.compile(
    r"我(?:个人)?(?:的理解|理解|觉得|认为|记得|想|猜)(?:的是|是)?|如果我没记错|据我所知|^问题是"
)


def _lead_in(units) -> set[int]:
    """Indices of the units that a Chinese lead-in (`_ZH_LEAD`) spans."""
    flat = "".join(u.text if _is_cjk(u.text) else "\x00" for u in units)
    return {i for m in _ZH_LEAD.finditer(flat) for i in range(m.start(), m.end())}


def content(feats: frozenset[str]) -> int:
    """How many content items ``feats`` holds: its English units, synonym sets and Chinese bigrams, and half
    of its Chinese characters that no bigram of it holds (two characters apart make about one word)."""
    n = sum(1 for f in feats if not _is_cjk(f))
    held = {ch for f in feats if len(f) == 2 and has_cjk(f) for ch in f}
    return n + len([f for f in feats if _is_cjk(f) and f not in held]) // 2


def features(clause: Clause) -> frozenset[str]:
    """Content units of a clause, plus adjacent Chinese content-character bigrams."""
    stop = _en_stop()
    out: set[str] = set()
    prev = ""
    lead = _lead_in(clause.units)
    for i, u in enumerate(clause.units):
        t = u.text
        if i in lead or u.neg or u.post or u.cond or t in stop or t in _ZH_STOP or not t.strip():
            prev = ""
            continue
        if len(t) == 1 and not t.isalnum() and not _is_cjk(t):
            prev = ""
            continue
        out.add(t)
        if _is_cjk(t):
            if prev:
                out.add(prev + t)
            prev = t
        else:
            prev = ""
    return frozenset(out)


def polarity(clause: Clause) -> int:
    """Parity of the negation and rejection words of a clause (1: negated)."""
    return sum(bool(u.neg or u.post) for u in clause.units) % 2


@dataclass(frozen=True)
class Exemplar:
    feats: frozenset[str]
    pol: int
    source: str = ""  # the corpus answer text it comes from ('' for the bank's own text)
    text: str = ""


def _text_exemplars(text: str, source: str = "", whole: bool = False) -> list[Exemplar]:
    """One exemplar per clause of ``text``, or (``whole``: a myth's claim, whose clauses alone need not be the
    myth, "… only faster") one for all of it. Every clause of a correct text counts, also one its context
    vetoes ("X is an approximation, but actually it is exact"): keeping only the clauses that state something
    by themselves caught 5 more of 232 dev myths and raised the alarms on the probes from 37 to 55 of
    4,590."""
    cls = clauses(text) if text.strip() else []
    if whole:
        f = frozenset().union(*(features(c) for c in cls)) if cls else frozenset()
        return [Exemplar(f, sum(polarity(c) for c in cls) % 2, source, text)] if f else []
    out = [Exemplar(features(c), polarity(c), source, c.text) for c in cls]
    return [e for e in out if e.feats]


@dataclass
class Index:
    idf: dict[str, float]
    default_idf: float
    myth: dict[str, list[Exemplar]]  # myth id -> exemplars
    correct: dict[str, list[Exemplar]]  # card id -> exemplars
    correction: dict[str, list[Exemplar]]  # myth id -> its correction's exemplars
    names: dict[str, frozenset[str]] = None  # type: ignore[assignment]  # myth id -> the methods its claim names

    def weight(self, fs: frozenset[str]) -> float:
        return sum(self.idf.get(f, self.default_idf) for f in fs)


def _myth_claims(cards) -> dict[str, tuple[str, str, str, str]]:
    """myth id -> (claim en, claim zh, correction en, correction zh) from the cards' misconception texts."""
    out = {}
    for card in cards:
        for tell, m in zip(card.tells, card.misconceptions, strict=True):
            if tell.myth and tell.myth not in out:
                en, cen = split_misconception(m["en"], "en")
                zh, czh = split_misconception(m["zh"], "zh")
                out[tell.myth] = (en, zh, cen, czh)
    return out


def _also() -> dict[str, list[str]]:
    data = yaml.load(bank.MYTHS_FILE.read_text(encoding="utf-8"), Loader=bank._YAML_LOADER) or []  # noqa: S506
    return {m["id"]: [str(x) for x in m.get("also") or []] for m in data}


def load_probes(path: Path | None = PROBES) -> dict[str, list[str]]:
    """card id -> the correct sentences the review tests require unflagged ({} when the file is absent)."""
    if path is None or not Path(path).is_file():
        return {}
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    return {str(k): [str(t) for t in v] for k, v in data.items()}


def export_exemplars(
    out: Path = EXEMPLARS, corpus_dir: Path = CORPUS_DEV, probes: Path = PROBES,
) -> bytes:
    """Write (and return) the packaged exemplar sources: the dev corpus entries (card, lang, kind, myths,
    text) and the probes, gzipped with a fixed timestamp (the same sources give the same bytes). Run
    ``python -m selfattention.interview.similar --export`` after changing the dev corpus or the probes."""
    keep = ("card", "lang", "kind", "myths", "text")
    data = {
        "corpus": [{k: e.get(k) for k in keep} for e in load_corpus(corpus_dir)],
        "probes": load_probes(probes),
    }
    raw = json.dumps(data, ensure_ascii=False, sort_keys=True, indent=0).encode("utf-8")
    blob = gzip.compress(raw, compresslevel=9, mtime=0)
    if out is not None:
        Path(out).write_bytes(blob)
    return blob


def load_exemplars(path: Path | None = EXEMPLARS) -> tuple[list[dict], dict[str, list[str]]]:
    """The packaged dev-corpus entries and probes (nothing when ``path`` is None or absent)."""
    if path is None or not Path(path).is_file():
        return [], {}
    data = json.loads(gzip.decompress(Path(path).read_bytes()).decode("utf-8"))
    probes = {str(k): [str(t) for t in v] for k, v in data["probes"].items()}
    return list(data["corpus"]), probes


def load_paraphrases(path: Path | None = PARAPHRASES) -> dict[str, dict[str, list[str]]]:
    """myth id -> {myth_en, myth_zh, correct_en, correct_zh: sentences} ({} when the file is absent)."""
    if path is None or not Path(path).is_file():
        return {}
    data = yaml.safe_load(Path(path).read_text(encoding="utf-8")) or []
    keys = ("myth_en", "myth_zh", "correct_en", "correct_zh")
    return {str(e["myth"]): {k: [str(t) for t in e.get(k) or []] for k in keys} for e in data}


def _stating_clause(
    text: str, j: int | None, owner, ref: frozenset[str], idf: dict[str, float],
) -> str | None:
    """The clause of ``text`` that states misconception ``j`` of card ``owner``: the one the patterns flag,
    else the clause nearest to the claim's features ``ref``."""
    if owner is not None and j is not None:
        said = owner.check(text, patterns_only=True).stated.get(j)
        if said is not None:
            return said
    cand = [c for c in clauses(text) if features(c)]
    if not cand:
        return None
    best = max(cand, key=lambda c: _sim_w(features(c), ref, idf, 1.0, "f1"))
    # a clause that shares one word with the claim ("soft-cap: …") is the topic, not the claim
    return best.text if content(features(best) & ref) >= 2 else None


_QUESTION_FEATS: dict[tuple[str, str], frozenset[str]] = {}


def question_features(card) -> frozenset[str]:
    """The features of the card's question (EN and 中文): a clause with nothing more says no claim ("嗯，
    soft-capping。", "问题是 LayerNorm 放哪里")."""
    key = (card.question["en"], card.question["zh"])
    got = _QUESTION_FEATS.get(key)
    if got is None:
        got = frozenset().union(*(features(c) for t in key for c in clauses(t)))
        _QUESTION_FEATS[key] = got
    return got


def build(
    cards, corpus_dir: Path | None = None, probes: Path | None = None,
    paraphrases: Path | None = PARAPHRASES, exemplars: Path | None = EXEMPLARS,
) -> Index:
    """The exemplar index (IDF from the bank's own text: cards and myths). The dev-corpus entries and the
    probes come from the packaged ``exemplars``, or from ``corpus_dir`` / ``probes`` when given."""
    packed_entries, packed_probes = load_exemplars(exemplars)
    by_id = {c.id: c for c in cards}
    claims = _myth_claims(cards)
    also = _also()
    # IDF over the clauses of the bank text
    docs: list[frozenset[str]] = []
    for card in cards:
        texts = [card.question["en"], card.question["zh"], card.short["en"], card.short["zh"],
                 card.spoken["en"], card.spoken["zh"], *card.key_points["en"], *card.key_points["zh"]]
        texts += [m[lang] for m in card.misconceptions for lang in ("en", "zh")]
        for t in texts:
            docs += [features(c) for c in clauses(t)]
    for exs in also.values():
        for t in exs:
            docs += [features(c) for c in clauses(t)]
    df: dict[str, int] = defaultdict(int)
    for d in docs:
        for f in d:
            df[f] += 1
    n = len(docs)
    idf = {f: math.log((n + 1) / (k + 1)) + 1 for f, k in df.items()}
    myth: dict[str, list[Exemplar]] = defaultdict(list)
    correction: dict[str, list[Exemplar]] = defaultdict(list)
    for mid, (en, zh, cen, czh) in claims.items():
        for t in (en, zh, *also.get(mid, ())):
            myth[mid] += _text_exemplars(t, whole=True)
        for t in (cen, czh):
            correction[mid] += _text_exemplars(t)
    swapped = SWAPPED & set(claims)
    claim_ref = {mid: frozenset().union(*(x.feats for x in exs)) for mid, exs in myth.items()}
    users: dict[str, tuple] = {}
    for card in cards:
        for j, tell in enumerate(card.tells):
            if tell.myth:
                users.setdefault(tell.myth, (card, j))
    for mid, para in load_paraphrases(paraphrases).items():
        if mid not in claims:
            continue
        owner, j = users[mid]
        for t in (*para["myth_en"], *para["myth_zh"]):
            said = _stating_clause(t, j, owner, claim_ref[mid], idf)
            if said is not None:
                myth[mid] += _text_exemplars(said)
        for t in (*para["correct_en"], *para["correct_zh"]):
            correction[mid] += _text_exemplars(t)
    correct: dict[str, list[Exemplar]] = defaultdict(list)
    for card in cards:
        for t in (*card.key_points["en"], *card.key_points["zh"]):
            correct[card.id] += _text_exemplars(t)
        for t in (card.short["en"], card.short["zh"], card.spoken["en"], card.spoken["zh"]):
            correct[card.id] += _text_exemplars(t)
    for cid, texts in (load_probes(probes) if probes is not None else packed_probes).items():
        if cid in by_id:
            for t in texts:
                correct[cid] += _text_exemplars(t, source=t)
    entries = load_corpus(corpus_dir) if corpus_dir is not None else packed_entries
    for e in entries:
        card = by_id.get(e["card"])
        if card is None:
            continue
        text = e["text"]
        if e["kind"] in ("complete", "partial"):
            correct[card.id] += _text_exemplars(text, source=text)
        for label in e.get("myths") or []:
            cid, _, j = label.partition("#")
            owner = by_id.get(cid)
            if owner is None or int(j) >= len(owner.tells) or not owner.tells[int(j)].myth:
                continue
            mid = owner.tells[int(j)].myth
            said = _stating_clause(text, int(j), owner, claim_ref.get(mid, frozenset()), idf)
            if said is None:
                continue
            myth[mid] += [
                Exemplar(x.feats, x.pol, text, x.text) for x in _text_exemplars(said)
            ]
    for mid in swapped:  # a bag of words cannot tell the myth from its correction
        myth.pop(mid, None)
    names_of = {mid: frozenset().union(*(names(t) for t in (en, zh, *also.get(mid, ()))))
                for mid, (en, zh, _c, _z) in claims.items()}
    return Index(idf, math.log(n + 1) + 1, dict(myth), dict(correct), dict(correction), names_of)


# Myths whose correction swaps the claim's roles ("It is the other way round: the queries come from the
# decoder …") say what the claim says with the same words: they have no exemplars (their patterns alone flag
# them). Listed by hand (a regex on "正好相反" also caught the bool-mask myth, whose correction compares two
# APIs, and lost its catches: review s16 M1); tests/test_review20_s16.py checks that each is stated by nearly
# the bag of words of its swapped correction.
SWAPPED = frozenset({
    "cross-attention-queries-from-encoder", "tp-qkv-row-parallel-w-o-column",
    "attention-dominates-short-contexts-ffn-long", "in-nn-multiheadattention-boolean-true-means",
})


def _sim_w(a: frozenset[str], b: frozenset[str], idf: dict[str, float], dflt: float, how: str) -> float:
    if not a or not b:
        return 0.0
    inter = sum(idf.get(f, dflt) for f in a & b)
    if not inter:
        return 0.0
    wa = sum(idf.get(f, dflt) for f in a)
    wb = sum(idf.get(f, dflt) for f in b)
    if how == "f1":  # weighted Dice
        return 2 * inter / (wa + wb)
    if how == "cont":  # how much of the exemplar the clause says
        return inter / wb
    if how == "geo":  # geometric mean of both containments (weighted cosine of sets)
        return inter / math.sqrt(wa * wb)
    raise ValueError(how)


_LOCK = threading.Lock()
_INDEX: Index | None = None


def cache_dir() -> Path:
    """Where the built index is cached: ``$SELFATTENTION_CACHE``, else ``$XDG_CACHE_HOME/selfattention``, else
    ``~/.cache/selfattention``."""
    env = os.environ.get("SELFATTENTION_CACHE")
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "selfattention"


def _inputs() -> list[Path]:
    """What the index is built from: the cards, the myths, the synonyms, the packaged exemplars and
    paraphrases, and the code of every interview module (the matcher and the bank pick stating clauses)."""
    here = Path(__file__).resolve().parent
    return [*sorted(bank.CARDS_DIR.glob("*.yaml")), bank.MYTHS_FILE, here / "synonyms.yaml",
            *sorted(here.glob("*.py")), EXEMPLARS, PARAPHRASES]


def _digest() -> str:
    h = hashlib.sha256(f"v{_CACHE_VERSION}".encode())
    for f in _inputs():
        h.update(f.name.encode())
        h.update(f.read_bytes() if f.is_file() else b"-")
    return h.hexdigest()[:20]


def _dump(idx: Index) -> dict:
    def ex(e: Exemplar) -> list:
        return [sorted(e.feats), e.pol, e.source, e.text]

    return {
        "idf": idx.idf, "default_idf": idx.default_idf,
        "myth": {k: [ex(e) for e in v] for k, v in idx.myth.items()},
        "correct": {k: [ex(e) for e in v] for k, v in idx.correct.items()},
        "correction": {k: [ex(e) for e in v] for k, v in idx.correction.items()},
        "names": {k: sorted(v) for k, v in idx.names.items()},
    }


def _load(data: dict) -> Index:
    def exs(rows: list) -> list[Exemplar]:
        return [Exemplar(frozenset(f), int(p), str(src), str(t)) for f, p, src, t in rows]

    return Index(
        {str(k): float(v) for k, v in data["idf"].items()}, float(data["default_idf"]),
        {k: exs(v) for k, v in data["myth"].items()}, {k: exs(v) for k, v in data["correct"].items()},
        {k: exs(v) for k, v in data["correction"].items()},
        {k: frozenset(v) for k, v in data["names"].items()},
    )


def load_or_build() -> Index:
    """The index from the cache when its inputs are unchanged, else built (the patterns alone) and cached; a
    cache that cannot be read or written is ignored."""
    path = cache_dir() / f"similar-{_digest()}.json"
    try:
        return _load(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, KeyError, TypeError, AttributeError, IndexError):  # absent or not an index
        pass
    idx = build(bank.load_cards())
    _store(idx, path)
    return idx


def _store(idx: Index, path: Path) -> None:
    """Write the index to ``path`` (atomically); keep the ``_KEEP_CACHES`` newest caches (other checkouts may
    use the others) and remove temporary files over an hour old; an unwritable folder is ignored."""
    tmp = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix="similar-", suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(_dump(idx), fh, ensure_ascii=False)
        os.replace(tmp, path)
        tmp = None
        others = sorted((f for f in path.parent.glob("similar-*.json") if f != path),
                        key=lambda f: f.stat().st_mtime, reverse=True)
        stray = [f for f in path.parent.glob("similar-*.tmp") if time.time() - f.stat().st_mtime > 3600]
        for old in others[_KEEP_CACHES - 1:] + stray:
            old.unlink(missing_ok=True)
    except OSError:
        pass
    finally:
        if tmp is not None:
            Path(tmp).unlink(missing_ok=True)


def index() -> Index:
    """The exemplar index over the packaged bank, the dev corpus and the probes, built once per process."""
    global _INDEX
    if _INDEX is None:
        with _LOCK:
            if _INDEX is None:
                _INDEX = load_or_build()
    return _INDEX


def warm() -> threading.Thread:
    """Build (or load) the index in a background thread, so that the first check does not wait for it."""
    t = threading.Thread(target=index, name="similar-warm", daemon=True)
    t.start()
    return t


# Words with capitals that name no method (units, hardware, building blocks every card talks about)
_NOT_NAMES = frozenset("""
gpu gpus cpu cpus tpu tpus flop flops flops/s nan inf mlp mlps ffn ffns kv qk qkv ln rms rmsnorm layernorm
softmax gb mb kb tb hbm sram ram dram ai ml nlp llm llms api id ids ok ii iii iv utf pytorch torch numpy
ov io fp fp16 fp32 fp8 bf16 int8 int4 tf32 sgd adam adamw i o q k v a b n d h l
""".split())
_ALIAS = {"lstm": "rnn", "gru": "rnn", "lstms": "rnn", "grus": "rnn", "rnns": "rnn"}
_NAME = re.compile(
    r"\b(?:[A-Za-z]*[A-Z][A-Za-z0-9]*[A-Z0-9][A-Za-z0-9]*|[A-Z][a-z]+[A-Z][A-Za-z]*)(?:-\d+)?\b"
)


# method names that a capital alone does not mark ("Mamba", "Ulysses"), and the hyphenated placements
_METHODS = re.compile(
    r"\b(?:mamba|rwkv|performer|linformer|reformer|longformer|bigbird|ulysses|megatron|deepspeed|"
    r"pre-?ln|post-?ln|pre-?norm|post-?norm|sandwich-?ln)\b", re.IGNORECASE,
)


def names(text: str) -> frozenset[str]:
    """The method names a text mentions: words with two capitals or a capital and a digit (RoPE, ALiBi, GQA,
    FlashAttention, GPT-2, T5), lower-cased, a plural "s" dropped; not the words of `_NOT_NAMES`."""
    out = {re.sub(r"[-\s]", "", m.group(0).lower()).replace("norm", "ln") for m in _METHODS.finditer(text)}
    text = _METHODS.sub(" ", text)
    for m in _NAME.finditer(text):
        w = m.group(0).lower()
        if len(w) > 3 and m.group(0)[-1] == "s" and m.group(0)[-2].isupper():  # GPUs, LLMs, RNNs
            w = w[:-1]
        w = _ALIAS.get(w, w)
        if w not in _NOT_NAMES and not w.isdigit():
            out.add(w)
            out.add(re.sub(r"-?\d+$", "", w) or w)  # FlashAttention-2 also names FlashAttention
    return frozenset(out)


def _other_subject(idx: Index, mid: str, text: str) -> bool:
    """The clause names a method and none that the myth's claim names (the claim names at least one)."""
    want = (idx.names or {}).get(mid) or frozenset()
    if not want:
        return False
    got = names(text)
    return bool(got) and not (got & want)


_SETTING = {
    "self": re.compile(r"\bself[- ]?attention|自注意力", re.I),
    "cross": re.compile(
        r"\bcross[- ]?attention|encoder-decoder attention|交叉注意力|编码器-解码器注意力", re.I
    ),
}


def settings(text: str) -> frozenset[str]:
    """The settings of attention a text names: self-attention, cross-attention."""
    return frozenset(k for k, rx in _SETTING.items() if rx.search(text))


def _other_setting(card, j: int, sentence: str) -> bool:
    """The clause's sentence names a setting of attention (self- or cross-attention) that misconception
    ``j`` of ``card`` (its claim and its correction, EN and 中文) names none of, though it names one: "In
    cross-attention the queries come from another input" is no self-attention myth. A setting named for a
    comparison ("just like masked self-attention", "和自注意力一样") does not count (review s16 M5)."""
    m = card.misconceptions[j]
    want = settings(f"{m['en']} {m['zh']}")
    got = settings(_LIKE.sub(" ", sentence))
    return bool(want) and bool(got) and not (got & want)


_LIKE = re.compile(
    r"\b(?:just |exactly )?(?:like|as in|as with|similar to|unlike|compared (?:to|with)|than|apart from|"
    r"except(?: for)?|setting aside|leaving aside|aside from)\b[^,.;:]*|[^,.;:]*\baside\b"
    r"|(?:和|跟|与|像)[^，。；,;]{0,20}(?:一样|相同|类似|不同)|(?:先不谈|不谈|除了)[^，。；,;]{0,20}|[^，。；,;]{0,20}另说"
)


_FOCUS_NOT = re.compile(r"\bnot (?:just|only|merely|simply|the only)\b")
_ALSO_END = re.compile(r"\b(?:too|as well|also)\W*$")
_APPOSITIVE = re.compile(r"^(?:the|a|an)\s+[a-z][\w-]*(?:\s+[a-z][\w-]*){0,3}$", re.I)
_EN_VERBISH = re.compile(
    r"\b(?:is|are|was|were|be|been|am|has|have|had|do|does|did|can|will|should|must|may|might|would|could|"
    r"not|no|never)\b|n't\b"
)


def _appositive(cls: Sequence[Clause], k: int) -> bool:
    """Clause ``k`` is a short noun phrase set after a clause of its sentence ("We divide by sqrt(d_k), the
    head dimension, …")."""
    c = cls[k]
    if not k or cls[k - 1].sentence != c.sentence:
        return False
    low = c.text.strip().casefold()
    return bool(_APPOSITIVE.match(low)) and not _EN_VERBISH.search(low)


def _appositive_row(cls: Sequence[Clause], k: int, said: set[int]) -> tuple[frozenset[str], int] | None:
    """(features, polarity) of the appositive ``cls[k]``: alone it met a myth through two words (review s15
    H4), so it is scored with the clause it is set after, past asides ("MQA is not, in my view, an h-fold FLOP
    reduction"), and with that clause's polarity (s16b M-E, s17 M3); None when that clause states nothing
    (not in ``said``). A clause that only narrows a focus ("MQA is not just a memory trick, an h-fold FLOP
    reduction too", "Softmax is not the only choice, a mere convention") leaves the appositive its own
    polarity, and without "too" / "also" its focus is left out ("Softmax is not just a convention, the only
    sensible choice" says nothing of convention: s17b M3, s17c M5)."""
    c = cls[k]
    j = k - 1
    while j > 0 and cls[j - 1].sentence == c.sentence and _ASIDE.match(cls[j].text.strip(" ,.;:").casefold()):
        j -= 1
    if id(cls[j]) not in said:
        return None
    focus = _FOCUS_NOT.search(cls[j].text.casefold())
    also = _ALSO_END.search(c.text.casefold())
    if not (focus or also):
        return features(c).union(*(features(x) for x in cls[j:k])), polarity(cls[j])
    head: list[Clause] = [cls[j]]
    if focus and not also:
        head = clauses(cls[j].text[:focus.start()])[:1]
    return features(c).union(*(features(x) for x in [*head, *cls[j + 1:k]])), polarity(c)


def _affirmed(cls: Sequence[Clause]) -> list[Clause]:
    """Clauses that state something: not framed, not a question, not a condition, not rejected by a later
    clause of their sentence ("…, which is wrong") or by a short rejecting sentence right after ("That's a
    myth.")."""
    out = []
    for k, c in enumerate(cls):
        if c.framed or c.question or c.conditional or c.mention:
            continue
        later = [x for x in cls[k + 1:] if x.sentence == c.sentence]
        if any(u.post for x in later for u in x.units):
            continue
        nxt = [x for x in cls[k + 1:] if x.sentence == c.sentence + 1]
        if nxt and len(nxt) == 1 and len(features(nxt[0])) <= 3 and any(u.post for u in nxt[0].units):
            continue
        out.append(c)
    return out


def clause_scores(
    cls: Sequence[Clause], card, idx: Index | None = None, exclude: str = "", how: str | None = None,
) -> dict[int, list[tuple[float, float, str]]]:
    """Per misconception j of ``card``: per affirmed clause, (best myth similarity of its polarity, best
    correct similarity, clause text). Exemplars whose source is ``exclude`` are left out."""
    idx = idx or index()
    how = how or SIM
    out: dict[int, list[tuple[float, float, str]]] = {}
    asked = question_features(card)
    affirmed = _affirmed(cls)
    said = {id(c) for c in affirmed}
    aff = []
    for k, c in enumerate(cls):
        if id(c) in said:
            row = _appositive_row(cls, k, said) if _appositive(cls, k) else (features(c), polarity(c))
            if row is not None:
                aff.append((c, *row))
    aff = [x for x in aff if x[1] and content(x[1] - asked) >= 1]
    base = [e for e in idx.correct.get(card.id, ()) if not exclude or e.source != exclude]
    for j, tell in enumerate(card.tells):
        if not tell.myth:
            continue
        mex = [e for e in idx.myth.get(tell.myth, ()) if not exclude or e.source != exclude]
        cex = base + idx.correction.get(tell.myth, [])
        rows = []
        for c, f, pol in aff:
            # a myth exemplar is met by two content items at least ("ok" is no claim, nor is one topic word)
            sm = max(
                (_sim_w(f, e.feats, idx.idf, idx.default_idf, how) for e in mex
                 if e.pol == pol and content(f & e.feats) >= 2), default=0.0
            )
            # every correct exemplar, of either polarity ("queries are not cached" against "cache the
            # queries"): comparing only those of the clause's polarity caught 6 more of 232 dev myths and
            # raised the alarms on the probes from 38 to 65 of 4,590
            sc = max((_sim_w(f, e.feats, idx.idf, idx.default_idf, how) for e in cex), default=0.0)
            rows.append((sm, sc, c.text))
        out[j] = rows
    return out


def fallback(card, answer: str):
    """The hook `bank.Card.check` passes to `matcher.check_answer`: clauses -> {misconception: the clauses
    that state it, in order} (the matcher keeps the first one its context does not veto)."""

    def run(cls: Sequence[Clause]) -> dict[int, list[str]]:
        idx = index()
        found: dict[int, list[str]] = {}
        sentence_of = {c.text: " ".join(x.text for x in cls if x.sentence == c.sentence) for c in cls}
        for j, rows in clause_scores(cls, card, idx, exclude=answer).items():
            mid = card.tells[j].myth
            hits = [text for sm, sc, text in rows
                    if sm >= TAU and sm - sc >= DELTA and not _other_subject(idx, mid, text)
                    and not _other_setting(card, j, sentence_of.get(text, text))]
            if hits:
                found[j] = hits
        return found

    return run


def sweep(corpus_dir: Path = CORPUS_DEV) -> None:
    """Choose SIM, TAU, DELTA on dev with leave-one-out: per setting, the myths the fallback alone flags
    and its alarms on complete answers, on all partial answers and on hard negatives."""
    if "heldout" in str(corpus_dir):
        raise SystemExit("sweep is for dev only")
    cards = bank.load_cards()
    by_id = {c.id: c for c in cards}
    idx = build(cards, corpus_dir, PROBES)
    entries = [e for e in load_corpus(corpus_dir) if e["card"] in by_id]
    for how in ("f1", "geo", "cont"):
        rows = []
        for e in entries:
            card = by_id[e["card"]]
            cls = clauses(e["text"])
            sc = clause_scores(cls, card, idx, exclude=e["text"], how=how)
            want = {int(lab.partition("#")[2]) for lab in e.get("myths") or []
                    if lab.partition("#")[0] == card.id}
            rows.append((e, sc, want, hard_negative(e, cls)))
        grid = []
        for tau in [x / 100 for x in range(30, 91, 5)]:
            for delta in [x / 100 for x in range(0, 41, 5)]:
                got = {"en": [0, 0], "zh": [0, 0]}
                fa_c = fa_p = fa_h = n_c = n_p = n_h = 0
                for e, sc, want, hard in rows:
                    flagged = {
                        j for j, rs in sc.items() if any(sm >= tau and sm - s2 >= delta for sm, s2, _ in rs)
                    }
                    g = got[e["lang"]]
                    g[0] += len(want & flagged)
                    g[1] += len(want)
                    if e["kind"] == "complete":
                        n_c += 1
                        fa_c += bool(flagged)
                    if e["kind"] == "partial":
                        n_p += 1
                        fa_p += bool(flagged)
                        n_h += hard
                        fa_h += bool(flagged) and hard
                grid.append((tau, delta, got, fa_c, n_c, fa_p, n_p, fa_h, n_h))
        print(f"== {how}")
        for tau, delta, got, fa_c, n_c, fa_p, n_p, fa_h, n_h in grid:
            if fa_c / n_c <= 0.02:
                det = (got["en"][0] + got["zh"][0]) / (got["en"][1] + got["zh"][1])
                print(f"  tau {tau:.2f} delta {delta:.2f}: EN {got['en'][0]}/{got['en'][1]} "
                      f"ZH {got['zh'][0]}/{got['zh'][1]} ({det:.1%}) · complete {fa_c}/{n_c} · "
                      f"partial {fa_p}/{n_p} · hard neg {fa_h}/{n_h}")


if __name__ == "__main__":
    if sys.argv[1:] == ["--export"]:
        blob = export_exemplars()
        print(f"{EXEMPLARS.name}: {len(blob):,} bytes")
    else:
        sweep(Path(sys.argv[1]) if len(sys.argv) > 1 else CORPUS_DEV)
