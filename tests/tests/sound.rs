//! The soundtrack end to end: videos rendered by the daemon are measured with ffmpeg's
//! `ebur128` filter on the published MP4 (stereo; −14 LUFS integrated ±1 over both channels,
//! true peak ≤ −1 dBTP in each; the narration centred, the bed wide), with the music bed and
//! without it (`music: "none"` is normalised too); `music` is checked at `create_video` and
//! changed by modify_scene's `video.music`.

use std::path::{Path, PathBuf};
use std::time::Duration;

use reelsmith_tests::{Daemon, script};
use serde_json::json;

const BIN: &str = env!("CARGO_BIN_EXE_reelsmith");
const LONG: Duration = Duration::from_secs(400);

/// (integrated LUFS, true peak dBTP) of `mp4`'s audio, as ffmpeg's `ebur128` summary says:
/// of all its channels with `pan` `None`, else of the one channel the `pan` filter's
/// expression makes (`c0` the left, `0.5*c0-0.5*c1` the side…).
fn ebur128(mp4: &Path, pan: Option<&str>) -> (f64, f64) {
    let filter = match pan {
        Some(expression) => format!("pan=mono|c0={expression},ebur128=peak=true"),
        None => "ebur128=peak=true".to_string(),
    };
    let out = std::process::Command::new("ffmpeg")
        .args(["-hide_banner", "-nostats", "-i"])
        .arg(mp4)
        // The audio alone: decoding the video too cost 1.0 CPU-s of each pass's 1.1.
        .args(["-vn", "-af", &filter, "-f", "null", "-"])
        .output()
        .expect("ffmpeg runs");
    let log = String::from_utf8_lossy(&out.stderr);
    let summary = log.rsplit("Summary:").next().unwrap_or_default();
    let value = |label: &str| -> f64 {
        summary
            .lines()
            .map(str::trim)
            .find_map(|l| l.strip_prefix(label))
            .and_then(|rest| rest.split_whitespace().next())
            .and_then(|v| v.parse().ok())
            .unwrap_or_else(|| panic!("no `{label}` in ffmpeg's summary:\n{log}"))
    };
    (value("I:"), value("Peak:"))
}

/// The channels of `mp4`'s audio stream, as ffprobe reads them.
fn audio_channels(mp4: &Path) -> u64 {
    let out = std::process::Command::new("ffprobe")
        .args(["-v", "error", "-select_streams", "a:0"])
        .args(["-show_entries", "stream=channels", "-of", "csv=p=0"])
        .arg(mp4)
        .output()
        .expect("ffprobe runs");
    let text = String::from_utf8_lossy(&out.stdout);
    text.trim()
        .parse()
        .unwrap_or_else(|_| panic!("no channel count from ffprobe: {text:?}"))
}

/// How far (LU) the side (left − right) of `mp4`'s audio is under its middle (left + right).
fn side_under_middle(mp4: &Path) -> f64 {
    let (middle, _) = ebur128(mp4, Some("0.5*c0+0.5*c1"));
    let (side, _) = ebur128(mp4, Some("0.5*c0-0.5*c1"));
    middle - side
}

/// Renders `script_text` with `music` (absent: the default) to an MP4 and returns its path.
async fn rendered(d: &Daemon, words: usize, music: Option<&str>) -> PathBuf {
    let mut body =
        json!({ "script_text": script(words), "output_type": "video", "faceless": true });
    if let Some(m) = music {
        body["music"] = json!(m);
    }
    let (c, v, _) = d.post("/v1/create_video", &body).await;
    assert_eq!(c, 202, "{v}");
    let id = v["id"].as_str().unwrap().to_string();
    let done = d.wait_for(&id, LONG, |v| v["status"] != "processing").await;
    assert_eq!(done["status"], "completed", "{done}");
    let url = done["result"]["video_url"].as_str().unwrap();
    d.data_dir()
        .join("public/videos")
        .join(url.rsplit('/').next().unwrap())
}

#[tokio::test]
async fn published_videos_are_stereo_at_minus_14_lufs_with_each_channel_under_minus_1_dbtp() {
    let d = Daemon::start(BIN, &[]);
    let (auto, drums, narration_only) = tokio::join!(
        rendered(&d, 85, None),
        rendered(&d, 85, Some("sunny-market")),
        rendered(&d, 85, Some("none"))
    );
    for (what, mp4) in [
        ("auto music", &auto),
        ("sunny-market", &drums),
        ("narration only", &narration_only),
    ] {
        assert_eq!(audio_channels(mp4), 2, "{what}: not stereo");
        let (lufs, peak) = ebur128(mp4, None);
        let (_, left) = ebur128(mp4, Some("c0"));
        let (_, right) = ebur128(mp4, Some("c1"));
        eprintln!(
            "{what}: {lufs} LUFS integrated, {peak} dBTP true peak (left {left}, right {right})"
        );
        assert!((lufs + 14.0).abs() <= 1.0, "{what}: {lufs} LUFS");
        assert!(peak <= -1.0, "{what}: true peak {peak} dBTP");
        assert!(left <= -1.0, "{what}: left channel's true peak {left} dBTP");
        assert!(
            right <= -1.0,
            "{what}: right channel's true peak {right} dBTP"
        );
    }
    // Narration alone is in the middle: what differs between the channels is the AAC codec's
    // noise. The bed is stereo: under the narration, its side is well above that noise.
    let alone = side_under_middle(&narration_only);
    let with_bed = side_under_middle(&drums);
    eprintln!("side under the middle: narration only {alone} LU, with sunny-market {with_bed} LU");
    assert!(
        alone >= 40.0,
        "narration only: side {alone} LU under the middle"
    );
    assert!(
        with_bed <= 35.0,
        "with the bed: side {with_bed} LU under the middle"
    );
}

/// modify_scene's `video.music` on the video `id` (scene 1 names the video).
async fn modify(d: &Daemon, id: &str, value: serde_json::Value) -> (u16, serde_json::Value) {
    let body = json!({
        "id": id, "by": "id", "value": 1,
        "fields": [{ "field_name": "video.music", "value": value }],
    });
    let (c, v, _) = d.post("/v1/modify_scene", &body).await;
    (c, v)
}

#[tokio::test]
async fn music_is_checked_at_create_and_changed_by_modify_scene() {
    let d = Daemon::start(BIN, &[]);
    let (c, v, _) = d
        .post(
            "/v1/create_video",
            &json!({ "script_text": script(90), "music": "disco-inferno" }),
        )
        .await;
    assert_eq!(c, 400, "{v}");
    assert_eq!(v["error"]["code"], "invalid_music", "{v}");
    assert_eq!(v["error"]["param"], "music", "{v}");

    let (c, v, _) = d
        .post(
            "/v1/create_video",
            &json!({ "script_text": script(90), "music": "calm-tide" }),
        )
        .await;
    assert_eq!(c, 202, "{v}");
    let id = v["id"].as_str().unwrap().to_string();
    let done = d.wait_for(&id, LONG, |v| v["status"] != "processing").await;
    assert_eq!(done["stage"], "scenes_ready_for_review", "{done}");

    let (c, v) = modify(&d, &id, json!("none")).await;
    assert_eq!(c, 200, "{v}");
    assert_eq!(v["applied"]["video.music"], "none", "{v}");
    let (c, v) = modify(&d, &id, json!("polka")).await;
    assert_eq!(c, 400, "{v}");
    assert_eq!(v["error"]["code"], "invalid_music", "{v}");
    assert_eq!(v["error"]["param"], "fields[0].value", "{v}");
}
