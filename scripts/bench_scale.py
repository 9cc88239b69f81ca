#!/usr/bin/env python3
"""Scale bench (issue 20): end-to-end speed, memory against video length, and batch
re-render throughput of the release binary on embedded defaults. Run by `make bench-scale`;
not a test, nothing here is asserted. Every figure comes from this one run.

1. End to end: a 150-word script → finished MP4 (`reelsmith render`), E2E_RUNS times from
   scratch (a shared VM's runs spread by ±10 %): the median run's wall time, the video's
   length, the realtime factor (video seconds per wall second; the aim is ≥ 8× on 2 cores)
   and CPU use; every run's wall and the range of peak RSS (the render's own process, and the
   neural voice's worker apart: see `Tree`). Then the floor: the median run's
   frames encoded alone by GStreamer's x264enc and by ffmpeg's libx264, and the faster of the
   two plus the narrator's synthesis time as the run logged it (the neural voice speaks before
   anything renders), each against the end-to-end wall. Each run alternates with one at
   `render.lanes = E2E_LANES` (two runs of scenes encoded at once), printed against the same
   floor, with its peak RSS.
2. Memory with length: scripts of about 1 and 3 minutes through `reelsmith render`, each under
   `/usr/bin/time -v`: peak RSS of the render's process (the aim is flat in length and under
   300 MB), and of the voice's worker beside it. A script may have 500 words (the spec's
   limit), about 3.3 minutes; the 10-minute figure comes from `cargo bench -p pipeline --bench
   memory`, which builds in process.
3. Batch: ten short videos rendered into one data dir, their chunk caches removed (as after a
   renderer change, whose version is in every chunk key), then `reelsmith rerender --all`, one
   video at a time and two at a time (`--jobs 2`, caches removed again): videos per minute, CPU
   utilisation over the machine's cores and the ratio; then `rerender --all` again with the
   cache warm (nothing changed).
4. The editor's preview ([`bench_preview`](bench_preview.py)): open → play and one-scene edit →
   play for videos of about 1 and 3 minutes.
5. Memory through the daemon ([`bench_memory`](bench_memory.py)): the peak of the daemon and its
   children together, building and rendering apart, for videos of about 1, 3 and 5 minutes.

Environment: BIN (default target/release/reelsmith), E2E_RUNS (default 3), E2E_LANES (default
2; 1 skips those runs), SCALE_MINUTES (default "1,3"), BATCH_VIDEOS (default 10).
"""
import collections
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.environ.get("BIN", os.path.join(ROOT, "target/release/reelsmith"))
MINUTES = [float(m) for m in os.environ.get("SCALE_MINUTES", "1,3").split(",") if m]
BATCH = int(os.environ.get("BATCH_VIDEOS", "10"))
E2E_RUNS = max(1, int(os.environ.get("E2E_RUNS", "3")))
E2E_LANES = max(1, int(os.environ.get("E2E_LANES", "2")))
CORES = os.cpu_count() or 1

SENTENCES = [
    "Most small teams never publish a single video on their phones.",
    "They believe that editing takes hours and that nobody owns it.",
    "The truth is much simpler, and it starts with one short script.",
    "Teams that post every week grow faster than teams that post once a quarter.",
    "A recent survey of two hundred marketers confirms the same trend.",
    "Write one script a week and keep it well under two minutes.",
    "Record the narration in one take and let the software cut the scenes.",
    "Pick one picture for every idea instead of chasing perfect footage.",
    "Solar panels, coffee cups and city skylines all work when they match the words.",
    "Publish on the same day every week so your audience knows when to look.",
    "Reading ten pages every night adds up to twenty books a year.",
    "Running three times a week keeps the heart healthy and the mind calm.",
    "Good security starts with a strong password and a second lock on every account.",
    "Online shopping carts are abandoned most of the time before the final click.",
    "The calendar is the one tool every busy person already owns.",
]
CLOSING = "Follow us for a new tip every Monday."


def script(words):
    """About `words` words of varied sentences, ending with a call to action."""
    out, n, i = [], 0, 0
    while n < words - 8:
        s = SENTENCES[i % len(SENTENCES)]
        out.append(s)
        n += len(s.split())
        i += 1
    out.append(CLOSING)
    return " ".join(out)


