// The editor's state in one place: what the server said (the view, its versions), what the
// person is doing (the selected scene, the playhead, what plays, text typed but not applied, the
// box the arrow keys move) and what the page says (the note and the error). `reduce` is pure;
// `createStore` holds one state, and the page and the live inspector both read it from there,
// so the inspector sees a change as soon as it is dispatched. Selectors below answer what the
// page shows (canUndo, the selected scene, the scenes with text not applied, …).
import type { Arranged, EditorView, Geometry, Rect, Scene, Version, Versions } from "./api";
import type { Target } from "./stage";

/** A nudge drawn at once and sent as one edit when the arrow keys rest. */
export interface Nudge { target: Target; rect: Rect; voice_file: string }
/** What plays: the selected scene's clip, or the whole video from `from` seconds. */
export type Playing = { kind: "scene"; url: string } | { kind: "whole"; url: string; from: number };
/** A scene's fresh preview clip after an edit, and how long it took. */
export interface Fresh { key: string; ms: number; cached: boolean }
/** Where a scene sits in the whole video. */
export interface Span { voice_file: string; start: number; duration: number }

export interface EditorState {
  view: EditorView;
  /** The selected scene's voice_file ("" when the video has no scenes). */
  selected: string;
  /** Seconds into the selected scene; null shows the scene's representative still. */
  time: number | null;
  /** Seconds into the whole video. */
  playhead: number;
  playing: Playing | null;
  /** The server's undo and redo stacks, as its last answer gave them. */
  versions: Versions | null;
  /** Narration typed but not applied, per scene (by voice_file): it survives a scene switch. */
  drafts: Record<string, string>;
  geometry: Geometry | null;
  picked: Target | null;
  nudge: Nudge | null;
  note: string;
  error: string;
  fresh: Fresh | null;
  guides: boolean;
}

export type Action =
  | { type: "loaded"; view: EditorView }
  | { type: "versions"; versions: Versions }
  | { type: "arranged"; arranged: Arranged }
  | { type: "select"; index: number }
  | { type: "selectScene"; voice_file: string }
  | { type: "play"; playing: Playing }
  | { type: "paused"; at: number }
  | { type: "ended" }
  | { type: "tick"; t: number }
  | { type: "seek"; t: number }
  | { type: "seekVideo"; t: number }
  | { type: "typed"; voice_file: string; text: string }
  | { type: "textApplied"; voice_file: string; sent: string }
  | { type: "geometry"; geometry: Geometry | null }
  | { type: "pick"; target: Target | null }
  | { type: "nudge"; nudge: Nudge | null }
  | { type: "note"; note: string }
  | { type: "error"; error: string }
  | { type: "fresh"; fresh: Fresh }
  | { type: "guides"; on: boolean };

export function initialState(view: EditorView, guides = true): EditorState {
  return {
    view,
    selected: view.scenes[0]?.voice_file ?? "",
    time: null,
    playhead: 0,
    playing: null,
    versions: null,
    drafts: {},
    geometry: null,
    picked: null,
    nudge: null,
    note: "",
    error: "",
    fresh: null,
    guides,
  };
}

/** Where each scene starts, from the scenes' durations (the server's whole preview agrees). */
export function spansOf(scenes: { voice_file: string; duration: number }[]): Span[] {
  let start = 0;
  return scenes.map((s) => {
    const span = { voice_file: s.voice_file, start, duration: s.duration };
    start += s.duration;
    return span;
  });
}

/** The scene playing at `t` seconds into the video. */
export function sceneAt(spans: Span[], t: number): number {
  let i = 0;
  while (i + 1 < spans.length && spans[i + 1].start <= t) i++;
  return i;
}

