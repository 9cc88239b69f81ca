// The editor's calls to the daemon. Every route lives under the review link's own address and
// carries its signed token; errors come back as the API's envelope and are shown in words.

export interface Rect { x: number; y: number; w: number; h: number }
export interface Word { word: string; start: number; end: number }
export interface Scene {
  voice_file: string;
  id: string | number;
  text: string;
  type: string;
  duration: number;
  words?: Word[];
  remotion_spec_state?: string;
  "overlay.caption.rect"?: Rect;
  "overlay.narrator.rect"?: Rect;
  [key: string]: unknown;
}
export interface Status {
  status: string;
  stage: string | null;
  progress: number;
  output_type: string;
  result: { review_url?: string; video_url?: string };
  error: { code: string; message: string } | null;
}
export interface EditorView {
  topic_id: string;
  title: string;
  mode: "scenes" | "script";
  status: Status;
  edit_session: { active: boolean; staged_writes?: number };
  scenes: Scene[];
}
/** What the read-only player's link loads: only what the player shows (no review link). */
export interface PlayerView {
  object: "player_view";
  topic_id: string;
  title: string;
  mode: "scenes" | "script";
  status: { status: string; stage: string | null; progress: number; video_url: string | null };
  scenes: { voice_file: string; duration: number; words: Word[] }[];
}
/** A `search_broll` result: `duration` is in seconds, 0 for images. */
export interface BrollResult { number: number; type: "video" | "image"; url: string; thumbnail_url: string; title: string; source: string; duration?: number; width?: number; height?: number; author?: string }
/** One layout check of `scene_geometry` (with diagnostics): a violation names two boxes (`a`
 * and `b`), a warning one (`object`) and says why in `message`. */
export interface Finding { code: string; severity: string; a?: string; b?: string; object?: string; message?: string }
/** A version of the document (the server keeps them for undo and redo). */
export interface Version { version: number; label: string; at: number }
export interface Versions { current: Version | null; undo: Version[]; redo: Version[]; retained: number }
export interface Restored { object: "video_version"; id: string; step: "undo" | "redo"; version: Version; versions: Versions }
/** A re-voice, reorder or delete (`scenes_changed`). */
export interface Arranged {
  object: "scene_arrangement";
  id: string;
  change: "revoice" | "reorder" | "delete";
  duration?: { voice_file: string; from: number; to: number };
  scenes: { voice_file: string; id: number; duration: number }[];
}
export interface PreviewClip { url: string; key: string; cached: boolean; render_ms: number }
/** The whole video at preview size under one soundtrack (`POST …/preview`). */
export interface WholePreview { url: string; key: string; cached: boolean; render_ms: number; duration: number; scenes: { voice_file: string; start: number; duration: number }[] }

export class ApiError extends Error {
  code: string;
  constructor(code: string, message: string) {
    super(message);
    this.code = code;
  }
}

const parts = location.pathname.split("/").filter(Boolean);
export const topic = decodeURIComponent(parts[2] ?? "");
const query = new URLSearchParams(location.search);
export const token = query.get("token") ?? "";
export const readonly = query.get("readonly") === "true";
export const viewParam = query.get("view");

export function url(path: string, extra: Record<string, string> = {}): string {
  const q = new URLSearchParams({ token, ...extra });
  return `/app/editor/${encodeURIComponent(topic)}${path}?${q}`;
}

/** Plain words for any failure: the API's message, or what went wrong on the way. */
export function words(e: unknown): string {
  if (e instanceof ApiError) return e.message;
  if (e instanceof TypeError) return "The server could not be reached. Check the connection and try again.";
  return e instanceof Error ? e.message : String(e);
}

async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
  const resp = await fetch(url(path), {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await resp.text();
  let json: any = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = null;
  }
  if (!resp.ok) {
    const err = json?.error;
    throw new ApiError(err?.code ?? "http_" + resp.status, err?.message ?? `The server answered ${resp.status}.`);
  }
  return json as T;
}

async function upload(file: File): Promise<{ url: string }> {
  const resp = await fetch(url("/upload", { filename: file.name }), {
    method: "POST",
    headers: { "content-type": "application/octet-stream" },
    body: file,
  });
  const json: any = await resp.json().catch(() => null);
  if (!resp.ok) throw new ApiError(json?.error?.code ?? "http_" + resp.status, json?.error?.message ?? `The upload failed (${resp.status}).`);
  return json;
}

export const api = {
  upload,
  data: () => call<EditorView>("GET", "/data"),
  playerData: () => call<PlayerView>("GET", "/data"),
  status: () => call<Status>("GET", "/status"),
  session: (action: "start" | "commit" | "abort" | "status") => call<any>("POST", "/session", { id: topic, action }),
  geometry: (voice_file: string) => call<any>("POST", "/geometry", { id: topic, voice_file, include_diagnostics: true }),
  modify: (voice_file: string, fields: { field_name: string; value: unknown }[]) =>
    call<any>("POST", "/modify", { id: topic, by: "voice_file", value: voice_file, fields }),
  preview: (voice_file: string) => call<PreviewClip>("POST", `/preview/${encodeURIComponent(voice_file)}`),
  whole: () => call<WholePreview>("POST", "/preview"),
  export: () => call<Status>("POST", "/export"),
  undo: () => call<Restored>("POST", "/undo"),
  revoice: (voice_file: string) => call<Arranged>("POST", "/revoice", { voice_file }),
  reorder: (order: string[]) => call<Arranged>("POST", "/reorder", { order }),
  deleteScene: (voice_file: string) => call<Arranged>("POST", "/delete", { voice_file }),
  redo: () => call<Restored>("POST", "/redo"),
  versions: () => call<{ versions: Versions }>("GET", "/versions").then((r) => r.versions),
  approve: (segments: string[]) => call<Status>("POST", "/script", { segments }),
  broll: (keyword: string, kind: "video" | "image") =>
    call<{ results: BrollResult[] }>("POST", "/broll", { keyword, kind, limit: 8 }),
};

export function stillUrl(voice_file: string, t: number | null, version: string): string {
  const extra: Record<string, string> = { v: version };
  if (t !== null) extra.t = t.toFixed(2);
  return url(`/still/${encodeURIComponent(voice_file)}`, extra);
}

/** A version string of a scene: changes whenever its record changes, for cache-busting stills. */
export function sceneVersion(s: Scene): string {
  const raw = JSON.stringify(s);
  let h = 0;
  for (let i = 0; i < raw.length; i++) h = (h * 31 + raw.charCodeAt(i)) | 0;
  return (h >>> 0).toString(16);
}
