"""Text analysis for the typed-answer check: formulas, clauses, words and their scope (EN and 中文).

An answer is cut into clauses (sentence ends, semicolons, commas, and the conjunctions that start a new
claim: "but", "because", "so", "whereas", 但是, 因为, 所以 …; not the commas inside a bracketed run, a shape
"(B, h, n, d_k)" or "E[q, k]", nor "because of", a preposition, nor "so-called"). Each clause becomes a
list of *units*:

- an English word becomes its lemma (simplemma's English table) reduced by the Snowball stemmer, so
  ``matched``/``matching``, ``sinusoids``/``sinusoidal``, ``saturating``/``saturation`` meet; the plural of
  an acronym loses its "s" ("gpus", "rnns", "llms", "kvs"), which the stemmer keeps;
- a Chinese run is segmented by jieba (for the scope of negations and conditionals: ``主要是`` is the words
  主要 + 是, not the conditional 要是; ``不饱和`` starts with the negation 不) and then kept one character per
  unit, so a Chinese phrase matches as a run of characters;
- formulas are canonicalised first: ``√x``, ``sqrt(x)``, ``根号``, ``square root of`` → ``sqrt``;
  ``QKᵀ``, ``QK^T``, ``Q K transpose`` → ``qkt``; subscripts ``dₖ``, ``d_{k}``, ``dk`` → ``d_k``;
  ``d_model/h`` → ``d_model div h``; ``×``/``*`` → ``times``; ``n²``, ``n^2``, ``n squared`` → ``n2``;
- a typed English word of 5+ letters that no pattern uses and that is one edit from exactly one pattern
  word (same first letter) is read as that word ("varience", "sofmax"), unless it is an English word
  itself ("whose" is not "whole"; see `_correct`);
- then the synonym sets of ``synonyms.yaml`` (both languages) rewrite every variant to one canonical unit
  ``@name``.

Each unit carries flags: ``neg`` (a negation word starts here: not, no, never, nobody, without, hardly, 不,
没有, 并非, 谈不上, 算不上, 远非 …; "doesn't", "can't", "won't" and the same typed without the apostrophe,
"doesnt", "isnt", "cant", "wont", "dont", read as "… not", and so is "is far from …" that is no distance;
a negation reaches the end of its comma part, or of a fronted "…时" / "…的话", or an "and" that opens a claim
of its own, "… and still …"), ``post`` (a word that rejects what came before: wrong, myth, 错误 …),
``cond`` (a conditional or counterfactual: if, suppose, would, 如果, 要是 …). `find` looks a phrase up in a
clause and says whether the occurrence is affirmed (no negation before it in its clause, no rejection
after it, the clause not *framed*: a belief or appearance, "many think …", "… seems …", "看起来 …", set up
before a correcting "but …", "其实 …", or held by others, "people often think …", states nothing). A clause
is *rejected* when a rejection takes it back ("…, which is a myth", "说…，这是误解", "It is a myth that X,
Y"; `_rejections`): the matcher reads no myth in it.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path

import yaml

__all__ = [
    "Clause", "clauses", "units_of", "phrase_units", "phrase_units_as_written", "has_cjk",
    "split_misconception", "SYNONYMS_FILE", "has_negation",
]

SYNONYMS_FILE = Path(__file__).resolve().parent / "synonyms.yaml"

_CJK = "\u2e80-\u2fff\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_CJK_RE = re.compile(f"[{_CJK}]")
_TOKEN = re.compile(rf"[a-z0-9_]+|[α-ω]|[{_CJK}]+|[/÷×*=+−<>∞]|(?<![a-z0-9_])-(?=[a-z0-9∞])")
_ARTICLES = {"a", "an", "the"}
_EN_NEG = {
    "not", "no", "never", "none", "nobody", "nothing", "neither", "nor", "without", "instead", "rather",
    "cannot", "nowhere", "unless",  # "unless X" is "if not X": X is negated (and the clause a condition)
    "hardly", "scarcely",  # "RoPE is hardly an absolute encoding"; "far from" (a negation) is read as "not"
}
_EN_POST = {"wrong", "incorrect", "false", "myth", "mistake", "misconception", "untrue", "bogus"}
_EN_COND = {"if", "suppose", "supposing", "unless", "whether", "would", "could", "might", "hypothetically"}
_ZH_NEG = {
    "不", "不是", "并非", "而非", "不要", "不用", "不必", "不能", "不会", "没有", "没", "非",
    "别", "未", "无", "无需", "并不", "并没有", "从不", "从没", "毫无", "绝非", "不再", "不该",
    "不应", "不应该", "没人", "没有人", "除非",
    "谈不上", "算不上", "称不上", "远非", "远不是", "远远不是", "绝不是",  # "far from", "hardly", "by no …"
}
_ZH_NEG_PREFIX = ("不", "没", "未", "并不", "并没")  # jieba keeps "并不比", "并没用" as one word
_ZH_NEG_EXCEPT = {
    "不同", "不断", "不少", "不仅", "不但", "不管", "不久", "不过", "不论", "未来", "没错", "不错", "不一定",
    "不妨", "不止", "无论", "未必",
}
_ZH_POST = {"错", "错误", "错的", "不对", "不正确", "不成立", "站不住", "站不住脚", "误区", "误解", "谬误"}
# "不" + "对" / "正确" / "成立" that ends its clause ("X 是不对的", "X 不成立"), which jieba cuts in two: one
# rejecting word (_ZH_POST); not "不对 Q 缩放" ("not applied to Q") nor "不对称"
_ZH_REJECT_TAIL = {"对", "正确", "成立"}
_ZH_END_PARTICLES = {"的", "了", "啊", "呀", "吧", "哦", "呢"}
_ZH_COND = {"如果", "假如", "要是", "若", "倘若", "如若", "若是", "假若", "除非"}
# where a negation's scope ends inside a clause: the end of a fronted condition or time ("没有投影时所有头都
# 一样", "不加残差的话梯度会消失": 所有头, 梯度 are affirmed), and "and" before a new clause's subject or an
# adverb that carries on with a claim of its own ("It never writes the matrix to HBM and still computes exact
# attention")
_ZH_SCOPE_END = {"时", "时候", "的话"}
_EN_SCOPE_END = {
    "still", "also", "yet", "instead", "then", "it", "they", "we", "this", "that", "these", "those",
}
# a new clause starts before these words
_EN_SPLIT = re.compile(
    r"(?<!\bnot)\s+(?=(?:but|whereas|while|although|though|however|because(?! of\b)|since|so(?!-)|therefore|"
    r"thus|hence|otherwise)\b)"
)
_ZH_SPLIT = re.compile(  # not after a negation ("并不是因为…" keeps its 不是); "，是因为…" is one clause
    r"(?<!不)(?<!不是)(?<!并非)(?<!并不是)(?<!^是)(?<!^这是)"
    r"(?=但是|然而|因为|所以|因此|于是|而是|从而|否则|(?<![不])但(?!是))"
)
# A myth set up in order to be refuted ("Many think …, but …", "Recomputation seems slower, but …", "看起来…，
# 其实…"): the clauses of a sentence before its first correcting clause are *framed* (they state nothing) when
# they hold a belief or appearance word and either a correcting clause follows or the belief is others'.
_FRAME = re.compile(
    r"\b(?:think|thinks|thought|believes?|believed|assumes?|assumed|expects?|expected|seems?|seemed|seemingly|"
    r"appears?|looks? (?:like|as if|as though)|sounds?|intuitive|intuitively|intuition|"
    r"at first(?: sight| glance)?|on paper|in theory|described as|mistaken (?:for|as)|"
    r"usually|normally|in general|ordinarily)\b"
    r"|以为|觉得|看起来|看上去|看似|似乎|好像|直觉|表面上|乍看|听起来|理论上|通常|一般来说|一般情况下|平常"
    # 一种说法 / 有种看法 frame, except the speaker's own ("我有一种看法", "换一种说法", "用另一种说法",
    # "我支持一种观点", "有一种说法更准确": review s17 H3)
    r"|(?<!我)(?<!我有)(?<!我有另)(?<!我有另外)(?<!倾向于另)(?<!同意另)(?<!我的)(?<!换)(?<!换个)(?<!用另)"
    r"(?<!换另)(?<!同意)(?<!支持)(?<!赞成)(?<!认同)(?<!倾向于)"
    r"(?:有|一)种(?:说法|看法|观点)(?!更(?:准确|好|恰当|确切|严谨|贴切))"
)
# Whose belief it is: a holder other than the speaker ("many people", "people often think", "some believe"),
# a passive or impersonal belief ("is commonly believed", "is often mistaken for", "one might think") or a
# named mistake ("a common misconception"). A frequency adverb alone ("I think we usually …", "我觉得通常…")
# is the speaker's own claim, and 常 inside a word (常数, 非常, 正常) says nothing about who believes it.
_EN_HOLDER = (
    r"(?:people|ppl|folks|everyone|everybody|others|someone|somebody|one|you|they|many|most|some|candidates|"
    r"beginners|newcomers|textbooks|tutorials|(?:many|most|some|other|lots of) (?:people|candidates|"
    r"engineers|practitioners|researchers|students|readers|beginners|textbooks|tutorials|blogs|sources|"
    r"interviewers|folks))"
)
_EN_BELIEF = (  # "you'll hear …", "one might reason that …", "someone will suggest …" report a belief too
    r"(?:think|believe|assume|expect|say|claim|imagine|suppose|guess|conclude|hear|reason|argue|suggest|insist|"
    r"write)s?|wrote"
)
_EN_OFTEN = (
    r"(?:often|usually|commonly|widely|generally|frequently|sometimes|typically|popularly|mistakenly|wrongly)"
)
_EN_HOLDS = (  # "many people (often / would) think", "it is (commonly) believed", "tempting to think";
    # not "as you would expect, …" (the speaker's own aside, not someone else's belief)
    rf"(?<!\bas )\b{_EN_HOLDER}(?:'ll|'d)? "
    rf"(?:(?:{_EN_OFTEN}|naturally|naively|might|may|would|could|will|tend to|all|still|also) )*"
    rf"{_EN_BELIEF}\b|(?<!\bi )(?<!\bwe )(?<!\bi really )(?<!\bwe really )(?<!\bi just )(?<!\bi honestly )"
    r"(?<!\bi personally )(?<!\bi simply )(?<!\bi still )\b(?:don't|do not|never) (?:think|assume|believe)\b"
    rf"|\b(?:is|are|was|were|be|been|it's) (?:{_EN_OFTEN} )*(?:thought|believed|assumed|said|"
    r"claimed)\b|\btempting to (?:think|believe|assume|say)\b"
    r"|\btempting (?:argument|idea|intuition|answer|claim|conclusion|reading|shortcut)\b"
)
_ZH_HOLDS = (  # "有人说", "很多人认为", "人们都以为", "通常认为", "被误认为", "误以为"
    r"(?:(?:有|很多|许多|不少|好多|有些|一些|多数|大多数|别)人|人们|大家|新手|初学者)"
    r"(?:都|常常|往往|通常|经常|常|也|会|总)*(?:认为|以为|觉得|说|声称)"
    r"|(?:别|不要|千万别|也别|不能)(?:以为|觉得|认为)"
    r"|(?:有|一)种(?:很)?(?:常见|流行|普遍|典型)?(?:的)?(?:误解|错误|误区)"
    r"|(?:有|一)种(?:很)?(?:常见|流行|普遍|典型)(?:的)?(?:说法|解释|观点|看法|理解|直觉)"
    r"|(?<!我们)(?<!咱们)(?<!我)(?:通常|一般|普遍|往往|常常|经常|大多)(?:都)?(?:会)?(?:认为|以为)"
    r"|被(?:误)?认为|被误以为|误以为|误认为"
)
# What others call it: "people call X Y", "X is often called Y", "有人把 X 叫作 Y", "X 常被当成 Y" (not a
# plain name: "the first tokens are called attention sinks", "这些 token 被称为 attention sink"). A name is
# no belief: it frames its sentence only when a correction follows ("People call the KV cache an
# approximation, but it is exact"), never as an aside that names a term ("…, in what people call the KV
# cache", "The KV cache, as it is often called, is …", "…, which people call the finite-mask trick, …"), and
# an endorsement after it is the speaker's own claim ("People call FlashAttention an approximation, and
# rightly so", "有人把 X 叫作 Y，这没错").
_CALLS = re.compile(
    rf"(?<!\bwhat )(?<!\bwhich )(?<!\bthat )(?<!\bas )\b{_EN_HOLDER} "
    rf"(?:(?:{_EN_OFTEN}|naturally|naively|might|may|would|could|will|tend to|all) )*calls?\b"
    rf"|(?<!\bwhat )(?<!\bwhich )(?<!\bthat )(?<!\bas it )(?<!\bas they )(?<!\bas this )"
    rf"\b(?:is|are|was|were|be|been|it's) (?:{_EN_OFTEN} )+called\b"
    r"|(?:(?:有|很多|许多|不少|好多|有些|一些|多数|大多数|别)人|人们|大家|新手|初学者)(?:都|常常|往往|通常|经常|会|总)*"
    r"把[^，。,；;]{0,40}?(?:叫作|叫做|称为|称作|当成|看成|当作|说成)"
    r"|(?<!所)(?:常|常常|经常|往往|有时|有时候|通常|总)(?:会)?被(?:称为|称作|叫作|叫做|当成|看成|当作|说成)"
)
# ... a frame that only names a pronoun ("people call it the KV cache", "有人把它叫作 KV cache") and one the
# speaker then endorses ("…, and rightly so", "…, and they are right", "…, and it is one", "…，这没错") frame
# their sentence only before a correction
_CALL_NAMES = re.compile(
    r"\bcalls? (?:it|this|that|them|these|those)\b|\b(?:it|this|that|they|these|those) (?:is|are) "
    rf"(?:{_EN_OFTEN} )+called\b|把(?:它|它们|这|这个|这种|这些|那|那个|其)(?:叫作|叫做|称为|称作)"
)
_ENDORSE = re.compile(
    r"\b(?:rightly|correctly|justly|accurately|for good reason|with good reason|i agree|agreed)\b"
    r"|\b(?:they|people|that|this|which|it)(?: is| are|'s|'re)? "
    r"(?:(?:quite|absolutely|entirely|completely|exactly|perfectly|totally) )?"
    r"(?:right|correct|true|accurate|fair)\b|\band (?:it|they) (?:is|are) (?:one|ones)\b"
    r"|\byou(?:'d| would)? be right\b|\b(?:they|people|you)(?:'re| are) right\b"
    r"|\b(?:(?:they|people|that|this|it)(?:'re| are|'s| is) )?not wrong\b"
    r"|^\s*(?:is|are|was|were) (?:(?:quite|absolutely|entirely|completely|exactly|perfectly|totally) )?"
    r"(?:right|correct|true|accurate)\b"
    r"|没错|说得对|确实|的确|(?<!不)是对的"
    r"|^\W*我(?:也)?(?:完全|非常)?(?:同意|赞同)(?:这个|这种|他们|这一?)?(?:说法|观点|看法|点)?\W*$"
    r"|(?:非常|完全|很|十分)正确|(?<!不)也对|(?:一点)?不假|有道理|(?<!不)是正确的|(?<!不)正确的"
)
_OTHERS = re.compile(
    rf"{_EN_HOLDS}|\b{_EN_OFTEN} (?:described|mistaken|viewed|regarded|taught|portrayed|misread|"
    r"misunderstood)\b"
    r"|\b(?:common|popular|widespread|frequent|typical|naive|usual|classic|widely held|commonly held) "
    r"(?:mistake|misconception|misunderstanding|belief|view|intuition|assumption|claim|myth|misreading|"
    r"error|confusion|trap|pitfall|bug)s?\b"
    rf"|{_ZH_HOLDS}|(?<![没所])有人|很多人|许多人|不少人|好多人|有些人|一些人|多数人"
    r"|常见(?:的)?(?:误解|错误|说法|看法|观点|误区|想法|直觉|认识|理解|误会|陷阱|bug)"
    r"|普遍(?:的)?(?:误解|看法|观点|认识|说法)|被误解|被说成|被描述"
)
# A belief reported as someone else's frames its clauses on its own, with or without a belief word of _FRAME
# ("people say …", "通常认为 …", "经常有人说 …"); "我认为" / "I think" is the speaker's and does not.
_OTHERS_SAY = re.compile(
    f"{_EN_HOLDS}|{_ZH_HOLDS}"
    # a named mistake that sets up what follows ("A common belief is that …", "A common mistake is to …",
    # "It's tempting to call …", "常见的误解是 …")
    r"|\b(?:common|popular|widespread|typical|classic|frequent|usual) (?:mistake|misconception|"
    r"misunderstanding|belief|myth|error|trap|pitfall|misreading|slip|confusion|explanation)s? (?:is|are)\b"
    r"|\btempting to\b"
    r"|常见(?:的)?(?:误解|错误|误区|说法|陷阱|看法)(?:是|就是)"
)
_OWN_BELIEF = re.compile(
    r"\b(?:i|we)(?: (?:really|do|still|honestly|personally|strongly|firmly|would|genuinely))*"
    r" (?:think|believe|feel|suppose|guess|reckon|assume|expect|say)\b|\b(?:i|we)'d say\b"
    r"|(?<![让使])我们?(?:还是|真的|个人)?(?:认为|觉得|相信|猜|想)"
)
_CONTRARY = re.compile(
    r"^(?:contrary to|unlike|as opposed to|despite|in spite of|against)\b"
    r"|^(?:与|和|跟|同)[^，,]{0,20}(?:相反|不同|不一样)$|^(?:不同于|有别于)"
)
_CORRECTION = re.compile(
    r"^(?:but|yet|however|actually|in fact|in practice|in reality)\b|^(?:其实|实际上|事实上|但|然而|可是)"
)
_SENTENCE = re.compile(r"(?<!\d)[.](?![\dA-Za-z_])|[!?;。！？；\n]+|[.](?=\s)")
_COMMA = re.compile(r"[,，:：]")
# a bracketed run whose commas separate items, not clauses: a shape "(B, h, n, d_k)", "E[q, k]", "（B，h，n）"
_BRACKET = re.compile(r"\([^()（）]{0,60}\)|（[^()（）]{0,60}）|\[[^\[\]]{0,60}\]")


def _split_commas(text: str, seps: list[str] | None = None) -> list[str]:
    """``text`` cut at its commas and colons, except those inside a bracketed run (`_BRACKET`); ``seps``
    receives the mark before each part ("" before the first)."""
    inside = {i for m in _BRACKET.finditer(text) for i in range(m.start(), m.end())}
    out: list[str] = []
    start, mark = 0, ""
    for m in _COMMA.finditer(text):
        if m.start() not in inside:
            out.append(text[start:m.start()])
            if seps is not None:
                seps.append(mark)
            start, mark = m.end(), m.group()
    out.append(text[start:])
    if seps is not None:
        seps.append(mark)
    return out


def has_cjk(text: str) -> bool:
    """True when ``text`` contains a Chinese (CJK) character."""
    return bool(_CJK_RE.search(text))


_FORMULAS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"\bcan[’']t\b|\bcant\b"), "can not"),
    (re.compile(r"\bwon[’']t\b|\bwont\b"), "will not"),
    (re.compile(r"\bshan[’']t\b"), "shall not"),
    (re.compile(r"n[’']t\b"), " not"),
    # the same negations typed without the apostrophe ("doesnt", "isnt", "dont")
    (re.compile(r"\b(do|does|did|is|are|was|were|has|have|had|should|could|would|must|need|might)nt\b"),
     r"\1 not"),
    (re.compile(r"\bcan ?not\b"), "can not"),
    # "far from" as a negation ("Flash-Decoding is far from an approximation", "far from being exact"), not
    # as a distance ("a key far from the query", "the key is far from the query", "far from each other")
    (re.compile(r"\bfar from being\b"), "not being"),
    (re.compile(
        r"\b(is|are|was|were|be|been|being|remains?|stays?|seems?|s|still)\s+far from\b"
        r"(?!\s+(?:the|its|their|this|that|these|those|each|every|other|one|any|all|it|them|\d))"
    ), r"\1 not"),
    (re.compile(r"\bq\s*[·.*]?\s*k\s*(?:\^\s*\{?\s*t\s*\}?|\s+transpose[ds]?|\.t\b)"), " qkt "),
    (re.compile(r"\bqkt\b"), " qkt "),
    (re.compile(r"\bk\s*(?:\^\s*\{?\s*t\s*\}?|\s+transpose[ds]?)"), " kt "),
    (re.compile(r"(?:square|平方)\s*roots?(?:\s+of)?"), " sqrt "),
    (re.compile(r"开?根号|开方|平方根|√"), " sqrt "),
    (re.compile(r"\bd\s*_?\s*\{?\s*(k|v|q|model|head|ff|h)\s*\}?(?![a-z0-9])"), r" d_\1 "),
    (re.compile(r"\bh\s*_?\s*\{?\s*(kv|q)\s*\}?(?![a-z0-9])"), r" h_\1 "),
    (re.compile(r"\b(d_[a-z]+|\d*[a-z]|[a-z0-9])\s*(?:\^\s*\{?\s*2\s*\}?|²|\s+squared)"), r" \g<1>2 "),
    (re.compile(r"(?<=[a-z0-9_)])\s*\^\s*"), " pow "),
    (re.compile(r"[×*·⋅]"), " times "),
    (re.compile(r"[÷/]"), " div "),
    (re.compile(r"−|–"), " - "),
    (re.compile(r"∞"), " inf "),
    (re.compile(r"\binfinity\b"), " inf "),
]


def canonical(text: str) -> str:
    """NFKC, case-folded, formulas rewritten (see the module docstring)."""
    t = unicodedata.normalize("NFKC", text).casefold()
    for pat, rep in _FORMULAS:
        t = pat.sub(rep, t)
    return t


# the plural of an acronym: no vowel before its "s" ("rnns", "llms", "ffns", "kvs") or a processing unit
_ACRONYM_PLURAL = re.compile(r"^(?:[b-df-hj-np-tv-xz]{2,}|[cgtn]pu)s$")


@functools.lru_cache(maxsize=1)
def _lemmatiser():
    import simplemma
    import snowballstemmer

    stem = snowballstemmer.stemmer("english")

    @functools.lru_cache(maxsize=20000)
    def lemma(word: str) -> str:
        if not word.isalpha() or len(word) <= 2:
            return word
        if _ACRONYM_PLURAL.match(word):  # "gpus", "rnns", "llms", "kvs": the stemmer keeps their "s"
            return word[:-1]
        # twice when the first pass changed the word: the lemma of a plural may have a lemma of its own
        # ("embeddings" -> "embedding" -> "embed", as the singular goes), else the two got different units
        base = simplemma.lemmatize(word, lang="en")
        if base != word:
            base = simplemma.lemmatize(base, lang="en")
        return stem.stemWord(base)

    return lemma


@functools.lru_cache(maxsize=1)
def _segmenter():
    import logging

    import jieba

    jieba.setLogLevel(logging.CRITICAL)  # a read-only cache dir: jieba works from memory, says nothing
    jieba.initialize()
    return jieba


@dataclass
class Unit:
    """One word (English lemma) or character (Chinese), with the scope flags of the word it starts."""

    text: str
    neg: bool = False
    post: bool = False
    cond: bool = False
    first: bool = True  # the first unit of a word (a Chinese word spans several units)
    word: str = ""  # an English unit's word as typed (before its lemma and stem)
    seg: int = 0  # the comma-separated part of its clause (a fronted phrase kept with it: _fronted)
    stop: bool = False  # a negation before it does not reach past it (`_ZH_SCOPE_END`, `_EN_SCOPE_END`)


def _raw_units(text: str, as_written: bool = False) -> list[Unit]:
    """Canonicalised units of one clause before synonym rewriting (``as_written``: English words are not
    lemmatised or stemmed, for a pattern word already written as a stem)."""
    lemma = (lambda w: w) if as_written else _lemmatiser()
    out: list[Unit] = []
    toks = [m.group() for m in _TOKEN.finditer(canonical(text))]
    for j, tok in enumerate(toks):
        if _CJK_RE.match(tok):
            words = _segmenter().lcut(tok, HMM=False)
            if j == len(toks) - 1:
                words = _join_reject_tail(words)
            for word in words:
                neg = word in _ZH_NEG or (word.startswith(_ZH_NEG_PREFIX) and word not in _ZH_NEG_EXCEPT)
                for k, ch in enumerate(word):
                    out.append(Unit(
                        ch, neg=neg and k == 0, post=word in _ZH_POST and k == 0,
                        cond=word in _ZH_COND and k == 0, first=k == 0, stop=word in _ZH_SCOPE_END and k == 0,
                    ))
        elif tok in _ARTICLES:
            continue
        elif tok == "-":
            out.append(Unit("minus"))
        elif tok in "=+<>":
            out.append(Unit({"=": "eq", "+": "plus", "<": "lt", ">": "gt"}[tok]))
        else:
            out.append(Unit(
                lemma(tok), neg=tok in _EN_NEG, post=tok in _EN_POST,
                cond=tok in _EN_COND and not _speakers_hedge(toks, j), word=tok,
                stop=tok == "and" and j + 1 < len(toks) and toks[j + 1] in _EN_SCOPE_END,
            ))
    return out


def has_negation(text: str) -> bool:
    """``text`` (one clause) holds a negation word that is not a condition ("unless", "除非"), one that a
    synonym set absorbs included ("不变": @invariant)."""
    return any(u.neg and not u.cond for seg in _split_commas(text) for u in _raw_units(seg))


def _join_reject_tail(words: list[str]) -> list[str]:
    """``words`` (the last Chinese run of a clause) with a clause-final "不" + "对" / "正确" / "成立" (only
    particles after it) joined into one rejecting word ("是不对的", "不成立")."""
    for m in range(len(words) - 1):
        if words[m] == "不" and words[m + 1] in _ZH_REJECT_TAIL and all(
            w in _ZH_END_PARTICLES for w in words[m + 2:]
        ):
            return [*words[:m], "不" + words[m + 1], *words[m + 2:]]
    return words


_HEDGE_SUBJECT = {"i", "we"}
_HEDGE_VERB = {"say", "think", "guess", "argue", "expect", "imagine"}


def _speakers_hedge(toks: list[str], j: int) -> bool:
    """``toks[j]`` is the would/suppose of the speaker's own hedge ("I would say …", "I'd think …", "I suppose
    …", "we would argue …"), not a condition: what follows is still claimed."""
    prev = toks[j - 1] if j else ""
    nxt = toks[j + 1] if j + 1 < len(toks) else ""
    if toks[j] in ("suppose", "supposing"):
        return prev in _HEDGE_SUBJECT
    return toks[j] in ("would", "could", "might") and prev in _HEDGE_SUBJECT and nxt in _HEDGE_VERB


