#!/usr/bin/env python3
"""Generates Reelsmith's music-bed library (a dev tool; the output is committed).

Every loop is synthesised here from sine partials written sample by sample in pure Python:
a chord pad, a bass line, a plucked arpeggio and, for the livelier moods, a soft kick and
hat. Each loop is a whole number of bars at its tempo, so it repeats in time; the renderer
(`video::render::sound`) loops it to the video's length with a short crossfade at the
seam. Stereo, 48 kHz, Ogg Vorbis: bass and kick in the middle (under the narration, which
the renderer centres), the pad's chord tones spread across the field and a little detuned
between the channels (width), the arpeggio's notes alternating left and right, the hat a
little right. The result is dedicated to the public domain (CC0 1.0).
Run from anywhere:

    python3 assets/music/make_music.py

Needs ffmpeg with libvorbis. Writes tracks/*.ogg and music.json next to itself.
"""

import json
import math
import os
import random
import struct
import subprocess
import tempfile
import wave

HERE = os.path.dirname(os.path.abspath(__file__))
RATE = 48000
LICENCE = (
    "Self-made for Reelsmith by assets/music/make_music.py; dedicated to the public domain "
    "under CC0 1.0 (https://creativecommons.org/publicdomain/zero/1.0/)."
)

# Width of the pad: each chord tone's pan, lowest to highest, and the detune (Hz) between its
# left and right copies.
PAD_PANS = (-0.6, 0.6, -0.25, 0.25)
PAD_DETUNE_HZ = 0.6
# The arpeggio alternates between these pans; the hat sits at HAT_PAN.
ARP_PANS = (-0.5, 0.5)
HAT_PAN = 0.35

# Semitones above A for the note names the progressions use.
NOTE = {"C": -9, "D": -7, "E": -5, "F": -4, "G": -2, "A": 0, "B": 2}


def freq(name, octave):
    """Frequency of a note such as ("C", 3); a trailing 'b' or '#' flattens or sharpens."""
    semis = NOTE[name[0]] + (-1 if name.endswith("b") else 1 if name.endswith("#") else 0)
    return 440.0 * 2 ** ((semis + 12 * (octave - 4)) / 12)


# Chords as (root, quality); a quality lists semitones above the root.
QUALITY = {"maj": (0, 4, 7, 11), "min": (0, 3, 7, 10), "sus": (0, 5, 7, 10), "add9": (0, 4, 7, 14)}

TRACKS = [
    {
        "id": "bright-steps", "title": "Bright Steps", "moods": ["upbeat", "energetic", "business"],
        "bpm": 120, "bars": 4, "chords": [("C", "add9"), ("G", "maj"), ("A", "min"), ("F", "maj")],
        "drums": True, "arp": 4, "seed": 1,
    },
    {
        "id": "calm-tide", "title": "Calm Tide", "moods": ["calm", "wellness", "reflective"],
        "bpm": 72, "bars": 4, "chords": [("D", "maj"), ("B", "min"), ("G", "maj"), ("A", "sus")],
        "drums": False, "arp": 2, "seed": 2,
    },
    {
        "id": "warm-story", "title": "Warm Story", "moods": ["warm", "story", "hopeful"],
        "bpm": 90, "bars": 4, "chords": [("F", "maj"), ("C", "maj"), ("D", "min"), ("Bb", "maj")],
        "drums": False, "arp": 3, "seed": 3,
    },
    {
        "id": "circuit-glow", "title": "Circuit Glow", "moods": ["tech", "modern", "focused"],
        "bpm": 110, "bars": 4, "chords": [("E", "min"), ("C", "maj"), ("G", "maj"), ("D", "sus")],
        "drums": True, "arp": 4, "seed": 4,
    },
    {
        "id": "quiet-focus", "title": "Quiet Focus", "moods": ["serious", "focused", "education"],
        "bpm": 80, "bars": 4, "chords": [("A", "min"), ("F", "maj"), ("C", "maj"), ("G", "sus")],
        "drums": False, "arp": 2, "seed": 5,
    },
    {
        "id": "sunny-market", "title": "Sunny Market", "moods": ["playful", "upbeat", "food"],
        "bpm": 128, "bars": 4, "chords": [("G", "maj"), ("E", "min"), ("C", "maj"), ("D", "maj")],
        "drums": True, "arp": 4, "seed": 6,
    },
    {
        "id": "rising-goal", "title": "Rising Goal", "moods": ["motivational", "energetic", "fitness"],
        "bpm": 100, "bars": 4, "chords": [("A", "min"), ("G", "maj"), ("F", "maj"), ("G", "sus")],
        "drums": True, "arp": 3, "seed": 7,
    },
    {
        "id": "soft-light", "title": "Soft Light", "moods": ["gentle", "calm", "beauty"],
        "bpm": 76, "bars": 4, "chords": [("E", "maj"), ("C#", "min"), ("A", "maj"), ("B", "sus")],
        "drums": False, "arp": 3, "seed": 8,
    },
]


def pan_gains(pan):
    """Equal-power gains (left, right) for `pan` in -1 (left) … 1 (right); 0 is the middle."""
    angle = (pan + 1) * math.pi / 4
    return math.cos(angle), math.sin(angle)


def add(buf, index, v, pan):
    """Adds `v` to frame `index` of the stereo `buf` (two lists), wrapping past its end."""
    left, right = buf
    n = len(left)
    gl, gr = pan_gains(pan)
    left[index % n] += gl * v
    right[index % n] += gr * v


