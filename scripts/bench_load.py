#!/usr/bin/env python3
"""Load bench (issue 19): the API's latency with and without renders, and the renders' speed
with and without load. Run by `make bench-load`; not a test, nothing here is asserted.

It starts the release daemon on embedded defaults in a temp data dir, makes one video's scenes
(the ids the endpoints read), then measures with wrk on loopback:

  1. GET /v1/status/{id} and POST /v1/scene_geometry, alone;
  2. two renders, alone (frames per second of each);
  3. the two endpoints again while two renders run, and those renders' fps.

It prints p50, p99, requests/s and errors per endpoint, the fps, and the ratios of each pair
measured in this same run.
"""
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.environ.get("BIN", os.path.join(ROOT, "target/release/reelsmith"))
SECS = int(os.environ.get("LOAD_SECS", "10"))
CONNECTIONS = int(os.environ.get("LOAD_CONNECTIONS", "32"))
FPS = 30


def start_daemon(tmp):
    data = os.path.join(tmp, "data")
    out = open(os.path.join(tmp, "out"), "w+")
    env = dict(os.environ, REELSMITH__WEBHOOK__SIGNING_SECRET=os.urandom(32).hex(), REELSMITH_LOG="warn")
    proc = subprocess.Popen(
        [BIN, "serve", "--config", os.path.join(ROOT, "reelsmith.example.toml"),
         "--listen", "127.0.0.1:0", "--data-dir", data],
        stdout=out, stderr=subprocess.DEVNULL, env=env, cwd=ROOT)
    for _ in range(200):
        out.seek(0)
        line = out.readline()
        if line.startswith("listening on "):
            base = line.split(" ", 2)[2].strip()
            key = open(os.path.join(data, "bootstrap-key")).read().strip()
            return proc, base, key
        time.sleep(0.05)
    proc.kill()
    sys.exit("the daemon did not start")


class Api:
    def __init__(self, base, key):
        self.base, self.key = base, key

    def call(self, path, body=None):
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.base + path, data=data, headers={
            "Authorization": "Bearer " + self.key, "Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=60) as r:
            return json.load(r)

    def wait(self, vid, done):
        while True:
            s = self.call("/v1/status/" + vid)
            if done(s):
                return s
            time.sleep(0.2)


def script(words):
    text = open(os.path.join(ROOT, "assets/demo-script.txt")).read().split()
    return " ".join((text * (words // len(text) + 1))[:words])


def scene_video(api):
    v = api.call("/v1/create_video", {"script_text": script(110), "output_type": "scene"})
    api.wait(v["id"], lambda s: s.get("stage") == "scenes_ready_for_review" or s["status"] != "processing")
    return v["id"]


def wrk(tmp, api, name, path, body=None):
    """Runs wrk against one endpoint; returns {p50_ms, p99_ms, rps, errors}."""
    lua = os.path.join(tmp, name + ".lua")
    with open(lua, "w") as f:
        f.write('wrk.headers["Authorization"] = "Bearer %s"\n' % api.key)
        if body is not None:
            f.write('wrk.method = "POST"\n')
            f.write('wrk.headers["Content-Type"] = "application/json"\n')
            f.write("wrk.body = [[%s]]\n" % json.dumps(body))
        f.write(LUA_REPORT)
    out = subprocess.run(
        ["wrk", "-t2", "-c%d" % CONNECTIONS, "-d%ds" % SECS, "--latency", "-s", lua, api.base + path],
        capture_output=True, text=True, check=True).stdout
    return parse_wrk(out)


# Prints exact percentiles and error counts in a line easy to read back.
LUA_REPORT = """
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format("RESULT %f %f %f %d %d\\n", latency:percentile(50) / 1000,
    latency:percentile(99) / 1000, summary.requests / (summary.duration / 1e6),
    e.connect + e.read + e.write + e.timeout, e.status))
end
"""


def parse_wrk(out):
    m = re.search(r"^RESULT (\S+) (\S+) (\S+) (\d+) (\d+)$", out, re.M)
    if not m:
        sys.exit("unexpected wrk output:\n" + out)
    p50, p99, rps, sock, status = m.groups()
    return {"p50_ms": float(p50), "p99_ms": float(p99), "rps": float(rps),
            "errors": int(sock) + int(status)}


def render_pair(api):
    """Two renders at once; returns the fps of each (frames / render seconds)."""
    ids = [api.call("/v1/create_video", {"script_text": script(150), "output_type": "video"})["id"]
           for _ in range(2)]
    fps = [None, None]

    def watch(i, vid):
        api.wait(vid, lambda s: s.get("stage") == "rendering_video" or s["status"] != "processing")
        start = time.monotonic()
        done = api.wait(vid, lambda s: s["status"] != "processing")
        secs = time.monotonic() - start
        if done["status"] != "completed":
            sys.exit("render failed: %s" % done)
        fps[i] = duration(done["result"]["video_url"]) * FPS / secs

    threads = [threading.Thread(target=watch, args=(i, v)) for i, v in enumerate(ids)]
    for t in threads:
        t.start()
    return threads, fps


def duration(url):
    out = subprocess.run(["ffprobe", "-v", "error", "-show_entries", "format=duration",
                          "-of", "csv=p=0", url], capture_output=True, text=True, check=True)
    return float(out.stdout.strip())


def main():
    subprocess.run(["wrk", "--version"], capture_output=True)
    with tempfile.TemporaryDirectory() as tmp:
        proc, base, key = start_daemon(tmp)
        try:
            run(tmp, Api(base, key))
        finally:
            proc.kill()


def run(tmp, api):
    vid = scene_video(api)
    endpoints = [("status", "/v1/status/" + vid, None),
                 ("scene_geometry", "/v1/scene_geometry", {"id": vid, "scene_id": 1})]
    alone = {n: wrk(tmp, api, n, p, b) for n, p, b in endpoints}
    threads, fps_alone = render_pair(api)
    for t in threads:
        t.join()
    threads, fps_loaded = render_pair(api)
    # Load starts once both renders are under way.
    time.sleep(2)
    loaded = {n: wrk(tmp, api, n + "_loaded", p, b) for n, p, b in endpoints}
    for t in threads:
        t.join()
    report(alone, loaded, fps_alone, fps_loaded)


def report(alone, loaded, fps_alone, fps_loaded):
    print("\n%-16s %-14s %9s %9s %9s %7s" % ("endpoint", "while", "p50 ms", "p99 ms", "req/s", "errors"))
    for name in alone:
        for label, r in (("alone", alone[name]), ("2 renders", loaded[name])):
            print("%-16s %-14s %9.2f %9.2f %9.0f %7d" % (name, label, r["p50_ms"], r["p99_ms"], r["rps"], r["errors"]))
        print("%-16s p99 under renders / alone: %.2fx" % (name, loaded[name]["p99_ms"] / alone[name]["p99_ms"]))
    a, b = sum(fps_alone) / 2, sum(fps_loaded) / 2
    print("\nrender fps (mean of 2 at once): alone %.1f, under load %.1f, ratio %.2f" % (a, b, b / a))


if __name__ == "__main__":
    main()
