// Export: queue the MP4's render, follow the job's progress, then offer the finished file.
// The button and the progress sit in the editor's header (always in view); the finished MP4
// is shown in the panel. Unsaved edits are saved first, and the button says so before it runs.
import { html } from "htm/preact";
import { useEffect, useRef, useState } from "preact/hooks";
import { api, words, type Status } from "./api";

/** The API's `progress` starts rendering at this value (pipeline `RENDER_START`). */
const RENDER_START = 0.85;

/** The render's progress as 0–100: the API's 0.85–1.0 while rendering, rescaled. */
export function percent(s: Pick<Status, "stage" | "progress">): number {
  const p = s.progress ?? 0;
  const scaled = s.stage === "rendering_video" ? (p - RENDER_START) / (1 - RENDER_START) : p;
  return Math.round(Math.min(1, Math.max(0, scaled)) * 100);
}

/** The stage of a job in words. */
export function stageWords(stage: string | null): string {
  if (stage === "rendering_video") return "Rendering the video";
  if (stage === "scenes_ready_for_review") return "Scenes ready";
  return stage ? stage.replace(/_/g, " ") : "Starting";
}

export interface ExportState {
  status: Status;
  error: string;
  rendering: boolean;
  /** Seconds left, once enough of the render has run to tell. */
  left: number | null;
  start: () => Promise<void>;
}

/** The export's state, polled while it renders. `beforeStart` saves the session's edits. */
export function useExport(initial: Status, beforeStart: () => Promise<void>): ExportState {
  const [status, setStatus] = useState<Status>(initial);
  const [error, setError] = useState("");
  const [left, setLeft] = useState<number | null>(null);
  const began = useRef<{ at: number; pct: number } | null>(null);
  const rendering = status.status === "processing" && status.stage === "rendering_video";

  useEffect(() => {
    if (!rendering) {
      began.current = null;
      setLeft(null);
      return;
    }
    const t = setInterval(async () => {
      try {
        const s = await api.status();
        setStatus(s);
        const pct = percent(s);
        const now = performance.now();
        if (!began.current) began.current = { at: now, pct };
        const done = pct - began.current.pct;
        if (done >= 5 && pct < 100) setLeft(Math.round((((now - began.current.at) / done) * (100 - pct)) / 1000));
      } catch (e) {
        setError(words(e));
      }
    }, 700);
    return () => clearInterval(t);
  }, [rendering]);

  const start = async () => {
    setError("");
    try {
      // The MP4 is rendered from the saved document: save the session's edits first.
      await beforeStart();
      setStatus(await api.export());
    } catch (e) {
      setError(words(e));
    }
  };
  return { status, error, rendering, left, start };
}

/** The header's part: the Export button (with its warning about unsaved edits), or the progress. */
export function ExportBar(props: { ex: ExportState; unsaved: number; unapplied: string }) {
  const { ex } = props;
  const [asking, setAsking] = useState(false);
  const pending = props.unsaved > 0 || props.unapplied !== "";
  const videoUrl = ex.status.result?.video_url;
  const go = () => {
    setAsking(false);
    ex.start();
  };
  if (ex.rendering) {
    const pct = percent(ex.status);
    return html`<div class="export-bar rendering" aria-label="Export">
      <span class="export-stage">${stageWords(ex.status.stage ?? null)}${ex.left !== null ? ` · about ${ex.left} s left` : ""}</span>
      <span class="row">
        <progress class="export-progress" max="100" value=${pct} data-progress=${ex.status.progress} aria-label="Export progress"></progress>
        <span class="export-pct">${pct}%</span>
      </span>
    </div>`;
  }
  const said = [
    props.unsaved > 0 ? `${props.unsaved} unsaved edit${props.unsaved > 1 ? "s" : ""} will be saved first.` : "",
    props.unapplied ? `${props.unapplied}: it will not be in the video unless you apply it.` : "",
  ].filter(Boolean);
  return html`<div class="export-bar">
    <button class="export-button" title=${pending ? "Unsaved edits will be saved first" : "Render the MP4"} onClick=${() => (pending ? setAsking(!asking) : go())}>
      ${videoUrl ? "Export again" : "Export MP4"}
    </button>
    ${asking
      ? html`<div class="export-confirm" role="alertdialog" aria-label="Export with unsaved edits">
          ${said.map((s) => html`<p>${s}</p>`)}
          <div class="row">
            <button class="export-confirmed" onClick=${go}>${props.unsaved > 0 ? "Save and export" : "Export anyway"}</button>
            <button onClick=${() => setAsking(false)}>Cancel</button>
          </div>
        </div>`
      : null}
  </div>`;
}

/** The panel's part: why the render failed, or the finished MP4 (a failed call to start it is
 * shown with the editor's other messages). */
export function ExportResult(props: { ex: ExportState }) {
  const { ex } = props;
  const videoUrl = ex.status.result?.video_url;
  const failed = ex.status.status === "failed" && ex.status.error ? ex.status.error.message : "";
  if (!failed && !(videoUrl && !ex.rendering)) return null;
  return html`<section class="export">
    <h2>Export</h2>
    ${failed ? html`<p class="error" role="alert">${failed}</p>` : null}
    ${videoUrl && !ex.rendering
      ? html`<p><a class="mp4" href=${videoUrl} download>Download the MP4</a></p>
          <video class="final" controls playsinline src=${videoUrl}></video>`
      : null}
  </section>`;
}
