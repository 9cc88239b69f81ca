//! Cache keys of per-scene chunks: digests of everything that decides a chunk's bytes.
//!
//! - A scene's **picture key** covers what its frames show, apart from where it sits in the
//!   video: its render plan (timings, captions, overlay objects, rects, transition), the bytes
//!   of every file it reads (background image or clip, presenter clip, overlay payloads, the
//!   fonts) and the renderer's version ([`compositor::RENDERER_VERSION`]), so `rerender --all`
//!   after a renderer change renders everything again.
//! - A **chunk key** adds where the scene sits (its first frame and start time on the
//!   timeline: frame times are absolute), the encoder's identity and settings, and the digest
//!   of the next scene's first frame when the scene fades into it — the only thing of the next
//!   scene a chunk shows, so an edit of a scene re-renders the scene before it only when the
//!   edit changes that first frame.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};
use std::time::UNIX_EPOCH;

use compositor::plan::{Background, Narrator, OverlayPayload, ScenePlan};
use sha2::{Digest, Sha256};

/// A 128-bit digest as 32 hex digits: a cache file name part.
pub type Key = String;

fn finish(hasher: Sha256) -> Key {
    hex::encode(&hasher.finalize()[..16])
}

/// The SHA-256 of a file's bytes; `None` when it cannot be read. Memoised by path, size and
/// modification time, so a re-export hashes only the files that changed.
pub(crate) fn file_digest(path: &Path) -> Option<[u8; 32]> {
    type Memo = Mutex<HashMap<PathBuf, (u64, u128, [u8; 32])>>;
    static MEMO: OnceLock<Memo> = OnceLock::new();
    let meta = std::fs::metadata(path).ok()?;
    let mtime = meta
        .modified()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos());
    let memo = MEMO.get_or_init(Default::default);
    if let Some((len, time, digest)) = memo.lock().ok()?.get(path)
        && (*len, *time) == (meta.len(), mtime)
    {
        return Some(*digest);
    }
    let mut hasher = Sha256::new();
    let mut file = std::fs::File::open(path).ok()?;
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let n = std::io::Read::read(&mut file, &mut buf).ok()?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
    }
    let digest: [u8; 32] = hasher.finalize().into();
    if let Ok(mut memo) = memo.lock() {
        memo.insert(path.to_owned(), (meta.len(), mtime, digest));
    }
    Some(digest)
}

/// The files of the fonts folder, in name order.
pub(crate) fn font_files(fonts_dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(fonts_dir)
        .map(|entries| entries.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    files.retain(|p| p.is_file());
    files.sort();
    files
}

/// The digest of every file in the fonts folder (names and bytes, in name order).
pub(crate) fn fonts_digest(fonts_dir: &Path) -> Key {
    let mut hasher = Sha256::new();
    for path in &font_files(fonts_dir) {
        hasher.update(path.file_name().unwrap_or_default().as_encoded_bytes());
        hasher.update(file_digest(path).unwrap_or_default());
    }
    finish(hasher)
}

/// The files scene `scene` reads while it is resolved.
pub(crate) fn scene_files(scene: &ScenePlan) -> Vec<PathBuf> {
    let mut scene = scene.clone();
    scene_files_mut(&mut scene)
        .into_iter()
        .map(|p| p.clone())
        .collect()
}

/// The paths of the files scene `scene` reads, to change them (a render worker names its own
/// copies).
pub(crate) fn scene_files_mut(scene: &mut ScenePlan) -> Vec<&mut PathBuf> {
    let background = match &mut scene.background {
        Background::Image(path) => Some(path),
        Background::Clip(clip) => Some(&mut clip.path),
        Background::Procedural { .. } => None,
    };
    let narrator = match &mut scene.narrator {
        Some(Narrator::Clip { clip, .. }) => Some(&mut clip.path),
        _ => None,
    };
    let payloads = scene
        .overlay
        .iter_mut()
        .filter_map(|o| match &mut o.payload {
            OverlayPayload::SvgFile(path) | OverlayPayload::Png(path) => Some(path),
            OverlayPayload::Svg(_) => None,
        });
    background
        .into_iter()
        .chain(narrator)
        .chain(payloads)
        .collect()
}

/// The picture key of `scene` (see the module docs), with `fonts` from [`fonts_digest`] and
/// `renderer` the renderer's version.
pub fn picture(scene: &ScenePlan, fonts: &str, renderer: &str) -> Key {
    let mut hasher = Sha256::new();
    hasher.update(b"reelsmith scene picture v1\0");
    hasher.update(renderer.as_bytes());
    hasher.update([0]);
    hasher.update(fonts.as_bytes());
    hasher.update(serde_json::to_vec(scene).expect("plans always serialise"));
    for path in scene_files(scene) {
        // A missing file hashes as zeros: resolving will fail on it anyway.
        hasher.update(file_digest(&path).unwrap_or_default());
    }
    finish(hasher)
}

/// Where a chunk's scene sits in its video, and what it fades into.
#[derive(Debug, Clone, PartialEq)]
pub struct Placement<'a> {
    /// The timeline frame the chunk starts at, and how many it has.
    pub frames: std::ops::Range<u64>,
    /// The scene's start on the timeline, seconds.
    pub start: f64,
    pub fps: u32,
    /// The digest of the next scene's first frame when the scene fades into it.
    pub incoming: Option<&'a str>,
}