@functools.lru_cache(maxsize=1)
def _synonyms() -> dict[tuple[str, ...], str]:
    """Variant unit sequence -> canonical unit ``@name`` (from ``synonyms.yaml``)."""
    data = yaml.safe_load(SYNONYMS_FILE.read_text(encoding="utf-8")) or {}
    table: dict[tuple[str, ...], str] = {}
    for name, variants in data.items():
        for v in [name, *variants]:
            key = tuple(u.text for u in _raw_units(str(v)))
            if key:
                table.setdefault(key, f"@{name}")
                VOCAB.update(k for k in key if k.isascii())
    return table


@functools.lru_cache(maxsize=1)
def _max_syn() -> int:
    return max((len(k) for k in _synonyms()), default=1)


VOCAB: set[str] = set()  # English units of every pattern phrase and synonym: what a typo is corrected to


def _one_edit(a: str, b: str) -> bool:
    """``a`` and ``b`` differ by one insertion, deletion, substitution or swap of neighbours."""
    if abs(len(a) - len(b)) > 1 or a == b:
        return False
    if len(a) == len(b):
        d = [i for i in range(len(a)) if a[i] != b[i]]
        return len(d) == 1 or (len(d) == 2 and d[1] == d[0] + 1 and a[d[0]] == b[d[1]] and a[d[1]] == b[d[0]])
    if len(a) > len(b):
        a, b = b, a
    return any(b[:i] + b[i + 1:] == a for i in range(len(b)))