# One `reelsmith render`: wall and CPU seconds, the peak RSS (MB) of its own process and of its
# children (the voice's worker), video seconds, the MP4, the encoder identity it logged and the
# seconds its narrator took to speak the script.
Run = collections.namedtuple("Run", "wall cpu rss child_rss secs mp4 encoder voice")

# The build's stage times (`video::build::work` logs them as `StageTimes { .., voice: 8.13s, ..}`).
VOICE_TIME = re.compile(r"\bvoice: ([0-9.]+)(s|ms|µs|ns)\b")
UNIT_SECS = {"s": 1.0, "ms": 1e-3, "µs": 1e-6, "ns": 1e-9}


def voice_secs(log):
    """The narrator's synthesis time in a render's log; 0 when the log does not give it."""
    m = VOICE_TIME.search(log)
    return float(m.group(1)) * UNIT_SECS[m.group(2)] if m else 0.0

# The identity `render::plan` logs for x264 (`compositor::media::encoder_identity`).
X264_IDENTITY = re.compile(r"encoder=(?:libx264|x264enc) \S+ (\d+)x(\d+) (\w+) crf(\d+) max(\d+) gop(\d+)s "
                           r"threads(\d+) asm-(\S+)")
ANSI = re.compile(r"\x1b\[[0-9;]*m")


class Tree:
    """The peak resident memory of a command started under /usr/bin/time, sampled every 20 ms:
    its own process's, and its children's summed (the neural voice's worker), apart.
    /usr/bin/time's maximum is the larger of any one of them, which for a one-lane render is
    the voice's worker (244 MB), not the render (189–196 MB; 2026-12-02, 2 cores)."""

    def __init__(self, time_pid):
        self.time_pid, self.own_peak, self.children_peak = time_pid, 0.0, 0.0
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self):
        from bench_memory import rss_mb
        # Only these processes' own files are read: a scan of /proc each time took CPU enough
        # to slow the render it measured.
        while not self.stop.wait(0.02):
            for pid in children(self.time_pid)[:1]:  # the command, under /usr/bin/time
                self.own_peak = max(self.own_peak, rss_mb([pid]))
                self.children_peak = max(self.children_peak, rss_mb(children(pid)))

    def close(self):
        self.stop.set()
        self.thread.join()


def children(pid):
    """The processes `pid` started (Linux's per-task list); none once it has ended."""
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            return [int(c) for c in f.read().split()]
    except (OSError, ValueError):
        return []


def timed(args, env=None, tree=False):
    """Runs `args` under /usr/bin/time -v; returns (wall s, cpu s, peak RSS MB, stderr, peaks):
    `peaks` is the command's own and its children's peak (MB) apart ([`Tree`]) with `tree`,
    else None."""
    cmd = ["/usr/bin/time", "-v"] + args
    start = time.monotonic()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=env, cwd=ROOT)
    sampler = Tree(proc.pid) if tree else None
    _, err = proc.communicate()
    wall = time.monotonic() - start
    if sampler:
        sampler.close()
    if proc.returncode != 0:
        own = err.split("\tCommand being timed")[0]
        sys.exit(f"{' '.join(args)} failed:\n{own[-3000:]}")
    field = lambda name: float(re.search(re.escape(name) + r":\s*([0-9.]+)", err).group(1))
    cpu = field("User time (seconds)") + field("System time (seconds)")
    rss = field("Maximum resident set size (kbytes)") / 1024
    peaks = (sampler.own_peak, sampler.children_peak) if sampler else None
    return wall, cpu, rss, err, peaks


def probe(mp4):
    out = subprocess.run(["ffprobe", "-v", "error", "-print_format", "json", "-show_format",
                          "-show_streams", "-select_streams", "v:0", mp4],
                         capture_output=True, text=True, check=True).stdout
    return json.loads(out)


def duration(mp4):
    return float(probe(mp4)["format"]["duration"])


