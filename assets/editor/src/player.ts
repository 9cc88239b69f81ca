// The read-only player (`readonly=true`): the final MP4 when one exists, else the scenes in
// order from their preview clips, with the spoken words as captions. No edit controls. It
// starts muted (browsers only autoplay muted video) with an unmute button, and scales to the
// width it is given.
import { html } from "htm/preact";
import { useEffect, useRef, useState } from "preact/hooks";
import { api, words, type PlayerView } from "./api";
import * as live from "./live";

export function Player(props: { view: PlayerView }) {
  const { view } = props;
  const final = view.status.video_url;
  const [index, setIndex] = useState(0);
  const [src, setSrc] = useState<string | null>(null);
  const [time, setTime] = useState(0);
  const [error, setError] = useState("");
  const [done, setDone] = useState(false);
  const video = useRef<HTMLVideoElement>(null);
  const [muted, setMuted] = useState(true);
  const scene = view.scenes[index];

  useEffect(() => {
    document.title = view.title || "Video";
  }, [view.title]);

  useEffect(() => {
    if (final || !scene) return;
    let gone = false;
    api
      .preview(scene.voice_file)
      .then((c) => !gone && setSrc(c.url))
      .catch((e) => setError(words(e)));
    // Prepare the next scene's clip while this one plays.
    const next = view.scenes[index + 1];
    if (next) api.preview(next.voice_file).catch(() => undefined);
    return () => {
      gone = true;
    };
  }, [index]);

  useEffect(() => {
    live.bind(
      {
        state: () => ({ scene: scene?.voice_file ?? null, scene_index: index, playing: !!video.current && !video.current.paused, time: video.current?.currentTime ?? 0 }),
        activate: async () => {
          throw new Error("The read-only player cannot switch scenes.");
        },
        play: async () => {
          await video.current?.play();
        },
        pause: () => video.current?.pause(),
        seek: async (t) => {
          if (video.current) video.current.currentTime = t;
        },
        reload: async () => location.reload(),
        snapshot: () => ({ mode: "player", scene_uid: scene?.voice_file, scene_index: index }),
        boxes: () => ({ scene_uid: scene?.voice_file, boxes: [] }),
      },
      "player",
    );
  }, [index]);

  const caption = (scene?.words ?? []).filter((w) => time >= w.start - 0.3 && time < w.end + 0.6).map((w) => w.word).join(" ");
  // Over the picture's corner, so it is in view on a phone as soon as the video is.
  const unmute = html`<button class="unmute" aria-pressed=${!muted} onClick=${() => setMuted(!muted)}>${muted ? "Unmute" : "Mute"}</button>`;
  return html`<div class="player" data-mode="player">
    <h1>${view.title}</h1>
    ${error ? html`<p class="error" role="alert">${error}</p>` : null}
    ${final
      ? html`<div class="frame"><video
          class="final"
          aria-label="Video"
          controls
          playsinline
          autoplay
          muted=${muted}
          src=${final}
          width="280"
          height="498"
          onVolumeChange=${(e: Event) => e.target instanceof HTMLVideoElement && setMuted(e.target.muted)}
        ></video>${unmute}</div>`
      : scene
        ? html`<div class="scene-player">
            <div class="frame"><video
              class="scene-clip"
              aria-label="Scene clip"
              ref=${video}
              data-scene=${scene.voice_file}
              data-index=${index}
              controls
              playsinline
              autoplay
              muted=${muted}
              src=${src ?? undefined}
              width="280"
              height="498"
              onTimeUpdate=${(e: Event) => e.target instanceof HTMLVideoElement && setTime(e.target.currentTime)}
              onVolumeChange=${(e: Event) => e.target instanceof HTMLVideoElement && setMuted(e.target.muted)}
              onEnded=${() => {
                if (index + 1 < view.scenes.length) {
                  setSrc(null);
                  setTime(0);
                  setIndex(index + 1);
                } else setDone(true);
              }}
            ></video>${unmute}</div>
            <p class="caption" aria-label="Captions" aria-live="polite">${caption}</p>
            <p class="position">Scene ${index + 1} of ${view.scenes.length}${done ? " · finished" : ""}</p>
          </div>`
        : html`<p class="empty">This video has no scenes yet.</p>`}
  </div>`;
}