@functools.lru_cache(maxsize=20000)
def _correct(word: str, typed: str = "") -> str:
    """A typed English word (lemma) of 5+ letters unknown to the patterns -> the one known word one edit
    away with the same first letter ("varienc" -> "varianc", "sofmax" -> "softmax"), else itself.
    ``typed``: the word as typed; an English word (simplemma knows it) is no typo, so it keeps its
    meaning ("whose" is not "whole", "catch" not "cache", "mistral" not "mixtral"), unless the edit only
    meets a pattern word written as a shorter stem ("transpos" -> "transpo"), swaps two neighbours
    ("casual" -> "causal") or is a British spelling ("behavior" -> "behaviour")."""
    if len(word) < 5 or not word.isalpha() or word in VOCAB:
        return word
    near = [v for v in VOCAB if v[:1] == word[:1] and _one_edit(word, v)]
    if len(near) != 1:
        return word
    fix = near[0]
    if typed and _english(typed) and not _typo_of(word, fix):
        return word
    return fix


@functools.lru_cache(maxsize=20000)
def _english(word: str) -> bool:
    """``word`` is in simplemma's English table."""
    import simplemma

    return bool(simplemma.is_known(word, lang="en"))


def _typo_of(word: str, fix: str) -> bool:
    """The edit ``word`` -> ``fix`` is one a known English word may still be corrected by (see `_correct`)."""
    if word.startswith(fix):
        return True
    if len(word) == len(fix):
        d = [i for i in range(len(word)) if word[i] != fix[i]]
        return len(d) == 2 or {word[d[0]], fix[d[0]]} == {"z", "s"}
    return fix.replace("our", "or") == word


