// What the editor's buttons, keys and messages do: each command calls the API through the
// typed client and dispatches what came back to the store. Work under way is said in the note
// ("…"), a refusal in the error, both in the page's fixed message area.
import { api, words, type Arranged, type FieldEdits, type Rect } from "./api";
import { lengthSentence, type Message } from "./messages";
import { nudged, rectOf, sameTarget, type Target } from "./stage";
import { describe, sceneAt, sceneStart, selectedIndex, selectedScene, spans, textOf, type Store } from "./store";

/** One frame of the 30 fps video, the step of Shift+←/→. */
const FRAME = 1 / 30;
/** A nudge is sent once the arrow keys have been still this long. */
const NUDGE_IDLE_MS = 400;

/** The modify_scene edit a box's new rect makes. */
export function editOf(target: Target, rect: Rect): FieldEdits {
  if (target.kind === "caption") return [{ field_name: "overlay.caption.y", value: rect.y }];
  if (target.kind === "object") return [{ field_name: "remotion.object.rect", value: { layout_id: target.layoutId ?? "", ...rect, coordinate_space: "preview" } }];
  return [{ field_name: "overlay.narrator.rect", value: rect }];
}

export const boxName = (t: Target) => (t.kind === "object" ? (t.layoutId ?? "object") : t.kind);

export type UploadKind = "voice" | "narrator" | "overlay";
/** The edit an uploaded file's URL makes, and what the note says meanwhile. */
function uploadEdit(kind: UploadKind, url: string): { fields: FieldEdits; doing: string } {
  if (kind === "voice") return { fields: [{ field_name: "voice.upload", value: url }], doing: "Applying the new voice" };
  if (kind === "narrator") return { fields: [{ field_name: "narrator.upload_video", value: url }], doing: "Applying the narrator video" };
  return { fields: [{ field_name: "remotion.upload_overlay", value: url }], doing: "Applying the overlay" };
}

export type Commands = ReturnType<typeof commands>;

/** The editor's commands over `store`; `video` is the stage's playing video, when one plays. */
export function commands(store: Store, video: { current: HTMLVideoElement | null }) {
  const { dispatch } = store;
  const note = (text: string) => dispatch({ type: "note", note: text });
  const fail = (e: unknown) => dispatch({ type: "error", error: words(e) });
  const loadVersions = () => api.versions().then((versions) => dispatch({ type: "versions", versions }), fail);
  const reload = async () => {
    const view = await api.data();
    dispatch({ type: "loaded", view });
    loadVersions();
    return view;
  };
  const loadGeometry = async (vf: string) => {
    try {
      dispatch({ type: "geometry", geometry: await api.geometry(vf) });
    } catch (e) {
      fail(e);
    }
  };
  /** Runs `work` saying `what…` meanwhile; a failure is said in words. Null when it failed. */
  const doing = async <T>(what: string, work: () => Promise<T>): Promise<T | null> => {
    dispatch({ type: "error", error: "" });
    note(what + "…");
    try {
      return await work();
    } catch (e) {
      note("");
      fail(e);
      return null;
    }
  };

  const playback = playbackCommands(store, video, { note, fail, flush: () => nudges.flush() });
  const edits = editCommands(store, { note, fail, reload, loadGeometry, doing });
  const nudges = nudgeCommands(store, edits.modifyOn);
  const simple = {
    state: store.get,
    typed: (voice_file: string, text: string) => dispatch({ type: "typed", voice_file, text }),
    guides: (on: boolean) => dispatch({ type: "guides", on }),
    dismiss: () => dispatch({ type: "error", error: "" }),
    clearNudge: () => dispatch({ type: "nudge", nudge: null }),
  };
  return { reload, loadVersions, loadGeometry, fail, note, ...simple, ...playback, ...edits, ...nudges };
}

interface Say {
  note: (text: string) => void;
  fail: (e: unknown) => void;
  flush: () => void;
}

