// The whole video at a glance: every scene as a block sized by its duration, the total length,
// and one playhead. Clicking anywhere seeks there (across scene boundaries).
import { html } from "htm/preact";
import type { Span } from "./store";

export function clock(t: number): string {
  const m = Math.floor(t / 60);
  const s = t - m * 60;
  return `${m}:${s.toFixed(1).padStart(4, "0")}`;
}

export function VideoTimeline(props: { spans: Span[]; playhead: number; sel: number; onSeek: (t: number) => void }) {
  const total = props.spans.reduce((a, s) => a + s.duration, 0);
  const seekAt = (e: MouseEvent) => {
    const bar = e.currentTarget;
    if (!(bar instanceof HTMLElement)) return;
    const r = bar.getBoundingClientRect();
    props.onSeek(Math.max(0, Math.min(total, ((e.clientX - r.left) / r.width) * total)));
  };
  return html`<div class="video-timeline">
    <div class="blocks" role="slider" aria-label="Whole video" aria-valuemin="0" aria-valuemax=${total.toFixed(1)} aria-valuenow=${props.playhead.toFixed(1)} tabindex="-1" onClick=${seekAt}>
      ${props.spans.map(
        (s, i) => html`<div
          class=${"block" + (i === props.sel ? " selected" : "")}
          data-voice-file=${s.voice_file}
          aria-current=${i === props.sel ? "true" : undefined}
          style=${`flex-grow:${Math.max(s.duration, 0.1)}`}
          title=${`Scene ${i + 1}: ${s.duration.toFixed(1)} s`}
        >
          ${i + 1}
        </div>`,
      )}
      <div class="playhead" style=${`left:${total > 0 ? (props.playhead / total) * 100 : 0}%`}></div>
    </div>
    <span class="total" aria-label="Position and total length">${clock(props.playhead)} / ${clock(total)}</span>
  </div>`;
}
