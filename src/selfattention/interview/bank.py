"""The interview question bank: bilingual YAML cards loaded and validated into `Card` objects.

One YAML file per chapter lives in ``cards/`` next to this module; each holds a list of cards.
The book (``sphinx_ext``) and the ``attention-rehearse`` command both read the cards through
`load_cards`, so the bank is the single source of truth for every interview answer.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from .language import Clause, split_misconception
from .matcher import MatchResult, Tell, check_answer, parse_pattern

_YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml when available: ~10x faster

__all__ = [
    "CARDS_DIR", "CHAPTERS", "LEVELS", "BankError", "Card", "card_files", "load_cards", "cards_by_chapter",
    "get_card", "chapter_card", "split_misconception", "load_myths", "MYTHS_FILE",
]

CARDS_DIR = Path(__file__).resolve().parent / "cards"
# An opt-in misconception fallback, (card, answer) -> (clauses -> {misconception: clause}); None (the default)
# changes nothing. `similar.enable` sets it.
FALLBACK: Callable[[Card, str], Callable[[Sequence[Clause]], dict[int, str]]] | None = None
MYTHS_FILE = Path(__file__).resolve().parent / "myths.yaml"

CHAPTERS: dict[str, dict[str, Any]] = {
    "01_flow": {
        "number": 1, "en": "The computation flow of self-attention", "zh": "Self-Attention 的计算流程",
    },
    "02_qkv": {"number": 2, "en": "Why Q, K and V?", "zh": "为什么要有 Q、K、V？"},
    "03_scaling": {"number": 3, "en": "Why divide by √d_k?", "zh": "为什么要除以 √d_k？"},
    "04_multi_head": {"number": 4, "en": "Multi-head attention", "zh": "多头注意力"},
    "05_masking": {"number": 5, "en": "Masked attention", "zh": "掩码注意力"},
    "06_complexity": {"number": 6, "en": "Time and memory complexity", "zh": "时间与空间复杂度"},
    "07_vs_rnn": {"number": 7, "en": "Self-attention vs RNN", "zh": "自注意力与 RNN 的对比"},
    "08_bias": {"number": 8, "en": "Attention bias", "zh": "注意力偏置"},
    "09_dot_vs_additive": {
        "number": 9, "en": "Dot-product vs additive attention", "zh": "点积注意力与加性注意力",
    },
    "10_transformer": {
        "number": 10, "en": "The Transformer: structure and evolution", "zh": "Transformer 的结构与演变",
    },
    "11_positions": {
        "number": 11, "en": "Word order and context extension", "zh": "词序与上下文扩展",
    },
    "12_attention_at_scale": {
        "number": 12, "en": "Attention at LLM scale", "zh": "大模型规模下的注意力",
    },
    "13_block": {
        "number": 13, "en": "The rest of the block", "zh": "块的其余部分",
    },
    "14_decoding": {
        "number": 14, "en": "From attention to text: decoding and serving",
        "zh": "从注意力到文字：解码与推理服务",
    },
    "15_parallel": {
        "number": 15, "en": "Attention across devices", "zh": "跨设备的注意力",
    },
}

LEVELS: tuple[str, ...] = ("basic", "follow-up", "deep")
LANGS: tuple[str, ...] = ("en", "zh")
_ID_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
_KP_FIELDS = ("en", "zh", "keywords", "keywords_zh", "claims")
_FIELDS = {
    "id", "chapter", "level", "question", "short", "spoken", "key_points", "misconceptions", "follow_ups",
}


class BankError(ValueError):
    """A card file is missing, unreadable or breaks the card schema."""


@dataclass(frozen=True)
class Card:
    """One interview question with its bilingual answers.

    ``question``, ``short`` and ``spoken`` are ``{"en": str, "zh": str}``; ``key_points`` is
    ``{"en": list[str], "zh": list[str]}``; ``keywords[i]`` lists lowercase alternatives that show
    English key point ``i`` was mentioned; ``misconceptions`` is a list of ``{"en", "zh"}`` dicts;
    ``follow_ups`` holds the ids of other cards. ``keywords_zh[i]`` lists Chinese alternatives for key point
    ``i`` (empty lists when a card has none); ``tells[j]`` holds the phrases that state misconception ``j``
    and the key points it contradicts.
    """

    id: str
    chapter: str
    level: str
    question: dict[str, str]
    short: dict[str, str]
    spoken: dict[str, str]
    key_points: dict[str, list[str]]
    keywords: list[list[str]]
    misconceptions: list[dict[str, str]]
    follow_ups: list[str]
    keywords_zh: list[list[str]] = field(default_factory=list)
    tells: list[Tell] = field(default_factory=list)
    claims: list[list[str]] = field(default_factory=list)

    def __hash__(self) -> int:  # the dict fields are unhashable; a card is identified by its id
        return hash(self.id)

    @property
    def anchor(self) -> str:
        """The HTML id under which the book renders this card."""
        return f"card-{self.id}"

    @property
    def all_keywords(self) -> list[list[str]]:
        """Per key point, the English and the Chinese alternatives together (answers may mix languages)."""
        zh = self.keywords_zh or [[] for _ in self.keywords]
        return [[*en, *z] for en, z in zip(self.keywords, zh, strict=True)]

    def check(self, answer: str, *, patterns_only: bool = False) -> MatchResult:
        """Check a typed answer (any language, or both) against this card's key points and misconceptions
        (``patterns_only``: without the similarity fallback, whatever `FALLBACK` is)."""
        hook = FALLBACK(self, answer) if FALLBACK is not None and not patterns_only else None
        return check_answer(answer, self.point_claims, self.tells, self.point_texts, fallback=hook)

    @property
    def point_texts(self) -> list[tuple[str, str]]:
        """Per key point, its own statements (EN, 中文): they set the polarity of its claims' concepts (a
        concept a point states negated, "no learnable parameters", may be negated in an answer too)."""
        return list(zip(self.key_points["en"], self.key_points["zh"], strict=True))

    @property
    def point_claims(self) -> list[list[str]]:
        """Per key point, the claim patterns (``key_points.claims``, or derived from keywords when absent)."""
        if self.claims:
            return self.claims
        from .patterns import claims_for_point

        return [
            claims_for_point({"en": en, "zh": zh}, alts, self.question)
            for en, zh, alts in zip(
                self.key_points["en"], self.key_points["zh"], self.all_keywords, strict=True
            )
        ]


_CJK = r"\u3000-\u303f\u4e00-\u9fff\uff00-\uffef"
_CJK_GAP = re.compile(rf"(?<=[{_CJK}])[ \t\n]+(?=[{_CJK}])")


def _join_cjk(value: Any) -> Any:
    """Drop the spaces that YAML line folding puts between two Chinese characters (or CJK punctuation)."""
    if isinstance(value, str):
        return _CJK_GAP.sub("", value)
    if isinstance(value, list):
        return [_join_cjk(v) for v in value]
    if isinstance(value, dict):
        return {k: (_join_cjk(v) if k == "zh" else _join_cjk_nested(v)) for k, v in value.items()}
    return value


def _join_cjk_nested(value: Any) -> Any:
    """Recurse into containers, touching only the values stored under a ``zh`` key."""
    if isinstance(value, dict):
        return _join_cjk(value)
    if isinstance(value, list):
        return [_join_cjk_nested(v) for v in value]
    return value


def _text_pair(raw: Any, field: str, where: str) -> dict[str, str]:
    """Validate a ``{en: str, zh: str}`` mapping with non-empty strings."""
    if not isinstance(raw, dict) or set(raw) != set(LANGS):
        got = sorted(raw) if isinstance(raw, dict) else type(raw).__name__
        raise BankError(f"{where}: field '{field}' must be a mapping with exactly keys en and zh, got {got}")
    out: dict[str, str] = {}
    for lang in LANGS:
        value = raw[lang]
        if not isinstance(value, str) or not value.strip():
            raise BankError(f"{where}: field '{field}.{lang}' must be a non-empty string")
        out[lang] = " ".join(value.split()) if field != "spoken" else value.strip()
    return out


def _card_from_raw(raw: Any, path: Path, index: int, myths: dict[str, dict[str, Any]] | None = None) -> Card:
    """Turn one parsed YAML mapping into a validated `Card` (cross-card checks happen later)."""
    where0 = f"{path.name}: card #{index + 1}"
    if not isinstance(raw, dict):
        raise BankError(f"{where0}: expected a mapping, got {type(raw).__name__}")
    cid = raw.get("id")
    if not isinstance(cid, str) or not _ID_RE.match(cid):
        raise BankError(f"{where0}: 'id' must be a kebab-case string, got {cid!r}")
    where = f"{path.name}: card '{cid}'"
    missing = sorted(_FIELDS - set(raw))
    extra = sorted(set(raw) - _FIELDS)
    if missing:
        raise BankError(f"{where}: missing field(s) {', '.join(missing)}")
    if extra:
        raise BankError(f"{where}: unknown field(s) {', '.join(extra)}")
    chapter = raw["chapter"]
    if chapter not in CHAPTERS:
        raise BankError(f"{where}: chapter {chapter!r} is not one of {', '.join(CHAPTERS)}")
    expected_chapter = path.stem
    if expected_chapter in CHAPTERS and chapter != expected_chapter:
        raise BankError(f"{where}: chapter {chapter!r} does not match its file name {path.name!r}")
    level = raw["level"]
    if level not in LEVELS:
        raise BankError(f"{where}: level {level!r} is not one of {', '.join(LEVELS)}")
    question = _text_pair(raw["question"], "question", where)
    short = _text_pair(raw["short"], "short", where)
    spoken = _text_pair(raw["spoken"], "spoken", where)

    kp = raw["key_points"]
    if not isinstance(kp, dict) or not {"en", "zh", "keywords"} <= set(kp) <= set(_KP_FIELDS):
        raise BankError(
            f"{where}: 'key_points' must be a mapping with keys en, zh, keywords (+ keywords_zh, claims)"
        )
    key_points: dict[str, list[str]] = {}
    for lang in LANGS:
        items = kp[lang]
        if not isinstance(items, list) or not 3 <= len(items) <= 6:
            n = len(items) if isinstance(items, list) else type(items).__name__
            raise BankError(f"{where}: 'key_points.{lang}' must be a list of 3 to 6 items, got {n}")
        if not all(isinstance(s, str) and s.strip() for s in items):
            raise BankError(f"{where}: every item of 'key_points.{lang}' must be a non-empty string")
        key_points[lang] = [" ".join(s.split()) for s in items]
    if len(key_points["en"]) != len(key_points["zh"]):
        raise BankError(
            f"{where}: key_points.en has {len(key_points['en'])} items, "
            f"key_points.zh has {len(key_points['zh'])}"
        )
    kw = kp["keywords"]
    if not isinstance(kw, list) or len(kw) != len(key_points["en"]):
        n = len(kw) if isinstance(kw, list) else type(kw).__name__
        raise BankError(
            f"{where}: 'key_points.keywords' needs one list per English key point "
            f"({len(key_points['en'])}), got {n}"
        )
    keywords: list[list[str]] = []
    for j, alts in enumerate(kw):
        if (
            not isinstance(alts, list)
            or not alts
            or not all(isinstance(a, str) and a.strip() and a == a.lower() for a in alts)
        ):
            raise BankError(
                f"{where}: key_points.keywords[{j}] must be a non-empty list of lowercase strings, "
                f"got {alts!r}"
            )
        keywords.append([a.strip() for a in alts])
    keywords_zh = _keywords_zh(kp.get("keywords_zh"), len(keywords), where)
    claims = _claims(kp.get("claims"), len(keywords), where)

    mis = raw["misconceptions"]
    if not isinstance(mis, list):
        raise BankError(f"{where}: 'misconceptions' must be a list of {{en, zh}} mappings")
    misconceptions: list[dict[str, str]] = []
    tells: list[Tell] = []
    for j, m in enumerate(mis):
        text, tell = _misconception(m, j, len(keywords), where, myths)
        misconceptions.append(text)
        tells.append(tell)

    fu = raw["follow_ups"]
    if not isinstance(fu, list) or not all(isinstance(x, str) for x in fu):
        raise BankError(f"{where}: 'follow_ups' must be a list of card ids")
    if cid in fu:
        raise BankError(f"{where}: a card cannot list itself in 'follow_ups'")
    return Card(
        id=cid, chapter=chapter, level=level, question=question, short=short, spoken=spoken,
        key_points=key_points, keywords=keywords, misconceptions=misconceptions, follow_ups=list(fu),
        keywords_zh=keywords_zh, tells=tells, claims=claims,
    )


def _phrases(raw: Any, what: str, where: str) -> list[str]:
    """A list of non-empty strings (keywords or tells)."""
    if not isinstance(raw, list) or not raw or not all(isinstance(a, str) and a.strip() for a in raw):
        raise BankError(f"{where}: {what} must be a non-empty list of non-empty strings, got {raw!r}")
    return [a.strip() for a in raw]


def _keywords_zh(raw: Any, n: int, where: str) -> list[list[str]]:
    """Optional ``key_points.keywords_zh``: one list of Chinese alternatives per key point."""
    if raw is None:
        return [[] for _ in range(n)]
    if not isinstance(raw, list) or len(raw) != n:
        got = len(raw) if isinstance(raw, list) else type(raw).__name__
        raise BankError(f"{where}: 'key_points.keywords_zh' needs one list per key point ({n}), got {got}")
    return [_phrases(alts, f"key_points.keywords_zh[{j}]", where) for j, alts in enumerate(raw)]


def _claims(raw: Any, n: int, where: str) -> list[list[str]]:
    """Optional ``key_points.claims``: per key point, a list of patterns (see `matcher.parse_pattern`)."""
    if raw is None:
        return []
    if not isinstance(raw, list) or len(raw) != n:
        got = len(raw) if isinstance(raw, list) else type(raw).__name__
        raise BankError(f"{where}: 'key_points.claims' needs one list per key point ({n}), got {got}")
    out: list[list[str]] = []
    for j, pats in enumerate(raw):
        if not isinstance(pats, list) or not all(isinstance(p, str) and p.strip() for p in pats):
            raise BankError(
                f"{where}: key_points.claims[{j}] must be a list of pattern strings, got {pats!r}"
            )
        for p in pats:
            try:
                parse_pattern(p)
            except ValueError as exc:
                raise BankError(f"{where}: key_points.claims[{j}]: {exc}") from exc
        out.append([p.strip() for p in pats])
    return out


def load_myths(path: Path | None = None) -> dict[str, dict[str, Any]]:
    """The shared registry of misconceptions: id -> ``{en, zh, patterns}`` (`BankError` on a bad entry)."""
    p = Path(path) if path is not None else MYTHS_FILE
    if not p.exists():
        return {}
    data = yaml.load(p.read_text(encoding="utf-8"), Loader=_YAML_LOADER) or []  # noqa: S506 (safe loader)
    if not isinstance(data, list):
        raise BankError(f"{p.name}: expected a list of myths")
    out: dict[str, dict[str, Any]] = {}
    for k, m in enumerate(data):
        if not isinstance(m, dict) or not {"id", "en", "zh", "patterns"} <= set(m) <= {
            "id", "en", "zh", "patterns", "also",
        }:
            raise BankError(f"{p.name}: myth #{k + 1} must have the keys id, en, zh, patterns (+ also)")
        mid = m["id"]
        if not isinstance(mid, str) or not _ID_RE.match(mid) or mid in out:
            raise BankError(f"{p.name}: myth #{k + 1}: id {mid!r} is not a new kebab-case id")
        text = _text_pair(_join_cjk({"en": m["en"], "zh": m["zh"]}), "text", f"{p.name}: myth '{mid}'")
        pats = _phrases(m["patterns"], f"myth '{mid}' patterns", p.name)
        for pat in pats:
            try:
                parse_pattern(pat)
            except ValueError as exc:
                raise BankError(f"{p.name}: myth '{mid}': {exc}") from exc
        out[mid] = {**text, "patterns": pats}
    return out


def _misconception(
    raw: Any, j: int, n_points: int, where: str, myths: dict[str, dict[str, Any]] | None = None
) -> tuple[dict[str, str], Tell]:
    """One misconception: ``{myth: id, blocks}`` (the registry's text and patterns), or the old inline
    ``{en, zh, tells {en, zh}, blocks}`` (its tells read as patterns) that `migrate` converts."""
    name = f"misconceptions[{j}]"
    if not isinstance(raw, dict):
        got = type(raw).__name__
        raise BankError(f"{where}: field '{name}' must be a mapping with keys en and zh, got {got}")
    if "myth" in raw:
        extra = sorted(set(raw) - {"myth", "blocks"})
        if extra:
            raise BankError(f"{where}: field '{name}' has unknown key(s) {', '.join(extra)}")
        registry = myths if myths is not None else load_myths()
        if raw["myth"] not in registry:
            raise BankError(f"{where}: '{name}.myth' {raw['myth']!r} is not in {MYTHS_FILE.name}")
        m = registry[raw["myth"]]
        blocks = _blocks(raw.get("blocks", []), n_points, name, where)
        return {"en": m["en"], "zh": m["zh"]}, Tell(
            patterns=tuple(m["patterns"]), blocks=blocks, myth=raw["myth"],
            corrections=tuple(
                c for c in (split_misconception(m[lang], lang)[1] for lang in ("en", "zh")) if c
            ),
        )
    extra = sorted(set(raw) - {"en", "zh", "tells", "blocks"})
    if extra:
        raise BankError(f"{where}: field '{name}' has unknown key(s) {', '.join(extra)}")
    text = _text_pair({k: raw.get(k) for k in LANGS if k in raw}, name, where)
    phrases: list[str] = []
    if "tells" in raw:
        t = raw["tells"]
        if not isinstance(t, dict) or set(t) != set(LANGS):
            raise BankError(f"{where}: '{name}.tells' must be a mapping with keys en and zh")
        for lang in LANGS:
            phrases += _phrases(t[lang], f"{name}.tells.{lang}", where)
    blocks = _blocks(raw.get("blocks", []), n_points, name, where)
    if blocks and not phrases:
        raise BankError(f"{where}: '{name}.blocks' needs 'tells' that detect the misconception")
    from .patterns import myth_patterns

    return text, Tell(patterns=tuple(myth_patterns(phrases, text)) if phrases else (), blocks=blocks)


def _blocks(blocks: Any, n_points: int, name: str, where: str) -> tuple[int, ...]:
    if not isinstance(blocks, list) or not all(
        isinstance(b, int) and not isinstance(b, bool) and 0 <= b < n_points for b in blocks
    ):
        last = n_points - 1
        raise BankError(f"{where}: '{name}.blocks' must list key point indices 0..{last}, got {blocks!r}")
    return tuple(blocks)


def card_files(directory: Path | None = None) -> list[Path]:
    """The YAML files of the bank, sorted by name (``NN_slug.yaml``)."""
    d = Path(directory) if directory is not None else CARDS_DIR
    return sorted([*d.glob("*.yaml"), *d.glob("*.yml")])


def load_cards(directory: Path | None = None) -> list[Card]:
    """Load and validate every card in ``directory`` (default: the packaged bank), in file order.

    Raises `BankError` naming the file and the card id on any schema problem, a duplicate id
    or a follow-up id that does not resolve.
    """
    d = Path(directory) if directory is not None else CARDS_DIR
    files = card_files(d)
    if not files:
        raise BankError(f"no card files (*.yaml) in {d}")
    cards: list[Card] = []
    origin: dict[str, str] = {}
    myths = load_myths()
    for path in files:
        try:
            with open(path, encoding="utf-8") as fh:  # a stream, so YAML errors name the file
                data = yaml.load(fh, Loader=_YAML_LOADER)  # noqa: S506 (safe loader)
        except yaml.YAMLError as exc:
            raise BankError(f"{path.name}: invalid YAML: {exc}") from exc
        if data is None:
            continue
        if not isinstance(data, list):
            raise BankError(f"{path.name}: expected a list of cards at top level, got {type(data).__name__}")
        for i, raw in enumerate(data):
            card = _card_from_raw(_join_cjk_nested(raw), path, i, myths)
            if card.id in origin:
                raise BankError(f"{path.name}: card '{card.id}' repeats an id from {origin[card.id]}")
            origin[card.id] = path.name
            cards.append(card)
    known = set(origin)
    # a --cards folder holding some chapters of the bank (one copied file): a follow-up into a chapter that
    # is not there is dropped, as the bank's own card would be out of the selection; a typo still fails
    packaged = _packaged_ids() if d.resolve() != CARDS_DIR.resolve() else set()
    for card in cards:
        card.follow_ups[:] = [t for t in card.follow_ups if t in known or t not in packaged]
        for target in card.follow_ups:
            if target not in known:
                raise BankError(
                    f"{origin[card.id]}: card '{card.id}' has follow-up '{target}' which is not a card id"
                )
    return cards


def _packaged_ids() -> set[str]:
    """The ids of the packaged bank (cheap: the id lines, not a full load)."""
    import re

    ids: set[str] = set()
    for path in card_files(CARDS_DIR):
        ids.update(re.findall(r"^- id:\s*([\w.-]+)", path.read_text(encoding="utf-8"), re.M))
    return ids


def cards_by_chapter(cards: Iterable[Card]) -> dict[str, list[Card]]:
    """Group cards by chapter slug, every chapter present (in chapter order), the basic card first."""
    out: dict[str, list[Card]] = {slug: [] for slug in CHAPTERS}
    for card in cards:
        out[card.chapter].append(card)
    for slug in out:
        out[slug].sort(key=lambda c: c.level != "basic")  # stable: basic first, file order otherwise
    return out


def get_card(cards: Iterable[Card], card_id: str) -> Card:
    """The card with id ``card_id``; `KeyError` naming the id if absent."""
    for card in cards:
        if card.id == card_id:
            return card
    raise KeyError(f"no card with id {card_id!r}")


def chapter_card(cards: Iterable[Card], chapter: str) -> Card:
    """The one ``basic`` card of ``chapter`` (the chapter question)."""
    if chapter not in CHAPTERS:
        raise KeyError(f"unknown chapter {chapter!r}; expected one of {', '.join(CHAPTERS)}")
    basics = [c for c in cards if c.chapter == chapter and c.level == "basic"]
    if len(basics) != 1:
        raise BankError(f"chapter {chapter!r} must have exactly one basic card, has {len(basics)}")
    return basics[0]
