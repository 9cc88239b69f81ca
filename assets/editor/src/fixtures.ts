// Data for the unit tests only (never imported by the app): an editor view, its scenes and
// the server's answers, typed by the generated schema, so a change of the API that breaks a
// fixture breaks the typecheck too.
import type { Arranged, EditorView, Restored, Scene, Status, Version, Versions } from "./api";

const rect = { x: 0, y: 0, w: 10, h: 10 };

/** A scene record as the data route sends it, with the fields a test cares about. */
export function scene(voice_file: string, duration: number, text: string, index: number): Scene {
  return {
    voice_file,
    scene_uid: voice_file,
    id: String(index + 1),
    order_id: index + 1,
    scene_index: index,
    type: "A-roll",
    active_roll: "A-roll",
    scene_type: "",
    text,
    talking_point: "",
    visual: "",
    quote: "",
    keyword: "harbour",
    pattern: "",
    typography_only: false,
    duration,
    mediaUrl: "",
    mediaType: "image",
    thumbnailUrl: "",
    brollUrl: "",
    brollThumbnailUrl: "",
    user_asset_url: "",
    broll_source: "",
    audio_url: "",
    show_narrator: true,
    overlay: { caption: { rect }, narrator: { rect, touched: false, visible: true } },
    narrator: {},
    remotion_spec: "",
    remotion_spec_file: "",
    remotion_spec_url: "",
    remotion_spec_version: "",
    remotion_spec_exists: true,
    remotion_spec_state: "ready",
    agent_meta: {
      coordinate_spaces: { "overlay.caption.rect": "preview", "overlay.narrator.rect": "preview", remotion_spec: "canvas" },
      order_field: "order_id",
      order_value: index + 1,
      remotion_spec: { exists: true, file: "", state: "ready", url: "", version: "" },
      scene_index: index,
      stable_scene_id: voice_file,
      stable_scene_id_field: "voice_file",
    },
  };
}

const status: Status = {
  object: "status",
  id: "wcTest",
  topic_id: "wcTest",
  type: "video",
  status: "completed",
  progress: 1,
  stage: "scenes_ready_for_review",
  output_type: "scene",
  details: { step: 0 },
  metadata: {},
  result: {},
  created_at: "2025-01-01T00:00:00Z",
  updated_at: "2025-01-01T00:00:00Z",
};

/** A video of three scenes of 2, 3 and 4 seconds: a.wav, b.wav, c.wav. */
export function view(staged = 0): EditorView {
  return {
    object: "editor_view",
    topic_id: "wcTest",
    title: "Harbours",
    mode: "scenes",
    status,
    edit_session: { active: true, staged_writes: staged },
    scenes: [scene("a.wav", 2, "First scene.", 0), scene("b.wav", 3, "Second scene.", 1), scene("c.wav", 4, "Third scene.", 2)],
  };
}

export const version = (n: number, label: string): Version => ({ version: n, label, at: 1700000000 + n });

export function versions(current: Version | null, undo: Version[], redo: Version[]): Versions {
  return { current, undo, redo, retained: 50 };
}

export function restored(step: "undo" | "redo", now: Versions): Restored {
  return { object: "video_version", id: "wcTest", step, version: now.current ?? version(0, "built"), versions: now };
}

/** The answer of a reorder, delete or add: every scene, in order, numbered from 1. */
export function arranged(change: Arranged["change"], order: [string, number][]): Arranged {
  return { object: "scene_arrangement", id: "wcTest", change, scenes: order.map(([voice_file, duration], i) => ({ voice_file, id: i + 1, duration })) };
}
