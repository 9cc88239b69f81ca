#!/usr/bin/env python3
"""Generates Reelsmith's local B-roll library (a dev tool; the output is committed).

Every asset is self-made here: flat SVG illustrations (gradient sky, a themed icon built from
simple shapes, soft decoration) rendered with ffmpeg's librsvg decoder to 360x640 JPEG, and
short 3 s H.264 clips made from the same art with a slow push-in (ffmpeg zoompan). The result
is dedicated to the public domain (CC0 1.0). Run from anywhere:

    python3 assets/broll/make_library.py

Needs ffmpeg with librsvg. Writes images/, clips/, thumbs/ and library.json next to itself.

Every asset carries `focus`, its subject's box {x, y, w, h} normalised to 0..1 of the asset's
width and height, found by the edge-density pass below (the same rule as the daemon's
`compositor::focus::detect`, which computes the box of uploads and search results at ingest).
`--focus-only` recomputes the boxes of the committed images without drawing any art, and
writes `focus_sheet.png`, every image with its box drawn, to check the boxes by eye.
"""

import json
import os
import random
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
W, H = 360, 640

PALETTES = [
    ("#0f2027", "#2c5364"), ("#ff7e5f", "#feb47b"), ("#43cea2", "#185a9d"),
    ("#614385", "#516395"), ("#f7971e", "#ffd200"), ("#1d976c", "#93f9b9"),
    ("#e96443", "#904e95"), ("#2193b0", "#6dd5ed"), ("#cc2b5e", "#753a88"),
    ("#134e5e", "#71b280"), ("#373b44", "#4286f4"), ("#ee9ca7", "#ffdde1"),
]

# Icons: shapes in a 200x200 box, centred on the canvas.
def circle(cx, cy, r, fill, extra=""):
    return f'<circle cx="{cx}" cy="{cy}" r="{r}" fill="{fill}" {extra}/>'

def rect(x, y, w, h, fill, rx=0, extra=""):
    return f'<rect x="{x}" y="{y}" width="{w}" height="{h}" rx="{rx}" fill="{fill}" {extra}/>'

def poly(points, fill, extra=""):
    return f'<polygon points="{points}" fill="{fill}" {extra}/>'

def path(d, fill="none", stroke="#fff", sw=8, extra=""):
    return f'<path d="{d}" fill="{fill}" stroke="{stroke}" stroke-width="{sw}" stroke-linecap="round" stroke-linejoin="round" {extra}/>'

WHITE, INK, SUN, LEAF, SEA = "#ffffff", "#1b1f3b", "#ffd23f", "#3ddc97", "#4cc9f0"

