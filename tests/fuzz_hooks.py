"""schemathesis hooks for `tests/tests/openapi_fuzz.rs`: a stand-in for DNS.

`modify_scene` downloads the URL of `mediaUrl`, `voice.upload`, `narrator.upload_video` and
`remotion.upload_overlay` before it answers. The test machine has no DNS, so a schema-valid URL
on a generated public host is refused (`unsupported_media_url`, "could not be resolved"): the
network's answer, not the schema's.

For positive cases only, the request that goes on the wire points those URLs at the test's local
media server (`REELSMITH_FUZZ_MEDIA`, listed in the daemon's `fetch.allow`), at a real file of
the kind the field takes. The case itself is left as generated: the rewritten body is passed as
the transport's `json` argument, which schemathesis sends in place of the generated body.
Editing `case.body` instead would make schemathesis revalidate it, and `http://127.0.0.1:PORT/…`
does not match the URL pattern (a dotted alphabetic host, no port); no name on the machine both
matches it and reaches a local server, so the case would turn negative. Negative cases go out
untouched.

`create_video`'s `video_url`/`audio_url` are not rewritten: its text, idea and blog forms are
accepted, so its positive cases are never all refused, and rewriting the media forms too makes
their answers (202 instead of 400) change which ids the later operations draw: with the seed in
use, none of them then reached a real video (see the test's doc comment).

Each rewritten case's operation and status go to `REELSMITH_FUZZ_LOG`, one line each, so the test
can tell that the rewrite was exercised against real videos.
"""

import copy
import os

import schemathesis
from schemathesis import GenerationMode

MEDIA = os.environ["REELSMITH_FUZZ_MEDIA"].rstrip("/")
# A video the test made before the run, its scenes ready, and its first scene: a rewritten case
# edits it, so it reaches a real video whichever ids the generator drew.
VIDEO_ID = os.environ["REELSMITH_FUZZ_VIDEO_ID"]
VOICE_FILE = os.environ["REELSMITH_FUZZ_VOICE_FILE"]
LOG = os.environ["REELSMITH_FUZZ_LOG"]
IMAGE = f"{MEDIA}/image.png"
VIDEO = f"{MEDIA}/clip.mp4"
AUDIO = f"{MEDIA}/voice.wav"

# Fields whose value is a URL, and the kind of file each takes (`mediaUrl` is decided by
# `background`).
URL_FIELDS = {
    "voice.upload": AUDIO,
    "narrator.upload_video": VIDEO,
    "remotion.upload_overlay": IMAGE,
}

# Ids of the cases sent with a rewritten body.
REWRITTEN = set()


def is_url(value):
    return isinstance(value, str) and value.lower().startswith(("http://", "https://"))


def background(items):
    """`mediaUrl` takes an image unless a `mediaType` item says `video`."""
    kinds = [i.get("value") for i in items if i.get("field_name") in ("mediaType", "media_type")]
    return VIDEO if "video" in kinds else IMAGE


def rewrite_item(item, bg):
    name, value = item.get("field_name"), item.get("value")
    target = bg if name in ("mediaUrl", "media_url") else URL_FIELDS.get(name)
    if target is None:
        return None
    if is_url(value):
        return {**item, "value": target}
    # Every URL field takes `{url}` too.
    if isinstance(value, dict) and is_url(value.get("url")):
        return {**item, "value": {**value, "url": target}}
    return None


def modify_scene(body):
    """The body with its URL fields pointed at the media server and its selector at the test's
    video, or None when it has no URL field."""
    fields = body.get("fields")
    if not isinstance(fields, list):
        return None
    bg = background([f for f in fields if isinstance(f, dict)])
    out = [rewrite_item(f, bg) if isinstance(f, dict) else None for f in fields]
    if all(new is None for new in out):
        return None
    target = {k: v for k, v in body.items() if k != "min_score"}
    target.update(id=VIDEO_ID, by="voice_file", value=VOICE_FILE)
    return {**target, "fields": [new if new is not None else old for new, old in zip(out, fields)]}


@schemathesis.hook
def before_call(context, case, kwargs):
    if (case.method.upper(), case.path) != ("POST", "/v1/modify_scene"):
        return
    meta = case.meta
    if meta is None or meta.generation.mode != GenerationMode.POSITIVE:
        return
    if case.media_type != "application/json" or not isinstance(case.body, dict):
        return
    body = modify_scene(copy.deepcopy(case.body))
    if body is not None:
        kwargs["json"] = body
        REWRITTEN.add(case.id)


@schemathesis.hook
def after_call(context, case, response):
    if case.id in REWRITTEN:
        with open(LOG, "a", encoding="utf-8") as f:
            f.write(f"{case.method.upper()} {case.path} {response.status_code}\n")
