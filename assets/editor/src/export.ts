// Export: queue the MP4's render, follow the job's progress, then offer the finished file.
import { html } from "htm/preact";
import { useEffect, useState } from "preact/hooks";
import { api, words, type Status } from "./api";

export function Export(props: { initial: Status }) {
  const [status, setStatus] = useState<Status>(props.initial);
  const [error, setError] = useState("");
  const rendering = status.status === "processing" && status.stage === "rendering_video";

  useEffect(() => {
    if (!rendering) return;
    const t = setInterval(async () => {
      try {
        setStatus(await api.status());
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
      await api.session("commit").catch(() => undefined);
      await api.session("start").catch(() => undefined);
      setStatus(await api.export());
    } catch (e) {
      setError(words(e));
    }
  };
  const videoUrl = status.result?.video_url;
  const pct = Math.round((status.progress ?? 0) * 100);
  return html`<section class="export">
    <h2>Export</h2>
    ${error ? html`<p class="error" role="alert">${error}</p>` : null}
    ${status.status === "failed" && status.error ? html`<p class="error" role="alert">${status.error.message}</p>` : null}
    ${rendering
      ? html`<progress class="export-progress" max="100" value=${pct} data-progress=${status.progress}></progress> <span>${pct}%</span>`
      : html`<button class="export-button" onClick=${start}>${videoUrl ? "Export again" : "Export MP4"}</button>`}
    ${videoUrl && !rendering
      ? html`<p><a class="mp4" href=${videoUrl} download>Download the MP4</a></p>
          <video class="final" controls playsinline src=${videoUrl} width="280"></video>`
      : null}
  </section>`;
}
