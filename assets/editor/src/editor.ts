// The scene editor at review_url: the header (title, session, undo, redo, save, export), the
// scene strip, the whole video's timeline, the selected scene's preview with its boxes and
// word timeline, and its panel. The state lives in one store (src/store.ts); the commands
// (src/commands.ts) call the API and dispatch what came back; the realtime stream keeps this
// tab in step with the other open editors.
import { html } from "htm/preact";
import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import { api, stillUrl, topic, url, type EditorView, type Rect, type Scene } from "./api";
import { boxName, commands, editOf, type Commands } from "./commands";
import { ExportBar, ExportResult, useExport } from "./export";
import { inspector } from "./inspector";
import { keepsItsKeys, keyHandlers } from "./keys";
import * as live from "./live";
import { parseMessage } from "./messages";
import { Panel } from "./panel";
import { firstWords } from "./plain";
import { Stage, sameTarget, type Target } from "./stage";
import * as sel from "./store";
import { VideoTimeline } from "./timeline";

const GUIDES_KEY = "reelsmith.editor.guides";

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

/** A version string of a scene: changes whenever its record changes, for cache-busting stills. */
export function sceneVersion(s: Scene): string {
  const raw = JSON.stringify(s);
  let h = 0;
  for (let i = 0; i < raw.length; i++) h = (h * 31 + raw.charCodeAt(i)) | 0;
  return (h >>> 0).toString(16);
}

/** Other editors' edits (and this one's) arrive on the realtime stream. */
function follow(store: sel.Store, c: Commands): () => void {
  const events = new EventSource(url("/events"));
  const refresh = () => c.reload().catch(c.fail);
  const on = (name: string, run: (data: string) => void) => events.addEventListener(name, (ev) => run(ev instanceof MessageEvent ? String(ev.data) : ""));
  on("scene_modified", refresh);
  on("version_restored", (data) => {
    const m = parseMessage("version_restored", data);
    if (m.kind === "restored") store.dispatch({ type: "versions", versions: m.versions });
    refresh();
  });
  on("scenes_changed", (data) => {
    const m = parseMessage("scenes_changed", data);
    if (m.kind === "arranged") store.dispatch({ type: "arranged", arranged: m.arranged });
    refresh();
  });
  on("scene_voice_upload_applied", (data) => {
    const m = parseMessage("scene_voice_upload_applied", data);
    if (m.kind === "voice") c.voiceApplied(m);
  });
  on("scene_upload_failed", (data) => {
    const m = parseMessage("scene_upload_failed", data);
    c.fail(new Error("An upload could not be applied: " + (m.kind === "upload_failed" ? m.message : "unknown reason")));
    refresh();
  });
  return () => events.close();
}

/** The store, its commands and the page's wiring (keys, stream, inspector), made once. */
function useEditor(initial: EditorView) {
  const video = useRef<HTMLVideoElement | null>(null);
  const made = useMemo(() => {
    const store = sel.createStore(sel.initialState(initial, remembered(GUIDES_KEY) !== "off"));
    return { store, c: commands(store, video) };
  }, []);
  const [, setVersion] = useState(0);
  const { store, c } = made;
  useEffect(() => store.subscribe(() => setVersion((n) => n + 1)), []);
  useEffect(() => {
    const keys = keyHandlers(store, c);
    window.addEventListener("keydown", keys.down);
    window.addEventListener("keyup", keys.up);
    const stop = follow(store, c);
    c.loadVersions();
    live.bind(inspector(store, c, video), "editor");
    return () => {
      window.removeEventListener("keydown", keys.down);
      window.removeEventListener("keyup", keys.up);
      stop();
      c.flush();
      live.bind(null, "editor");
    };
  }, []);
  return { store, c, video, state: store.get() };
}

/** What follows the state: the scene's geometry, the page title, the guides choice, the
 * inspector's report, the whole video's start, and notes of finished work fading. */
