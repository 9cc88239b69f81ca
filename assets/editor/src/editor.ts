// The scene editor at review_url: scene list, the selected scene's preview with its boxes,
// the word timeline, edits, the edit session, live updates from the other open editors,
// export with progress, and the live-inspector controller.
import { html } from "htm/preact";
import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import { api, sceneVersion, stillUrl, topic, url, words, type EditorView, type Finding, type PreviewClip, type Rect, type Scene, type Status, type Versions, type Arranged } from "./api";
import { Stage, measure, nudged, rectOf, sameTarget, type Target } from "./stage";
import * as live from "./live";
import { ExportBar, ExportResult, useExport } from "./export";
import { Broll } from "./broll";
import { VideoTimeline, sceneAt, spansOf } from "./timeline";
import { findingSentence, firstWords, overlaySentence } from "./plain";

/** One frame of the 30 fps video, the step of Shift+←/→. */
const FRAME = 1 / 30;
/** A nudge is sent once the arrow keys have been still this long. */
const NUDGE_IDLE_MS = 400;
const GUIDES_KEY = "reelsmith.editor.guides";
/** An arrow key's direction (x, y). */
const ARROWS: Record<string, [number, number] | undefined> = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };

/** Inputs that are pressed, not typed in: the page's keys work on them (Space stays theirs). */
const PRESSED_INPUTS = new Set(["checkbox", "radio", "button", "submit", "reset", "file", "color"]);

/** A text field, a slider, a list or a video with controls: it keeps its own keys. */
const keepsItsKeys = (target: EventTarget | null) => {
  const el = target as HTMLElement | null;
  if (!el?.tagName) return false;
  if (el.isContentEditable || el.tagName === "TEXTAREA" || el.tagName === "SELECT" || el.tagName === "VIDEO") return true;
  return el.tagName === "INPUT" && !PRESSED_INPUTS.has((el as HTMLInputElement).type);
};
/** A button or a checkbox: Space and Enter press it. */
const isPressable = (target: EventTarget | null) => {
  const el = target as HTMLElement | null;
  return el?.tagName === "BUTTON" || (el?.tagName === "INPUT" && PRESSED_INPUTS.has((el as HTMLInputElement).type));
};

/** A choice kept in this browser (none where storage is blocked, as in some frames). */
function remembered(key: string): string | null {
  try {
    return localStorage.getItem(key);
  } catch {
    return null;
  }
}
function remember(key: string, value: string) {
  try {
    localStorage.setItem(key, value);
  } catch {
    /* kept for this page only */
  }
}

/** "scene 2", "scenes 1 and 3", "scenes 1, 2 and 4". */
function sceneList(numbers: number[]): string {
  if (numbers.length === 1) return `scene ${numbers[0]}`;
  return `scenes ${numbers.slice(0, -1).join(", ")} and ${numbers[numbers.length - 1]}`;
}

const EDIT_FIELD: Record<string, string> = {
  narrator: "overlay.narrator.rect",
  caption: "overlay.caption.y",
  object: "remotion.object.rect",
};

function editOf(target: Target, rect: Rect): { field_name: string; value: unknown } {
  if (target.kind === "caption") return { field_name: EDIT_FIELD.caption, value: rect.y };
  if (target.kind === "object") return { field_name: EDIT_FIELD.object, value: { layout_id: target.layoutId, ...rect, coordinate_space: "preview" } };
  return { field_name: EDIT_FIELD.narrator, value: rect };
}

const UPLOADS = [
  { key: "voice", label: "Voice", accept: "audio/*", field: "voice.upload", doing: "Applying the new voice" },
  { key: "narrator", label: "Narrator video", accept: "video/*", field: "narrator.upload_video", doing: "Applying the narrator video" },
  { key: "overlay", label: "Overlay (SVG or image)", accept: "image/*,.svg", field: "remotion.upload_overlay", doing: "Applying the overlay" },
] as const;