// Selectors.
export const scenes = (s: EditorState): Scene[] => s.view.scenes;
export const selectedIndex = (s: EditorState): number => Math.max(0, s.view.scenes.findIndex((c) => c.voice_file === s.selected));
export const selectedScene = (s: EditorState): Scene | undefined => s.view.scenes[selectedIndex(s)];
export const spans = (s: EditorState): Span[] => spansOf(s.view.scenes);
/** Where the selected scene starts in the whole video. */
export const sceneStart = (s: EditorState): number => spans(s)[selectedIndex(s)]?.start ?? 0;
export const canUndo = (s: EditorState): boolean => (s.versions?.undo.length ?? 0) > 0;
export const canRedo = (s: EditorState): boolean => (s.versions?.redo.length ?? 0) > 0;
/** The change an undo takes back (the current version's), and the one a redo makes again. */
export const undoLabel = (s: EditorState): string => describe(s.versions?.current?.label);
export const redoLabel = (s: EditorState): string => describe(s.versions?.redo[0]?.label);
/** The narration shown for a scene: what was typed, else its text. */
export const textOf = (s: EditorState, scene: Scene): string => s.drafts[scene.voice_file] ?? scene.text;
/** The scenes (1-based numbers) whose typed text differs from their applied text. */
export const unapplied = (s: EditorState): number[] =>
  s.view.scenes.flatMap((c, i) => (s.drafts[c.voice_file] !== undefined && s.drafts[c.voice_file].trim() !== c.text.trim() ? [i + 1] : []));
/** Edits staged in the edit session, not yet saved. */
export const unsaved = (s: EditorState): number => s.view.edit_session.staged_writes ?? 0;

/** An edit's version label (`edit::versions`) in words. */
export function describe(label: Version["label"] | undefined): string {
  const said: Record<string, string> = {
    layout: "the move",
    background: "the background swap",
    voice_upload: "the voice upload",
    narrator_video: "the narrator video",
    roll: "the roll switch",
    segment_text: "the text change",
    metadata: "the details change",
    disable_overlay: "disabling the overlay",
    video_settings: "the video settings",
    revoice: "the re-voice",
    reorder: "the new order",
    delete: "the deleted scene",
    add: "the added scene",
  };
  return (label && said[label]) || "the last change";
}

/** "scene 2", "scenes 1 and 3", "scenes 1, 2 and 4". */
export function sceneList(numbers: number[]): string {
  if (numbers.length === 1) return `scene ${numbers[0]}`;
  return `scenes ${numbers.slice(0, -1).join(", ")} and ${numbers[numbers.length - 1]}`;
}

/** The header's line about unapplied text and unsaved edits. */
export function sessionLine(s: EditorState): string {
  const n = unsaved(s);
  const saved = n > 0 ? `${n} unsaved change${n > 1 ? "s" : ""}` : "All changes saved";
  const typed = unapplied(s);
  if (!typed.length) return saved;
  const line = `Text not applied in ${sceneList(typed)}`;
  return n > 0 ? `${line} · ${saved}` : line;
}

/** The scene at `index` selected from its start, nothing playing or picked. */
function selectAt(s: EditorState, index: number): EditorState {
  const scene = s.view.scenes[index];
  if (!scene) return s;
  const start = spans(s)[index]?.start ?? 0;
  return { ...s, selected: scene.voice_file, time: null, playing: null, playhead: start, error: "", picked: null };
}

/** A new view: the selected scene stays selected; if it is gone, its neighbour at the same place. */
function loaded(s: EditorState, view: EditorView): EditorState {
  const at = selectedIndex(s);
  const kept = view.scenes.some((c) => c.voice_file === s.selected);
  const selected = kept ? s.selected : (view.scenes[Math.min(at, view.scenes.length - 1)]?.voice_file ?? "");
  const live = new Set(view.scenes.map((c) => c.voice_file));
  const drafts = Object.fromEntries(Object.entries(s.drafts).filter(([vf]) => live.has(vf)));
  return { ...s, view, selected, drafts, ...(kept ? {} : { time: null, playing: null, picked: null, nudge: null }) };
}

/** A reorder, delete or re-voice: the scenes in their new order, numbered again from 1, with
 * their new lengths. A scene the view does not hold yet (one just added) comes with the reload. */