function useEffects(s: sel.EditorState, c: Commands, video: { current: HTMLVideoElement | null }) {
  const scene = sel.selectedScene(s);
  const version = scene ? sceneVersion(scene) : "";
  useEffect(() => {
    if (scene) c.loadGeometry(scene.voice_file);
  }, [scene?.voice_file, version]);
  // A nudge stays drawn until the geometry it sent comes back (unless another is waiting).
  useEffect(() => {
    if (!c.waiting()) c.clearNudge();
  }, [s.geometry]);
  useEffect(() => {
    document.title = s.view.title || "Video";
  }, [s.view.title]);
  useEffect(() => remember(GUIDES_KEY, s.guides ? "on" : "off"), [s.guides]);
  useEffect(() => live.report(), [s.selected, s.playing, s.time]);
  const whole = s.playing?.kind === "whole" ? s.playing : null;
  useEffect(() => {
    if (whole && video.current && whole.from > 0) video.current.currentTime = whole.from;
  }, [whole?.url, whole?.from]);
  // A note that reports something done fades after a while; one of work under way stays.
  useEffect(() => {
    if (!s.note || s.note.endsWith("…")) return;
    const t = setTimeout(() => s.note === c.state().note && c.note(""), 8000);
    return () => clearTimeout(t);
  }, [s.note]);
}

function Header(props: { s: sel.EditorState; c: Commands; ex: ReturnType<typeof useExport> }) {
  const { s, c } = props;
  const staged = sel.unsaved(s);
  const line = sel.sessionLine(s);
  const typed = sel.unapplied(s);
  return html`<header class="bar">
    <div class="title-block">
      <h1 title=${s.view.title}>${s.view.title}</h1>
      <span class="session" aria-live="polite" aria-label="Changes" data-staged=${staged} data-unapplied=${typed.length} title=${line}>${line}</span>
    </div>
    <div class="actions">
      <button aria-label="Undo" onClick=${() => c.step("undo")} disabled=${!sel.canUndo(s)} title=${`Undo ${sel.undoLabel(s)} (Ctrl+Z)`}>Undo</button>
      <button aria-label="Redo" onClick=${() => c.step("redo")} disabled=${!sel.canRedo(s)} title=${`Redo ${sel.redoLabel(s)} (Ctrl+Shift+Z)`}>Redo</button>
      <button onClick=${c.save} disabled=${staged === 0} title="Save (Ctrl+S)">Save</button>
      <${ExportBar} ex=${props.ex} unsaved=${staged} unapplied=${typed.length ? `Text not applied in ${sel.sceneList(typed)}` : ""} />
    </div>
  </header>`;
}

/** The fixed message area: what is under way or done, and what went wrong. */
function Messages(props: { note: string; error: string; c: Commands }) {
  return html`<div class="messages">
    ${props.note ? html`<p class="note" role="status" aria-label="Progress">${props.note}</p>` : null}
    ${props.error
      ? html`<div class="error-box">
          <p class="error" role="alert">${props.error}</p>
          <button class="dismiss" aria-label="Dismiss the message" onClick=${props.c.dismiss}>×</button>
        </div>`
      : null}
  </div>`;
}

function Strip(props: { s: sel.EditorState; c: Commands }) {
  const { s } = props;
  const at = sel.selectedIndex(s);
  const typed = new Set(sel.unapplied(s));
  return html`<nav class="scenes" aria-label="Scenes">
    ${s.view.scenes.map(
      (scene, i) => html`<button
        class=${"thumb" + (i === at ? " selected" : "")}
        data-voice-file=${scene.voice_file}
        aria-label=${`Scene ${i + 1}`}
        aria-current=${i === at ? "true" : undefined}
        aria-describedby=${`scene-words-${i}`}
        onClick=${() => props.c.select(i)}
      >
        <img alt="" loading="lazy" src=${stillUrl(scene.voice_file, null, sceneVersion(scene))} width="70" height="124" />
        <span class="thumb-meta">${i + 1}. ${scene.type || "scene"} · ${scene.duration.toFixed(1)}s</span>
        <span class="thumb-words" id=${`scene-words-${i}`}>${firstWords(scene.text)}</span>
        ${typed.has(i + 1) ? html`<span class="thumb-unapplied">Text not applied</span>` : null}
      </button>`,
    )}
  </nav>`;
}

