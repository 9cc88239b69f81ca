// The video's realtime messages (`GET …/events`, server-sent events named by their `type`):
// `{type, topic_id, voice_file, at, …payload}`. The OpenAPI document describes the stream only
// as text, so each payload is narrowed here from `unknown`: `version_restored` carries a
// Restored, `scenes_changed` an Arranged, a voice upload the `applied` of its edit.
import type { Arranged, Restored, Versions } from "./api";

export type Message =
  | { kind: "restored"; versions: Versions }
  | { kind: "arranged"; arranged: Arranged }
  | { kind: "voice"; voice_file: string; duration: number | null; previous: number | null }
  | { kind: "modified"; voice_file: string }
  | { kind: "upload_failed"; message: string }
  | { kind: "other" };

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null;
const isNumber = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v);
const isString = (v: unknown): v is string => typeof v === "string";

function isVersion(v: unknown): boolean {
  return isRecord(v) && isNumber(v.version) && isString(v.label) && isNumber(v.at);
}

/** `versions` of a Restored or a VersionsReply: where undo and redo stand. */
export function isVersions(v: unknown): v is Versions {
  return (
    isRecord(v) &&
    Array.isArray(v.undo) &&
    v.undo.every(isVersion) &&
    Array.isArray(v.redo) &&
    v.redo.every(isVersion) &&
    isNumber(v.retained) &&
    (v.current === undefined || v.current === null || isVersion(v.current))
  );
}

export function isRestored(v: unknown): v is Restored {
  return isRecord(v) && v.object === "video_version" && isString(v.step) && isVersion(v.version) && isVersions(v.versions);
}

export function isArranged(v: unknown): v is Arranged {
  const scene = (o: unknown) => isRecord(o) && isString(o.voice_file) && isNumber(o.id) && isNumber(o.duration);
  return isRecord(v) && v.object === "scene_arrangement" && isString(v.change) && Array.isArray(v.scenes) && v.scenes.every(scene);
}

/** A voice upload's new length and, when the message says it, the old one (seconds). */
function voice(m: Record<string, unknown>): Message {
  const applied = isRecord(m.applied) ? m.applied : {};
  return {
    kind: "voice",
    voice_file: isString(m.voice_file) ? m.voice_file : "",
    duration: isNumber(applied.duration) ? applied.duration : null,
    previous: isNumber(applied.previous_duration) ? applied.previous_duration : null,
  };
}

/** One event of the stream, by its name and its data (the message's JSON text). */
export function parseMessage(name: string, data: string): Message {
  let m: unknown;
  try {
    m = JSON.parse(data);
  } catch {
    return { kind: "other" };
  }
  if (!isRecord(m)) return { kind: "other" };
  switch (name) {
    case "version_restored":
      return isRestored(m) ? { kind: "restored", versions: m.versions } : { kind: "other" };
    case "scenes_changed":
      return isArranged(m) ? { kind: "arranged", arranged: m } : { kind: "other" };
    case "scene_voice_upload_applied":
      return voice(m);
    case "scene_modified":
      return { kind: "modified", voice_file: isString(m.voice_file) ? m.voice_file : "" };
    case "scene_upload_failed": {
      const error = isRecord(m.error) ? m.error : {};
      return { kind: "upload_failed", message: isString(error.message) ? error.message : "unknown reason" };
    }
    default:
      return { kind: "other" };
  }
}

/** The sentence a voice upload that changed its scene's length gets: "Scene 2 is now 4.0 s long
 * (was 7.0 s): the uploaded voice is shorter." Empty when the length stayed (within 0.05 s). */
export function lengthSentence(number: number, now: number, was: number): string {
  if (Math.abs(now - was) < 0.05) return "";
  const way = now < was ? "shorter" : "longer";
  return `Scene ${number} is now ${now.toFixed(1)} s long (was ${was.toFixed(1)} s): the uploaded voice is ${way}.`;
}
