// The selected scene's 280×498 preview: the compositor's still (or its preview clip while
// playing), the safe zones and every box scene_geometry reports drawn on top (the guides,
// which can be hidden, and are while playing). Narrator, caption and overlay objects are
// dragged (and the narrator and objects resized) in preview pixels; letting go sends the
// matching modify_scene edit. A click selects a box, for the editor's arrow-key nudges.
import { html } from "htm/preact";
import { useEffect, useRef, useState } from "preact/hooks";
import type { Geometry, Rect } from "./api";

export const W = 280;
export const H = 498;

export type BoxKind = "narrator" | "caption" | "object";
export interface Target { kind: BoxKind; layoutId?: string }

interface Drag {
  target: Target;
  mode: "move" | "resize";
  startX: number;
  startY: number;
  from: Rect;
}

const clamp = (v: number, lo: number, hi: number) => Math.min(Math.max(v, lo), hi);
const round = (v: number) => Math.round(v * 10) / 10;

function moved(d: Drag, dx: number, dy: number): Rect {
  const r = d.from;
  if (d.target.kind === "caption") {
    return { ...r, y: round(clamp(r.y + dy, 0, H - r.h)) };
  }
  if (d.mode === "resize") {
    return { ...r, w: round(clamp(r.w + dx, 8, W - r.x)), h: round(clamp(r.h + dy, 8, H - r.y)) };
  }
  return { ...r, x: round(clamp(r.x + dx, -r.w / 2, W - r.w / 2)), y: round(clamp(r.y + dy, -r.h / 2, H - r.h / 2)) };
}

/** A box moved by (`dx`, `dy`) preview px, kept on the stage as a drag keeps it. */
export function nudged(target: Target, from: Rect, dx: number, dy: number): Rect {
  return moved({ target, mode: "move", startX: 0, startY: 0, from }, dx, dy);
}

export const sameTarget = (a: Target | null, b: Target | null) => !!a && !!b && a.kind === b.kind && (a.layoutId ?? "") === (b.layoutId ?? "");

/** The rect scene_geometry reports for a box, if it is drawn. */
export function rectOf(g: Geometry | null, t: Target): Rect | null {
  if (!g) return null;
  if (t.kind === "narrator") return g.boxes.narrator.visible ? g.boxes.narrator.rect : null;
  if (t.kind === "caption") return g.boxes.caption.container_rect;
  return g.boxes.remotion.object_layer.objects.find((o) => o.layout_id === t.layoutId)?.rect ?? null;
}

const px = (r: Rect) => `left:${r.x}px;top:${r.y}px;width:${r.w}px;height:${r.h}px`;

