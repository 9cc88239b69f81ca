// The selected scene's panel: its narration, its place in the video (move, delete, add a scene
// after it), its roll and overlay, its background, uploads and layout checks. Every control is
// named for a person (its label or its text) and runs one of the editor's commands.
import { html } from "htm/preact";
import { useState } from "preact/hooks";
import type { Finding, Scene } from "./api";
import { Broll } from "./broll";
import type { Commands, UploadKind } from "./commands";
import { findingSentence, overlaySentence } from "./plain";
import { scenes, selectedIndex, textOf, type EditorState } from "./store";

const valueOf = (e: Event) => (e.target instanceof HTMLInputElement || e.target instanceof HTMLTextAreaElement ? e.target.value : "");

function Narration(props: { state: EditorState; scene: Scene; c: Commands }) {
  const { state, scene, c } = props;
  const text = textOf(state, scene);
  const same = text.trim() === scene.text.trim();
  return html`<label>Narration (scene ${selectedIndex(state) + 1})
      <textarea class="text" rows="4" value=${text} onInput=${(e: Event) => props.c.typed(scene.voice_file, valueOf(e))}></textarea>
    </label>
    <div class="row">
      <button disabled=${same} onClick=${() => c.applyText(false)} title="The recorded voice stays; the words are timed over it">Apply, keep the voice</button>
      <button disabled=${same} onClick=${() => c.applyText(true)} title="The video's voice speaks the new text; the scene's length follows">Apply and re-voice</button>
    </div>
    ${scene.narration_state === "text_changed"
      ? html`<p class="voice-differs" role="note">The voice still says the old words.
          <button onClick=${() => c.revoice(scene.voice_file)}>Re-voice this scene</button></p>`
      : null}`;
}

/** "Add scene after": a text box for what the new scene says, then the voice speaks it. */
function AddScene(props: { c: Commands; number: number }) {
  const [text, setText] = useState<string | null>(null);
  if (text === null) {
    return html`<button aria-label="Add a scene after this one" aria-expanded="false" onClick=${() => setText("")}>Add scene after</button>`;
  }
  const add = async (e: Event) => {
    e.preventDefault();
    if (await props.c.addScene(text.trim())) setText(null);
  };
  return html`<form class="add-scene" aria-label="New scene" onSubmit=${add}>
    <label>What the new scene after scene ${props.number} says
      <textarea rows="3" maxlength="2000" value=${text} onInput=${(e: Event) => setText(valueOf(e))}></textarea>
    </label>
    <div class="row">
      <button type="submit" disabled=${!text.trim()}>Add scene</button>
      <button type="button" onClick=${() => setText(null)}>Cancel</button>
    </div>
  </form>`;
}

function Arrange(props: { state: EditorState; c: Commands }) {
  const { c } = props;
  const at = selectedIndex(props.state);
  const count = scenes(props.state).length;
  return html`<div class="row" role="group" aria-label="Scene order">
      <button disabled=${at === 0} onClick=${() => c.move(-1)}>Move earlier</button>
      <button disabled=${at >= count - 1} onClick=${() => c.move(1)}>Move later</button>
      <button disabled=${count < 2} onClick=${c.remove}>Delete scene</button>
    </div>
    <${AddScene} key=${props.state.selected} c=${c} number=${at + 1} />`;
}

function RollAndOverlay(props: { scene: Scene; c: Commands }) {
  const { scene, c } = props;
  return html`<div class="row" role="group" aria-label="Roll">
      <span>Roll:</span>
      <button disabled=${scene.type === "A-roll"} onClick=${() => c.modify([{ field_name: "roll.active", value: "A-roll" }], "Switching to A-roll")}>A-roll</button>
      <button disabled=${scene.type === "B-roll"} onClick=${() => c.modify([{ field_name: "roll.active", value: "B-roll" }], "Switching to B-roll")}>B-roll</button>
    </div>
    <div class="row">
      <button disabled=${scene.remotion_spec_state !== "ready"} onClick=${() => c.modify([{ field_name: "disable_overlay", value: true }], "Disabling the overlay")}>Disable overlay</button>
      <span class="overlay-state" role="note" aria-label="Overlay state" data-state=${scene.remotion_spec_state || "missing"}>${overlaySentence(scene.remotion_spec_state)}</span>
    </div>`;
}

function Background(props: { scene: Scene; c: Commands }) {
  const { scene, c } = props;
  const [media, setMedia] = useState("");
  const swap = (u: string) => c.modify([{ field_name: "mediaUrl", value: u }], "Swapping the background");
  return html`<${Broll} key=${scene.voice_file} keyword=${scene.keyword} onPick=${swap} />
    <label>Background from a URL
      <input class="media-url" type="url" placeholder="https://…" value=${media} onInput=${(e: Event) => setMedia(valueOf(e))} />
    </label>
    <button disabled=${!media} onClick=${() => swap(media)}>Swap background</button>`;
}

const UPLOADS: { kind: UploadKind; label: string; accept: string }[] = [
  { kind: "voice", label: "Voice", accept: "audio/*" },
  { kind: "narrator", label: "Narrator video", accept: "video/*" },
  { kind: "overlay", label: "Overlay (SVG or image)", accept: "image/*,.svg" },
];

function Uploads(props: { c: Commands }) {
  const picked = async (kind: UploadKind, e: Event) => {
    const input = e.target;
    if (!(input instanceof HTMLInputElement)) return;
    const file = input.files?.[0];
    if (file) await props.c.upload(kind, file);
    input.value = "";
  };
  return html`<h2>Uploads</h2>
    <div class="uploads">
      ${UPLOADS.map(
        (u) => html`<label class="upload">${u.label}
          <input type="file" accept=${u.accept} onChange=${(e: Event) => picked(u.kind, e)} />
        </label>`,
      )}
    </div>`;
}

function Checks(props: { findings: Finding[] }) {
  return html`<h2>Layout checks</h2>
    <ul class="violations" aria-label="Layout checks">
      ${props.findings.length === 0 ? html`<li class="ok">No problems found.</li>` : null}
      ${props.findings.map((f) => html`<li class=${"sev-" + f.severity} data-code=${f.code}>${findingSentence(f)}</li>`)}
    </ul>`;
}

export function Panel(props: { state: EditorState; scene: Scene; c: Commands; children?: unknown }) {
  const { state, scene, c } = props;
  const g = state.geometry;
  const findings: Finding[] = [...(g?.violations ?? []), ...(g?.warnings ?? [])];
  return html`<aside class="panel" aria-label="Scene">
    <${Narration} state=${state} scene=${scene} c=${c} />
    <${Arrange} state=${state} c=${c} />
    <${RollAndOverlay} scene=${scene} c=${c} />
    <${Background} scene=${scene} c=${c} />
    <${Uploads} c=${c} />
    <${Checks} findings=${findings} />
    ${props.children}
  </aside>`;
}