def render(tmp, name, words, data_dir=None, lanes=None):
    path = os.path.join(tmp, name + ".txt")
    with open(path, "w") as f:
        f.write(script(words))
    out = os.path.join(tmp, name + ".mp4")
    args = [BIN, "render", path, "-o", out]
    if data_dir:
        args += ["--data-dir", data_dir]
    env = None
    if lanes:
        env = dict(os.environ, REELSMITH__RENDER__LANES=str(lanes))
    wall, cpu, _, err, (own, voice_rss) = timed(args, env, tree=True)
    log = ANSI.sub("", err)
    identity = re.search(r"encoder=.*", log)
    return Run(wall, cpu, own, voice_rss, duration(out), out,
               identity.group(0) if identity else "", voice_secs(log))


def peaks(runs):
    """The range of `runs`' peak RSS: the render's process, then the voice's worker."""
    def span(xs):
        low, high = f"{min(xs):.0f}", f"{max(xs):.0f}"
        return low if low == high else f"{low}–{high}"
    return (f"{span([r.rss for r in runs])} MB (the voice's worker beside it "
            f"{span([r.child_rss for r in runs])} MB)")


def encoder_floor(tmp, run, laned=None):
    """The encoder floor of `run`: its MP4's frames, raw, encoded again alone with the settings
    its render logged, by our GStreamer x264enc and by ffmpeg's libx264 (issue 40 asks for
    both); the faster of the two is the floor. Prints each against the render's wall, and the
    floor against `laned` (the median run at `render.lanes = E2E_LANES`) too when given."""
    m = X264_IDENTITY.search(run.encoder)
    if not m:
        print(f"encoder floor: skipped, no x264 settings this script reads in {run.encoder!r}")
        return
    width, height, preset, crf, kbps, gop_secs, threads, asm = m.groups()
    num, den = (int(x) for x in probe(run.mp4)["streams"][0]["r_frame_rate"].split("/"))
    raw = os.path.join(tmp, "floor.yuv")
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-i", run.mp4, "-f", "rawvideo",
                    "-pix_fmt", "yuv420p", raw], check=True)
    frames = os.path.getsize(raw) // (int(width) * int(height) * 3 // 2)
    gop = int(gop_secs) * num // den
    options = "" if asm.startswith("auto") else f"asm={asm}"
    # In pass=qual, x264enc's `bitrate` is the VBV cap over its default 600 ms buffer; ffmpeg
    # says the same with -maxrate and -bufsize (both write vbv_maxrate=8000 vbv_bufsize=4800).
    encoders = {
        "GStreamer x264enc": [
            "gst-launch-1.0", "-q", "filesrc", f"location={raw}", "!", "rawvideoparse",
            f"width={width}", f"height={height}", "format=i420", f"framerate={num}/{den}", "!",
            "x264enc", f"speed-preset={preset}", "pass=qual", f"quantizer={crf}",
            f"bitrate={kbps}", f"key-int-max={gop}", f"threads={threads}",
            f"option-string={options}", "!", "fakesink"],
        "ffmpeg libx264": [
            "ffmpeg", "-v", "error", "-y", "-f", "rawvideo", "-pix_fmt", "yuv420p",
            "-s", f"{width}x{height}", "-r", f"{num}/{den}", "-i", raw, "-c:v", "libx264",
            "-preset", preset, "-crf", crf, "-maxrate", f"{kbps}k",
            "-bufsize", f"{int(kbps) * 6 // 10}k", "-g", str(gop), "-threads", threads]
            + (["-x264-params", options] if options else []) + ["-f", "null", "-"],
    }
    walls = {}
    for name, args in encoders.items():
        wall, cpu, _, _, _ = timed(args)
        walls[name] = wall
        print(f"encoder floor, {name}: the same {frames} frames alone ({preset}, crf{crf}, "
              f"{threads} threads, asm {asm}; one stream, nothing rendered) in {wall:.1f} s = "
              f"{run.secs / wall:.1f}x realtime, CPU {cpu / wall / CORES * 100:.0f}% of "
              f"{CORES} cores; end to end takes {run.wall / wall:.2f}x it")
    os.remove(raw)
    name, wall = min(walls.items(), key=lambda kv: kv[1])
    # The narration cannot start before the voice has spoken: the floor of a whole video is
    # the encoder's time plus the voice's own, the latter as this very run logged it.
    floor = wall + run.voice
    print(f"floor with the voice: {wall:.1f} s encoding ({name}, the faster) + {run.voice:.1f} s "
          f"of synthesis = {floor:.1f} s; end to end takes {run.wall / floor:.2f}x that floor")
    if laned:
        floor = wall + laned.voice
        print(f"with render.lanes = {E2E_LANES}: {laned.wall:.1f} s end to end, the voice "
              f"{laned.voice:.1f} s, so {laned.wall / floor:.2f}x the floor with its voice")