def _rewrite(units: list[Unit], correct: bool = False) -> list[Unit]:
    """Greedy longest match of the synonym variants; a negation inside a variant is part of its meaning.
    ``correct``: typed text, whose unknown words are first corrected to a pattern word one edit away."""
    if correct:
        for u in units:
            u.text = _correct(u.text, u.word)
    table, longest = _synonyms(), _max_syn()
    out: list[Unit] = []
    i = 0
    while i < len(units):
        for n in range(min(longest, len(units) - i), 0, -1):
            key = tuple(u.text for u in units[i:i + n])
            if key in table:
                span = units[i:i + n]
                out.append(Unit(table[key], cond=any(u.cond for u in span)))
                i += n
                break
        else:
            out.append(units[i])
            i += 1
    return out


def units_of(text: str, correct: bool = False) -> list[Unit]:
    """The canonical units of ``text`` (one clause); ``correct``: fix typos (see `_rewrite`). A clause that
    keeps a fronted phrase ("After the softmax, …", see `_fronted`) has a comma: each part is analysed on
    its own and its units carry its number (``seg``), the scope of its negations."""
    out: list[Unit] = []
    for k, seg in enumerate(_split_commas(text)):
        for u in _rewrite(_raw_units(seg), correct):
            u.seg = k
            out.append(u)
    return out


@functools.lru_cache(maxsize=8192)
def phrase_units(phrase: str) -> tuple[str, ...]:
    """A pattern phrase as a tuple of canonical unit texts (cached); its words join the vocabulary."""
    raw = _raw_units(phrase)
    VOCAB.update(u.text for u in raw if u.text.isascii())
    return tuple(u.text for u in _rewrite(raw))


@functools.lru_cache(maxsize=8192)
def phrase_units_as_written(phrase: str) -> tuple[str, ...]:
    """A pattern phrase with its English words as written: a word written as the stem it stands for
    ("onli", "dens", "rang") is that stem, while the analysis would reduce it again ("on", "den", "ring")."""
    return tuple(u.text for u in _rewrite(_raw_units(phrase, as_written=True)))


@dataclass
class Clause:
    """One clause: its text as typed (NFKC) for quoting, its units, and its sentence number."""

    text: str
    units: list[Unit]
    sentence: int
    question: bool = False  # its sentence ends with "?" / "？" or asks with 吗: it states nothing
    framed: bool = False  # a myth set up to be refuted ("Many think …, but …"): it states nothing
    rejected: bool = False  # a rejection takes it back ("…, which is a myth"): it states no myth (matcher)
    mention: bool = False  # it lies inside a quoted claim ('"X" is wrong', '有人讲"X"'): it states no myth
    mark: str = ""  # the mark that opens it: "," or ":" (":" explains or lists what came before), or ""
    end: str = ""  # the mark that ends its sentence (".", "?", ";", "。" …; "" at the end of the text)

    @property
    def colon(self) -> bool:
        """A colon opens the clause: it explains or lists what came before."""
        return ":" in self.mark

    @property
    def conditional(self) -> bool:
        """The clause is a condition or a counterfactual ("if …", "would …", "要是 …")."""
        return any(u.cond for u in self.units)

    @property
    def contrastive(self) -> bool:
        """The clause opens with a contrastive or correcting connective ("but …", "however …", "不过 …")."""
        low = canonical(self.text).strip()
        # a bare "though" is the adverb of the clause before it ("It's an approximation though, …")
        return bool(_CONTRAST.match(low)) and low not in ("though", "although")

    @property
    def limiting(self) -> bool:
        """The clause opens with a contrast or a limitation ("but …", "only …", "只不过 …"): it may limit the
        claim before it (a myth's qualifiers hold in it; see matcher)."""
        return self.contrastive or bool(_LIMITS.match(canonical(self.text).strip()))

    def _where(self) -> dict[str, list[int]]:
        """Where each unit text occurs (built on first use; a clause's units do not change once made)."""
        where = self.__dict__.get("_where_cache")
        if where is None or where[0] is not self.units or where[1] != len(self.units):
            index: dict[str, list[int]] = {}
            for i, u in enumerate(self.units):
                index.setdefault(u.text, []).append(i)
            where = (self.units, len(self.units), index)
            self.__dict__["_where_cache"] = where
        return where[2]

    def denied(self) -> set[int]:
        """Indices of the rejection words a negation cancels: a negated rejection affirms ("it is not a
        myth that …", "… which is not wrong", "并不是误解"; a negation within 3 units before the word)."""
        units = self.units
        # the "not" of "X — not true" rejects on its own ("… can never explode — not true")
        return {
            m for m, u in enumerate(units)
            if u.post and u.text != "not" and any(x.neg for x in units[max(0, m - 3):m])
        }

    def find(self, phrase: tuple[str, ...], licensed: frozenset[int] = frozenset()) -> list[tuple[int, bool]]:
        """Start index of each occurrence of ``phrase`` and whether it is affirmed (not negated/rejected).
        ``licensed``: indices of negation units that belong to the claim itself (a pattern's ``~`` group,
        "without positions …") and so negate nothing after them, or of a rejection word that does ("a plain
        average is wrong": ``~wrong``) and so takes nothing back."""
        n = len(phrase)
        units = self.units
        # the occurrences first (most phrases occur nowhere in a clause): the polarity bookkeeping below is
        # only worth doing for a phrase that is there
        at = self._where().get(phrase[0], ()) if n else range(len(units) + 1)
        starts = [
            i for i in at if i + n <= len(units) and all(units[i + j].text == phrase[j] for j in range(1, n))
        ]
        if not starts:
            return []
        hits = []
        denied = self.denied()
        spent = {k for k, u in enumerate(units) if u.neg and any(m in denied for m in range(k + 1, k + 4))}
        for i in starts:
            negated = (
                self.framed
                # a negation reaches the end of its part: "Without the scaling, the softmax saturates"
                or any(  # (the negation first: the scan for a stop is the length of the clause)
                    True for k, u in enumerate(units[:i])
                    if u.neg and k not in licensed and k not in spent and u.seg == units[i].seg
                    and not any(x.stop for x in units[k + 1:i])
                )
                # a licensed rejection is the claim's own ("a plain average is wrong": ``~wrong``)
                or any(
                    u.post for m, u in enumerate(units[i + n:], i + n)
                    if m not in denied and m not in licensed
                )
                or any(  # "it is a myth that …", "wrong to say that …"
                    u.post and j not in denied and j not in licensed
                    and _THAT.intersection(x.text for x in units[j + 1:j + 5])
                    for j, u in enumerate(units[:i])
                )
            )
            hits.append((i, not negated))
        return hits