/// The chunk key of a scene with picture key `picture` placed as `placement`, encoded by the
/// encoder `encoder` identifies ([`compositor::media::encoder_identity`]).
pub fn chunk(picture: &str, placement: &Placement<'_>, encoder: &str) -> Key {
    let mut hasher = Sha256::new();
    hasher.update(b"reelsmith scene chunk v1\0");
    hasher.update(picture.as_bytes());
    hasher.update([0]);
    hasher.update(encoder.as_bytes());
    hasher.update([0]);
    hasher.update(placement.frames.start.to_le_bytes());
    hasher.update(placement.frames.end.to_le_bytes());
    hasher.update(placement.start.to_bits().to_le_bytes());
    hasher.update(placement.fps.to_le_bytes());
    match placement.incoming {
        Some(digest) => {
            hasher.update([1]);
            hasher.update(digest.as_bytes());
        }
        None => hasher.update([0]),
    }
    finish(hasher)
}

/// The key of an encoded soundtrack: `sound` (the key of the soundtrack's inputs, see
/// `render::plan::soundtrack_key`), cut to `frames` at `fps`, at `bitrate` bit/s.
pub fn audio(sound: &str, (frames, fps): (u64, u32), bitrate: u32) -> Key {
    let mut hasher = Sha256::new();
    hasher.update(b"reelsmith soundtrack v1\0");
    hasher.update(sound.as_bytes());
    hasher.update(frames.to_le_bytes());
    hasher.update(fps.to_le_bytes());
    hasher.update(bitrate.to_le_bytes());
    finish(hasher)
}

/// A digest of `parts`, in order (each delimited, so the parts cannot run into each other).
pub(crate) fn of_parts<'a>(parts: impl IntoIterator<Item = &'a [u8]>) -> Key {
    let mut hasher = Sha256::new();
    for part in parts {
        hasher.update((part.len() as u64).to_le_bytes());
        hasher.update(part);
    }
    finish(hasher)
}

/// The digest of a rendered frame's pixels.
pub fn frame(rgba: &[u8]) -> Key {
    finish(Sha256::new_with_prefix(rgba))
}

#[cfg(test)]
mod tests {
    use super::*;
    use compositor::plan::{Palette, ProceduralStyle, Transition};

    fn scene() -> ScenePlan {
        ScenePlan {
            duration: 2.0,
            background: Background::Procedural {
                seed: 3,
                style: ProceduralStyle::Grid,
                palette: Palette::OCEAN,
            },
            background_fit: Default::default(),
            narrator: None,
            captions: vec![],
            caption_y: 300.0,
            overlay: vec![],
            transition: Transition::Fade,
        }
    }

    fn placement(incoming: Option<&str>) -> Placement<'_> {
        Placement {
            frames: 0..60,
            start: 0.0,
            fps: 30,
            incoming,
        }
    }

    #[test]
    fn a_renderer_change_changes_every_key() {
        let a = picture(&scene(), "fonts", "0.1.0+aaaa");
        let b = picture(&scene(), "fonts", "0.1.0+bbbb");
        assert_ne!(a, b);
        assert_eq!(a, picture(&scene(), "fonts", "0.1.0+aaaa"), "stable");
        assert_ne!(
            chunk(&a, &placement(None), "x264"),
            chunk(&b, &placement(None), "x264")
        );
    }

    #[test]
    fn the_plan_the_files_the_place_and_the_incoming_frame_are_all_in_the_key() {
        let base = picture(&scene(), "f", "r");
        let mut longer = scene();
        longer.duration = 2.5;
        assert_ne!(picture(&longer, "f", "r"), base);
        assert_ne!(picture(&scene(), "other fonts", "r"), base);

        let dir = std::env::temp_dir().join(format!("reelsmith-key-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let image = dir.join("bg.png");
        std::fs::write(&image, b"one").unwrap();
        let mut pictured = scene();
        pictured.background = Background::Image(image.clone());
        let first = picture(&pictured, "f", "r");
        // Same path, same length, other bytes and a later time: another picture.
        std::thread::sleep(std::time::Duration::from_millis(20));
        std::fs::write(&image, b"two").unwrap();
        assert_ne!(picture(&pictured, "f", "r"), first);
        let _ = std::fs::remove_dir_all(&dir);

        let here = chunk(&base, &placement(None), "x264");
        let moved = Placement {
            frames: 1..61,
            start: 1.0 / 30.0,
            ..placement(None)
        };
        assert_ne!(chunk(&base, &moved, "x264"), here);
        assert_ne!(chunk(&base, &placement(Some("ab")), "x264"), here);
        assert_ne!(
            chunk(&base, &placement(Some("ab")), "x264"),
            chunk(&base, &placement(Some("cd")), "x264")
        );
        assert_ne!(chunk(&base, &placement(None), "nvh264enc"), here);
    }

    #[test]
    fn the_files_a_scene_reads_can_be_renamed_in_place() {
        let mut scene = scene();
        scene.background = Background::Clip(compositor::plan::Clip::new("/data/a/clip.mp4"));
        assert_eq!(scene_files(&scene), [PathBuf::from("/data/a/clip.mp4")]);
        for path in scene_files_mut(&mut scene) {
            *path = PathBuf::from("/worker/inputs/0f.mp4");
        }
        assert_eq!(
            scene_files(&scene),
            [PathBuf::from("/worker/inputs/0f.mp4")]
        );
        scene.background = Background::Procedural {
            seed: 1,
            style: ProceduralStyle::Grid,
            palette: Palette::SUNSET,
        };
        assert!(
            scene_files(&scene).is_empty(),
            "a painted background reads no file"
        );
    }
}
