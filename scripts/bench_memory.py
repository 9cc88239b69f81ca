#!/usr/bin/env python3
"""Memory bench (issue 40, part 2): how much memory the daemon and its children hold together
while they make videos of about 1, 3 and 5 minutes, on the release binary and embedded defaults.
Run by `make bench-scale` (section 5) or alone (`python3 scripts/bench_memory.py`); not a test,
nothing here is asserted.

Each video goes through a running daemon in two calls, so the two phases are measured apart:
1. building: `create_video` with `output_type: scene` until the scenes are ready (the narration,
   with the neural voice in its child process, or the transcription of a recording; the scenes,
   their B-roll and overlays);
2. rendering: `export_video` until the MP4 is there.

A sampler reads the resident memory (VmRSS) of the daemon and of every process under it every
20 ms and keeps the peak of their sum per phase. The 1- and 3-minute videos are scripts (a script
holds at most 500 words, the spec's limit, so "3 minutes" is the longest a script makes, about
2.6 minutes); the 5-minute video is a recording (`audio_file`, the spec's longest medium), speech
made by espeak-ng from the same sentences. The aims: both phases together at most 350 MB, the
render phase alone at most 300 MB.

Environment: BIN (default target/release/reelsmith), MEMORY_MINUTES (default "1,3,5").
"""
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_preview import MAX_WORDS, WORDS_PER_MINUTE, Daemon, require_binary  # noqa: E402
from bench_scale import CORES, script  # noqa: E402

MINUTES = [float(m) for m in os.environ.get("MEMORY_MINUTES", "1,3,5").split(",") if m]
# The longest recording the spec takes is 5 minutes; stay a little under it.
RECORDING_SECONDS = 290
PAGE_KB = os.sysconf("SC_PAGE_SIZE") // 1024


def tree(root):
    """The pid `root` and every process under it."""
    children = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat") as f:
                # The command is in parentheses and may hold spaces: the ppid follows the last ')'.
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        children.setdefault(ppid, []).append(int(name))
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo.extend(children.get(pid, []))
    return found


def rss_mb(pids):
    """The summed resident memory of `pids`, MB (a process that ended counts nothing)."""
    kb = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/statm") as f:
                kb += int(f.read().split()[1]) * PAGE_KB
        except (OSError, IndexError, ValueError):
            pass
    return kb / 1024


class Sampler:
    """The peak of the daemon tree's summed RSS, per named phase."""

    def __init__(self, pid):
        self.pid, self.phase, self.peaks = pid, None, {}
        self.most_children = 0
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self):
        while not self.stop.wait(0.02):
            pids = tree(self.pid)
            mb = rss_mb(pids)
            if self.phase:
                self.peaks[self.phase] = max(self.peaks.get(self.phase, 0.0), mb)
                self.most_children = max(self.most_children, len(pids) - 1)

    def close(self):
        self.stop.set()
        self.thread.join()


def wait(d, video_id, want_stage=None):
    while True:
        c, s = d.v1("GET", f"/v1/status/{video_id}")
        if s["status"] != "processing":
            break
        time.sleep(0.25)
    if s["status"] != "completed" or (want_stage and s.get("stage") != want_stage):
        sys.exit(f"video {video_id} ended as {s}")
    return s


def multipart(d, fields, files):
    """`POST /v1/create_video` as multipart/form-data; returns (status, reply)."""
    boundary = uuid.uuid4().hex
    body = b""
    for name, value in fields:
        body += (f"--{boundary}\r\ncontent-disposition: form-data; name=\"{name}\"\r\n\r\n"
                 f"{value}\r\n").encode()
    for name, filename, ctype, data in files:
        body += (f"--{boundary}\r\ncontent-disposition: form-data; name=\"{name}\"; "
                 f"filename=\"{filename}\"\r\ncontent-type: {ctype}\r\n\r\n").encode()
        body += data + b"\r\n"
    body += f"--{boundary}--\r\n".encode()
    req = urllib.request.Request(d.base + "/v1/create_video", data=body, method="POST")
    req.add_header("content-type", f"multipart/form-data; boundary={boundary}")
    req.add_header("authorization", f"Bearer {d.key}")
    try:
        with urllib.request.urlopen(req, timeout=900) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"null")