/** Selecting, playing, pausing and seeking. */
function playbackCommands(store: Store, video: { current: HTMLVideoElement | null }, say: Say) {
  const { dispatch, get } = store;
  const select = (index: number) => {
    say.flush();
    dispatch({ type: "select", index });
  };
  // The whole video, from our own renders: every scene's half-size chunk joined under one
  // soundtrack (the server renders again only the scenes an edit changed).
  const playAll = async (from: number) => {
    try {
      say.note("Preparing the whole video…");
      const w = await api.whole();
      dispatch({ type: "play", playing: { kind: "whole", url: w.url, from } });
      say.note(w.cached ? "" : `Whole video rendered in ${(w.render_ms / 1000).toFixed(1)} s`);
    } catch (e) {
      say.note("");
      say.fail(e);
    }
  };
  const play = async () => {
    const s = selectedScene(get());
    if (!s) return;
    try {
      say.note("Preparing the preview…");
      const c = await api.preview(s.voice_file);
      dispatch({ type: "play", playing: { kind: "scene", url: c.url } });
      say.note(c.cached ? "" : `Preview rendered in ${c.render_ms} ms`);
    } catch (e) {
      say.note("");
      say.fail(e);
    }
  };
  const pause = () => dispatch({ type: "paused", at: video.current?.currentTime ?? get().time ?? 0 });
  const togglePlayAll = () => {
    const s = get();
    if (s.playing) pause();
    else playAll(sceneStart(s) + (s.time ?? 0));
  };
  // A click on the timeline: the playing video jumps there; stopped, the still of that moment.
  const seekVideo = (t: number) => {
    if (get().playing?.kind === "whole" && video.current) video.current.currentTime = t;
    else {
      if (selectedIndex(get()) !== sceneAt(spans(get()), t)) say.flush();
      dispatch({ type: "seekVideo", t });
    }
  };
  const seek = (t: number) => dispatch({ type: "seek", t });
  // Shift+←/→: one frame back or on, in the still (playing pauses first).
  const stepFrame = (way: 1 | -1) => {
    if (get().playing) pause();
    const t = get().time ?? 0;
    seek(Math.round((t + way * FRAME) * 1000) / 1000);
  };
  const onTime = (t: number) => dispatch({ type: "tick", t });
  const ended = () => dispatch({ type: "ended" });
  return { select, play, playAll, pause, togglePlayAll, seek, seekVideo, stepFrame, onTime, ended };
}

interface EditDeps {
  note: (text: string) => void;
  fail: (e: unknown) => void;
  reload: () => Promise<unknown>;
  loadGeometry: (vf: string) => Promise<void>;
  doing: <T>(what: string, work: () => Promise<T>) => Promise<T | null>;
}

/** Edits of scenes: modify_scene, text, re-voice, order, uploads, undo and redo, save. */
function editCommands(store: Store, d: EditDeps) {
  const { dispatch, get } = store;
  // After an edit: ask for the scene's fresh preview clip and time edit → clip.
  const refreshPreview = async (vf: string, since: number) => {
    try {
      const c = await api.preview(vf);
      dispatch({ type: "fresh", fresh: { key: c.key, ms: Math.round(performance.now() - since), cached: c.cached } });
    } catch (e) {
      d.fail(e);
    }
  };
  /** Sends edits of one scene; true when they were applied. */
  const modifyOn = async (vf: string, fields: FieldEdits, what: string): Promise<boolean> => {
    const since = performance.now();
    const done = await d.doing(what, async () => {
      await api.modify(vf, fields);
      await d.reload();
      return true;
    });
    if (done) {
      // Unless a newer message took its place (a voice upload can apply before this returns).
      if (get().note === what + "…") d.note(what + " — done");
      refreshPreview(vf, since);
    } else if (selectedScene(get())?.voice_file === vf) d.loadGeometry(vf);
    return done ?? false;
  };
  const modify = (fields: FieldEdits, what: string) => {
    const s = selectedScene(get());
    return s ? modifyOn(s.voice_file, fields, what) : Promise.resolve(false);
  };
  // Scene changes modify_scene has no branch for; each one is undoable.
  const arrange = async (what: string, run: () => Promise<Arranged>) => {
    const r = await d.doing(what, run);
    if (!r) return null;
    dispatch({ type: "arranged", arranged: r });
    await d.reload().catch(d.fail);
    const len = r.duration;
    d.note(len ? `${what} — the scene is now ${len.to.toFixed(1)} s (was ${len.from.toFixed(1)} s)` : what + " — done");
    return r;
  };
  const revoice = (vf: string) => arrange("Speaking the new text", () => api.revoice(vf));
  const move = async (by: number) => {
    const s = get();
    const at = selectedIndex(s);
    const to = at + by;
    if (to < 0 || to >= s.view.scenes.length) return;
    const order = s.view.scenes.map((c) => c.voice_file);
    const [vf] = order.splice(at, 1);
    order.splice(to, 0, vf);
    await arrange(by < 0 ? "Moving the scene earlier" : "Moving the scene later", () => api.reorder(order));
  };
  const remove = async () => {
    const s = get();
    const scene = selectedScene(s);
    if (!scene || s.view.scenes.length < 2) return;
    await arrange(`Deleting scene ${selectedIndex(s) + 1}`, () => api.deleteScene(scene.voice_file));
  };
  // A new scene after the selected one, spoken with the video's voice; it is selected once added.
  const addScene = async (text: string) => {
    const after = selectedScene(get())?.voice_file ?? null;
    const r = await arrange("Speaking the new scene", () => api.addScene(text, after));
    const added = r?.added;
    if (!added) return false;
    dispatch({ type: "selectScene", voice_file: added.voice_file });
    d.note(`Scene ${added.id} added (${added.duration.toFixed(1)} s)`);
    return true;
  };
  // Applying text keeps the recorded audio (timings rebuilt over it), or also speaks the new
  // text with the video's voice, which changes the scene's length.
  const applyText = async (speak: boolean) => {
    const scene = selectedScene(get());
    if (!scene) return;
    const vf = scene.voice_file;
    const sent = textOf(get(), scene);
    if (await modifyOn(vf, [{ field_name: "segment.text", value: sent }], "Updating the narration")) {
      dispatch({ type: "textApplied", voice_file: vf, sent });
      if (speak) await revoice(vf);
    }
  };
  return { modifyOn, modify, revoice, move, remove, addScene, applyText, ...uploadCommands(store, d, modify), ...historyCommands(store, d) };
}