ICONS = {
    "sun": [circle(100, 100, 45, SUN)] + [rect(96, 10, 8, 30, SUN, 4, f'transform="rotate({a} 100 100)"') for a in range(0, 360, 45)],
    "solar": [poly("20,140 60,60 180,60 140,140", INK), path("M47,87 L167,87 M33,113 L153,113 M90,60 L70,140 M130,60 L110,140", sw=4, stroke=SEA), rect(95, 140, 10, 40, WHITE), circle(165, 35, 22, SUN)],
    "city": [rect(20, 80, 40, 110, INK), rect(65, 40, 45, 150, "#2b2f55"), rect(115, 100, 30, 90, INK), rect(150, 60, 35, 130, "#2b2f55")] + [rect(75 + (i % 3) * 12, 55 + (i // 3) * 18, 6, 9, SUN) for i in range(18)],
    "mountain": [poly("0,190 70,60 130,190", "#2b2f55"), poly("60,190 130,40 200,190", INK), poly("112,75 130,40 148,75 130,66", WHITE), circle(40, 40, 18, SUN)],
    "ocean": [circle(100, 70, 35, SUN), path("M0,120 Q25,100 50,120 T100,120 T150,120 T200,120", stroke=WHITE), path("M0,150 Q25,130 50,150 T100,150 T150,150 T200,150", stroke=SEA), path("M0,180 Q25,160 50,180 T100,180 T150,180 T200,180", stroke=WHITE)],
    "chart": [rect(20, 120, 30, 60, WHITE, 4), rect(65, 90, 30, 90, WHITE, 4), rect(110, 60, 30, 120, SUN, 4), rect(155, 25, 30, 155, LEAF, 4), path("M20,190 L190,190", sw=6)],
    "growth": [path("M20,170 L70,120 L110,140 L180,50", stroke=LEAF, sw=12), poly("150,45 190,40 185,80", LEAF)],
    "money": [circle(80, 120, 50, SUN), circle(80, 120, 36, "#f4a261"), circle(130, 90, 50, SUN), circle(130, 90, 36, "#f4a261"), path("M130,65 L130,115 M115,75 Q130,65 145,78 M115,105 Q130,118 145,105", stroke=WHITE, sw=6)],
    "phone": [rect(55, 10, 90, 180, INK, 16), rect(63, 28, 74, 140, SEA, 4), circle(100, 180, 6, WHITE), rect(75, 45, 50, 8, WHITE, 4), rect(75, 62, 35, 8, WHITE, 4)],
    "laptop": [rect(35, 40, 130, 90, INK, 8), rect(45, 50, 110, 70, SEA, 3), poly("15,140 185,140 200,160 0,160", "#2b2f55"), path("M60,75 L75,85 L60,95 M85,97 L110,97", sw=5)],
    "code": [path("M60,60 L20,100 L60,140", sw=12), path("M140,60 L180,100 L140,140", sw=12), path("M115,45 L85,155", stroke=SUN, sw=12)],
    "team": [circle(60, 75, 22, WHITE), circle(140, 75, 22, WHITE), circle(100, 60, 26, SUN), path("M25,160 Q60,100 95,160", fill=WHITE, stroke=WHITE, sw=2), path("M105,160 Q140,100 175,160", fill=WHITE, stroke=WHITE, sw=2), path("M60,165 Q100,90 140,165", fill=SUN, stroke=SUN, sw=2)],
    "clock": [circle(100, 100, 80, WHITE), circle(100, 100, 70, INK), path("M100,100 L100,50 M100,100 L135,118", stroke=SUN, sw=8), circle(100, 100, 6, SUN)],
    "rocket": [path("M100,15 Q140,55 130,130 L70,130 Q60,55 100,15 Z", fill=WHITE, stroke=WHITE, sw=2), circle(100, 70, 14, SEA), poly("70,110 45,150 72,135", "#f94144"), poly("130,110 155,150 128,135", "#f94144"), poly("80,132 100,185 120,132", SUN)],
    "heart": [path("M100,170 C20,115 30,40 80,45 C95,47 100,60 100,65 C100,60 105,47 120,45 C170,40 180,115 100,170 Z", fill="#f94144", stroke="#f94144", sw=2), path("M40,110 L75,110 L88,85 L105,135 L118,110 L160,110", stroke=WHITE, sw=6)],
    "coffee": [rect(45, 70, 90, 100, WHITE, 14), path("M135,90 Q175,95 135,140", stroke=WHITE, sw=10), path("M70,55 Q60,40 72,25 M95,55 Q85,40 97,25 M120,55 Q110,40 122,25", stroke=WHITE, sw=5), rect(55, 85, 70, 12, "#6f4e37", 3)],
    "book": [path("M100,50 Q60,30 20,45 L20,160 Q60,145 100,165 Z", fill=WHITE, stroke=WHITE, sw=2), path("M100,50 Q140,30 180,45 L180,160 Q140,145 100,165 Z", fill="#e9ecef", stroke="#e9ecef", sw=2), path("M40,70 L80,75 M40,95 L80,100 M120,75 L160,70 M120,100 L160,95", stroke=INK, sw=4)],
    "idea": [circle(100, 85, 55, SUN), rect(78, 135, 44, 30, WHITE, 6), path("M85,150 L115,150", stroke=INK, sw=4), path("M100,120 L100,95 M88,88 L100,100 L112,88", stroke="#f4a261", sw=5)] + [rect(96, -5, 8, 18, SUN, 4, f'transform="rotate({a} 100 85)"') for a in (-60, -30, 0, 30, 60)],
    "leaf": [path("M40,170 Q30,60 170,30 Q160,160 40,170 Z", fill=LEAF, stroke=LEAF, sw=2), path("M40,170 Q90,110 150,55", stroke="#1b4332", sw=5)],
    "globe": [circle(100, 100, 75, SEA), path("M55,60 Q80,55 85,80 Q70,100 50,95 Z M115,45 Q150,60 140,90 Q120,95 110,75 Z M95,120 Q130,115 140,140 Q110,170 95,150 Z", fill=LEAF, stroke=LEAF, sw=2), circle(100, 100, 75, "none", 'stroke="#fff" stroke-width="5"')],
    "car": [path("M25,130 L40,95 Q50,80 70,80 L130,80 Q150,80 160,95 L175,130 Z", fill="#f94144", stroke="#f94144", sw=2), rect(15, 125, 170, 30, "#f94144", 10), rect(60, 90, 35, 28, SEA, 4), rect(105, 90, 35, 28, SEA, 4), circle(55, 160, 18, INK), circle(145, 160, 18, INK)],
    "house": [poly("100,25 185,95 15,95", "#f94144"), rect(35, 95, 130, 90, WHITE), rect(85, 130, 30, 55, "#6f4e37"), rect(50, 110, 25, 25, SEA), rect(125, 110, 25, 25, SEA)],
    "cart": [path("M15,40 L45,40 L65,130 L165,130 L180,70 L52,70", stroke=WHITE, sw=9), circle(75, 160, 13, WHITE), circle(155, 160, 13, WHITE), rect(75, 80, 25, 35, SUN, 3), rect(110, 85, 25, 30, LEAF, 3)],
    "calendar": [rect(25, 40, 150, 140, WHITE, 12), rect(25, 40, 150, 35, "#f94144", 12), rect(55, 25, 10, 30, INK, 4), rect(135, 25, 10, 30, INK, 4)] + [rect(40 + (i % 4) * 33, 90 + (i // 4) * 28, 22, 18, SEA if i != 6 else SUN, 3) for i in range(12)],
    "mail": [rect(20, 50, 160, 110, WHITE, 10), path("M25,58 L100,115 L175,58", stroke=INK, sw=6)],
    "camera": [rect(25, 60, 150, 105, INK, 14), rect(65, 42, 50, 25, INK, 6), circle(100, 112, 38, WHITE), circle(100, 112, 26, SEA), circle(150, 80, 7, SUN)],
    "music": [path("M70,150 L70,45 L160,30 L160,135", stroke=WHITE, sw=9), circle(55, 152, 20, SUN), circle(145, 137, 20, SUN)],
    "food": [circle(100, 110, 75, WHITE), circle(100, 110, 58, "#f4a261"), circle(80, 95, 12, "#f94144"), circle(120, 100, 12, LEAF), circle(100, 130, 12, SUN), path("M15,30 L15,90 M5,30 L5,60 M25,30 L25,60", stroke=WHITE, sw=5)],
    "moon": [circle(100, 100, 65, SUN), circle(130, 80, 60, "#1b1f3b")] + [circle(x, y, 3, WHITE) for x, y in ((30, 30), (170, 150), (160, 40), (40, 170), (180, 100))],
    "running": [circle(120, 35, 18, WHITE), path("M115,60 L95,115 L60,130 M95,115 L125,140 L115,180 M110,75 L145,95 M110,75 L75,80", stroke=WHITE, sw=12)],
    "lock": [path("M60,95 L60,65 Q60,25 100,25 Q140,25 140,65 L140,95", stroke=WHITE, sw=14), rect(40, 90, 120, 95, SUN, 14), circle(100, 130, 12, INK), rect(95, 135, 10, 25, INK, 4)],
    "cloud": [circle(70, 110, 35, WHITE), circle(110, 90, 45, WHITE), circle(145, 115, 30, WHITE), rect(60, 110, 100, 35, WHITE, 15), path("M70,160 L60,185 M105,160 L95,185 M140,160 L130,185", stroke=SEA, sw=7)],
    "target": [circle(100, 100, 80, WHITE), circle(100, 100, 60, "#f94144"), circle(100, 100, 40, WHITE), circle(100, 100, 20, "#f94144"), path("M100,100 L175,25", stroke=INK, sw=7), poly("165,20 185,15 180,35", INK)],
    "handshake": [path("M10,90 L60,70 L100,95 L140,70 L190,90", stroke=WHITE, sw=12), path("M60,70 L95,120 Q105,130 115,120 L140,95", stroke=SUN, sw=12)],
    "gear": [circle(100, 100, 50, WHITE), circle(100, 100, 22, INK)] + [rect(90, 30, 20, 30, WHITE, 3, f'transform="rotate({a} 100 100)"') for a in range(0, 360, 45)],
    "chat": [rect(20, 40, 120, 80, WHITE, 18), poly("45,118 40,150 75,118", WHITE), rect(80, 95, 100, 65, SEA, 18), poly("150,158 160,185 130,158", SEA), circle(55, 80, 7, INK), circle(80, 80, 7, INK), circle(105, 80, 7, INK)],
}

# id, icon, palette index, title, tags, make a clip?
ASSETS = [
    ("sunrise", "sun", 1, "Sun rising over a warm sky", ["sun", "sunrise", "morning", "energy", "summer", "weather", "day", "light", "mặt trời", "buổi sáng"], True),
    ("solar-panels", "solar", 7, "Solar panel under the sun", ["solar", "panel", "energy", "power", "electricity", "renewable", "roof", "bill", "năng lượng", "điện"], True),
    ("city-night", "city", 0, "City skyline with lit windows", ["city", "skyline", "night", "urban", "building", "street", "traffic", "office", "thành phố"], True),
    ("mountain-peak", "mountain", 3, "Snowy mountain peak", ["mountain", "peak", "hike", "travel", "nature", "adventure", "challenge", "núi"], False),
    ("ocean-waves", "ocean", 7, "Waves under a low sun", ["ocean", "sea", "wave", "beach", "water", "summer", "calm", "biển"], True),
    ("bar-chart", "chart", 10, "Rising bar chart", ["chart", "data", "statistics", "report", "result", "percent", "number", "survey", "research", "dữ liệu"], False),
    ("growth-line", "growth", 9, "Line chart going up", ["growth", "grow", "increase", "revenue", "profit", "trend", "chart", "success", "tăng trưởng"], True),
    ("coins", "money", 4, "Gold coins", ["money", "coin", "cash", "price", "cost", "saving", "budget", "finance", "dollar", "tiền"], False),
    ("smartphone", "phone", 8, "Smartphone with an app", ["phone", "mobile", "app", "smartphone", "social", "scroll", "notification", "điện thoại"], True),
    ("laptop", "laptop", 10, "Laptop on a desk", ["laptop", "computer", "work", "remote", "online", "software", "desk", "máy tính"], False),
    ("code", "code", 0, "Code brackets", ["code", "programming", "developer", "software", "tech", "technology", "api", "lập trình"], False),
    ("team", "team", 2, "Three people together", ["team", "people", "group", "community", "meeting", "colleague", "customer", "client", "nhóm", "người"], True),
    ("clock", "clock", 11, "Clock face", ["clock", "time", "hour", "minute", "deadline", "schedule", "fast", "quick", "thời gian"], False),
    ("rocket", "rocket", 3, "Rocket taking off", ["rocket", "launch", "startup", "fast", "speed", "boost", "start", "khởi nghiệp"], True),
    ("heartbeat", "heart", 6, "Heart with a pulse line", ["heart", "health", "love", "care", "medical", "wellness", "body", "sức khỏe"], False),
    ("coffee-cup", "coffee", 1, "Steaming coffee cup", ["coffee", "morning", "break", "cafe", "drink", "routine", "cà phê"], False),
    ("open-book", "book", 5, "Open book", ["book", "learn", "learning", "read", "study", "education", "school", "knowledge", "sách", "học"], False),
    ("light-bulb", "idea", 3, "Glowing light bulb", ["idea", "tip", "insight", "creative", "think", "innovation", "solution", "ý tưởng"], True),
    ("green-leaf", "leaf", 9, "Green leaf", ["leaf", "plant", "nature", "green", "eco", "environment", "garden", "sustainable", "cây"], False),
    ("globe", "globe", 10, "Globe of the world", ["globe", "world", "global", "earth", "international", "country", "planet", "thế giới"], False),
    ("red-car", "car", 7, "Small red car", ["car", "drive", "travel", "road", "transport", "commute", "trip", "xe"], False),
    ("home", "house", 5, "House with a garden", ["house", "home", "family", "real estate", "property", "living", "nhà", "gia đình"], False),
    ("shopping-cart", "cart", 8, "Shopping cart with goods", ["shopping", "cart", "buy", "store", "shop", "ecommerce", "sale", "product", "mua sắm"], False),
    ("calendar", "calendar", 2, "Calendar page", ["calendar", "plan", "week", "month", "date", "schedule", "event", "monday", "lịch"], False),
    ("envelope", "mail", 4, "Envelope", ["mail", "email", "message", "newsletter", "letter", "inbox", "contact", "thư"], False),
    ("camera", "camera", 6, "Camera", ["camera", "video", "photo", "film", "record", "content", "creator", "clip", "máy ảnh"], True),
    ("music-note", "music", 8, "Music notes", ["music", "song", "sound", "audio", "podcast", "voice", "âm nhạc"], False),
    ("dinner-plate", "food", 1, "Plate of food", ["food", "meal", "kitchen", "cook", "dinner", "recipe", "restaurant", "eat", "món ăn"], False),
    ("night-moon", "moon", 0, "Crescent moon and stars", ["moon", "night", "sleep", "rest", "dream", "evening", "đêm", "ngủ"], False),
    ("runner", "running", 9, "Person running", ["run", "running", "fitness", "sport", "exercise", "habit", "training", "thể thao"], False),
    ("padlock", "lock", 10, "Padlock", ["lock", "security", "privacy", "safe", "password", "protect", "bảo mật"], False),
    ("rain-cloud", "cloud", 7, "Rain cloud", ["cloud", "rain", "weather", "storm", "cloudy", "mưa"], False),
    ("target", "target", 4, "Target with an arrow", ["target", "goal", "aim", "focus", "strategy", "marketing", "mục tiêu"], False),
    ("handshake", "handshake", 2, "Handshake", ["deal", "partner", "partnership", "agreement", "trust", "business", "sales", "hợp tác"], False),
    ("gear", "gear", 3, "Gear wheel", ["gear", "process", "system", "automation", "tool", "setting", "workflow", "engineering"], False),
    ("chat-bubbles", "chat", 11, "Chat bubbles", ["chat", "conversation", "talk", "comment", "question", "answer", "feedback", "support", "trò chuyện"], False),
]


def svg(icon, palette, seed, scale=1):
    rnd = random.Random(seed)
    top, bottom = PALETTES[palette]
    deco = "".join(
        circle(rnd.randint(0, W), rnd.randint(0, H), rnd.randint(20, 90), WHITE, f'opacity="{rnd.uniform(0.04, 0.12):.2f}"')
        for _ in range(9)
    )
    body = "".join(ICONS[icon])
    return f'''<svg xmlns="http://www.w3.org/2000/svg" width="{W * scale}" height="{H * scale}" viewBox="0 0 {W} {H}">
<defs><linearGradient id="g" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="{top}"/><stop offset="1" stop-color="{bottom}"/></linearGradient></defs>
<rect width="{W}" height="{H}" fill="url(#g)"/>{deco}
<ellipse cx="180" cy="420" rx="120" ry="18" fill="#000" opacity="0.15"/>
<g transform="translate(60 190) scale(1.2)">{body}</g>
</svg>'''


def ffmpeg(*args):
    subprocess.run(["ffmpeg", "-hide_banner", "-loglevel", "error", "-y", *args], check=True)


# The focus pass: edge density on a downscaled luma image (kept equal to compositor::focus).
FOCUS_W, FOCUS_H = 72, 128
# A cell is an edge when its gradient reaches this (0..255 luma steps), or this share of the
# image's strongest gradients, whichever is higher: faint decoration never counts.
EDGE_MIN = 40
EDGE_SHARE = 0.25
# Edge mass trimmed off each side before the box is taken (stray specks), and the pad added.
TRIM = 0.02
PAD = 0.02


def luma(path):
    """The image as FOCUS_W x FOCUS_H luma bytes (ffmpeg scales it, area average)."""
    out = subprocess.run(["ffmpeg", "-hide_banner", "-loglevel", "error", "-i", path, "-vf",
                          f"scale={FOCUS_W}:{FOCUS_H}:flags=area,format=gray", "-frames:v", "1",
                          "-f", "rawvideo", "-"], check=True, capture_output=True).stdout
    assert len(out) == FOCUS_W * FOCUS_H, path
    return out


def trimmed_span(mass):
    """First and last index holding the middle (1 - 2*TRIM) of `mass`."""
    total = sum(mass)
    lo_cut, hi_cut = total * TRIM, total * (1 - TRIM)
    run, lo, hi = 0.0, 0, len(mass) - 1
    for i, m in enumerate(mass):
        if run <= lo_cut < run + m:
            lo = i
        if run < hi_cut <= run + m:
            hi = i
        run += m
    return lo, hi


def focus_box(pix):
    """The subject's box, normalised, or the whole frame when the image has no edges."""
    w, h = FOCUS_W, FOCUS_H
    grad = [0] * (w * h)
    for y in range(1, h - 1):
        for x in range(1, w - 1):
            i = y * w + x
            grad[i] = abs(pix[i + 1] - pix[i - 1]) + abs(pix[i + w] - pix[i - w])
    ranked = sorted(grad)
    strong = ranked[int(len(ranked) * 0.995)]
    cut = max(EDGE_MIN, EDGE_SHARE * strong)
    cols, rows = [0] * w, [0] * h
    for i, g in enumerate(grad):
        if g >= cut:
            cols[i % w] += g
            rows[i // w] += g
    if sum(cols) == 0:
        return {"x": 0.0, "y": 0.0, "w": 1.0, "h": 1.0}
    x0, x1 = trimmed_span(cols)
    y0, y1 = trimmed_span(rows)
    fx0, fx1 = max(0.0, x0 / w - PAD), min(1.0, (x1 + 1) / w + PAD)
    fy0, fy1 = max(0.0, y0 / h - PAD), min(1.0, (y1 + 1) / h + PAD)
    r = lambda v: round(v, 4)
    return {"x": r(fx0), "y": r(fy0), "w": r(fx1 - fx0), "h": r(fy1 - fy0)}


def contact_sheet(entries):
    """focus_sheet.png: every image asset at 120x213 with its focus box drawn, 9 a row."""
    images = [e for e in entries if e["kind"] == "image"]
    with tempfile.TemporaryDirectory() as tmp:
        for n, e in enumerate(images):
            f = e["focus"]
            box = (f"drawbox=x={f['x'] * 120:.0f}:y={f['y'] * 213:.0f}:w={f['w'] * 120:.0f}:"
                   f"h={f['h'] * 213:.0f}:color=red@0.9:t=2")
            ffmpeg("-i", os.path.join(HERE, e["file"]), "-vf", f"scale=120:213,{box}",
                   os.path.join(tmp, f"{n:03d}.png"))
        rows = (len(images) + 8) // 9
        ffmpeg("-i", os.path.join(tmp, "%03d.png"), "-vf", f"tile=9x{rows}:padding=4:color=white",
               "-frames:v", "1", os.path.join(HERE, "focus_sheet.png"))


def add_focus(entries):
    """Sets every entry's `focus` from its image (a clip's from its image sibling's art)."""
    by_file = {}
    for e in entries:
        still = e["file"] if e["kind"] == "image" else e["thumbnail"]
        if still not in by_file:
            by_file[still] = focus_box(luma(os.path.join(HERE, still)))
        e["focus"] = by_file[still]


def write_library(entries):
    library = {
        "licence": "Self-made for Reelsmith by assets/broll/make_library.py; dedicated to the public domain under CC0 1.0 (https://creativecommons.org/publicdomain/zero/1.0/).",
        "generator": "assets/broll/make_library.py",
        "assets": entries,
    }
    with open(os.path.join(HERE, "library.json"), "w") as f:
        json.dump(library, f, indent=1, ensure_ascii=False)
        f.write("\n")


def focus_only():
    with open(os.path.join(HERE, "library.json")) as f:
        entries = json.load(f)["assets"]
    add_focus(entries)
    write_library(entries)
    contact_sheet(entries)
    print(f"focus of {len(entries)} assets")


def main():
    for d in ("images", "clips", "thumbs"):
        os.makedirs(os.path.join(HERE, d), exist_ok=True)
    entries = []
    with tempfile.TemporaryDirectory() as tmp:
        for i, (aid, icon, pal, title, tags, clip) in enumerate(ASSETS):
            src = os.path.join(tmp, f"{aid}.svg")
            with open(src, "w") as f:
                f.write(svg(icon, pal, i))
            img = f"images/{aid}.jpg"
            ffmpeg("-c:v", "librsvg", "-i", src, "-q:v", "4", os.path.join(HERE, img))
            entries.append({"id": aid, "file": img, "kind": "image", "title": title, "tags": tags,
                            "width": W, "height": H, "duration": 0})
            if clip:
                big = os.path.join(tmp, f"{aid}-2x.svg")
                with open(big, "w") as f:
                    f.write(svg(icon, pal, i, scale=2))
                png = os.path.join(tmp, f"{aid}.png")
                ffmpeg("-c:v", "librsvg", "-i", big, png)
                out = f"clips/{aid}.mp4"
                # 3 s at 24 fps: a slow push-in with a slight drift.
                ffmpeg("-loop", "1", "-i", png, "-vf",
                       "zoompan=z='1+0.12*on/72':x='iw/2-(iw/zoom/2)+on*0.6':y='ih/2-(ih/zoom/2)':d=72:s=360x640:fps=24,format=yuv420p",
                       "-frames:v", "72", "-c:v", "libx264", "-profile:v", "high", "-crf", "30", "-preset", "veryslow",
                       "-movflags", "+faststart", "-an", os.path.join(HERE, out))
                thumb = f"thumbs/{aid}.jpg"
                ffmpeg("-i", os.path.join(HERE, out), "-frames:v", "1", "-q:v", "5", os.path.join(HERE, thumb))
                entries.append({"id": f"{aid}-clip", "file": out, "kind": "video", "title": f"{title} (clip)",
                                "tags": tags, "thumbnail": thumb, "width": W, "height": H, "duration": 3.0})
    add_focus(entries)
    write_library(entries)
    contact_sheet(entries)
    print(f"{len(entries)} assets")


if __name__ == "__main__":
    focus_only() if "--focus-only" in sys.argv[1:] else main()