export function Editor(props: { initial: EditorView; onReload: () => Promise<EditorView> }) {
  const [view, setView] = useState<EditorView>(props.initial);
  const [sel, setSel] = useState(0);
  const [geometry, setGeometry] = useState<any>(null);
  const [time, setTime] = useState<number | null>(null);
  const [playing, setPlaying] = useState(false);
  const [clip, setClip] = useState<PreviewClip | null>(null);
  const [error, setError] = useState("");
  const [note, setNote] = useState("");
  const [fresh, setFresh] = useState<{ key: string; ms: number; cached: boolean } | null>(null);
  // Narration typed but not applied, per scene (by voice_file): it survives a scene switch.
  const [drafts, setDrafts] = useState<Record<string, string>>({});
  const [media, setMedia] = useState("");
  const [versions, setVersions] = useState<Versions | null>(null);
  // The whole video playing: its URL and where to start; the playhead in video seconds.
  const [whole, setWhole] = useState<{ url: string; from: number } | null>(null);
  const [playhead, setPlayhead] = useState(0);
  const video = useRef<HTMLVideoElement | null>(null);
  const [guides, setGuides] = useState(() => remembered(GUIDES_KEY) !== "off");
  // The box the arrow keys nudge; a nudge shown but not yet sent, and its timer.
  const [picked, setPicked] = useState<Target | null>(null);
  const [nudge, setNudge] = useState<{ target: Target; rect: Rect; voice_file: string } | null>(null);
  const nudgeTimer = useRef<number | undefined>(undefined);
  const scenes = view.scenes;
  const scene: Scene | undefined = scenes[Math.min(sel, scenes.length - 1)];
  const version = scene ? sceneVersion(scene) : "";
  const spans = useMemo(() => spansOf(scenes), [scenes]);
  const stateRef = useRef({
    sel,
    scene,
    playing,
    time,
    scenes,
    versions: null as Versions | null,
    whole: null as { url: string; from: number } | null,
    spans,
    geometry: null as any,
    picked: null as Target | null,
    nudge: null as { target: Target; rect: Rect; voice_file: string } | null,
  });
  stateRef.current = { sel, scene, playing, time, scenes, versions, whole, spans, geometry, picked, nudge };

  const fail = (e: unknown) => setError(words(e));
  const loadVersions = () => api.versions().then(setVersions, fail);
  const reload = async () => {
    const v = await props.onReload();
    setView(v);
    loadVersions();
    return v;
  };
  const loadGeometry = async (vf: string) => {
    try {
      setGeometry(await api.geometry(vf));
    } catch (e) {
      fail(e);
    }
  };

  useEffect(() => {
    if (scene) loadGeometry(scene.voice_file);
  }, [scene?.voice_file, version]);
  // A nudge stays drawn until the geometry it sent comes back (unless another is waiting).
  useEffect(() => {
    if (nudgeTimer.current === undefined) setNudge(null);
  }, [geometry]);
  useEffect(() => {
    document.title = view.title || "Video";
  }, [view.title]);
  useEffect(() => remember(GUIDES_KEY, guides ? "on" : "off"), [guides]);

  // Other editors' edits arrive on the realtime stream.
  useEffect(() => {
    const events = new EventSource(url("/events"));
    const refresh = () => reload().catch(fail);
    events.addEventListener("scene_modified", refresh);
    events.addEventListener("scene_voice_upload_applied", refresh);
    events.addEventListener("version_restored", refresh);
    events.addEventListener("scenes_changed", refresh);
    loadVersions();
    events.addEventListener("scene_upload_failed", (ev) => {
      setError("An upload could not be applied: " + (JSON.parse((ev as MessageEvent).data).message ?? "unknown reason"));
      refresh();
    });
    return () => events.close();
  }, []);

  // State changes are mirrored into stateRef at once, so the live inspector reads them
  // before the next render.
  const select = (i: number) => {
    if (i < 0 || i >= stateRef.current.scenes.length) return;
    Object.assign(stateRef.current, { sel: i, scene: stateRef.current.scenes[i], playing: false, time: null, whole: null });
    setSel(i);
    setPlaying(false);
    setClip(null);
    setWhole(null);
    setTime(null);
    setPlayhead(stateRef.current.spans[i]?.start ?? 0);
    setError("");
    flushNudge();
    pick(null);
  };

  // The whole video, from our own renders: every scene's half-size chunk joined under one
  // soundtrack (the server renders again only the scenes an edit changed).
  const playAll = async (from: number) => {
    try {
      setNote("Preparing the whole video…");
      const w = await api.whole();
      setClip(null);
      Object.assign(stateRef.current, { playing: true, whole: { url: w.url, from } });
      setWhole({ url: w.url, from });
      setPlaying(true);
      setNote(w.cached ? "" : `Whole video rendered in ${(w.render_ms / 1000).toFixed(1)} s`);
    } catch (e) {
      setNote("");
      fail(e);
    }
  };
  // While the whole video plays, the selected scene follows the playhead.
  const onTime = (t: number) => {
    const c = stateRef.current;
    if (!c.whole) {
      setTime(t);
      return;
    }
    setPlayhead(t);
    const i = sceneAt(c.spans, t);
    if (i !== c.sel) {
      Object.assign(stateRef.current, { sel: i, scene: c.scenes[i] });
      setSel(i);
    }
    setTime(t - (c.spans[i]?.start ?? 0));
  };
  // A click on the timeline: the playing video jumps there; stopped, the still of that moment.
  const seekVideo = (t: number) => {
    const c = stateRef.current;
    if (c.whole && video.current) {
      video.current.currentTime = t;
      return;
    }
    const i = sceneAt(c.spans, t);
    if (i !== c.sel) select(i);
    setPlayhead(t);
    const at = t - (c.spans[i]?.start ?? 0);
    Object.assign(stateRef.current, { time: at });
    setTime(at);
  };
  const togglePlayAll = () => {
    const c = stateRef.current;
    if (c.playing) pause();
    else playAll((c.spans[c.sel]?.start ?? 0) + (c.time ?? 0));
  };
  useEffect(() => {
    if (whole && video.current && whole.from > 0) video.current.currentTime = whole.from;
  }, [whole?.url, whole?.from]);

  const play = async () => {
    const s = stateRef.current.scene;
    if (!s) return;
    try {
      setNote("Preparing the preview…");
      const c = await api.preview(s.voice_file);
      setClip(c);
      stateRef.current.playing = true;
      setPlaying(true);
      setNote(c.cached ? "" : `Preview rendered in ${c.render_ms} ms`);
    } catch (e) {
      setNote("");
      fail(e);
    }
  };
  const pause = () => {
    const c = stateRef.current;
    let t = video.current?.currentTime ?? c.time ?? 0;
    if (c.whole) t = Math.max(0, t - (c.spans[c.sel]?.start ?? 0));
    Object.assign(stateRef.current, { playing: false, time: t, whole: null });
    setPlaying(false);
    setWhole(null);
    setTime(t);
  };
  const seek = (t: number) => {
    const c = stateRef.current;
    const at = Math.max(0, Math.min(t, c.scene?.duration ?? 0));
    Object.assign(stateRef.current, { playing: false, time: at });
    setPlaying(false);
    setTime(at);
    setPlayhead((c.spans[c.sel]?.start ?? 0) + at);
  };
  // Shift+←/→: one frame back or on, in the still (playing pauses first).
  const stepFrame = (way: 1 | -1) => {
    if (stateRef.current.playing) pause();
    const t = stateRef.current.time ?? 0;
    seek(Math.round((t + way * FRAME) * 1000) / 1000);
  };

  // After an edit: ask for the scene's fresh preview clip and time edit → clip.
  const refreshPreview = async (vf: string, since: number) => {
    try {
      const c = await api.preview(vf);
      setFresh({ key: c.key, ms: Math.round(performance.now() - since), cached: c.cached });
    } catch (e) {
      fail(e);
    }
  };

  /** Sends edits of one scene; true when they were applied. */
  const modifyOn = async (vf: string, fields: { field_name: string; value: unknown }[], what: string): Promise<boolean> => {
    const since = performance.now();
    setError("");
    setNote(what + "…");
    try {
      await api.modify(vf, fields);
      await reload();
      setNote(what + " — done");
      refreshPreview(vf, since);
      return true;
    } catch (e) {
      setNote("");
      fail(e);
      if (stateRef.current.scene?.voice_file === vf) loadGeometry(vf);
      return false;
    }
  };
  const modify = (fields: { field_name: string; value: unknown }[], what: string) =>
    scene ? modifyOn(scene.voice_file, fields, what) : Promise.resolve(false);

  const boxName = (t: Target) => (t.kind === "object" ? t.layoutId : t.kind);
  // A click on a box selects it for the arrow keys (and takes the keys from a text field).
  const pick = (t: Target | null) => {
    if (t && keepsItsKeys(document.activeElement)) (document.activeElement as HTMLElement).blur();
    if (!sameTarget(t, stateRef.current.picked)) flushNudge();
    stateRef.current.picked = t;
    setPicked(t);
  };
  // Arrow nudges: drawn at once, sent as one edit (the one a drag sends) once the keys rest.
  const sendNudge = () => {
    window.clearTimeout(nudgeTimer.current);
    nudgeTimer.current = undefined;
    const n = stateRef.current.nudge;
    if (!n) return;
    modifyOn(n.voice_file, [editOf(n.target, n.rect)], `Moving the ${boxName(n.target)}`).then((ok) => {
      if (!ok && nudgeTimer.current === undefined) setNudge(null);
    });
  };
  const flushNudge = () => {
    if (nudgeTimer.current !== undefined) sendNudge();
  };
  const restNudge = () => {
    window.clearTimeout(nudgeTimer.current);
    nudgeTimer.current = window.setTimeout(sendNudge, NUDGE_IDLE_MS);
  };
  const nudgeBy = (dx: number, dy: number) => {
    const c = stateRef.current;
    if (!c.picked || !c.scene) return;
    const from = c.nudge && sameTarget(c.nudge.target, c.picked) ? c.nudge.rect : rectOf(c.geometry, c.picked);
    if (!from) return;
    const rect = nudged(c.picked, from, dx, dy);
    if (JSON.stringify(rect) === JSON.stringify(from)) return;
    const n = { target: c.picked, rect, voice_file: c.scene.voice_file };
    stateRef.current.nudge = n;
    setNudge(n);
    restNudge();
  };

  // Narration text: what is typed stays per scene until it is applied.
  const text = scene ? (drafts[scene.voice_file] ?? scene.text) : "";
  const typed = (vf: string, value: string) => setDrafts((d) => ({ ...d, [vf]: value }));
  // Applying text keeps the recorded audio (timings rebuilt over it), or also speaks the new
  // text with the video's voice, which changes the scene's length.
  const applyText = async (speak: boolean) => {
    if (!scene) return;
    const vf = scene.voice_file;
    const sent = text;
    if (await modifyOn(vf, [{ field_name: "segment.text", value: sent }], "Updating the narration")) {
      setDrafts((d) => {
        if (d[vf] !== sent) return d;
        const { [vf]: _, ...rest } = d;
        return rest;
      });
      if (speak) await revoice(vf);
    }
  };
  // Scene changes modify_scene has no branch for; each one is undoable.
  const arrange = async (what: string, run: () => Promise<Arranged>) => {
    try {
      setError("");
      setNote(what + "…");
      const r = await run();
      await reload();
      const d = r.duration;
      setNote(d ? `${what} — the scene is now ${d.to.toFixed(1)} s (was ${d.from.toFixed(1)} s)` : what + " — done");
      return r;
    } catch (e) {
      setNote("");
      fail(e);
      return null;
    }
  };
  const revoice = (vf: string) => arrange("Speaking the new text", () => api.revoice(vf));
  const move = async (by: number) => {
    const c = stateRef.current;
    const to = c.sel + by;
    if (to < 0 || to >= c.scenes.length) return;
    const order = c.scenes.map((s) => s.voice_file);
    const [vf] = order.splice(c.sel, 1);
    order.splice(to, 0, vf);
    if (await arrange(by < 0 ? "Moving the scene earlier" : "Moving the scene later", () => api.reorder(order))) select(to);
  };
  const remove = async () => {
    const c = stateRef.current;
    if (!c.scene || c.scenes.length < 2) return;
    if (await arrange(`Deleting scene ${c.sel + 1}`, () => api.deleteScene(c.scene!.voice_file))) select(Math.min(c.sel, c.scenes.length - 2));
  };
  const unappliedIn = scenes.map((s, i) => ({ s, n: i + 1 })).filter(({ s }) => drafts[s.voice_file] !== undefined && drafts[s.voice_file].trim() !== s.text.trim());
  const unapplied = unappliedIn.length ? `Text not applied in ${sceneList(unappliedIn.map((u) => u.n))}` : "";

  // Uploads (H, I, B): the file is stored first, then its URL is the edit's value. Voice and
  // narrator video apply in the background; the realtime stream reports them.
  const uploadFor = async (u: (typeof UPLOADS)[number], e: Event) => {
    const input = e.target as HTMLInputElement;
    const file = input.files?.[0];
    if (!file || !scene) return;
    try {
      setError("");
      setNote(`Uploading ${file.name}…`);
      const stored = await api.upload(file);
      await modify([{ field_name: u.field, value: stored.url }], u.doing);
    } catch (err) {
      setNote("");
      fail(err);
    } finally {
      input.value = "";
    }
  };

  // Undo and redo restore a version the server keeps, as a new version: they work the same
  // for every edit, and survive a reload.
  const step = async (way: "undo" | "redo") => {
    const last = way === "undo" ? stateRef.current.versions?.current : stateRef.current.versions?.redo[0];
    if (way === "undo" ? !stateRef.current.versions?.undo.length : !stateRef.current.versions?.redo.length) return;
    try {
      setError("");
      setNote(way === "undo" ? `Undoing ${describe(last?.label)}…` : `Redoing ${describe(last?.label)}…`);
      const r = await (way === "undo" ? api.undo() : api.redo());
      setVersions(r.versions);
      await reload();
      setNote(way === "undo" ? "Undone" : "Redone");
    } catch (e) {
      setNote("");
      fail(e);
    }
  };

  const save = async () => {
    try {
      setNote("Saving…");
      await api.session("commit");
      await api.session("start");
      await reload();
      setNote("Saved");
    } catch (e) {
      setNote("");
      fail(e);
    }
  };

  // Keyboard (outside text fields, sliders and videos): space plays and pauses; ←/→ (and ↑/↓)
  // move between scenes, Shift+←/→ steps one frame; with a box selected the arrows nudge it
  // (Shift: 10 px) and Escape lets it go; Ctrl+Z undoes, Ctrl+Shift+Z (or Ctrl+Y) redoes,
  // Ctrl+S saves. Buttons and checkboxes keep Space and Enter. The handler is the latest
  // render's, so it sees the current state.
  const onKey = (e: KeyboardEvent) => {
    if (keepsItsKeys(e.target)) return;
    const mod = e.ctrlKey || e.metaKey;
    const key = e.key.toLowerCase();
    if (mod && (key === "z" || key === "y")) {
      e.preventDefault();
      step(key === "y" || e.shiftKey ? "redo" : "undo");
      return;
    }
    if (mod && key === "s") {
      e.preventDefault();
      save();
      return;
    }
    if (mod || e.altKey) return;
    const cur = stateRef.current;
    const arrow = ARROWS[e.key];
    if (arrow && cur.picked && !cur.playing) {
      e.preventDefault();
      const by = e.shiftKey ? 10 : 1;
      nudgeBy(arrow[0] * by, arrow[1] * by);
    } else if (arrow && e.shiftKey && arrow[0] !== 0) {
      e.preventDefault();
      stepFrame(arrow[0] as 1 | -1);
    } else if (arrow) {
      e.preventDefault();
      select(cur.sel + (arrow[0] || arrow[1]));
    } else if (e.key === "Escape" && cur.picked) {
      pick(null);
    } else if (e.key === " " && !isPressable(e.target)) {
      e.preventDefault();
      togglePlayAll();
    }
  };
  // Releasing an arrow key rests a nudge: it is sent after the idle time.
  const onKeyUp = (e: KeyboardEvent) => {
    if (e.key.startsWith("Arrow") && nudgeTimer.current !== undefined) restNudge();
  };
  const keys = useRef({ down: onKey, up: onKeyUp, flush: flushNudge });
  keys.current = { down: onKey, up: onKeyUp, flush: flushNudge };
  useEffect(() => {
    const down = (e: KeyboardEvent) => keys.current.down(e);
    const up = (e: KeyboardEvent) => keys.current.up(e);
    window.addEventListener("keydown", down);
    window.addEventListener("keyup", up);
    return () => {
      window.removeEventListener("keydown", down);
      window.removeEventListener("keyup", up);
      keys.current.flush();
    };
  }, []);

  // The live inspector drives this editor through the controller.
  useEffect(() => {
    live.bind(
      {
        state: () => {
          const c = stateRef.current;
          return {
            scene: c.scene?.voice_file ?? null,
            scene_index: c.sel,
            playing: c.playing,
            time: c.playing ? (video.current?.currentTime ?? 0) : (c.time ?? 0),
          };
        },
        activate: async (vf) => {
          const i = stateRef.current.scenes.findIndex((s) => s.voice_file === vf);
          if (i < 0) throw new Error(`This video has no scene ${vf}.`);
          select(i);
          await new Promise((r) => setTimeout(r, 50));
        },
        play,
        pause,
        seek: async (t) => seek(t),
        reload: async () => {
          await reload();
        },
        snapshot: (selector) => {
          const c = stateRef.current;
          return {
            scene_uid: c.scene?.voice_file,
            scene_index: c.sel,
            text: c.scene?.text,
            roll: c.scene?.type,
            duration: c.scene?.duration,
            stage: { width: 280, height: 498 },
            picture: document.querySelector(".stage .picture")?.tagName.toLowerCase(),
            elements: measure(selector).map((b) => ({ ...b, text: document.querySelector<HTMLElement>(b.selector)?.title ?? "" })),
            zones: measure("[data-zone]"),
          };
        },
        boxes: (selector) => ({ scene_uid: stateRef.current.scene?.voice_file, boxes: measure(selector) }),
      },
      "editor",
    );
    return () => live.bind(null, "editor");
  }, []);
  useEffect(() => live.report(), [sel, playing, time]);

  const staged = view.edit_session.staged_writes ?? 0;
  // Export: the session's edits are saved first (the MP4 is rendered from the saved document).
  const ex = useExport(view.status, async () => {
    await api.session("commit").catch(() => undefined);
    await api.session("start").catch(() => undefined);
    await reload().catch(() => undefined);
  });
  useEffect(() => {
    if (ex.error) setError(ex.error);
  }, [ex.error]);
  // A note that reports something done fades after a while; one of work under way stays.
  useEffect(() => {
    if (!note || note.endsWith("…")) return;
    const t = setTimeout(() => setNote((n) => (n === note ? "" : n)), 6000);
    return () => clearTimeout(t);
  }, [note]);
  const picture = scene ? stillUrl(scene.voice_file, time, version) : "";
  const findings: Finding[] = [...(geometry?.violations ?? []), ...(geometry?.warnings ?? [])];
  const wordsOf = scene?.words ?? [];
  const current = useMemo(() => wordsOf.findIndex((w) => time !== null && time >= w.start && time < w.end), [wordsOf, time]);

  if (!scene) {
    return html`<p class="empty">This video has no scenes yet.</p>`;
  }
  const saved = staged > 0 ? `${staged} unsaved change${staged > 1 ? "s" : ""}` : "All changes saved";
  const session = unapplied ? (staged > 0 ? `${unapplied} · ${saved}` : unapplied) : saved;
  return html`<div class="editor" data-topic=${topic}>
    <header class="bar">
      <div class="title-block">
        <h1 title=${view.title}>${view.title}</h1>
        <span class="session" data-staged=${staged} data-unapplied=${unappliedIn.length} aria-live="polite" title=${session}>${session}</span>
      </div>
      <div class="actions">
        <button class="undo" aria-label="Undo" onClick=${() => step("undo")} disabled=${!versions?.undo.length} title="Undo (Ctrl+Z)">Undo</button>
        <button class="redo" aria-label="Redo" onClick=${() => step("redo")} disabled=${!versions?.redo.length} title="Redo (Ctrl+Shift+Z)">Redo</button>
        <button class="save" onClick=${save} disabled=${staged === 0} title="Save (Ctrl+S)">Save</button>
        <${ExportBar} ex=${ex} unsaved=${staged} unapplied=${unapplied} />
      </div>
    </header>
    <div class="messages">
      ${note ? html`<p class="note" role="status">${note}</p>` : null}
      ${error
        ? html`<div class="error-box">
            <p class="error" role="alert">${error}</p>
            <button class="dismiss" aria-label="Dismiss the message" onClick=${() => setError("")}>×</button>
          </div>`
        : null}
    </div>
    <nav class="scenes" aria-label="Scenes">
      ${scenes.map(
        (s, i) => html`<button class=${"thumb" + (i === sel ? " selected" : "")} data-voice-file=${s.voice_file} aria-current=${i === sel ? "true" : undefined} onClick=${() => select(i)}>
          <img alt="" loading="lazy" src=${stillUrl(s.voice_file, null, sceneVersion(s))} width="70" height="124" />
          <span class="thumb-meta">${i + 1}. ${s.type || "scene"} · ${s.duration.toFixed(1)}s</span>
          <span class="thumb-words">${firstWords(s.text)}</span>
          ${unappliedIn.some((u) => u.s === s) ? html`<span class="thumb-unapplied">Text not applied</span>` : null}
        </button>`,
      )}
    </nav>
    <${VideoTimeline} spans=${spans} playhead=${playhead} sel=${sel} onSeek=${seekVideo} />
    <main class="work">
      <section class="preview">
        <${Stage}
          geometry=${geometry}
          picture=${picture}
          clipUrl=${whole?.url ?? clip?.url ?? null}
          playing=${playing}
          readonly=${false}
          guides=${guides}
          selected=${picked}
          nudge=${nudge && nudge.voice_file === scene.voice_file ? nudge : null}
          onSelect=${(t: Target | null) => {
            if (t && !sameTarget(t, picked)) setNote(`The ${boxName(t)} is selected: the arrow keys move it (Shift: 10 px), Esc lets go.`);
            pick(t);
          }}
          videoRef=${video}
          onTime=${onTime}
          onEnded=${() => {
            Object.assign(stateRef.current, { playing: false, whole: null });
            setPlaying(false);
            setWhole(null);
            setTime(0);
          }}
          onCommit=${(t: Target, r: Rect) => modify([editOf(t, r)], `Moving the ${boxName(t)}`)}
        />
        <div class="transport">
          <button class="play-all" aria-label=${playing && whole ? "Pause" : "Play the whole video"} onClick=${togglePlayAll}>${playing && whole ? "Pause" : "Play all"}</button>
          <button class="play" onClick=${() => (playing ? pause() : play())}>${playing && !whole ? "Pause" : "Play scene"}</button>
          <input
            class="scrub"
            type="range"
            min="0"
            max=${scene.duration}
            step="0.05"
            value=${time ?? 0}
            aria-label="Scrub"
            onInput=${(e: Event) => seek(Number((e.target as HTMLInputElement).value))}
          />
          <span class="time" aria-label="Time in the scene">${(time ?? 0).toFixed(2)}s</span>
        </div>
        <label class="guides" title="The hatched zones are hidden by the phone app's own buttons; the boxes can be dragged.">
          <input type="checkbox" checked=${guides} onChange=${(e: Event) => {
              const on = (e.target as HTMLInputElement).checked;
              setGuides(on);
              if (!on) pick(null);
            }} /> Show guides (safe zones and boxes)
        </label>
        <div class="timeline" aria-label="Words">
          ${wordsOf.map(
            (w, i) => html`<button class=${"word" + (i === current ? " now" : "")} style=${`flex-grow:${Math.max(w.end - w.start, 0.05)}`} onClick=${() => seek(w.start + 0.01)}>${w.word}</button>`,
          )}
        </div>
        <div class="fresh-slot">
          ${fresh ? html`<p class="fresh" data-key=${fresh.key} data-ms=${fresh.ms}>Preview ready ${fresh.cached ? "(cached)" : `in ${fresh.ms} ms`}</p>` : null}
        </div>
      </section>
      <aside class="panel">
        <label>Narration (scene ${sel + 1})
          <textarea class="text" rows="4" value=${text} onInput=${(e: Event) => typed(scene.voice_file, (e.target as HTMLTextAreaElement).value)}></textarea>
        </label>
        <div class="row">
          <button class="apply-text" disabled=${text.trim() === scene.text.trim()} onClick=${() => applyText(false)} title="The recorded voice stays; the words are timed over it">Apply, keep the voice</button>
          <button class="apply-revoice" disabled=${text.trim() === scene.text.trim()} onClick=${() => applyText(true)} title="The video's voice speaks the new text; the scene's length follows">Apply and re-voice</button>
        </div>
        ${scene.narration_state === "text_changed"
          ? html`<p class="voice-differs" role="note">The voice still says the old words.
              <button class="revoice" onClick=${() => revoice(scene.voice_file)}>Re-voice this scene</button></p>`
          : null}
        <div class="row" role="group" aria-label="Scene order">
          <button class="move-earlier" disabled=${sel === 0} onClick=${() => move(-1)}>Move earlier</button>
          <button class="move-later" disabled=${sel >= scenes.length - 1} onClick=${() => move(1)}>Move later</button>
          <button class="delete-scene" disabled=${scenes.length < 2} onClick=${remove}>Delete scene</button>
        </div>
        <div class="row">
          <span>Roll:</span>
          <button class="roll-a" disabled=${scene.type === "A-roll"} onClick=${() => modify([{ field_name: "roll.active", value: "A-roll" }], "Switching to A-roll")}>A-roll</button>
          <button class="roll-b" disabled=${scene.type === "B-roll"} onClick=${() => modify([{ field_name: "roll.active", value: "B-roll" }], "Switching to B-roll")}>B-roll</button>
        </div>
        <div class="row">
          <button class="disable-overlay" disabled=${scene.remotion_spec_state !== "ready"} onClick=${() => modify([{ field_name: "disable_overlay", value: true }], "Disabling the overlay")}>Disable overlay</button>
          <span class="overlay-state" data-state=${scene.remotion_spec_state ?? "missing"}>${overlaySentence(scene.remotion_spec_state)}</span>
        </div>
        <${Broll}
          key=${scene.voice_file}
          keyword=${String(scene.keyword ?? "")}
          onPick=${(u: string) => modify([{ field_name: "mediaUrl", value: u }], "Swapping the background")}
        />
        <label>Background from a URL
          <input class="media-url" type="url" placeholder="https://…" value=${media} onInput=${(e: Event) => setMedia((e.target as HTMLInputElement).value)} />
        </label>
        <button class="swap-background" disabled=${!media} onClick=${() => modify([{ field_name: "mediaUrl", value: media }], "Swapping the background")}>Swap background</button>
        <h2>Uploads</h2>
        <div class="uploads">
          ${UPLOADS.map(
            (u) => html`<label class="upload">${u.label}
              <input type="file" class=${"upload-" + u.key} accept=${u.accept} onChange=${(e: Event) => uploadFor(u, e)} />
            </label>`,
          )}
        </div>
        <h2>Layout checks</h2>
        <ul class="violations" aria-label="Layout checks">
          ${findings.length === 0 ? html`<li class="ok">No problems found.</li>` : null}
          ${findings.map((f) => html`<li class=${"sev-" + f.severity} data-code=${f.code}>${findingSentence(f)}</li>`)}
        </ul>
        <${ExportResult} ex=${ex} />
      </aside>
    </main>
  </div>`;
}

/** An edit's label (`edit::versions`) in words. */
function describe(label: string | undefined): string {
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
  };
  return (label && said[label]) || "the last change";
}

export type { Status };