function arranged(s: EditorState, a: Arranged): EditorState {
  const known = new Map(s.view.scenes.map((c) => [c.voice_file, c]));
  const next = a.scenes.flatMap((o, i) => {
    const c = known.get(o.voice_file);
    return c ? [{ ...c, id: String(o.id), order_id: o.id, scene_index: i, duration: o.duration }] : [];
  });
  return loaded(s, { ...s.view, scenes: next });
}

/** The video's time update: playing the whole video, the selection follows the playhead. */
function tick(s: EditorState, t: number): EditorState {
  if (s.playing?.kind !== "whole") return { ...s, time: t, playhead: sceneStart(s) + t };
  const all = spans(s);
  const i = sceneAt(all, t);
  return { ...s, playhead: t, selected: all[i]?.voice_file ?? s.selected, time: t - (all[i]?.start ?? 0) };
}

/** Stopped, a click on the whole video's timeline: the still of that moment, in its scene. */
function seekVideo(s: EditorState, t: number): EditorState {
  const i = sceneAt(spans(s), t);
  const base = i === selectedIndex(s) ? s : selectAt(s, i);
  return { ...base, playhead: t, time: t - (spans(s)[i]?.start ?? 0) };
}

/** Paused at `at` seconds of the playing video: the still of that moment. */
function paused(s: EditorState, at: number): EditorState {
  const time = s.playing?.kind === "whole" ? Math.max(0, at - sceneStart(s)) : at;
  return { ...s, playing: null, time };
}

/** A seek within the selected scene (it stops what plays). */
function seek(s: EditorState, t: number): EditorState {
  const time = Math.max(0, Math.min(t, selectedScene(s)?.duration ?? 0));
  return { ...s, playing: null, time, playhead: sceneStart(s) + time };
}

/** Applied text: its draft goes, unless more was typed meanwhile. */
function textApplied(s: EditorState, vf: string, sent: string): EditorState {
  if (s.drafts[vf] !== sent) return s;
  const { [vf]: _, ...rest } = s.drafts;
  return { ...s, drafts: rest };
}

export function reduce(s: EditorState, a: Action): EditorState {
  switch (a.type) {
    case "loaded":
      return loaded(s, a.view);
    case "versions":
      return { ...s, versions: a.versions };
    case "arranged":
      return arranged(s, a.arranged);
    case "select":
      return selectAt(s, a.index);
    case "selectScene":
      return selectAt(s, s.view.scenes.findIndex((c) => c.voice_file === a.voice_file));
    case "play":
      return { ...s, playing: a.playing };
    case "paused":
      return paused(s, a.at);
    case "ended":
      return { ...s, playing: null, time: 0 };
    case "tick":
      return tick(s, a.t);
    case "seek":
      return seek(s, a.t);
    case "seekVideo":
      return seekVideo(s, a.t);
    case "typed":
      return { ...s, drafts: { ...s.drafts, [a.voice_file]: a.text } };
    case "textApplied":
      return textApplied(s, a.voice_file, a.sent);
    case "geometry":
      return { ...s, geometry: a.geometry };
    case "pick":
      return { ...s, picked: a.target };
    case "nudge":
      return { ...s, nudge: a.nudge };
    case "note":
      return { ...s, note: a.note };
    case "error":
      return { ...s, error: a.error };
    case "fresh":
      return { ...s, fresh: a.fresh };
    case "guides":
      return { ...s, guides: a.on, picked: a.on ? s.picked : null };
  }
}

export interface Store {
  get(): EditorState;
  dispatch(action: Action): void;
  /** Calls `listener` after every change; returns the unsubscribe. */
  subscribe(listener: () => void): () => void;
}

export function createStore(initial: EditorState): Store {
  let state = initial;
  const listeners = new Set<() => void>();
  return {
    get: () => state,
    dispatch(action) {
      const next = reduce(state, action);
      if (next === state) return;
      state = next;
      listeners.forEach((l) => l());
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
