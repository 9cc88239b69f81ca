#!/usr/bin/env python3
"""Editor preview bench (issues 36 and 40): how long a person waits in the editor, on the
release binary and embedded defaults. Run by `make bench-scale` (section 4) or alone
(`python3 scripts/bench_preview.py`); not a test, nothing here is asserted.

For videos of about 1 and 3 minutes (PREVIEW_MINUTES), through a running daemon:
1. the video is built to scene-ready (`output_type: scene`);
2. open → play: the editor's `GET …/data`, then `POST …/preview` (every scene's half-size
   chunk rendered, one soundtrack mixed, joined): the wait before the whole video plays;
3. the same again with nothing changed (the cache answers);
4. edit → play: a one-scene edit (the caption moves, `overlay.caption.y`), then `POST
   …/preview`: only that scene's chunk renders again;
5. a text edit of another scene (branch K: new captions over the recorded voice), then
   `POST …/preview`.

Environment: BIN (default target/release/reelsmith), PREVIEW_MINUTES (default "1,3").
"""
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_scale import CORES, ROOT, script  # noqa: E402

BIN = os.environ.get("BIN", os.path.join(ROOT, "target/release/reelsmith"))
MINUTES = [float(m) for m in os.environ.get("PREVIEW_MINUTES", "1,3").split(",") if m]
# The embedded voice says about 190 words a minute; a script holds at most 500 (the spec's
# limit), so the "3-minute" video is the longest a script allows, about 2.6 minutes.
WORDS_PER_MINUTE = 190
MAX_WORDS = 500


def call(method, url, body=None, key=None):
    """One JSON request; returns (status, reply)."""
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method=method)
    if data is not None:
        req.add_header("content-type", "application/json")
    if key:
        req.add_header("authorization", f"Bearer {key}")
    try:
        with urllib.request.urlopen(req, timeout=900) as r:
            return r.status, json.loads(r.read() or b"null")
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"null")


class Daemon:
    """`reelsmith serve` on a free port with a temporary data dir."""

    def __init__(self, tmp):
        data = os.path.join(tmp, "data")
        self.out = open(os.path.join(tmp, "out"), "w+")
        self.proc = subprocess.Popen(
            [BIN, "serve", "--config", os.path.join(ROOT, "reelsmith.example.toml"),
             "--listen", "127.0.0.1:0", "--data-dir", data],
            stdout=self.out, stderr=open(os.path.join(tmp, "log"), "w"), cwd=ROOT)
        for _ in range(300):
            self.out.seek(0)
            lines = [l for l in self.out.read().splitlines() if l.startswith("listening on ")]
            if lines:
                self.base = lines[0].split(" ", 2)[2]
                break
            time.sleep(0.1)
        else:
            sys.exit("the daemon did not start")
        self.key = open(os.path.join(data, "bootstrap-key")).read().strip()

    def v1(self, method, path, body=None):
        return call(method, self.base + path, body, self.key)

    def stop(self):
        self.proc.terminate()
        self.proc.wait(timeout=30)


def scene_ready(d, words):
    """A video of about `words` words built to scene-ready; returns (review_url, seconds)."""
    c, v = d.v1("POST", "/v1/create_video",
                # script() may overshoot by a sentence: stay that far under the limit.
                {"script_text": script(min(words, MAX_WORDS - 15)), "output_type": "scene"})
    if c not in (200, 202):
        sys.exit(f"create_video answered {c}: {v}")
    while True:
        c, s = d.v1("GET", f"/v1/status/{v['id']}")
        if s["status"] != "processing":
            break
        time.sleep(0.5)
    if s.get("stage") != "scenes_ready_for_review":
        sys.exit(f"the video did not become scene-ready: {s}")
    return s["result"]["review_url"]


def editor_route(review, route):
    return review.replace("?token=", f"/{route}?token=", 1)


def timed(fn):
    start = time.monotonic()
    out = fn()
    return time.monotonic() - start, out


def whole(review):
    c, v = call("POST", editor_route(review, "preview"))
    if c != 200:
        sys.exit(f"preview answered {c}: {v}")
    return v


def modify(review, topic, voice_file, field, value):
    c, v = call("POST", editor_route(review, "modify"),
                {"id": topic, "by": "voice_file", "value": voice_file,
                 "fields": [{"field_name": field, "value": value}]})
    if c != 200:
        sys.exit(f"modify {field} answered {c}: {v}")


def bench(d, minutes):
    review = scene_ready(d, int(WORDS_PER_MINUTE * minutes))
    opened, (c, view) = timed(lambda: call("GET", editor_route(review, "data")))
    cold, first = timed(lambda: whole(review))
    again, cached = timed(lambda: whole(review))
    scenes = view["scenes"]
    topic = view["topic_id"]
    modify(review, topic, scenes[1]["voice_file"], "overlay.caption.y", 320)
    moved, after_move = timed(lambda: whole(review))
    text = scenes[2]["text"].rstrip(".") + ", every single week."
    modify(review, topic, scenes[2]["voice_file"], "segment.text", text)
    retexted, after_text = timed(lambda: whole(review))
    print(f"preview, {first['duration']:.0f} s video ({len(scenes)} scenes): open → play "
          f"{opened + cold:.2f} s (data {opened * 1000:.0f} ms, render "
          f"{first['render_ms'] / 1000:.2f} s); unchanged {again:.2f} s (cached "
          f"{str(cached['cached']).lower()}); caption move → play {moved:.2f} s (render "
          f"{after_move['render_ms']} ms); text edit → play {retexted:.2f} s (render "
          f"{after_text['render_ms']} ms); a one-scene edit costs "
          f"{max(moved, retexted) / cold:.2f}x of opening")


def run():
    """Prints the preview figures of every length in PREVIEW_MINUTES."""
    tmp = tempfile.mkdtemp(prefix="reelsmith-preview-")
    d = Daemon(tmp)
    try:
        print(f"machine: {CORES} cores; editor preview through {d.base}")
        for minutes in MINUTES:
            bench(d, minutes)
    finally:
        d.stop()
        subprocess.run(["rm", "-rf", tmp])


def require_binary():
    """Stops with a hint when the release binary the benches drive is missing."""
    if not os.path.exists(BIN):
        sys.exit(f"{BIN} is missing: build it with `cargo build --release -p reelsmith`")


if __name__ == "__main__":
    require_binary()
    run()