def recording(tmp, seconds):
    """A speech WAV of about `seconds` seconds, spoken by espeak-ng, trimmed to `seconds`."""
    text = os.path.join(tmp, "recording.txt")
    with open(text, "w") as f:
        f.write(script(int(seconds * 3.2)))
    raw, wav = os.path.join(tmp, "raw.wav"), os.path.join(tmp, "recording.wav")
    subprocess.run(["espeak-ng", "-v", "en-us", "-s", "165", "-f", text, "-w", raw], check=True)
    subprocess.run(["ffmpeg", "-loglevel", "error", "-y", "-i", raw, "-t", str(seconds),
                    "-ac", "1", "-ar", "22050", wav], check=True)
    with open(wav, "rb") as f:
        return f.read()


def create(d, tmp, minutes):
    """Starts a video of about `minutes` minutes built to scene-ready; returns its id. Five
    minutes is a recording; shorter is a script (at most the spec's 500 words)."""
    if minutes * 60 >= RECORDING_SECONDS:
        wav = recording(tmp, RECORDING_SECONDS)
        c, v = multipart(d, [("source", "audio_file"), ("output_type", "scene")],
                         [("audio_file", "recording.wav", "audio/wav", wav)])
    else:
        words = min(int(WORDS_PER_MINUTE * minutes), MAX_WORDS - 15)
        c, v = d.v1("POST", "/v1/create_video",
                    {"script_text": script(words), "output_type": "scene"})
    if c not in (200, 202):
        sys.exit(f"create_video answered {c}: {v}")
    return v["id"]


def seconds_of(url):
    """The length of the MP4 at `url`, seconds (ffprobe)."""
    out = subprocess.run(["ffprobe", "-v", "error", "-show_entries", "format=duration", "-of",
                          "csv=p=0", url], capture_output=True, text=True)
    return float(out.stdout.strip() or 0)


def bench(d, sampler, tmp, minutes):
    sampler.phase = f"build{minutes:g}"
    start = time.monotonic()
    video_id = create(d, tmp, minutes)
    wait(d, video_id, "scenes_ready_for_review")
    built = time.monotonic() - start
    sampler.phase = f"render{minutes:g}"
    start = time.monotonic()
    c, v = d.v1("POST", "/v1/export_video", {"id": video_id})
    if c not in (200, 202):
        sys.exit(f"export_video answered {c}: {v}")
    done = wait(d, video_id)
    rendered = time.monotonic() - start
    sampler.phase = None
    length = seconds_of(done["result"]["video_url"])
    build, render = sampler.peaks[f"build{minutes:g}"], sampler.peaks[f"render{minutes:g}"]
    source = "recording" if minutes * 60 >= RECORDING_SECONDS else "script"
    print(f"memory, {minutes:g} min ({source}, {length:.0f} s of video): daemon + children "
          f"peak {max(build, render):.0f} MB (building {build:.0f} MB in {built:.1f} s, "
          f"rendering {render:.0f} MB in {rendered:.1f} s)")
    return max(build, render), render


def run():
    """Prints the memory figures of every length in MEMORY_MINUTES."""
    tmp = tempfile.mkdtemp(prefix="reelsmith-memory-")
    d = Daemon(tmp)
    sampler = Sampler(d.proc.pid)
    try:
        print(f"machine: {CORES} cores; memory of the daemon tree at {d.base} "
              f"(idle: {rss_mb(tree(d.proc.pid)):.0f} MB)")
        rows = [bench(d, sampler, tmp, m) for m in MINUTES]
        print(f"memory, worst of {len(rows)}: daemon + children {max(r[0] for r in rows):.0f} MB "
              f"(aim 350), render phase {max(r[1] for r in rows):.0f} MB (aim 300); at most "
              f"{sampler.most_children} child processes at once")
    finally:
        sampler.close()
        d.stop()
        subprocess.run(["rm", "-rf", tmp])


if __name__ == "__main__":
    require_binary()
    run()