def add_tone(buf, start, dur, f, amp, attack, release, partials=((1, 1.0),), pan=0.0,
             detune=0.0):
    """Adds a note of `dur` seconds at `start` (seconds) at `pan`; with `detune`, the left
    copy is that many Hz flat and the right that many sharp, which widens it."""
    s0 = int(start * RATE)
    count = int(dur * RATE)
    a = max(1, int(attack * RATE))
    r = max(1, int(release * RATE))
    gl, gr = pan_gains(pan)
    left, right = buf
    n = len(left)
    for i in range(count):
        env = amp * min(1.0, i / a, (count - i) / r)
        t = i / RATE
        vl = sum(w * math.sin(2 * math.pi * (f - detune) * k * t) for k, w in partials)
        vr = vl if detune == 0 else sum(
            w * math.sin(2 * math.pi * (f + detune) * k * t) for k, w in partials)
        left[(s0 + i) % n] += gl * env * vl
        right[(s0 + i) % n] += gr * env * vr


def add_pluck(buf, start, f, amp, decay, pan):
    """A plucked note at `pan`: fast attack, exponential decay, a soft second partial."""
    s0 = int(start * RATE)
    for i in range(int(decay * 4 * RATE)):
        t = i / RATE
        env = min(1.0, i / 96) * math.exp(-t / decay)
        v = math.sin(2 * math.pi * f * t) + 0.3 * math.sin(4 * math.pi * f * t) * math.exp(-t / 0.05)
        add(buf, s0 + i, amp * env * v, pan)


def add_kick(buf, start, amp):
    """A kick in the middle."""
    s0 = int(start * RATE)
    phase = 0.0
    for i in range(int(0.25 * RATE)):
        t = i / RATE
        phase += 2 * math.pi * (45 + 90 * math.exp(-t / 0.03)) / RATE
        add(buf, s0 + i, amp * math.exp(-t / 0.08) * min(1.0, i / 48) * math.sin(phase), 0.0)


def add_hat(buf, start, amp, rng):
    """A hat at HAT_PAN."""
    s0 = int(start * RATE)
    prev = 0.0
    for i in range(int(0.05 * RATE)):
        x = rng.uniform(-1, 1)
        hp = x - prev  # a crude high-pass: hats are the noise's top
        prev = x
        add(buf, s0 + i, amp * math.exp(-i / RATE / 0.012) * hp, HAT_PAN)


def render(track):
    beat = 60.0 / track["bpm"]
    bar = 4 * beat
    length = bar * track["bars"]
    frames = int(round(length * RATE))
    buf = ([0.0] * frames, [0.0] * frames)
    rng = random.Random(track["seed"])
    chords = track["chords"]
    for b in range(track["bars"]):
        root, quality = chords[b % len(chords)]
        t0 = b * bar
        intervals = QUALITY[quality]
        base = freq(root, 3)
        for semi, pan in zip(intervals, PAD_PANS):
            add_tone(buf, t0, bar, base * 2 ** (semi / 12), 0.07, 0.4, 0.4,
                     ((1, 1.0), (2, 0.25), (3, 0.08)), pan=pan, detune=PAD_DETUNE_HZ)
        for k in range(4):
            add_tone(buf, t0 + k * beat, beat * 0.9, base / 2, 0.22, 0.01, 0.08, ((1, 1.0), (2, 0.3)))
        steps = 4 * track["arp"]
        for k in range(steps):
            semi = intervals[(k + rng.randrange(2)) % len(intervals)]
            add_pluck(buf, t0 + k * bar / steps, base * 2 * 2 ** (semi / 12), 0.12, 0.18,
                      ARP_PANS[k % len(ARP_PANS)])
        if track["drums"]:
            for k in range(4):
                add_kick(buf, t0 + k * beat, 0.5)
                add_hat(buf, t0 + k * beat + beat / 2, 0.08, rng)
    left, right = buf
    peak = max(max(abs(x) for x in left), max(abs(x) for x in right)) or 1.0
    return ([x / peak * 0.7 for x in left], [x / peak * 0.7 for x in right]), length


def write_ogg(stereo, out):
    """Writes the (left, right) lists as a stereo Ogg Vorbis file at `out`."""
    left, right = stereo
    with tempfile.TemporaryDirectory() as tmp:
        wav_path = os.path.join(tmp, "loop.wav")
        with wave.open(wav_path, "wb") as w:
            w.setnchannels(2)
            w.setsampwidth(2)
            w.setframerate(RATE)
            w.writeframes(b"".join(
                struct.pack("<hh", int(l * 32767), int(r * 32767)) for l, r in zip(left, right)))
        subprocess.run(
            ["ffmpeg", "-y", "-loglevel", "error", "-i", wav_path, "-c:a", "libvorbis",
             "-q:a", "2", "-map_metadata", "-1", out],
            check=True,
        )


def main():
    os.makedirs(os.path.join(HERE, "tracks"), exist_ok=True)
    index = []
    for track in TRACKS:
        samples, length = render(track)
        rel = f"tracks/{track['id']}.ogg"
        write_ogg(samples, os.path.join(HERE, rel))
        index.append({
            "id": track["id"], "title": track["title"], "file": rel, "moods": track["moods"],
            "bpm": track["bpm"], "seconds": round(length, 3), "channels": 2, "rate": RATE,
            "licence": "CC0-1.0",
        })
        print(f"{rel}: {length:.2f} s")
    doc = {"licence": LICENCE, "generator": "assets/music/make_music.py", "tracks": index}
    with open(os.path.join(HERE, "music.json"), "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=1, ensure_ascii=False)
        f.write("\n")


if __name__ == "__main__":
    main()