export function Editor(props: { initial: EditorView }) {
  const { c, video, state: s } = useEditor(props.initial);
  useEffects(s, c, video);
  // Export: the session's edits are saved first (the MP4 is rendered from the saved document).
  const ex = useExport(s.view.status, async () => {
    await api.session("commit").catch(() => undefined);
    await api.session("start").catch(() => undefined);
    await c.reload().catch(() => undefined);
  });
  useEffect(() => {
    if (ex.error) c.fail(new Error(ex.error));
  }, [ex.error]);
  const scene = sel.selectedScene(s);
  if (!scene) return html`<p class="empty">This video has no scenes yet.</p>`;
  return html`<div class="editor" data-topic=${topic}>
    <${Header} s=${s} c=${c} ex=${ex} />
    <${Messages} note=${s.note} error=${s.error} c=${c} />
    <${Strip} s=${s} c=${c} />
    <${VideoTimeline} spans=${sel.spans(s)} playhead=${s.playhead} sel=${sel.selectedIndex(s)} onSeek=${c.seekVideo} />
    <main class="work">
      <${Preview} s=${s} scene=${scene} c=${c} video=${video} />
      <${Panel} state=${s} scene=${scene} c=${c}><${ExportResult} ex=${ex} /><//>
    </main>
  </div>`;
}

function Preview(props: { s: sel.EditorState; scene: Scene; c: Commands; video: { current: HTMLVideoElement | null } }) {
  const { s, scene, c } = props;
  const onSelect = (t: Target | null) => {
    if (t && keepsItsKeys(document.activeElement) && document.activeElement instanceof HTMLElement) document.activeElement.blur();
    if (t && !sameTarget(t, s.picked)) c.note(`The ${boxName(t)} is selected: the arrow keys move it (Shift: 10 px), Esc lets go.`);
    c.pick(t);
  };
  const nudge = s.nudge && s.nudge.voice_file === scene.voice_file ? s.nudge : null;
  return html`<section class="preview" aria-label="Preview">
    <${Stage}
      geometry=${s.geometry}
      picture=${stillUrl(scene.voice_file, s.time, sceneVersion(scene))}
      clipUrl=${s.playing?.url ?? null}
      playing=${s.playing !== null}
      readonly=${false}
      guides=${s.guides}
      selected=${s.picked}
      nudge=${nudge}
      onSelect=${onSelect}
      videoRef=${props.video}
      onTime=${c.onTime}
      onEnded=${c.ended}
      onCommit=${(t: Target, r: Rect) => c.modify(editOf(t, r), `Moving the ${boxName(t)}`)}
    />
    <${Transport} s=${s} scene=${scene} c=${c} />
  </section>`;
}

function Transport(props: { s: sel.EditorState; scene: Scene; c: Commands }) {
  const { s, scene, c } = props;
  const whole = s.playing?.kind === "whole";
  const words = scene.words ?? [];
  const time = s.time;
  const current = words.findIndex((w) => time !== null && time >= w.start && time < w.end);
  const fresh = s.fresh;
  const onScrub = (e: Event) => e.target instanceof HTMLInputElement && c.seek(Number(e.target.value));
  return html`<div class="transport">
      <button aria-label=${whole ? "Pause" : "Play the whole video"} onClick=${c.togglePlayAll}>${whole ? "Pause" : "Play all"}</button>
      <button onClick=${() => (s.playing ? c.pause() : c.play())}>${s.playing && !whole ? "Pause" : "Play scene"}</button>
      <input class="scrub" type="range" min="0" max=${scene.duration} step="0.05" value=${time ?? 0} aria-label="Scrub" onInput=${onScrub} />
      <span class="time" aria-label="Time in the scene">${(time ?? 0).toFixed(2)}s</span>
    </div>
    <label class="guides" title="The hatched zones are hidden by the phone app's own buttons; the boxes can be dragged.">
      <input type="checkbox" checked=${s.guides} onChange=${(e: Event) => e.target instanceof HTMLInputElement && c.guides(e.target.checked)} /> Show guides (safe zones and boxes)
    </label>
    <div class="timeline" role="group" aria-label="Words">
      ${words.map(
        (w, i) => html`<button class=${"word" + (i === current ? " now" : "")} aria-current=${i === current ? "true" : undefined} style=${`flex-grow:${Math.max(w.end - w.start, 0.05)}`} onClick=${() => c.seek(w.start + 0.01)}>${w.word}</button>`,
      )}
    </div>
    <div class="fresh-slot">
      ${fresh ? html`<p class="fresh" aria-label="Fresh preview" data-key=${fresh.key} data-ms=${fresh.ms}>Preview ready ${fresh.cached ? "(cached)" : `in ${fresh.ms} ms`}</p>` : null}
    </div>`;
}
