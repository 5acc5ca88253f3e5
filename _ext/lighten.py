"""Lighter pages, at build time: theme CSS trimmed to the selectors the site can use, Font Awesome cut to the
icons the CSS can show, figures re-encoded with a palette when that changes no pixel visibly.

- ``purge_css``: a rule is kept when one of its selectors can match: every class and id it requires (outside
  ``:not()``/``:is()``..., which may match without them) is a word of the site's HTML pages or of the
  scripts that build markup at run time (the theme's, bootstrap's, search, tabs, copy and toggle buttons).
  Element, attribute and pseudo selectors are always kept, as are ``@font-face``, ``@keyframes`` and every
  custom property rule that has no class or id. Bootstrap names some classes at run time
  (``bs-tooltip-auto``),
  so ``bs-`` classes are kept.
- ``subset_icon_fonts``: the Font Awesome web fonts (solid 156 KB, brands 118 KB, regular 25 KB) are cut to
  the glyphs whose code points occur in the (purged) CSS: the icons the theme can show (☰, search, contents,
  light/dark, download, repository, edit, launch, admonition icons). Written as WOFF (zlib; WOFF2 would need
  brotli), the ``@font-face`` rules point at the cut fonts.
- ``quantize_images``: a PNG is re-encoded with an adaptive palette (Pillow, <= 256 colours) when that is
  smaller and no pixel moves by more than ``MAX_PIXEL_ERROR`` in any channel (mean error below
  ``MAX_MEAN_ERROR``); otherwise it stays as it was.
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterable
from pathlib import Path

WORD = re.compile(r"[A-Za-z0-9_-]+")
# classes and ids a selector requires (after functional pseudo-classes are removed)
_TOKEN = re.compile(r"([.#])((?:\\.|[A-Za-z0-9_-])+)")
_SAFE_PREFIXES = ("bs-",)
MAX_PIXEL_ERROR = 16  # of 255, in any channel of any pixel
MAX_MEAN_ERROR = 1.5  # mean error of the worst channel


def words(texts: Iterable[str]) -> set[str]:
    """Every word-like token (letters, digits, - and _) of the texts: class names, ids, strings in scripts."""
    found: set[str] = set()
    for text in texts:
        found.update(WORD.findall(text))
    return found


def _strip_functional(selector: str) -> str:
    """The selector without the arguments of :not(), :is(), :where(), :has(), :nth-child()..."""
    out, depth = [], 0
    i = 0
    while i < len(selector):
        ch = selector[i]
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth = max(depth - 1, 0)
        elif depth == 0:
            out.append(ch)
        i += 1
    return "".join(out)


def selector_can_match(selector: str, known: set[str]) -> bool:
    """True when every class and id the selector requires is a known word."""
    plain = re.sub(r"\[[^\]]*\]", "", _strip_functional(selector))  # attribute values are no classes
    for _, name in _TOKEN.findall(plain):
        name = name.replace("\\", "")
        if name.startswith(_SAFE_PREFIXES):
            continue
        if name not in known:
            return False
    return True


def _split_selectors(prelude: str) -> list[str]:
    parts, depth, current = [], 0, []
    for ch in prelude:
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append("".join(current))
            current = []
        else:
            current.append(ch)
    parts.append("".join(current))
    return [p.strip() for p in parts if p.strip()]


def purge_css(css: str, known: set[str]) -> str:
    """The stylesheet without the rules none of whose selectors can match the site."""
    import tinycss2

    def walk(rules: list) -> list[str]:
        out: list[str] = []
        for rule in rules:
            if rule.type == "qualified-rule":
                prelude = tinycss2.serialize(rule.prelude)
                if prelude.strip().startswith(("from", "to")) or re.fullmatch(r"[\d.%\s,]+", prelude.strip()):
                    out.append(tinycss2.serialize([rule]))  # inside @keyframes
                    continue
                kept = [s for s in _split_selectors(prelude) if selector_can_match(s, known)]
                if kept:
                    out.append(",".join(kept) + "{" + tinycss2.serialize(rule.content) + "}")
            elif rule.type == "at-rule":
                name = rule.lower_at_keyword
                if rule.content is not None and name in ("media", "supports", "layer", "container"):
                    inner = walk(
                        tinycss2.parse_rule_list(rule.content, skip_whitespace=True, skip_comments=True)
                    )
                    if inner:
                        out.append(f"@{rule.at_keyword}{tinycss2.serialize(rule.prelude)}{{{''.join(inner)}}}")
                else:
                    out.append(tinycss2.serialize([rule]))
        return out

    rules = tinycss2.parse_stylesheet(css, skip_whitespace=True, skip_comments=True)
    return "".join(walk(rules))


def icon_codepoints(css: str) -> set[int]:
    """Code points of the private-use characters (icon glyphs) a stylesheet names, literally or escaped."""
    points = {ord(ch) for ch in css if 0xE000 <= ord(ch) <= 0xF8FF or 0xF0000 <= ord(ch)}
    points |= {int(h, 16) for h in re.findall(r"\\([0-9a-fA-F]{4,6})", css)}
    return {p for p in points if 0xE000 <= p <= 0xF8FF or p >= 0xF0000}


def subset_font(source: Path, target: Path, codepoints: set[int]) -> int:
    """Write the glyphs of `codepoints` that `source` has into `target` (WOFF); return how many."""
    from fontTools import subset
    from fontTools.ttLib import TTFont

    font = TTFont(str(source))
    have = set(font.getBestCmap()) & codepoints
    options = subset.Options()
    options.flavor = "woff"
    options.layout_features = ["*"]
    options.notdef_outline = True
    sub = subset.Subsetter(options)
    sub.populate(unicodes=sorted(have))
    sub.subset(font)
    font.flavor = "woff"
    font.save(str(target))
    return len(have)


_FONT_FACE = re.compile(
    r"@font-face\{[^}]*?url\(([^)]*?fontawesome/webfonts/(fa-[a-z]+-\d+))\.woff2\)[^}]*\}"
)


def subset_icon_fonts(css: str, static: Path) -> tuple[str, dict[str, int]]:
    """The CSS with its Font Awesome @font-face rules pointing at fonts cut to the icons it names."""
    points = icon_codepoints(css)
    cut: dict[str, int] = {}

    def repoint(match: re.Match[str]) -> str:
        rule, stem = match.group(0), match.group(2)
        folder = static / "vendor" / "fontawesome" / "webfonts"
        source = folder / f"{stem}.ttf"
        if not source.exists():
            source = folder / f"{stem}.woff2"
        target = folder / f"{stem}.icons.woff"
        cut[stem] = subset_font(source, target, points)
        prefix = match.group(1)[: -len(stem)]
        return re.sub(r"src:[^;}]*", f'src:url({prefix}{stem}.icons.woff) format("woff")', rule)

    return _FONT_FACE.sub(repoint, css), cut


def quantize_png(path: Path) -> tuple[int, int]:
    """Re-encode `path` with a palette when that is smaller and visually the same; (bytes before, after)."""
    from PIL import Image, ImageChops, ImageStat

    before = path.stat().st_size
    with Image.open(path) as im:
        im.load()
        if im.mode == "P" or im.format != "PNG":
            return before, before
        dpi = im.info.get("dpi")
        source = im.convert("RGBA")
    if source.getchannel("A").getextrema() == (255, 255):
        source = source.convert("RGB")  # matplotlib's opaque figures: the palette methods need RGB
        methods = (Image.Quantize.MAXCOVERAGE, Image.Quantize.MEDIANCUT)
    else:
        methods = (Image.Quantize.FASTOCTREE,)
    for method in methods:
        paletted = source.quantize(colors=256, method=method, dither=Image.Dither.NONE)
        diff = ImageChops.difference(source, paletted.convert(source.mode))
        worst = max(hi for _, hi in diff.getextrema())
        mean = max(ImageStat.Stat(diff).mean)
        if worst <= MAX_PIXEL_ERROR and mean <= MAX_MEAN_ERROR:
            break
    else:
        return before, before
    buffer = io.BytesIO()
    extra = {"dpi": dpi} if dpi else {}
    paletted.save(buffer, format="PNG", optimize=True, **extra)
    if buffer.tell() >= before:
        return before, before
    path.write_bytes(buffer.getvalue())
    return before, buffer.tell()