export function Stage(props: {
  geometry: Geometry | null;
  picture: string;
  clipUrl: string | null;
  playing: boolean;
  readonly: boolean;
  /** Show the safe zones and boxes (never while playing). Hidden, they stay laid out, so the
   * live inspector still measures them. */
  guides: boolean;
  /** The box the arrow keys nudge, and where a nudge not yet sent puts it. */
  selected: Target | null;
  nudge: { target: Target; rect: Rect } | null;
  onSelect: (target: Target | null) => void;
  videoRef: { current: HTMLVideoElement | null };
  onTime: (t: number) => void;
  onEnded: () => void;
  onCommit: (target: Target, rect: Rect) => void;
}) {
  const [drag, setDrag] = useState<Drag | null>(null);
  const [draft, setDraft] = useState<{ key: string; rect: Rect } | null>(null);
  const stage = useRef<HTMLDivElement>(null);
  const g = props.geometry;
  const keyOf = (t: Target) => t.kind + ":" + (t.layoutId ?? "");
  // A drag's rect is shown until the geometry it sent comes back (or a failed edit reloads it).
  useEffect(() => {
    if (!drag) setDraft(null);
  }, [g]);

  const start = (e: PointerEvent, target: Target, from: Rect) => {
    if (props.readonly) return;
    const handle = e.target instanceof HTMLElement && e.target.dataset.handle === "resize";
    e.preventDefault();
    e.stopPropagation();
    props.onSelect(target);
    if (e.currentTarget instanceof HTMLElement) e.currentTarget.setPointerCapture?.(e.pointerId);
    setDrag({ target, mode: handle ? "resize" : "move", startX: e.clientX, startY: e.clientY, from });
    setDraft({ key: keyOf(target), rect: from });
  };
  const move = (e: PointerEvent) => {
    if (!drag) return;
    setDraft({ key: keyOf(drag.target), rect: moved(drag, e.clientX - drag.startX, e.clientY - drag.startY) });
  };
  const end = (e: PointerEvent) => {
    if (!drag) return;
    const rect = moved(drag, e.clientX - drag.startX, e.clientY - drag.startY);
    const changed = JSON.stringify(rect) !== JSON.stringify(drag.from);
    setDrag(null);
    if (changed) props.onCommit(drag.target, rect);
    else setDraft(null);
  };
  const shownRect = (t: Target, r: Rect) => {
    if (draft && draft.key === keyOf(t) && drag) return draft.rect;
    if (props.nudge && sameTarget(props.nudge.target, t)) return props.nudge.rect;
    return draft && draft.key === keyOf(t) ? draft.rect : r;
  };

  const box = (t: Target, r: Rect, label: string, selector: string, resizable: boolean) => {
    const shown = shownRect(t, r);
    const picked = sameTarget(props.selected, t);
    return html`<div
      class=${"box box-" + t.kind + (picked ? " selected" : "")}
      role=${props.readonly ? undefined : "button"}
      aria-label=${`${label} box`}
      aria-pressed=${props.readonly ? undefined : picked}
      data-box=${t.kind}
      data-layout-id=${t.layoutId}
      data-selector=${selector}
      style=${px(shown)}
      title=${label}
      onPointerDown=${(e: PointerEvent) => start(e, t, r)}
      onPointerMove=${move}
      onPointerUp=${end}
      onPointerCancel=${end}
    >
      <span class="box-label">${label}</span>
      ${resizable && !props.readonly ? html`<span class="handle" data-handle="resize"></span>` : null}
    </div>`;
  };

  const zones = g?.safe_zones;
  const narrator = g?.boxes.narrator;
  const caption = g?.boxes.caption;
  const objects = g?.boxes.remotion.object_layer.objects ?? [];
  const drawn = !props.playing;
  return html`<div
    class=${"stage" + (props.guides ? "" : " guides-off")}
    ref=${stage}
    data-stage="preview"
    style=${`width:${W}px;height:${H}px`}
    onPointerDown=${() => props.onSelect(null)}
  >
    ${props.playing && props.clipUrl
      ? html`<video
          class="picture"
          data-picture
          ref=${props.videoRef}
          src=${props.clipUrl}
          aria-label="Preview playing"
          autoplay
          playsinline
          onTimeUpdate=${(e: Event) => e.target instanceof HTMLVideoElement && props.onTime(e.target.currentTime)}
          onEnded=${props.onEnded}
        ></video>`
      : html`<img class="picture" data-picture alt="Scene preview" src=${props.picture} draggable=${false} />`}
    ${zones && drawn
      ? html`<div class="zone" data-zone="dead_top" style=${px(zones.dead_top)}></div>
          <div class="zone" data-zone="dead_bottom" style=${px(zones.dead_bottom)}></div>`
      : null}
    ${drawn && narrator?.visible ? box({ kind: "narrator" }, narrator.rect, "Narrator", '[data-box="narrator"]', true) : null}
    ${drawn && caption?.visible
      ? box({ kind: "caption" }, caption.container_rect, "Caption", '[data-box="caption"]', false)
      : null}
    ${drawn
      ? objects.map((o) =>
          box({ kind: "object", layoutId: o.layout_id }, o.rect, o.layout_id, `[data-layout-id="${o.layout_id}"]`, true),
        )
      : null}
  </div>`;
}

/** Every drawn box, measured from the DOM in preview pixels (the stage is 280×498 CSS px). */
export function measure(selector: string | null): { selector: string; kind: string; x: number; y: number; w: number; h: number }[] {
  const stage = document.querySelector<HTMLElement>('[data-stage="preview"]');
  if (!stage) return [];
  const origin = stage.getBoundingClientRect();
  const sx = origin.width / W;
  const sy = origin.height / H;
  const nodes = Array.from(stage.querySelectorAll<HTMLElement>(selector || "[data-box]"));
  const r2 = (v: number) => Math.round(v * 100) / 100;
  return nodes.map((n) => {
    const r = n.getBoundingClientRect();
    return {
      selector: n.dataset.selector ?? selector ?? "",
      kind: n.dataset.box ?? n.dataset.zone ?? n.tagName.toLowerCase(),
      x: r2((r.left - origin.left) / sx),
      y: r2((r.top - origin.top) / sy),
      w: r2(r.width / sx),
      h: r2(r.height / sy),
    };
  });
}
