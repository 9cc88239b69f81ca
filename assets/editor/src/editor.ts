// The scene editor at review_url: scene list, the selected scene's preview with its boxes,
// the word timeline, edits, the edit session, live updates from the other open editors,
// export with progress, and the live-inspector controller.
import { html } from "htm/preact";
import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import { api, sceneVersion, stillUrl, topic, url, words, type EditorView, type PreviewClip, type Rect, type Scene, type Status, type Versions } from "./api";
import { Stage, measure, type Target } from "./stage";
import * as live from "./live";
import { Export } from "./export";
import { Broll } from "./broll";
import { VideoTimeline, sceneAt, spansOf } from "./timeline";

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
  const [text, setText] = useState("");
  const [media, setMedia] = useState("");
  const [versions, setVersions] = useState<Versions | null>(null);
  // The whole video playing: its URL and where to start; the playhead in video seconds.
  const [whole, setWhole] = useState<{ url: string; from: number } | null>(null);
  const [playhead, setPlayhead] = useState(0);
  const video = useRef<HTMLVideoElement | null>(null);
  const scenes = view.scenes;
  const scene: Scene | undefined = scenes[Math.min(sel, scenes.length - 1)];
  const version = scene ? sceneVersion(scene) : "";
  const spans = useMemo(() => spansOf(scenes), [scenes]);
  const stateRef = useRef({ sel, scene, playing, time, scenes, versions: null as Versions | null, whole: null as { url: string; from: number } | null, spans });
  stateRef.current = { sel, scene, playing, time, scenes, versions, whole, spans };

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
    if (scene) {
      setText(scene.text);
      loadGeometry(scene.voice_file);
    }
  }, [scene?.voice_file, version]);

  // Other editors' edits arrive on the realtime stream.
  useEffect(() => {
    const events = new EventSource(url("/events"));
    const refresh = () => reload().catch(fail);
    events.addEventListener("scene_modified", refresh);
    events.addEventListener("scene_voice_upload_applied", refresh);
    events.addEventListener("version_restored", refresh);
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
    const at = Math.max(0, Math.min(t, stateRef.current.scene?.duration ?? 0));
    Object.assign(stateRef.current, { playing: false, time: at });
    setPlaying(false);
    setTime(at);
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

  const modify = async (fields: { field_name: string; value: unknown }[], what: string) => {
    if (!scene) return;
    const since = performance.now();
    setError("");
    setNote(what + "…");
    try {
      await api.modify(scene.voice_file, fields);
      await reload();
      setNote(what + " — done");
      refreshPreview(scene.voice_file, since);
    } catch (e) {
      setNote("");
      fail(e);
      loadGeometry(scene.voice_file);
    }
  };

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

  // Keyboard: space plays and pauses, arrows move between scenes; Ctrl+Z undoes, Ctrl+Shift+Z
  // (or Ctrl+Y) redoes, Ctrl+S saves. Text fields keep their own keys.
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const tag = (e.target as HTMLElement)?.tagName;
      if (tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT") return;
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
      if (tag === "BUTTON") return;
      const cur = stateRef.current;
      if (e.key === " ") {
        e.preventDefault();
        togglePlayAll();
      } else if (e.key === "ArrowRight" || e.key === "ArrowDown") {
        e.preventDefault();
        select(cur.sel + 1);
      } else if (e.key === "ArrowLeft" || e.key === "ArrowUp") {
        e.preventDefault();
        select(cur.sel - 1);
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [scenes.length]);

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
  const picture = scene ? stillUrl(scene.voice_file, time, version) : "";
  const violations: any[] = [...(geometry?.violations ?? []), ...(geometry?.warnings ?? [])];
  const wordsOf = scene?.words ?? [];
  const current = useMemo(() => wordsOf.findIndex((w) => time !== null && time >= w.start && time < w.end), [wordsOf, time]);

  if (!scene) {
    return html`<p class="empty">This video has no scenes yet.</p>`;
  }
  return html`<div class="editor" data-topic=${topic}>
    <header class="bar">
      <h1>${view.title}</h1>
      <span class="session" data-staged=${staged}>${staged > 0 ? `${staged} unsaved change${staged > 1 ? "s" : ""}` : "All changes saved"}</span>
      <button class="undo" aria-label="Undo" onClick=${() => step("undo")} disabled=${!versions?.undo.length} title="Undo (Ctrl+Z)">Undo</button>
      <button class="redo" aria-label="Redo" onClick=${() => step("redo")} disabled=${!versions?.redo.length} title="Redo (Ctrl+Shift+Z)">Redo</button>
      <button class="save" onClick=${save} disabled=${staged === 0}>Save</button>
    </header>
    ${error ? html`<p class="error" role="alert">${error}</p>` : null}
    ${note ? html`<p class="note" role="status">${note}</p>` : null}
    <nav class="scenes" aria-label="Scenes">
      ${scenes.map(
        (s, i) => html`<button class=${"thumb" + (i === sel ? " selected" : "")} data-voice-file=${s.voice_file} onClick=${() => select(i)}>
          <img alt="" loading="lazy" src=${stillUrl(s.voice_file, null, sceneVersion(s))} width="70" height="124" />
          <span>${i + 1}. ${s.type || "scene"} · ${s.duration.toFixed(1)}s</span>
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
          videoRef=${video}
          onTime=${onTime}
          onEnded=${() => {
            Object.assign(stateRef.current, { playing: false, whole: null });
            setPlaying(false);
            setWhole(null);
            setTime(0);
          }}
          onCommit=${(t: Target, r: Rect) => modify([editOf(t, r)], `Moving the ${t.kind === "object" ? t.layoutId : t.kind}`)}
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
          <span class="time">${(time ?? 0).toFixed(2)}s</span>
        </div>
        <div class="timeline" aria-label="Words">
          ${wordsOf.map(
            (w, i) => html`<button class=${"word" + (i === current ? " now" : "")} style=${`flex-grow:${Math.max(w.end - w.start, 0.05)}`} onClick=${() => seek(w.start + 0.01)}>${w.word}</button>`,
          )}
        </div>
        ${fresh ? html`<p class="fresh" data-key=${fresh.key} data-ms=${fresh.ms}>Preview ready ${fresh.cached ? "(cached)" : `in ${fresh.ms} ms`}</p>` : null}
      </section>
      <aside class="panel">
        <label>Narration (scene ${sel + 1})
          <textarea class="text" rows="4" value=${text} onInput=${(e: Event) => setText((e.target as HTMLTextAreaElement).value)}></textarea>
        </label>
        <button class="apply-text" disabled=${text.trim() === scene.text.trim()} onClick=${() => modify([{ field_name: "segment.text", value: text }], "Updating the narration")}>Apply text</button>
        <div class="row">
          <span>Roll:</span>
          <button class="roll-a" disabled=${scene.type === "A-roll"} onClick=${() => modify([{ field_name: "roll.active", value: "A-roll" }], "Switching to A-roll")}>A-roll</button>
          <button class="roll-b" disabled=${scene.type === "B-roll"} onClick=${() => modify([{ field_name: "roll.active", value: "B-roll" }], "Switching to B-roll")}>B-roll</button>
        </div>
        <div class="row">
          <button class="disable-overlay" disabled=${scene.remotion_spec_state !== "ready"} onClick=${() => modify([{ field_name: "disable_overlay", value: true }], "Disabling the overlay")}>Disable overlay</button>
          <span class="overlay-state">Overlay: ${scene.remotion_spec_state ?? "none"}</span>
        </div>
        <${Broll} keyword=${String(scene.keyword ?? "")} onPick=${(u: string) => modify([{ field_name: "mediaUrl", value: u }], "Swapping the background")} />
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
        <ul class="violations">
          ${violations.length === 0 ? html`<li class="ok">No problems found.</li>` : null}
          ${violations.map((v) => html`<li class=${"sev-" + v.severity} data-code=${v.code}>${v.message ?? v.code.replaceAll("_", " ")}</li>`)}
        </ul>
        <${Export} initial=${view.status} />
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