_THAT = {"that", "say", "think", "believ", "assum", "claim"}  # "a mistake to think (that) …"


# A sentence's opening phrase before its first comma that names the claim's setting or subject
# ("After the softmax, …", "In nn.MultiheadAttention, …", "Without a cache, …", "Once compute-
# bound, …", "在 softmax 之后， …", "对于长序列，…", "训练时，…") is kept with the clause that follows, and so
# is a clause that continues the one before it without a subject of its own (", then …", "，再 …",
# "，然后 …") and the second half of "头越多，计算量越大". The parts keep their own negations (`Unit.seg`).
_EN_FRONT = re.compile(
    r"^(?:after|before|in|inside|within|with|without|for|at|on|during|under|once|across|throughout|"
    r"given|per|from|apart from|aside from|except|other than|besides|beyond|using|combined with)\b"
)
_EN_VERB = re.compile(
    r"\b(?:is|are|was|were|be|been|being|am|has|have|had|do|does|did|can|will|shall|should|must|may|"
    r"might|would|could|if|when|that|which|who|because|since|but|so)\b|n[’']t\b"
)
# 在…中/里/上 by 在
# a fronted phrase kept with its clause; "多头的话，…" (a topic) too
_ZH_FRONT = re.compile(r"^(?:在|对于|一旦|当|除了|有了|用了|配合)|(?:之后|以后|之前|以前|后|前|时|的话)$")
_ZH_VERB = re.compile(r"是|把|会|要|能|需要|可以|让|使|因为|如果|所以|但")
_CONTINUES = re.compile(r"^(?:then|and then)\b|^(?:再|然后|接着|随后|之后再)")


# a speaker's lead-in written without a comma before the fronted phrase ("I think after the softmax, …",
# "我觉得在交叉注意力里，…")
_LEAD_IN_PREFIX = re.compile(
    r"^(?:i (?:think|believe|guess|suppose|reckon)|i'm pretty sure|i am pretty sure)(?: that)? "
    r"|^(?:我认为|我觉得|我想|我记得|据我所知)"
)
# a temporal clause led by after/before/once may hold a passive ("Once the softmax is computed, …", "After
# the softmax has been applied, …"): only these auxiliaries, no other verb word
_EN_TEMPORAL = re.compile(r"^(?:after|before|once)\b")
_EN_AUX = re.compile(r"\b(?:is|are|was|were|has|have|had|been|being)\b")


def _fronted(piece: str, following: str) -> bool:
    """``piece`` (a sentence's first comma part) opens the clause ``following`` (see above)."""
    low, nxt = canonical(piece).strip(), canonical(following).strip()
    low = _LEAD_IN_PREFIX.sub("", low).strip()
    if not low or not nxt:
        return False
    if has_cjk(low):
        bare = re.sub(r"[a-z0-9_.]+", "x", low.replace(" ", ""))  # a name counts as one character
        if "越" in bare and "越" in nxt and len(bare) <= 8:
            return True
        # a temporal clause ("算出 q、k、v 之后", "掩码是在 softmax 之后") opens its clause even with a verb
        return bool(_ZH_FRONT.search(bare)) and len(bare) <= 12 and (
            not _ZH_VERB.search(bare) or bool(re.search(r"(?:之后|以后|之前|以前|时)$", bare))
        )
    if _EN_TEMPORAL.match(low) and len(low.split()) <= 8 and not _EN_VERB.search(_EN_AUX.sub(" ", low)):
        return True
    return bool(_EN_FRONT.match(low)) and len(low.split()) <= 8 and not _EN_VERB.search(low)


# A speaker's own lead-in before the fronted phrase ("I think, after the softmax, …", "Well, …", "我认为，在
# softmax 之后，…"): a comma part of its own, and the fronted phrase after it still opens the next clause.
_LEAD_IN = re.compile(
    r"^(?:i (?:think|believe|guess|suppose|reckon|would say|'d say)|i am pretty sure|i'm pretty sure|"
    r"well|yes|yeah|ok|okay|so|basically|honestly|in short|in my view|in my opinion|as far as i know|"
    r"if i remember (?:right|rightly|correctly)|if i recall (?:right|correctly))$"
    r"|^(?:我认为|我觉得|我想|我记得|我理解|我的理解是|据我所知|嗯|对|是的|好|简单说|总之|总的来说)$"
)


def _comma_parts(sentence: str) -> list[tuple[str, str]]:
    """The comma parts of ``sentence``, a fronted phrase and a continuing clause joined to their clause;
    each with the mark that opens it ("," or ":"; "" for the first)."""
    seps: list[str] = []
    raw = [p.strip() for p in _split_commas(sentence, seps)]
    pieces = [p for p in raw if p]
    marks = [m for p, m in zip(raw, seps, strict=True) if p]
    first = 0  # the first part after the speaker's lead-ins
    while first < len(pieces) - 1 and _LEAD_IN.match(canonical(pieces[first]).strip()):
        first += 1
    out: list[tuple[str, str]] = []
    for k, piece in enumerate(pieces):
        head = pieces[first]
        if k == first + 1 and len(_EN_SPLIT.split(head)) == 1 and len(_ZH_SPLIT.split(head)) == 1 and (
            _fronted(head, piece) or _CONTINUES.match(canonical(piece).strip())
        ):
            out[-1] = (f"{out[-1][0]}{'，' if has_cjk(out[-1][0] + piece) else ','} {piece}", out[-1][1])
        else:
            out.append((piece, marks[k]))
    return out


# a dash before a spoken self-correction opens a clause of its own ("X — no, Y", "X — well, not really: Y",
# "X — more precisely, Y", "X — except in SDPA, …", "X——其实…"): the correction is not part of X's clause
_DASH_TURN = re.compile(
    r"\s*(?:—+|–|--|\s-)\s*(?=(?:no|nope|not really|not quite|not exactly|well|actually|in fact|"
    r"more precisely|precisely|rather|or rather|except|i mean|sorry|wait|strictly speaking)\b"
    r"|不|其实|实际上|准确|确切|更准确)",
    re.IGNORECASE,
)


def _split_sentence(sentence: str) -> list[tuple[str, str]]:
    """The clauses of ``sentence``, each with the mark that opens it ("," or ":"; "" when a conjunction or
    the sentence start does; see `_comma_parts`)."""
    parts: list[tuple[str, str]] = []
    for piece, mark in (
        (q, m if not i else "") for p, m in _comma_parts(sentence) for i, q in enumerate(_DASH_TURN.split(p))
    ):
        for p in _EN_SPLIT.split(piece):
            for q in _ZH_SPLIT.split(p):
                if q.strip():
                    parts.append((q.strip(), mark))
                    mark = ""
    return parts