/** Uploads: the file is stored first, then its URL is the edit's value. A voice and a narrator
 * video apply in the background, and the realtime stream says when they did. */
function uploadCommands(store: Store, d: EditDeps, modify: (fields: FieldEdits, what: string) => Promise<boolean>) {
  // Each scene's length when its voice upload started (for the message when it applies).
  const lengthBefore = new Map<string, number>();
  const upload = async (kind: UploadKind, file: File) => {
    const scene = selectedScene(store.get());
    if (!scene) return;
    const stored = await d.doing(`Uploading ${file.name}`, () => api.upload(file));
    if (!stored) return;
    if (kind === "voice") lengthBefore.set(scene.voice_file, scene.duration);
    const edit = uploadEdit(kind, stored.url);
    await modify(edit.fields, edit.doing);
  };
  // An applied voice upload that changed its scene's length says so in the message area.
  const voiceApplied = async (m: Extract<Message, { kind: "voice" }>) => {
    const before = store.get().view.scenes.find((c) => c.voice_file === m.voice_file)?.duration;
    const was = m.previous ?? lengthBefore.get(m.voice_file) ?? before;
    lengthBefore.delete(m.voice_file);
    const view = await d.reload().then(() => store.get().view, d.fail);
    const index = view ? view.scenes.findIndex((c) => c.voice_file === m.voice_file) : -1;
    const now = m.duration ?? view?.scenes[index]?.duration;
    if (index < 0 || now === undefined || was === undefined) return;
    const said = lengthSentence(index + 1, now, was);
    if (said) d.note(said);
  };
  return { upload, voiceApplied };
}

/** Undo and redo restore a version the server keeps, as a new version: they work the same for
 * every edit and survive a reload. Save commits the edit session and opens the next. */
function historyCommands(store: Store, d: EditDeps) {
  const step = async (way: "undo" | "redo") => {
    const v = store.get().versions;
    const label = way === "undo" ? v?.current?.label : v?.redo[0]?.label;
    if (!(way === "undo" ? v?.undo.length : v?.redo.length)) return;
    const r = await d.doing(`${way === "undo" ? "Undoing" : "Redoing"} ${describe(label)}`, () => (way === "undo" ? api.undo() : api.redo()));
    if (!r) return;
    store.dispatch({ type: "versions", versions: r.versions });
    await d.reload().catch(d.fail);
    d.note(way === "undo" ? "Undone" : "Redone");
  };
  const save = async () => {
    const done = await d.doing("Saving", async () => {
      await api.session("commit");
      await api.session("start");
      await d.reload();
      return true;
    });
    if (done) d.note("Saved");
  };
  return { step, save };
}

/** The box the arrow keys nudge: drawn at once, sent as one edit (the one a drag sends) once
 * the keys rest. */
function nudgeCommands(store: Store, modifyOn: (vf: string, fields: FieldEdits, what: string) => Promise<boolean>) {
  const { dispatch, get } = store;
  let timer: number | undefined;
  const send = () => {
    window.clearTimeout(timer);
    timer = undefined;
    const n = get().nudge;
    if (!n) return;
    modifyOn(n.voice_file, editOf(n.target, n.rect), `Moving the ${boxName(n.target)}`).then((ok) => {
      if (!ok && timer === undefined) dispatch({ type: "nudge", nudge: null });
    });
  };
  const flush = () => {
    if (timer !== undefined) send();
  };
  const rest = () => {
    window.clearTimeout(timer);
    timer = window.setTimeout(send, NUDGE_IDLE_MS);
  };
  const waiting = () => timer !== undefined;
  // A click on a box selects it for the arrow keys.
  const pick = (t: Target | null) => {
    if (!sameTarget(t, get().picked)) flush();
    dispatch({ type: "pick", target: t });
  };
  const nudgeBy = (dx: number, dy: number) => {
    const s = get();
    const scene = selectedScene(s);
    if (!s.picked || !scene) return;
    const from = s.nudge && sameTarget(s.nudge.target, s.picked) ? s.nudge.rect : rectOf(s.geometry, s.picked);
    if (!from) return;
    const rect = nudged(s.picked, from, dx, dy);
    if (JSON.stringify(rect) === JSON.stringify(from)) return;
    dispatch({ type: "nudge", nudge: { target: s.picked, rect, voice_file: scene.voice_file } });
    rest();
  };
  return { pick, nudgeBy, flush, rest, waiting };
}
