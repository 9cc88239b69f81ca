// The editor's calls to the daemon, through one typed client (openapi-fetch) over the types
// generated from the daemon's OpenAPI document (src/schema.d.ts, `npm run types`). Every route
// lives under the review link's own address and carries its signed token; a refusal comes
// back as the API's error envelope and is thrown as an ApiError in the envelope's own words.
import createClient from "openapi-fetch";
import type { components, paths } from "./schema";

type Schemas = components["schemas"];
export type Scene = Schemas["SceneRecord"];
export type Status = Schemas["StatusObject"];
export type EditorView = Schemas["EditorView"];
export type PlayerView = Schemas["PlayerView"];
export type Rect = Schemas["RectOut"];
export type Geometry = Schemas["SceneGeometry"];
/** One layout check of `scene_geometry` with diagnostics: a violation or a warning. */
export type Finding = Schemas["Violation"] | Schemas["Warning"];
export type Version = Schemas["Version"];
/** Where the video's versions stand: what undo and redo would restore. */
export type Versions = Schemas["Standing"];
export type Restored = Schemas["Restored"];
export type Arranged = Schemas["Arranged"];
export type PreviewClip = Schemas["PreviewClip"];
export type WholePreview = Schemas["WholePreview"];
export type BrollResult = Schemas["SearchResult"];
export type SearchKind = Schemas["SearchKind"];
export type Applied = Schemas["Applied"];
/** One family of `modify_scene` field edits. */
export type FieldEdits = Schemas["SceneFields"];
export type EditAction = Schemas["EditAction"];

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

/** An address under the review link (the still images, the event stream, the live socket). */
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

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null;

/** The error envelope's `{code, message}`, whatever the body turned out to be. */
export function apiError(body: unknown, status: number): ApiError {
  const err = isRecord(body) ? body.error : undefined;
  const code = isRecord(err) && typeof err.code === "string" ? err.code : `http_${status}`;
  const message = isRecord(err) && typeof err.message === "string" ? err.message : `The server answered ${status}.`;
  return new ApiError(code, message);
}

const client = createClient<paths>({ baseUrl: location.origin });

/** The reply's body, or the refusal thrown as an ApiError. */
async function answer<T>(reply: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await reply;
  if (response.ok && data !== undefined) return data;
  throw apiError(error, response.status);
}

/** The path and query every editor route takes. */
const at = () => ({ path: { topic_id: topic }, query: { token } });
const atScene = (voice_file: string) => ({ path: { topic_id: topic, voice_file }, query: { token } });

/** The data route answers the editor's view for the review link, the player's for the player's. */
async function data(): Promise<EditorView | PlayerView> {
  return answer(client.GET("/app/editor/{topic_id}/data", { params: at() }));
}
async function editorData(): Promise<EditorView> {
  const v = await data();
  if ("edit_session" in v) return v;
  throw new ApiError("read_only_link", "This link opens the player, not the editor.");
}
async function playerData(): Promise<PlayerView> {
  const v = await data();
  if (!("edit_session" in v)) return v;
  return { object: "player_view", topic_id: v.topic_id, title: v.title, mode: v.mode, status: { ...v.status, video_url: v.status.result.video_url }, scenes: v.scenes.map((s) => ({ voice_file: s.voice_file, duration: s.duration, words: s.words ?? [] })) };
}

/** The scene's geometry with its layout checks (a `voice_file` never needs a clarification). */
async function geometry(voice_file: string): Promise<Geometry> {
  const g = await answer(client.POST("/app/editor/{topic_id}/geometry", { params: at(), body: { id: topic, voice_file, include_diagnostics: true } }));
  if ("boxes" in g) return g;
  throw new ApiError("clarification_required", g.message);
}

/** Stores a file for an edit; its URL is then the edit's value. The body is the file's bytes. */
function upload(file: File) {
  return answer(
    client.POST("/app/editor/{topic_id}/upload", {
      params: { path: { topic_id: topic }, query: { token, filename: file.name } },
      body: file,
      bodySerializer: (bytes) => bytes,
      headers: { "content-type": "application/octet-stream" },
    }),
  );
}

export const api = {
  upload,
  data: editorData,
  playerData,
  geometry,
  status: () => answer(client.GET("/app/editor/{topic_id}/status", { params: at() })),
  session: (action: EditAction) => answer(client.POST("/app/editor/{topic_id}/session", { params: at(), body: { id: topic, action } })),
  modify: (voice_file: string, fields: FieldEdits) =>
    answer(client.POST("/app/editor/{topic_id}/modify", { params: at(), body: { id: topic, by: "voice_file", value: voice_file, fields } })),
  preview: (voice_file: string) => answer(client.POST("/app/editor/{topic_id}/preview/{voice_file}", { params: atScene(voice_file) })),
  whole: () => answer(client.POST("/app/editor/{topic_id}/preview", { params: at() })),
  export: () => answer(client.POST("/app/editor/{topic_id}/export", { params: at() })),
  undo: () => answer(client.POST("/app/editor/{topic_id}/undo", { params: at() })),
  redo: () => answer(client.POST("/app/editor/{topic_id}/redo", { params: at() })),
  versions: async () => (await answer(client.GET("/app/editor/{topic_id}/versions", { params: at() }))).versions,
  revoice: (voice_file: string) => answer(client.POST("/app/editor/{topic_id}/revoice", { params: at(), body: { voice_file } })),
  reorder: (order: string[]) => answer(client.POST("/app/editor/{topic_id}/reorder", { params: at(), body: { order } })),
  /** A new scene speaking `text`, after the scene `after` (first when null). */
  addScene: (text: string, after: string | null) => answer(client.POST("/app/editor/{topic_id}/add", { params: at(), body: { text, after } })),
  deleteScene: (voice_file: string) => answer(client.POST("/app/editor/{topic_id}/delete", { params: at(), body: { voice_file } })),
  approve: (segments: string[]) => answer(client.POST("/app/editor/{topic_id}/script", { params: at(), body: { segments } })),
  broll: (keyword: string, kind: SearchKind) => answer(client.POST("/app/editor/{topic_id}/broll", { params: at(), body: { keyword, kind, limit: 8 } })),
};

export function stillUrl(voice_file: string, t: number | null, version: string): string {
  const extra: Record<string, string> = { v: version };
  if (t !== null) extra.t = t.toFixed(2);
  return url(`/still/${encodeURIComponent(voice_file)}`, extra);
}