# A clause (or a sentence) that only rejects what was said before it: "…, which is a myth", "…, and that is
# wrong", "…, which isn't true", "…，这是误解", "…，这种说法是错的", "…，是错的"; "That is a myth." after a
# sentence.
_EN_REJECTS = re.compile(
    r"^(?:and |but |so )?(?:which|that|this|it|(?:this|that|the) (?:claim|idea|view|belief|statement))"
    r"(?: is| was| are|'s|’s| would be| seems| sounds)?"
    r"(?: (?:just|simply|also|completely|totally|actually|really|quite|plainly|clearly|entirely|of course|"
    r"definitely|obviously))*(?: an?)?(?: (?:very )?(?:common|popular|widespread|classic|typical|frequent|"
    r"big|huge|serious|well-known|old))?"
    r" (?:wrong|incorrect|false|untrue|myth|mistake|misconception|misunderstanding|fallacy|not true|"
    r"not correct|not right|not the case|nonsense)(?: (?:though|actually|really|of course))?$"
    r"|^(?:not true|wrong|false|nonsense|a myth|that is a myth)$"
)
_ZH_REJECTS = re.compile(
    r"^(?:而|但|但是|可是|不过)?(?:这|那|此)?(?:个|种|一|样)?(?:说法|想法|观点|看法|理解|认识|结论)?"
    r"(?:其实|实际上|完全|根本|并|就|纯粹|显然|当然)?(?:是|就是|属于)?(?:一个|一种|个|种)?(?:很)?"
    r"(?:常见|普遍|典型|经典)?的?(?:误解|误区|谬误|错误|错的|错误的|不对的|不对|不正确的|不正确|不成立的|不成立|错|不准确的|不准确|不太对|不太准确|站不住脚)"
    r"(?:的|了|啊|呀|哦)?$"
)
# A rejection that leads its clause ("It is a myth that …", "it's wrong to say that …", "it is not true
# that …"): it also reaches the clauses after it that carry on its claim ("It is a myth that since b_K
# cancels, b_Q must cancel too", "…, so it is less expressive"), up to a contrast or a reason of the speaker's
# own ("…, but …", "…, because …").
_EN_LEADING_REJECTION = re.compile(  # not negated: "it isn't a myth that …" affirms it
    r"^(?!(?:[\w'’]+ ){0,4}?(?:not|no|never|hardly|nothing)\b)(?!(?:[\w'’]+ ){0,3}?[\w]+n[’']t\b)"
    r"(?:[\w'’]+ ){0,4}?"
    r"(?:myth|misconception|mistake|wrong|false|incorrect|untrue|fallacy|not true|not the case)"
    r" (?:(?:to )?(?:say|think|believe|assume|claim|suppose|imagine)(?: that)?|that)\b"
)
_OWN_REASON = re.compile(r"^(?:because|since|as|given that)\b|^(?:因为|由于)")
# a reason right after a claim ("…, because …", "…，是因为 …"): a myth's qualifiers hold in it (see matcher)
_REASON = re.compile(r"^(?:because|since|given that)\b|^(?:因为|由于|是因为|这是因为)")
# the connectives that open a contrast or a correction: a myth's qualifiers ("!!") also hold in the clauses
# of its sentence from the first one that opens with them ("X, but Y" where Y limits X; see matcher)
_CONTRAST = re.compile(
    r"^(?:but|however|though|although|yet|whereas|while|whilst|except|actually|in fact|in practice|"
    r"in reality)\b|^(?:但|然而|不过|可是|其实|实际上|事实上|反而|而(?!且|言))"
)

# a limitation ("X, only for long inputs", "MLA 本质上就是 GQA，只不过缓存小得多"): it may limit what came
# before, but it opens no statement of its own (a rejection after "…，只是更快，这是误解" takes back all)
_LIMITS = re.compile(r"^(?:only|just)\b|^(?:只是|只不过|仅仅|只有|仅)")


# a spoken self-correction that takes back the claim before it: a bare "no", "not really", "well, no",
# "actually no", 不, 不是, 其实不是, 不是这样 (M1 of review s11-r12 ch06-09: "X — no, Y", "X. No: Y",
# "X。不，Y")
_SELF_REJECTS = re.compile(
    r"^(?:(?:well|actually|oh|wait|hmm|um|er|so|and|but|or) )*(?:no|nope|not really|not quite|not exactly|"
    r"not so|not at all|scratch that)$"
    # "X. It doesn't." / "X. It's the reverse.": a bare reply that denies the sentence before
    r"|^(?:but )?(?:it|that|this|they) (?:doesn't|does not|isn't|is not|don't|do not|aren't|are not|won't|"
    r"will not|can't|cannot|didn't|did not|wasn't|was not)$"
    r"|^(?:(?:it|that)(?:'s| is) )?(?:quite |exactly |just )?the "
    r"(?:reverse|opposite|other way (?:round|around))$"
    r"|^(?:其实|实际上|但|但是|不过|嗯)?(?:不|不是|不对|不是的|不是这样|并不是|并非如此|错了|说错了|正好相反|恰恰相反|"
    r"刚好相反|恰好相反)$"
)
# ... of which these reject only as a whole sentence, or before a colon: "It doesn't, however, change the
# output." continues its verb (review s16 H2)
_BARE_REPLY = re.compile(
    r"^(?:but )?(?:it|that|this|they) (?:doesn't|does not|isn't|is not|don't|do not|aren't|are not|won't|"
    r"will not|can't|cannot|didn't|did not|wasn't|was not)$"
)
# a clause that only opens a sentence and carries on into the next ("Actually, no: …", "其实，…")
_FILLER = re.compile(
    r"^(?:well|actually|oh|(?:oh )?wait(?: a (?:sec|second|moment|minute))?|oh no|sorry|hmm|um|er|so|in fact|"
    r"hold on)$|^(?:其实|实际上|嗯|哦|等等|等一下|哦不)$"
)


def _flat(text: str) -> str:
    """``text`` canonical, its runs of white space one space, without edge dashes and stops."""
    return re.sub(r"\s+", " ", canonical(text)).strip(" -—–.!")


def _rejects(text: str) -> bool:
    """``text`` (one clause) only rejects what came before it (`_EN_REJECTS`, `_ZH_REJECTS`,
    `_SELF_REJECTS`)."""
    low = _flat(text)
    return bool(
        _EN_REJECTS.match(low) or _ZH_REJECTS.match(low.replace(" ", ""))
        or _SELF_REJECTS.match(low) or _SELF_REJECTS.match(low.replace(" ", ""))
    )


def _opens_rejecting(cs: list[Clause]) -> bool:
    """The sentence ``cs`` opens (after a filler: "Actually, no: …") with a clause that only rejects ("No: Y",
    "不，Y", "Not really: Y", "That is wrong: Y"): it takes back the sentence before it. Not a sentence of a
    single clause that carries a claim ("No parameters are learned")."""
    k = 0
    while k < len(cs) - 1 and _FILLER.match(_flat(cs[k].text)):
        k += 1
    if not cs or not _rejects(cs[k].text):
        return False
    low = _flat(cs[k].text)
    if not _BARE_REPLY.match(low):
        return True
    # "It doesn't, however, change the output", "They aren't, though, the biggest part": after an aside the
    # reply's verb carries on into a clause with no subject or verb of its own; anything else rejects ("It
    # doesn't, the FLOPs are the same", "It doesn't, though.", "It isn't, in the sense that matters: Y")
    m = k + 1
    while m < len(cs) and _ASIDE.match(_flat(cs[m].text)):
        m += 1
    if m == k + 1 or m == len(cs) or cs[m].colon:
        return True
    return not _carries_on(re.sub(r"\s+", " ", canonical(cs[m].text)).strip().casefold(),
                           bool(_REPLY_DO.search(low)))


