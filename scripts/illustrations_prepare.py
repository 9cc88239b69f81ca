#!/usr/bin/env python3
"""Turns the pinned npm packages under assets/illustrations/node_modules into the daemon's
illustration index (make illustrations runs it; nothing is downloaded here):

  assets/illustrations/index.json   one entry per emoji: id, title, keywords, group
  assets/illustrations/svg/{id}.svg each illustration as a standalone SVG document

Pictures: Fluent Emoji Flat (MIT, Microsoft) from @iconify-json/fluent-emoji-flat.
Keywords: emojibase-data (MIT): the CLDR label and tags in English and Vietnamese, the
shortcodes, and the words of the emoji's subgroup ("food-fruit" -> food, fruit).

An SVG that refers to anything outside itself (an href or url() not starting with '#') is left
out: the daemon renders these files, and only self-contained SVG is allowed there.
"""

import json
import re
import shutil
import sys
from pathlib import Path

# Subgroups that are not pictures of anything (letters, arrows, keycaps, skin-tone swatches).
SKIP_SUBGROUPS = {
    "skin-tone", "hair-style", "keycap", "alphanum", "geometric", "punctuation", "av-symbol",
    "arrow", "zodiac", "gender", "math", "flag", "country-flag", "subdivision-flag",
}
# Words of subgroup keys that describe nothing shown.
SKIP_WORDS = {
    "other", "object", "place", "person", "face", "hand", "fingers", "finger", "single",
    "partial", "open", "closed", "prop", "symbol", "av", "parts", "sign",
}
EXTERNAL = re.compile(r"""(?:href\s*=\s*["'](?!#))|(?:url\(\s*["']?(?!#))""", re.I)


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def hexkey(hexcode):
    return "-".join(p for p in hexcode.lower().split("-") if p != "fe0f")


def phrases(*texts):
    """Lowercase keyword phrases, each once, in order (the daemon splits them into words)."""
    out = []
    for t in texts:
        t = re.sub(r"[\s_:,]+", " ", t.lower()).strip(" .()!?\"'“”’")
        if t and t not in out:
            out.append(t)
    return out


def main(root):
    mods = root / "node_modules"
    icons = load(mods / "@iconify-json/fluent-emoji-flat/icons.json")
    chars = load(mods / "@iconify-json/fluent-emoji-flat/chars.json")
    data = load(mods / "emojibase-data/en/data.json")
    vi = {e["hexcode"]: e for e in load(mods / "emojibase-data/vi/data.json")}
    codes = load(mods / "emojibase-data/en/shortcodes/emojibase.json")
    subgroups = {s["order"]: s["key"] for s in load(mods / "emojibase-data/en/messages.json")["subgroups"]}
    size = (icons.get("width", 16), icons.get("height", 16))

    svg_dir = root / "svg"
    shutil.rmtree(svg_dir, ignore_errors=True)
    svg_dir.mkdir(parents=True)
    items, skipped = [], 0
    for e in data:
        sub = subgroups.get(e.get("subgroup"))
        name = chars.get(e["hexcode"].lower()) or chars.get(hexkey(e["hexcode"]))
        icon = icons["icons"].get(name) if name else None
        if sub is None or sub in SKIP_SUBGROUPS or icon is None:
            continue
        if EXTERNAL.search(icon["body"]):
            skipped += 1
            continue
        w, h = icon.get("width", size[0]), icon.get("height", size[1])
        svg = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" '
               f'viewBox="0 0 {w} {h}">{icon["body"]}</svg>\n')
        (svg_dir / f"{name}.svg").write_text(svg, encoding="utf-8")
        sc = codes.get(e["hexcode"], [])
        sc = [sc] if isinstance(sc, str) else sc
        v = vi.get(e["hexcode"], {})
        keywords = phrases(e["label"], *e.get("tags", []), *sc,
                         *(p for p in sub.split("-") if p not in SKIP_WORDS),
                         v.get("label", ""), *v.get("tags", []))
        items.append({
            "id": name,
            "title": e["label"][:1].upper() + e["label"][1:],
            "keywords": keywords,
            "group": sub,
        })
    info = load(mods / "@iconify-json/fluent-emoji-flat/info.json")
    index = {
        "set": f'{info["name"]} {load(mods / "@iconify-json/fluent-emoji-flat/package.json")["version"]}',
        "licence": "Pictures: Fluent Emoji (c) Microsoft Corporation, MIT licence "
                   "(https://github.com/microsoft/fluentui-emoji/blob/main/LICENSE). "
                   "Keywords: emojibase-data (c) Miles Johnson, MIT licence.",
        "items": items,
    }
    (root / "index.json").write_text(json.dumps(index, ensure_ascii=False, indent=0), encoding="utf-8")
    print(f"illustrations: {len(items)} in the index, {skipped} left out for external references")


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else "assets/illustrations"))
