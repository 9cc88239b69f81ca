#!/usr/bin/env python3
"""`make samples`: six videos on embedded defaults, to look at.

Text, idea and blog sources, in English and Vietnamese, on varied topics, each rendered by the
one-shot CLI (`reelsmith render`, the same core as the server) with its contact sheet. For each
video it records the narration engine, the narration length, wall time and realtime factor,
the process's peak RSS, and the soundtrack's loudness (EBU R128 integrated, true peak, channels,
measured by ffmpeg on the MP4). Everything goes to samples/ (ignored by git): the MP4s, the
contact sheets (PNG) and summary.md / summary.json.

    python3 scripts/samples.py [--bin target/release/reelsmith]
"""
import argparse
import json
import os
import re
import subprocess
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "corpus" / "scripts"

# (name, source, language, input: a corpus file or the text itself)
SAMPLES = [
    ("en-text-walking", "text", "English", CORPUS / "en-health-02-walking.txt"),
    ("vi-text-ca-phe", "text", "Vietnamese", CORPUS / "vi-food-01-ca-phe-tay-nguyen.txt"),
    ("en-idea-bakery", "idea", "English", "How a small bakery can win morning regulars"),
    ("vi-idea-tien-dien", "idea", "Vietnamese", "Cách tiết kiệm tiền điện mùa hè cho gia đình"),
    ("en-blog-backups", "blog", "English", CORPUS / "en-tech-02-backups.txt"),
    ("vi-blog-da-lat", "blog", "Vietnamese", CORPUS / "vi-travel-02-da-lat.txt"),
]


def loudness(mp4: Path) -> dict:
    """Integrated loudness, true peak and channel count of the MP4's soundtrack (ffmpeg)."""
    probe = subprocess.run(
        ["ffprobe", "-v", "error", "-select_streams", "a:0", "-show_entries",
         "stream=channels:format=duration", "-of", "json", str(mp4)],
        capture_output=True, text=True, check=True)
    info = json.loads(probe.stdout)
    out = subprocess.run(
        ["ffmpeg", "-nostats", "-i", str(mp4), "-filter_complex", "ebur128=peak=true",
         "-f", "null", "-"], capture_output=True, text=True).stderr
    summary = out[out.rfind("Summary:"):]
    lufs = re.search(r"I:\s+(-?[\d.]+) LUFS", summary)
    peak = re.search(r"Peak:\s+(-?[\d.]+) dBFS", summary)
    return {
        "channels": info["streams"][0]["channels"],
        "duration_s": round(float(info["format"]["duration"]), 1),
        "lufs": float(lufs.group(1)) if lufs else None,
        "true_peak_dbtp": float(peak.group(1)) if peak else None,
    }


def render(binary: Path, name: str, source: str, language: str, text: str, out: Path) -> dict:
    """One video through the CLI; its wall time, peak RSS and narration engine."""
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "input.txt"
        script.write_text(text)
        cmd = [str(binary), "render", str(script), "--out", str(out / f"{name}.mp4"),
               "--source", source, "--language", language,
               "--config", str(ROOT / "reelsmith.example.toml"),
               "--contact-sheet", str(out / f"{name}.png")]
        env = dict(os.environ, REELSMITH_LOG="info")
        started = time.monotonic()
        with open(Path(tmp) / "log", "w+") as log:
            child = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=log, env=env)
            _, status, usage = os.wait4(child.pid, 0)
            wall = time.monotonic() - started
            log.seek(0)
            lines = log.read()
    if status != 0:
        raise SystemExit(f"{name}: reelsmith render failed\n{lines[-3000:]}")
    code = "vi" if language == "Vietnamese" else "en"
    engine = re.search(rf"narrator.*language\W+{code}\W.*engine\W+\"?([\w-]+)", strip(lines))
    return {
        "wall_s": round(wall, 1),
        "peak_rss_mb": round(usage.ru_maxrss / 1024),
        "engine": engine.group(1) if engine else "?",
    }


def strip(text: str) -> str:
    return re.sub(r"\x1b\[[0-9;]*m", "", text)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", default=str(ROOT / "target" / "release" / "reelsmith"))
    parser.add_argument("--out", default=str(ROOT / "samples"))
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(exist_ok=True)
    rows = []
    for name, source, language, spec in SAMPLES:
        text = spec.read_text() if isinstance(spec, Path) else spec
        row = {"name": name, "source": source, "language": language}
        row.update(render(Path(args.bin), name, source, language, text, out))
        row.update(loudness(out / f"{name}.mp4"))
        row["realtime_x"] = round(row["duration_s"] / row["wall_s"], 2)
        rows.append(row)
        print(json.dumps(row), flush=True)
    (out / "summary.json").write_text(json.dumps(rows, indent=1))
    head = ["name", "source", "language", "engine", "duration_s", "wall_s", "realtime_x",
            "peak_rss_mb", "lufs", "true_peak_dbtp", "channels"]
    table = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    table += ["| " + " | ".join(str(r[h]) for h in head) + " |" for r in rows]
    (out / "summary.md").write_text("\n".join(table) + "\n")
    print("\n".join(table))
    print(f"videos and contact sheets in {out}/")


if __name__ == "__main__":
    main()