def _carries_on(rest: str, do: bool) -> bool:
    """The clause ``rest`` after "It doesn't, however," / "They aren't, though," continues the reply (review
    s17 H1, s17b H1-H2). After do/does/did/won't/can't n't a base verb and its object do ("change the
    outputs", "just save memory", "change what the output is"); a subject with a verb of its own does not
    ("FLOPs go up", "FlashAttention saves memory", "compute goes up", "cache memory shrinks"), nor an
    article, a number or "same"/"less" ("just the memory traffic", "same FLOPs"). After is/are n't a noun
    phrase or a participle does ("the biggest part", "used after their step", "as large as the keys"); a
    subject, a be-verb after a short noun phrase ("the keys and values are") or each/every does not."""
    if _SUBJECT.match(rest) and not (do and _FOCUS_VERB.match(rest)):
        return False
    if (_BE_AFTER_NP_DO if do else _BE_AFTER_NP).match(rest):  # "the FLOPs are", "the keys and values are"
        return False
    if not do:  # "each step computes …", "the keys and values stay …", "the model recomputes them"
        words = re.findall(r"[a-z][\w'-]*", rest)[:5]
        return not (re.match(r"^(?:each|every|no)\b", rest) or set(words) & _CHANGE_VERBS
                    or re.match(r"^(?:the|a|an)\s+[\w-]+\s+[a-z]{3,}(?:s|ed)\b(?<!ss)", rest))
    rest = re.sub(r"^(?:just|only|merely|really|necessarily|even) ", "", rest)
    if _NEW_PHRASE.match(rest):
        return False
    # only positive evidence of a subject of its own: a change verb second ("compute goes up") or third
    # after a two-word noun ("cache memory shrinks"), not after make/let/cause ("make memory go up"), or a
    # finite -s/-ed second after a word that is no verb ("FlashAttention saves memory"; s17c H1)
    w = re.findall(r"[a-z][\w'-]*", rest)[:3]
    causative = bool(w) and w[0] in ("make", "makes", "let", "cause", "see", "help")
    third = len(w) > 2 and w[1] not in _OBJECT_START and w[2] in _CHANGE_VERBS
    if not causative and len(w) > 1 and (w[1] in _CHANGE_VERBS or third):
        return False
    if len(w) > 1 and w[1] not in _OBJECT_START and w[0] not in _BASE_VERBS:
        return not (len(w[1]) >= 4 and re.search(r"(?:s|ed)$", w[1]) and w[1] not in _VERBS_IN_S)
    return True


# an aside between a clause and what carries it on (here, and in similar.py before an appositive)
_ASIDE = re.compile(
    r"^(?:however|though|mind you|of course|in fact|as far as i know|to be fair|to be honest|i think|i'd say|"
    r"i would say|i would argue|i'd argue|i believe|actually|really|in practice|honestly|frankly|basically|"
    r"strictly speaking|in general|in my (?:view|opinion|experience)|to me|imo)$"
)
_FOCUS_VERB = re.compile(r"^(?:just|only|merely) (?!the\b|a\b|an\b|its\b|their\b|\d)[a-z]+\b(?<!s)")
_BE_AFTER_NP_DO = re.compile(r"^(?:[\w-]+ ){0,3}(?:is|are|was|were)\b")  # not "change what the output is"
_BE_AFTER_NP = re.compile(r"^(?:[\w-]+ ){0,4}(?:is|are|was|were)\b")
_CHANGE_VERBS = frozenset(
    "goes go grows rises stays stay remains remain increases drops falls shrinks doubles halves".split()
)
_OBJECT_START = frozenset(
    "the a an its their any all much more how what whether that to with in on at by for of up down".split()
)
_BASE_VERBS = frozenset("""
change affect alter reduce cut lower save make give touch modify remove require need use help improve increase
hurt skip avoid produce lose eliminate introduce speed decrease guarantee matter mean do have get add compute
cache store keep read write approximate scale apply work support handle shrink materialize fit run split
share hold output replace mask batch
""".split())
_VERBS_IN_S = frozenset(
    "pass process access focus discuss address bias miss cross express compress bypass".split()
)
_SUBJECT = re.compile(
    r"^(?:it|they|we|i|you|he|she|this|that|these|those|there|only|just|but|and|because|so|no|not|nor|neither|"
    r"rather|instead)\b"
)
_REPLY_DO = re.compile(r"(?:doesn't|does not|don't|do not|won't|will not|can't|cannot|didn't|did not)$")
_NEW_PHRASE = re.compile(r"^(?:(?:the|a|an|its|their|same|less|more|all|both|fewer)\b|\d)")


def _reject_back(cs: list[Clause], end: int) -> None:
    """Mark the clauses ``cs[:end]`` rejected, back to the nearest one that opens a contrast or follows a
    colon ("X, but Y, which is wrong" and "X: Y, which is wrong" take back Y)."""
    j = end - 1
    while j > 0 and not (cs[j].contrastive or cs[j].colon):
        j -= 1
    for c in cs[max(j, 0):end]:
        c.rejected = True


def _rejections(sentences: list[list[Clause]]) -> None:
    """Mark the clauses that a rejection takes back (`Clause.rejected`): those before a rejecting clause of
    their sentence ("…, which is a myth", "说…，这是误解"), the sentence before a rejecting sentence
    ("X. That is a myth."), and the clauses that carry on a leading rejection ("It is a myth that X, Y")."""
    last: list[Clause] = []  # the sentence before (with clauses)
    for cs in sentences:
        for k, c in enumerate(cs):
            if k and _rejects(c.text):
                _reject_back(cs, k)
        if last and _opens_rejecting(cs):
            _reject_back(last, len(last))
        last = cs or last
        for k, c in enumerate(cs):
            m = _EN_LEADING_REJECTION.match(canonical(c.text).strip())
            if not m:
                continue
            started = bool(canonical(c.text)[m.end():].strip())
            for x in cs[k + 1:]:
                low = canonical(x.text).strip()
                # "It is a myth that X because Y": Y is part of the myth; "…, because Y": the speaker's reason
                if x.colon or started and (x.contrastive or x.mark and _OWN_REASON.match(low)):
                    break
                x.rejected = started = True


# A quoted claim is mentioned, not stated ('"a sharp softmax gives strong gradients" is wrong', 'I'd push back
# on "…"', '有人讲"…"，这个说法不对'): a run of at least 4 English words (3 with a verb) or 5 Chinese
# characters in double quotes or corner brackets (single quotes are apostrophes too often), over 40 % of its
# clause ('The textbook line "…" conflates things'). Unless the speaker endorses it right
# after ('"…" — and that's right', '"…"，这是对的').
_QUOTE = re.compile(r'"([^"\n]{6,300})"|“([^”\n]{6,300})”|「([^」\n]{5,300})」|『([^』\n]{5,300})』')
_NOT_AFTER = re.compile(r"\b(?:not|no|never|hardly)\b|n[’']t\b|不|没|非(?!常)|未|难说|谈不上|算不上")


# a quote the speaker gives as their answer or cites as an authority's ("As the paper says, "…"", "My answer:
# "…"", "I'd put it as "…"", "我的回答是"…"", "论文里说得很清楚："…"") states it (review s16 H1)
_OWN_QUOTE = re.compile(
    r"(?:\bmy (?:answer|take|summary|point|one-liner)(?: is| would be| here)?"
    r"|\bi(?:'d| would) (?:put|say|phrase|sum)(?: it| this| that)?(?: up)?(?: as| like)?"
    r"|\bthe answer is|\bin short|\bto sum up|\bput simply|\bin a word|\bthe key (?:point|fact) is)\W*$"
    r"|(?:我的(?:回答|答案|理解|总结)(?:是|就是)?|我会(?:这么)?说|一句话(?:说)?|总结一下|简单说|答案是)\W*$"
)
# ... and one cited from someone else is the speaker's only when no correction follows it ('As the
# interviewer said, "…", but I disagree', '正如有些博客所说，“…”，其实不然': review s16b H-B)
_CITED_QUOTE = re.compile(
    r"\bas (?:the |a |an |one |some )?[\w.-]+(?: [\w.-]+){0,3} "
    r"(?:says|said|puts it|shows|notes|writes|wrote|showed)\W*$|\bthe paper (?:says|states|shows)\W*$"
    r"|(?:正如[^，。]{0,12}(?:说|所说|指出)(?:的)?|论文(?:里|中)?(?:说|写|讲|指出)(?:得很清楚|得很明白)?)\W*$"
)
# a correction of it: a contrast opening the rest of its sentence ('…", but …'), or a rejection aimed at it
# ('"…" doesn't hold', '…, which is wrong'); in the next sentence only one that opens it ('That's not true:
# …', '其实不然'). A bare "no"/"not" is none ('…, so it is not exact', '. There is no free lunch': s17 H2)
_CORRECTS_WORDS = (
    r"\b(?:disagree|disagrees|wrong|false|myth|misconception|incorrect|mistaken|not (?:true|right|correct|"
    r"the case|so)|(?:that|this|it)(?:'s| is) not (?:quite|exactly)|"
    r"not (?:quite|exactly) (?:right|true|correct|accurate)|(?:doesn't|does not|don't|do not) "
    r"(?:hold|apply)|(?:isn't|is not|aren't|are not) (?:true|right|correct|accurate|the case|so)|"
    r"i (?:don't|do not) (?:buy|agree)|not convinced)\b"
    r"|不对|不然|不准确|不正确|不成立|(?<!不)错|误(?!差)|并非如此|不是这样|未必|不同意"
    r"|(?<!没)(?<!没什么)(?<!不会)有问题(?!吗)"
    r"|(?:没有|没|无|零|不会有|不引入|不产生)[^，。]{0,4}误差"
)
_CORRECTS = re.compile(r"^\W*(?:but|however|though|actually|in fact)\b|^\W*(?:但|其实|然而|不过|可是|实际上)"
                       rf"|{_CORRECTS_WORDS}")