def batch(data, label, seconds, jobs):
    """`rerender --all --jobs JOBS` over the batch in `data`; prints and returns its wall."""
    wall, cpu, rss, _, _ = timed([BIN, "rerender", "--all", "--jobs", str(jobs), "--data-dir",
                                  data])
    print(f"batch rerender --all, {label}: {BATCH} videos ({seconds:.0f} s of video) in "
          f"{wall:.1f} s = {BATCH / wall * 60:.1f} videos/min; CPU "
          f"{cpu / wall / CORES * 100:.0f}% of {CORES} cores; peak RSS {rss:.0f} MB")
    return wall


def main():
    if not os.path.exists(BIN):
        sys.exit(f"{BIN} is missing: build it with `cargo build --release -p reelsmith`")
    tmp = tempfile.mkdtemp(prefix="reelsmith-scale-")
    try:
        print(f"machine: {CORES} cores")
        runs, laned = [], []
        for i in range(E2E_RUNS):  # alternated, so both see the machine's same moods
            runs.append(render(tmp, f"e2e{i}", 150))
            if E2E_LANES > 1:
                laned.append(render(tmp, f"e2e{i}-lanes", 150, lanes=E2E_LANES))
        runs.sort(key=lambda r: r.wall)
        laned.sort(key=lambda r: r.wall)
        median = runs[len(runs) // 2]
        wall, cpu, secs = median.wall, median.cpu, median.secs
        walls = ", ".join(f"{r.wall:.1f}" for r in runs)
        print(f"end to end, 150 words: {secs:.1f} s of video in {wall:.1f} s wall (median of "
              f"{len(runs)}: {walls}) = {secs / wall:.1f}x realtime; CPU "
              f"{cpu / wall / CORES * 100:.0f}% of {CORES} cores; peak RSS "
              f"{peaks(runs)}")
        laned_median = laned[len(laned) // 2] if laned else None
        if laned_median:
            walls = ", ".join(f"{r.wall:.1f}" for r in laned)
            print(f"end to end, render.lanes = {E2E_LANES}: {laned_median.wall:.1f} s wall "
                  f"(median of {len(laned)}: {walls}), {median.wall / laned_median.wall:.2f}x "
                  f"as fast; peak RSS {peaks(laned)}")
        encoder_floor(tmp, median, laned_median)

        rows = []
        for minutes in MINUTES:
            run = render(tmp, f"len{minutes:g}", int(150 * minutes))
            rows.append((minutes, run.secs, run.wall, run.rss))
            print(f"length {minutes:g} min: {run.secs:.0f} s of video in {run.wall:.1f} s "
                  f"({run.secs / run.wall:.1f}x realtime), peak RSS {peaks([run])}")
        if len(rows) > 1:
            print(f"peak RSS, longest / shortest: {rows[-1][3] / rows[0][3]:.2f}x for "
                  f"{rows[-1][1] / rows[0][1]:.1f}x the length")

        import bench_preview
        bench_preview.run()
        import bench_memory
        bench_memory.run()

        if BATCH == 0:
            return
        data = os.path.join(tmp, "batch")
        seconds = 0.0
        for i in range(BATCH):
            seconds += render(tmp, f"batch{i}", 90 + 10 * i, data_dir=data).secs
        cold = {}
        for jobs in [1, 2]:
            # As after a renderer change, whose version is in every chunk key.
            for chunks in [os.path.join(data, "videos", d, "chunks")
                           for d in os.listdir(os.path.join(data, "videos"))]:
                shutil.rmtree(chunks, ignore_errors=True)
            cold[jobs] = batch(data, f"cold (no chunk cache), --jobs {jobs}", seconds, jobs)
        print(f"batch throughput, --jobs 2 / --jobs 1: {cold[1] / cold[2]:.2f}x")
        batch(data, "warm (nothing changed)", seconds, 1)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
