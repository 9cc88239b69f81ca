"""The main flow through the generated Python client (reelsmith_client, made by `make clients`),
as a Python user would write it: a script becomes a video, a picture is uploaded and made one
scene's background, and the edited video is exported and downloaded.

Usage: python flow.py BASE_URL API_KEY OUT.mp4. Exits non-zero, saying why, when any step is not
what the API documents. tests/tests/sdk.rs runs it against a real daemon.
"""

import io
import pathlib
import struct
import sys
import time
import zlib

import httpx

from reelsmith_client import AuthenticatedClient
from reelsmith_client.api.assets import upload_asset
from reelsmith_client.api.editing import modify_scene
from reelsmith_client.api.videos import create_video, export_video, get_status
from reelsmith_client.models import (
    Asset,
    AssetForm,
    CreateVideoText,
    ExportVideoRequest,
    MediaUrlField,
    ModifySceneById,
    SceneModification,
    StatusObject,
)
from reelsmith_client.types import File

# The script both flows send (84 words, just over the 80 the API needs: about 25 s of video).
SCRIPT = (pathlib.Path(__file__).parent.parent / "flow-script.txt").read_text().strip()
WAIT_SECS = 600


def png(width: int, height: int, rgb: tuple[int, int, int]) -> bytes:
    """A plain PNG of one colour: the picture the flow uploads."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    row = b"\x00" + bytes(rgb) * width
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(row * height))
        + chunk(b"IEND", b"")
    )


def expect(reply, kind, step: str):
    """The parsed body of `reply` when it is a `kind`; otherwise the flow stops, saying why."""
    if not isinstance(reply.parsed, kind):
        sys.exit(f"{step}: HTTP {reply.status_code}: {reply.content.decode(errors='replace')}")
    return reply.parsed


def wait_done(client: AuthenticatedClient, video_id: str, step: str) -> StatusObject:
    """Polls the video's status until it is no longer processing; it must be completed."""
    deadline = time.monotonic() + WAIT_SECS
    while time.monotonic() < deadline:
        status = expect(get_status.sync_detailed(video_id, client=client), StatusObject, step)
        if status.status != "processing":
            if status.status != "completed":
                sys.exit(f"{step}: the video ended {status.status}: {status.error}")
            return status
        time.sleep(1)
    sys.exit(f"{step}: still processing after {WAIT_SECS} s")


def main(base_url: str, key: str, out: str) -> None:
    client = AuthenticatedClient(base_url=base_url, token=key, timeout=httpx.Timeout(120))

    made = create_video.sync_detailed(client=client, body=CreateVideoText(script_text=SCRIPT))
    video = expect(made, StatusObject, "create_video")
    scenes = wait_done(client, video.id, "the scenes")
    print(f"scenes ready for review: {scenes.result.review_url}")

    picture = File(payload=io.BytesIO(png(360, 640, (40, 110, 200))), file_name="blue.png", mime_type="image/png")
    uploaded = upload_asset.sync_detailed(client=client, body=AssetForm(file=picture))
    asset = expect(uploaded, Asset, "upload_asset")
    print(f"uploaded {asset.filename}: {asset.size_bytes} bytes at {asset.url}")

    background = MediaUrlField(field_name="mediaUrl", value=asset.url)
    edit = ModifySceneById(id=video.id, by="id", value=1, fields=[background])
    modified = expect(modify_scene.sync_detailed(client=client, body=edit), SceneModification, "modify_scene")
    print(f"scene {modified.scene_id} has the uploaded picture as its background ({modified.family})")

    exported = export_video.sync_detailed(client=client, body=ExportVideoRequest(id=video.id))
    expect(exported, StatusObject, "export_video")
    done = wait_done(client, video.id, "the export")
    mp4 = httpx.get(done.result.video_url, timeout=60).content
    if mp4[4:8] != b"ftyp":
        sys.exit(f"the export at {done.result.video_url} is not an MP4")
    with open(out, "wb") as f:
        f.write(mp4)
    print(f"exported {len(mp4)} bytes to {out}")


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    main(*sys.argv[1:])