_CORRECTS_NEXT = re.compile(
    r"^\W*(?:(?:but|however|actually|in fact|no(?! (?:doubt|wonder|question))|wrong|nothing could be further|"
    r"none of (?:that|this|it) is (?:true|right)|not (?:true|really|quite)|i disagree|"
    r"i (?:don't|do not) (?:buy|agree)|not convinced|"
    r"(?:that|this|it)(?:'s| is) (?:not|wrong|a myth|false|incorrect|mistaken))\b"
    r"|但|其实|然而|不过|可是|实际上|(?:可|但)?这?并?不对|错|并非如此|不是这样|我不同意|有问题(?!吗)"
    r"|这(?:个说法|种说法|话)?(?:不对|是错的|是误解|不准确|有问题))"
)
# a limit on an endorsement after a quote ('"…" is true only for quantised caches': review s16b M-F)
# ('"…" is right for int8 caches'); not a comment on it ('is true, for sure', '在…的意义上': review s17 M1)
_LIMITED = re.compile(
    r"\b(?:only|just|unless|except)\b"
    r"|\b(?:true|right|correct|accurate|holds?),? (?:for|in|with|when|if) "
    r"(?!sure\b|practice\b|general\b|principle\b|my (?:experience|view|opinion|book)\b|the sense\b|"
    r"every|all\b|any)"
    r"|只|仅|除非|除了|对于(?!所有|任何|一切|大多数)|在(?!任何|所有|一切|大多数|实际|实践)[^，。,.]{1,12}时(?!候都)"
)


def _endorses(text: str) -> bool:
    """``text`` (canonical) endorses what came before it, with no negation besides the endorsement's own
    ("they are right", "这是对的", "没错", "这话不假", "they're not wrong"; review s16 H3)."""
    return bool(_ENDORSE.search(text)) and not _NOT_AFTER.search(_ENDORSE.sub(" ", text))


def _quoted_spans(t: str) -> list[tuple[int, int]]:
    """(start, end) of each quoted claim of ``t`` that the speaker does not endorse right after it."""
    spans = []
    for m in _QUOTE.finditer(t):
        inner = next(g for g in m.groups() if g is not None)
        words = len(re.findall(r"[A-Za-z][\w'’-]*", inner))
        if (words < 4 and not (words == 3 and _EN_VERB.search(inner.casefold()))
                and len(re.findall(r"[\u4e00-\u9fff]", inner)) < 5):
            continue
        rest = re.split(r"[.!?;。！？；\n]", t[m.end():], maxsplit=2)  # this sentence's rest, the next one
        after = canonical(rest[0])[:80]
        before = canonical(re.split(r"[.!?;。！？；\n]", t[:m.start()])[-1])[-60:]
        nxt = canonical(rest[1] if len(rest) > 1 else "")[:80]
        if _endorses(after) and not _LIMITED.search(after) or _OWN_QUOTE.search(before) or (
            _CITED_QUOTE.search(before) and not (_CORRECTS.search(after) or _CORRECTS_NEXT.search(nxt))
        ):
            continue
        spans.append((m.start(), m.end()))
    return spans


def _endorses_next(pieces: list[str], k: int) -> bool:
    """The sentence after ``pieces[k]`` is a short endorsement ("They are right.", "这是对的。")."""
    if k + 2 >= len(pieces):  # the last sentence, unpunctuated ("Many think X"): nothing comes after it
        return False
    nxt = canonical(pieces[k + 2]).strip()
    raw = pieces[k + 2] + (pieces[k + 3] if k + 3 < len(pieces) else "")
    if not (0 < len(nxt) <= 40 and _endorses(nxt)) or _HEDGED.search(nxt) or re.search(r"[?？]|吗", raw):
        return False
    # nothing but the endorsement: not "That's true of keys and values only", "确实很多人这么想，但 …"
    rest = re.sub(r"[\W_]+", "", _ENDORSE_FILLER.sub(" ", _ENDORSE.sub(" ", nxt)))
    return len(rest) <= (1 if re.search(r"[\u4e00-\u9fff]", rest) else 4)


# a limitation or a correction in an endorsing sentence: it endorses something else (review s16 H5)
_HEDGED = re.compile(
    r"\b(?:but|only|though|except|however|yet|ask|question|keys?|values?|queries|for(?! sure)|of(?! course)|"
    r"[kvq])\b"
    r"|但|只|不过|可是|然而|这么想|常见|容易"
)
_ENDORSE_FILLER = re.compile(
    r"\b(?:and|so|yes|yeah|indeed|well|very|really|fully|in fact|that|this|it|they|is|are|'s|'re|of course|"
    r"i think|i agree(?: with them| with that)?|about that|absolutely|in my experience|with them)\b"
    r"|这|那|如此|完全|非常|也|是|话|的|了|啊|呢|我觉得|他们|说得|我同意|(?:个|种|一)?(?:说法|观点|看法)|一点"
)


def clauses(text: str) -> list[Clause]:
    """Cut ``text`` into clauses (see the module docstring), each with its canonical units."""
    t = unicodedata.normalize("NFKC", text)
    out: list[Clause] = []
    sentences: list[list[Clause]] = []
    quoted = _quoted_spans(t)
    pieces = re.split(f"({_SENTENCE.pattern})", t)
    offset = 0
    for s, k in enumerate(range(0, len(pieces), 2)):
        sentences.append([])
        sentence, end = pieces[k], pieces[k + 1] if k + 1 < len(pieces) else ""
        start, offset = offset, offset + len(sentence) + len(end)
        cursor = 0
        asks = "?" in end or "？" in end or sentence.rstrip().endswith("吗")
        split = _split_sentence(sentence)
        parts = [p for p, _ in split]
        low = [canonical(p) for p in parts]
        fix = next((k for k, p in enumerate(low) if k and _CORRECTION.match(p)), len(parts))
        # the speaker's own present belief ("I think X, but …") is the speaker's claim, not a frame (M2 of
        # review s11-r12 ch06-09), and a fronted "contrary to what people think, …" sets others' belief
        # against the claim after it (L6): neither frames
        setup = _OWN_BELIEF.sub(" ", " ".join(p for p in low[:fix] if not _CONTRARY.match(p.strip())))
        calls = bool(_CALLS.search(setup)) and (
            fix < len(parts) or not (_CALL_NAMES.search(setup) or any(_ENDORSE.search(p) for p in low[1:fix]))
        )
        framed = bool(_OTHERS_SAY.search(setup)) or calls or (
            bool(_FRAME.search(setup)) and (fix < len(parts) or bool(_OTHERS.search(setup)))
        )
        # a reported belief the speaker then endorses is the speaker's claim ("You'd think X, and you'd be
        # right", "People insist X; they are correct.", "人们常说 X，这是对的"; review s15 H1)
        if framed and fix == len(parts) and (
            any(_endorses(p) for p in low[1:])
            or _endorses_next(pieces, k)
        ):
            framed = False
        for k, part in enumerate(parts):
            units = units_of(part, correct=True)
            dash = _DASH_REJECTS.search(canonical(part))
            if units and dash and len(units) > 2:
                units[-len(re.findall(r"[a-z]+", dash.group()))].post = True
            at = sentence.find(part, cursor)
            mention = False
            if at >= 0:
                cursor = at + len(part)
                a, b = start + at, start + at + len(part)
                inside = sum(min(b, y) - max(a, x) for x, y in quoted if min(b, y) > max(a, x))
                mention = bool(quoted) and inside >= 0.4 * len(part)
            if units:
                out.append(
                    Clause(part, units, s, asks, framed and k < fix, mark=split[k][1], end=end.strip(),
                           mention=mention)
                )
                sentences[-1].append(out[-1])
    _rejections(sentences)
    return out


# "X — not true", "X - not correct": the dash sets a rejection after the claim in its clause (its "not"
# rejects what came before, as "wrong" does; "wrong" / "false" after a dash already do)
_DASH_REJECTS = re.compile(r"(?:—|–|\s-)\s*not (?:true|correct|right|so)(?: at all)?\s*[.!]?\s*$")


_MYTH_END = {"en": re.compile(r"(?<=[.?!])\s+"), "zh": re.compile(r"(?<=[。？！])")}


def split_misconception(text: str, lang: str) -> tuple[str, str]:
    """A misconception's text is "Myth. Correction."; return (myth, correction), correction '' when absent."""
    parts = _MYTH_END[lang].split(text.strip(), maxsplit=1)
    return parts[0].strip(), (parts[1].strip() if len(parts) > 1 else "")
