// The main flow through the TypeScript client, as a user would write it: a script becomes a
// video, a picture is uploaded and made one scene's background, and the edited video is
// exported and downloaded.
//
// Usage: node dist/flow.js BASE_URL API_KEY OUT.mp4. Exits non-zero, saying why, when any step
// is not what the API documents. tests/tests/sdk.rs runs it against a real daemon.
import { readFileSync, writeFileSync } from "node:fs";
import { deflateSync } from "node:zlib";
import { reelsmith, type Reelsmith, type Schema } from "./index.js";

// The script both flows send (84 words, just over the 80 the API needs: about 25 s of video).
const SCRIPT = readFileSync(new URL("../../flow-script.txt", import.meta.url), "utf8").trim();
const WAIT_MS = 600_000;

/** Stops the flow, saying why. */
function fail(step: string, why: unknown): never {
  console.error(`${step}: ${typeof why === "string" ? why : JSON.stringify(why)}`);
  process.exit(1);
}

/** A plain PNG of one colour: the picture the flow uploads. */
function png(width: number, height: number, [r, g, b]: [number, number, number]): Uint8Array {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (bytes: Buffer) => {
    let c = 0xffffffff;
    for (const byte of bytes) c = crcTable[(c ^ byte) & 0xff] ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (kind: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(kind, "ascii"), data]);
    const out = Buffer.alloc(body.length + 8);
    out.writeUInt32BE(data.length, 0);
    body.copy(out, 4);
    out.writeUInt32BE(crc(body), body.length + 4);
    return out;
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8);
  const row = Buffer.concat([Buffer.from([0]), Buffer.from(Array(width).fill([r, g, b]).flat())]);
  const pixels = deflateSync(Buffer.concat(Array(height).fill(row)));
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return Buffer.concat([signature, chunk("IHDR", header), chunk("IDAT", pixels), chunk("IEND", Buffer.alloc(0))]);
}

/** Polls the video's status until it is no longer processing; it must be completed. */
async function waitDone(api: Reelsmith, id: string, step: string): Promise<Schema<"StatusObject">> {
  const deadline = Date.now() + WAIT_MS;
  while (Date.now() < deadline) {
    const { data, error } = await api.GET("/v1/status/{id}", { params: { path: { id } } });
    if (!data) fail(step, error);
    if (data.status !== "processing") {
      if (data.status !== "completed") fail(step, `the video ended ${data.status}: ${JSON.stringify(data.error)}`);
      return data;
    }
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
  fail(step, `still processing after ${WAIT_MS / 1000} s`);
}

async function main(baseUrl: string, key: string, out: string): Promise<void> {
  const api = reelsmith(baseUrl, key);

  const made = await api.POST("/v1/create_video", { body: { script_text: SCRIPT } });
  if (!made.data) fail("create_video", made.error);
  const id = made.data.id;
  const scenes = await waitDone(api, id, "the scenes");
  console.log(`scenes ready for review: ${scenes.result.review_url}`);

  const picture = new Blob([new Uint8Array(png(360, 640, [40, 110, 200]))], { type: "image/png" });
  const uploaded = await api.POST("/v1/upload_asset", {
    body: { file: picture },
    bodySerializer: (body) => {
      const form = new FormData();
      if ("file" in body) form.append("file", body.file, "blue.png");
      return form;
    },
  });
  if (!uploaded.data || uploaded.data.object !== "asset") fail("upload_asset", uploaded.error ?? uploaded.data);
  const asset = uploaded.data;
  console.log(`uploaded ${asset.filename}: ${asset.size_bytes} bytes at ${asset.url}`);

  const modified = await api.POST("/v1/modify_scene", {
    body: { id, by: "id", value: 1, fields: [{ field_name: "mediaUrl", value: asset.url }] },
  });
  if (modified.response.status !== 200 || !modified.data || !("scene_id" in modified.data)) {
    fail("modify_scene", modified.error ?? modified.data);
  }
  console.log(`scene ${modified.data.scene_id} has the uploaded picture as its background`);

  const exported = await api.POST("/v1/export_video", { body: { id } });
  if (!exported.data) fail("export_video", exported.error);
  const done = await waitDone(api, id, "the export");
  const url = done.result.video_url;
  if (!url) fail("the export", "no video_url");
  const mp4 = Buffer.from(await (await fetch(url)).arrayBuffer());
  if (mp4.subarray(4, 8).toString("ascii") !== "ftyp") fail("the export", `${url} is not an MP4`);
  writeFileSync(out, mp4);
  console.log(`exported ${mp4.length} bytes to ${out}`);
}

const [baseUrl, key, out] = process.argv.slice(2);
if (!baseUrl || !key || !out) fail("usage", "node dist/flow.js BASE_URL API_KEY OUT.mp4");
await main(baseUrl, key, out);
