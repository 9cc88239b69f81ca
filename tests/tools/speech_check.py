#!/usr/bin/env python3
"""An independent listener for the narration tests: pocketsphinx 5 (PyPI, with its en-us model).

    speech_check.py SCENE.wav SCENE_words.json [SCENE.wav SCENE_words.json ...]

Each `_words.json` is the narrator's own timing of the scene's words (`[{word, start, end}]`),
and its words are the reference text. Prints one JSON object:

* `wer`: the word error rate of the recogniser's free transcription of all scenes against the
  reference (substitutions + deletions + insertions over reference words);
* `align`: where the recogniser's forced alignment puts each word's start against the
  narrator's timing, in ms (`mean`, `median`, `p90`, `bias`, `words` compared). Scenes with a
  word outside the recogniser's dictionary are left out of the alignment;
* `onsets`: after each pause in the audio, how far the nearest word start is from where sound
  resumes, in ms (`median`, `max`): a check of caption timing read off the audio itself.
"""
import json
import re
import subprocess
import sys

from pocketsphinx import Decoder

RATE = 16_000
FRAMES_PER_SECOND = 100


def pcm16k(path: str) -> bytes:
    return subprocess.run(
        ["ffmpeg", "-v", "error", "-i", path, "-ac", "1", "-ar", str(RATE), "-f", "s16le", "-"],
        check=True,
        capture_output=True,
    ).stdout


def tokens(text: str) -> list[str]:
    return re.findall(r"[a-z']+", text.lower())


def transcribe(raw: bytes) -> list[str]:
    decoder = Decoder(samprate=RATE)
    decoder.start_utt()
    decoder.process_raw(raw, full_utt=True)
    decoder.end_utt()
    hyp = decoder.hyp()
    return tokens(hyp.hypstr) if hyp else []


def edit_distance(ref: list[str], hyp: list[str]) -> int:
    row = list(range(len(hyp) + 1))
    for i, r in enumerate(ref, 1):
        prev, row[0] = row[0], i
        for j, h in enumerate(hyp, 1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (r != h))
    return row[-1]


def aligned_starts(raw: bytes, words: list[str]) -> list[float] | None:
    """The recogniser's start of each word, in seconds, or None when it cannot align them."""
    decoder = Decoder(samprate=RATE, bestpath=False)
    if any(decoder.lookup_word(w) is None for w in words):
        return None
    decoder.set_align_text(" ".join(words))
    decoder.start_utt()
    decoder.process_raw(raw, full_utt=True)
    decoder.end_utt()
    found_segs = decoder.seg()
    if found_segs is None:  # the audio did not fit the words at all
        return None
    segs = [s for s in found_segs if s.word not in ("<s>", "</s>", "<sil>", "[NOISE]")]
    found = [re.sub(r"\(\d+\)$", "", s.word) for s in segs]
    if found != words:
        return None
    return [s.start_frame / FRAMES_PER_SECOND for s in segs]


def pause_ends(raw: bytes, min_pause: float = 0.08) -> list[float]:
    """Where sound resumes after each pause of at least `min_pause` seconds: 10 ms frames whose
    RMS is under 5 % of the loudest frame's count as silence."""
    samples = memoryview(raw).cast("h")
    frame = RATE // FRAMES_PER_SECOND
    rms = []
    for i in range(0, len(samples) - frame + 1, frame):
        chunk = samples[i:i + frame]
        rms.append((sum(x * x for x in chunk) / frame) ** 0.5)
    if not rms:
        return []
    quiet = 0.05 * max(rms)
    ends, run = [], 0
    for k, level in enumerate(rms):
        if level < quiet:
            run += 1
            continue
        if run / FRAMES_PER_SECOND >= min_pause and k > run:
            ends.append(k / FRAMES_PER_SECOND)
        run = 0
    return ends


def main() -> None:
    args = sys.argv[1:]
    if not args or len(args) % 2:
        sys.exit(__doc__)
    ref_all, hyp_all, signed, pairs, onsets = [], [], [], [], []
    for wav, words_json in zip(args[::2], args[1::2]):
        timed = json.load(open(words_json))
        raw = pcm16k(wav)
        ref = tokens(" ".join(w["word"] for w in timed))
        ref_all += ref
        hyp_all += transcribe(raw)
        # The narrator's words that carry a recognisable token, in order, with their start.
        ours = [(tokens(w["word"]), w["start"]) for w in timed]
        ours = [(t[0], start) for t, start in ours if len(t) == 1]
        starts = aligned_starts(raw, [w for w, _ in ours])
        # After each pause inside the scene, the narrator's next word must start where sound
        # resumes: the nearest word start to each pause end.
        word_starts = [w["start"] for w in timed]
        for end in pause_ends(raw):
            nearest = min(word_starts, key=lambda t: abs(t - end))
            onsets.append(abs(nearest - end) * 1000)
        if starts is not None:
            signed += [(a - start) * 1000 for a, (_, start) in zip(starts, ours)]
            pairs += [(w, round(start, 3), round(a, 3)) for a, (w, start) in zip(starts, ours)]
    errors = sorted(abs(e) for e in signed)
    onsets.sort()

    def pick(values, q):
        return values[min(len(values) - 1, int(q * len(values)))] if values else None

    print(json.dumps({
        "wer": edit_distance(ref_all, hyp_all) / max(1, len(ref_all)),
        "reference_words": len(ref_all),
        "heard": " ".join(hyp_all),
        "align": {
            "words": len(errors),
            "mean": sum(errors) / len(errors) if errors else None,
            "median": pick(errors, 0.5),
            "p90": pick(errors, 0.9),
            # The listener's start minus ours: a constant offset shows as a mean far from 0.
            "bias": sum(signed) / len(signed) if signed else None,
            "pairs": pairs,
        },
        # The narrator's word starts against where sound resumes after each pause, in ms.
        "onsets": {
            "pauses": len(onsets),
            "median": pick(onsets, 0.5),
            "max": onsets[-1] if onsets else None,
        },
    }))


if __name__ == "__main__":
    main()
