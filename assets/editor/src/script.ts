// The script view (`view=script`, output_type=text): edit the segments, then approve them and
// the video goes on to scenes; the page follows the build and opens the scene editor.
import { html } from "htm/preact";
import { useEffect, useState } from "preact/hooks";
import { api, words, type EditorView, type Status } from "./api";

export function Script(props: { view: EditorView; onScenes: () => void }) {
  const [segments, setSegments] = useState<string[]>(props.view.scenes.map((s) => s.text));
  const [status, setStatus] = useState<Status | null>(null);
  const [error, setError] = useState("");
  const building = status?.status === "processing";

  useEffect(() => {
    document.title = props.view.title || "Video";
  }, [props.view.title]);

  useEffect(() => {
    if (!building) return;
    const t = setInterval(async () => {
      try {
        const s = await api.status();
        setStatus(s);
        if (s.status === "completed") props.onScenes();
        if (s.status === "failed") setError(s.error?.message ?? "The scenes could not be built.");
      } catch (e) {
        setError(words(e));
      }
    }, 1000);
    return () => clearInterval(t);
  }, [building]);

  const approve = async () => {
    setError("");
    try {
      setStatus(await api.approve(segments));
    } catch (e) {
      setError(words(e));
    }
  };
  const edit = (i: number, e: Event) => {
    const area = e.target;
    if (area instanceof HTMLTextAreaElement) setSegments(segments.map((s, j) => (j === i ? area.value : s)));
  };
  const count = segments.join(" ").split(/\s+/).filter(Boolean).length;
  return html`<div class="script" data-mode="script">
    <h1>${props.view.title}</h1>
    <p>Edit the script, segment by segment, then approve it to build the scenes. ${count} words.</p>
    ${error ? html`<p class="error" role="alert">${error}</p>` : null}
    <ol class="segments">
      ${segments.map(
        (text, i) => html`<li>
          <textarea
            class="segment"
            aria-label=${`Segment ${i + 1}`}
            rows="3"
            disabled=${building}
            value=${text}
            onInput=${(e: Event) => edit(i, e)}
          ></textarea>
        </li>`,
      )}
    </ol>
    ${building
      ? html`<p class="building" role="status"><progress max="100" value=${Math.round((status?.progress ?? 0) * 100)}></progress> Building the scenes…</p>`
      : html`<button class="approve" onClick=${approve}>Approve script</button>`}
  </div>`;
}
