//! Videos made from media: `video_url`, `video_file`, `audio_url`, `audio_file`.
//!
//! The build task (steps 2–5) for a media source:
//! 1. **Obtain** the file into the video's folder as `source.{ext}`: an upload is moved in from
//!    `{data_dir}/uploads`; a URL is downloaded through the SSRF-guarded [`Fetcher`] with
//!    `media.download_max_bytes` and `media.download_timeout_secs`. A video-sharing page is
//!    resolved to the direct media link it exposes (`og:video`/`og:audio`, `<video src>`,
//!    `<source src>`, `twitter:player:stream`).
//! 2. **Probe** the duration with GStreamer: over `media.max_duration_secs` (300 s) fails the job
//!    with `media_too_long`. Uploads are probed already at `create_video` (a synchronous 400),
//!    and so are URLs whose first bytes (a WAV or fast-start MP4/MOV header,
//!    `ingest::declared`) state the length ([`check_url`]). Other URL sources fail the job
//!    instead: while the download runs, as soon as the header declares more (the connection is
//!    dropped and nothing is written), else after the download.
//!    Anything GStreamer cannot decode fails the job with `media_decode_failed`.
//! 3. **Decode** the first audio stream to 48 kHz mono PCM, apply `adjust` (audio sources,
//!    [`crate::ingest::adjust`]), and **transcribe** it ([`crate::ingest::transcribe`]), keeping word timings.
//! 4. **Cut** the recording into scenes at sentence ends and pauses ([`cut_scenes`]), one
//!    [`SceneDraft`] per cut: its text, its slice of the media's own audio (48 kHz) with the
//!    transcript's words re-timed to the slice, and for a video source the source as the
//!    scene's presenter (`narrator_video` = the source, `video_trim` = the scene's slice,
//!    full-frame narrator rect, A-roll).
//! 5. **Assemble** the drafts with the one scene assembly every source shares
//!    ([`scenes::assemble`]): direction, the slice published as the scene's narration with its
//!    word sidecar, library B-roll for scenes without a presenter (audio sources are B-roll),
//!    overlays. `output_type=text` (Remake) stops after direction: the transcript becomes the
//!    editable script, scene by scene.

use std::path::{Path, PathBuf};
use std::time::Duration;

use typography::TimedWord;

use crate::build::scenes::{self, Presenter, SceneDraft, StageTimes};
use crate::build::voice::{Narration, SAMPLE_RATE};
use crate::build::work::{Context, providers_for, source_name};
use crate::build::writer;
use crate::ingest::declared::Declared;
use foundation::document::{VideoDocument, VideoTrim};
use foundation::error::{Code, Error};
use foundation::fetch::{FetchError, Fetcher};
use foundation::ids;
use foundation::jobs::{Engine, JobFailure, RENDER_START};
use foundation::model::{Job, OutputType, Source};

/// How much of a page is read when looking for its media link.
const PAGE_MAX_BYTES: u64 = 2 * 1024 * 1024;
/// Extensions that mark a URL as a direct media file.
const MEDIA_EXTENSIONS: &[&str] = &[
    "mp3", "wav", "m4a", "aac", "ogg", "oga", "opus", "flac", "mp4", "mov", "m4v", "webm", "mkv",
    "avi", "mpeg", "mpg", "ts",
];

fn fail(code: Code, message: impl Into<String>) -> JobFailure {
    JobFailure::new(code, message)
}

/// The lower-case extension of a URL's path, when it has one.
fn url_extension(url: &url::Url) -> Option<String> {
    let last = url.path_segments()?.next_back()?;
    let (_, ext) = last.rsplit_once('.')?;
    Some(ext.to_ascii_lowercase())
}

/// Whether a response is an HTML page rather than media.
fn is_html(content_type: Option<&str>, body: &[u8]) -> bool {
    if content_type.is_some_and(|c| c.to_ascii_lowercase().contains("html")) {
        return true;
    }
    let head = String::from_utf8_lossy(&body[..body.len().min(512)]).to_ascii_lowercase();
    let head = head.trim_start_matches('\u{feff}').trim_start();
    head.starts_with("<!doctype html") || head.starts_with("<html") || head.starts_with("<head")
}

/// The attributes of every tag named `name` in `html` (lower-case keys, raw values).
fn tags<'a>(html: &'a str, name: &str) -> Vec<Vec<(String, &'a str)>> {
    let lower = html.to_ascii_lowercase();
    let open = format!("<{name}");
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(i) = lower[from..].find(&open) {
        let start = from + i + open.len();
        from = start;
        if !lower[start..].starts_with(|c: char| c.is_ascii_whitespace() || c == '>' || c == '/') {
            continue;
        }
        let bytes = html.as_bytes();
        let mut attrs = Vec::new();
        let mut p = start;
        loop {
            while p < bytes.len() && (bytes[p].is_ascii_whitespace() || bytes[p] == b'/') {
                p += 1;
            }
            if p >= bytes.len() || bytes[p] == b'>' {
                break;
            }
            let k0 = p;
            while p < bytes.len()
                && !bytes[p].is_ascii_whitespace()
                && !matches!(bytes[p], b'=' | b'>' | b'/')
            {
                p += 1;
            }
            let key = html[k0..p].to_ascii_lowercase();
            while p < bytes.len() && bytes[p].is_ascii_whitespace() {
                p += 1;
            }
            let mut value = "";
            if p < bytes.len() && bytes[p] == b'=' {
                p += 1;
                while p < bytes.len() && bytes[p].is_ascii_whitespace() {
                    p += 1;
                }
                if p < bytes.len() && (bytes[p] == b'"' || bytes[p] == b'\'') {
                    let q = bytes[p];
                    let v0 = p + 1;
                    p = v0;
                    while p < bytes.len() && bytes[p] != q {
                        p += 1;
                    }
                    value = &html[v0..p.min(bytes.len())];
                    p = (p + 1).min(bytes.len());
                } else {
                    let v0 = p;
                    while p < bytes.len() && !bytes[p].is_ascii_whitespace() && bytes[p] != b'>' {
                        p += 1;
                    }
                    value = &html[v0..p];
                }
            }
            if key.is_empty() {
                p += 1;
                continue;
            }
            attrs.push((key, value));
        }
        from = p;
        out.push(attrs);
    }
    out
}

fn unescape(s: &str) -> String {
    s.trim()
        .replace("&amp;", "&")
        .replace("&#38;", "&")
        .replace("&quot;", "\"")
        .replace("&#x2F;", "/")
        .replace("&#47;", "/")
}

/// The direct media link a page exposes, absolute. Audio sources prefer `og:audio`, video
/// sources `og:video`; then `<video>`/`<audio>`/`<source>` elements.
pub(crate) fn media_link_in_page(html: &str, page: &url::Url, audio: bool) -> Option<url::Url> {
    let metas = tags(html, "meta");
    let meta = |keys: &[&str]| {
        keys.iter().find_map(|key| {
            metas.iter().find_map(|attrs| {
                let get = |k: &str| attrs.iter().find(|(a, _)| a == k).map(|(_, v)| *v);
                let named = get("property")
                    .or_else(|| get("name"))
                    .is_some_and(|n| n.eq_ignore_ascii_case(key));
                named.then(|| get("content")).flatten()
            })
        })
    };
    let video_meta = [
        "og:video:secure_url",
        "og:video:url",
        "og:video",
        "twitter:player:stream",
    ];
    let audio_meta = ["og:audio:secure_url", "og:audio:url", "og:audio"];
    let (first, second) = if audio {
        (&audio_meta[..], &video_meta[..])
    } else {
        (&video_meta[..], &audio_meta[..])
    };
    let from_elements = || {
        ["video", "audio", "source"].iter().find_map(|t| {
            tags(html, t).into_iter().find_map(|attrs| {
                attrs
                    .iter()
                    .find(|(k, v)| k == "src" && !v.trim().is_empty())
                    .map(|(_, v)| *v)
            })
        })
    };
    let raw = meta(first)
        .or_else(from_elements)
        .or_else(|| meta(second))?;
    let link = page.join(&unescape(raw)).ok()?;
    matches!(link.scheme(), "http" | "https").then_some(link)
}

/// `create_video`'s synchronous look at a media URL: a page must expose a direct media link,
/// else `unsupported_media_url` (400); media whose header states a length over `max_secs`
/// (WAV, fast-start MP4/MOV: [`crate::ingest::declared`], read from the first
/// [`HEAD_PROBE_BYTES`]) is `media_too_long` (400). Large or non-HTML answers are taken as
/// media; their other problems, and a length the header does not state, surface in the job.
pub(crate) async fn check_url(
    fetcher: &Fetcher,
    raw: &str,
    (field, audio): (&str, bool),
    max_secs: f64,
) -> Result<(), Error> {
    let Ok(url) = url::Url::parse(raw.trim()) else {
        return Ok(());
    };
    if url_extension(&url).is_some_and(|e| MEDIA_EXTENSIONS.contains(&e.as_str())) {
        return check_declared_length(fetcher, raw, field, max_secs).await;
    }
    let bad = |m: String| Error::new(Code::UnsupportedMediaUrl, m).param(field);
    match fetcher
        .get(raw, PAGE_MAX_BYTES, Duration::from_secs(20))
        .await
    {
        Ok(resp) if is_html(resp.content_type.as_deref(), &resp.body) => {
            let html = String::from_utf8_lossy(&resp.body);
            match media_link_in_page(&html, &resp.final_url, audio) {
                Some(link) => {
                    fetcher.guard(link.as_str()).await.map_err(|e| {
                        bad(format!(
                            "The media link on the `{field}` page is not accepted: {e}."
                        ))
                    })?;
                    check_declared_length(fetcher, link.as_str(), field, max_secs).await
                }
                None => Err(bad(format!(
                    "`{field}` is a web page without a direct media link (og:video, og:audio, \
                     <video src> or <source src>); pass the media file's own URL."
                ))),
            }
        }
        // The media itself, whole: its header is here.
        Ok(resp) => declared_within(&resp.body, field, max_secs),
        Err(FetchError::TooLarge(_)) => check_declared_length(fetcher, raw, field, max_secs).await,
        Err(FetchError::Blocked(why)) => Err(bad(format!(
            "`{field}` is not an accepted public URL: {why}."
        ))),
        Err(e) => Err(bad(format!("`{field}` could not be fetched: {e}."))),
    }
}

/// Bytes of a media URL's head read at `create_video` for its declared length.
const HEAD_PROBE_BYTES: u64 = 256 * 1024;
/// How long `create_video` waits for that head.
const HEAD_PROBE_WAIT: Duration = Duration::from_secs(10);

/// `media_too_long` (400) when the first [`HEAD_PROBE_BYTES`] of the media at `url` declare
/// more than `max_secs`. A head that cannot be fetched in [`HEAD_PROBE_WAIT`] or does not state
/// a length passes: the job downloads the media and decides.
async fn check_declared_length(
    fetcher: &Fetcher,
    url: &str,
    field: &str,
    max_secs: f64,
) -> Result<(), Error> {
    let read = |head: &[u8]| crate::ingest::declared::duration(head) != Declared::NotYet;
    match fetcher
        .get_head(url, HEAD_PROBE_BYTES, HEAD_PROBE_WAIT, &read)
        .await
    {
        Ok(head) => declared_within(&head.body, field, max_secs),
        Err(e) => {
            tracing::debug!(error = %e, "media URL head not read at submission; the job decides");
            Ok(())
        }
    }
}

/// `media_too_long` (400) when the `head` of a media file declares more than `max_secs`.
fn declared_within(head: &[u8], field: &str, max_secs: f64) -> Result<(), Error> {
    match crate::ingest::declared::duration(head) {
        Declared::Seconds(d) if d > max_secs + 0.05 => Err(Error::new(
            Code::MediaTooLong,
            format!(
                "`{field}` is {d:.1} s long by its header; media sources may be at most \
                 {max_secs:.0} s (5 minutes)."
            ),
        )
        .param(field)),
        _ => Ok(()),
    }
}

/// A probed upload: its duration, or `None` when GStreamer cannot read it (the job then fails
/// with `media_decode_failed`). Over `max_secs` is `media_too_long`.
pub fn probe_upload(path: &Path, max_secs: f64, field: &str) -> Result<Option<f64>, Error> {
    match compositor::media::probe_duration(path) {
        Ok(d) if d > max_secs + 0.05 => Err(Error::new(
            Code::MediaTooLong,
            format!(
                "`{field}` is {d:.1} s long; media sources may be at most {max_secs:.0} s (5 minutes)."
            ),
        )
        .param(field)),
        Ok(d) => Ok(Some(d)),
        Err(e) => {
            tracing::info!(error = %e, "uploaded media is not decodable");
            Ok(None)
        }
    }
}

/// Moves or downloads the job's media into `dir` as `source.{ext}`; returns the file name.
fn obtain(engine: &Engine, ctx: &Context, job: &Job, dir: &Path) -> Result<String, JobFailure> {
    // A retried task finds the file already in place.
    if let Some(existing) = std::fs::read_dir(dir)
        .ok()
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .find(|n| n.starts_with("source."))
    {
        return Ok(existing);
    }
    let settings = &engine.settings;
    let request = job.video()?;
    if let Some(rel) = &request.media_file {
        let from = settings.data_dir.join(rel);
        let ext = Path::new(rel)
            .extension()
            .and_then(|e| e.to_str())
            .unwrap_or("bin");
        let name = format!("source.{ext}");
        std::fs::rename(&from, dir.join(&name)).map_err(|e| {
            fail(
                Code::MediaFetchFailed,
                "The uploaded media is no longer available.",
            )
            .because(e)
        })?;
        return Ok(name);
    }
    let Some(url) = &request.media_url else {
        return Err(fail(Code::MediaFetchFailed, "The job has no media source."));
    };
    let audio = request.source.is_audio();
    let max = settings
        .section::<crate::ingest::config::MediaConfig>()
        .download_max_bytes;
    let timeout = Duration::from_secs(
        settings
            .section::<crate::ingest::config::MediaConfig>()
            .download_timeout_secs
            .max(1),
    );
    let max_secs = settings
        .section::<crate::ingest::config::MediaConfig>()
        .max_duration_secs;
    // The download stops as soon as the header says the media is over the cap.
    let get = |u: &str| {
        let mut watch = too_long_watch(max_secs);
        ctx.runtime
            .block_on(ctx.fetcher.get_watched(u, max, timeout, &mut watch))
    };
    let explain = |e: FetchError| match e {
        FetchError::Blocked(why) => fail(
            Code::UnsupportedMediaUrl,
            format!("The media URL is not accepted: {why}."),
        ),
        FetchError::TooLarge(n) => fail(
            Code::FileTooLarge,
            format!("The media is larger than the download limit of {n} bytes."),
        ),
        FetchError::Refused(why) => fail(Code::MediaTooLong, why),
        other => fail(
            Code::MediaFetchFailed,
            format!("The media could not be downloaded: {}.", other.public()),
        )
        .because(other),
    };
    let mut resp = get(url).map_err(explain)?;
    if is_html(resp.content_type.as_deref(), &resp.body) {
        let html = String::from_utf8_lossy(&resp.body).into_owned();
        let link = media_link_in_page(&html, &resp.final_url, audio).ok_or_else(|| {
            fail(
                Code::UnsupportedMediaUrl,
                "The media URL is a web page without a direct media link.",
            )
        })?;
        resp = get(link.as_str()).map_err(explain)?;
        if is_html(resp.content_type.as_deref(), &resp.body) {
            return Err(fail(
                Code::UnsupportedMediaUrl,
                "The page's media link leads to another page, not to a media file.",
            ));
        }
    }
    let ext = url_extension(&resp.final_url)
        .filter(|e| MEDIA_EXTENSIONS.contains(&e.as_str()))
        .unwrap_or_else(|| "media".into());
    let name = format!("source.{ext}");
    foundation::files::write_atomic(&dir.join(&name), &resp.body).map_err(JobFailure::internal)?;
    Ok(name)
}

/// Bytes of a download's head after which a length that is still `NotYet` is left to the
/// probe at the end (a `moov` box larger than this is rare).
const DECLARED_HEAD_MAX: usize = 4 * 1024 * 1024;

/// A download watch that refuses, with the job's sentence, a media file whose header declares
/// more than `max_secs`; it reads the header once and then stays quiet.
fn too_long_watch(max_secs: f64) -> impl FnMut(&[u8]) -> Result<(), String> + Send {
    let mut decided = false;
    move |body: &[u8]| {
        if decided {
            return Ok(());
        }
        match crate::ingest::declared::duration(body) {
            Declared::Seconds(d) if d > max_secs + 0.05 => {
                tracing::info!(
                    seconds = d,
                    bytes = body.len(),
                    "media URL refused by its header"
                );
                Err(format!(
                    "The media is {d:.1} s long by its header; media sources may be at most \
                     {max_secs:.0} s (5 minutes)."
                ))
            }
            Declared::NotYet if body.len() < DECLARED_HEAD_MAX => Ok(()),
            _ => {
                decided = true;
                Ok(())
            }
        }
    }
}

/// A scene's span of the recording: seconds, and the range of transcript words in it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct SceneCut {
    pub start: f64,
    pub end: f64,
    pub words: std::ops::Range<usize>,
}

/// Scenes shorter than this are not cut off on their own.
const MIN_SCENE_SECS: f64 = 4.0;
/// Past this a scene is cut at the next pause or clause end, even mid-sentence.
const LONG_SCENE_SECS: f64 = 12.0;
/// Past this a scene is cut at the next word.
const MAX_SCENE_SECS: f64 = 20.0;
/// A gap this long between words is a pause.
const PAUSE_SECS: f64 = 0.45;

/// Cuts a recording of `total` seconds into scenes at sentence ends and pauses, using the word
/// timings: a scene closes after at least [`MIN_SCENE_SECS`] at a sentence end or a pause,
/// after [`LONG_SCENE_SECS`] at any short gap or clause end, and after [`MAX_SCENE_SECS`]
/// regardless. Cut points sit in the middle of the gap between two words; the first scene
/// starts at 0 and the last ends at `total`. A short tail joins the scene before it.
pub(crate) fn cut_scenes(words: &[TimedWord], total: f64) -> Vec<SceneCut> {
    if words.is_empty() {
        return Vec::new();
    }
    let mut cuts = Vec::new();
    let mut first = 0;
    let mut start = 0.0;
    for i in 0..words.len() - 1 {
        let w = &words[i];
        let gap = words[i + 1].start - w.end;
        let spoken = w.end - words[first].start;
        let sentence = w.word.ends_with(['.', '!', '?', '…']);
        let clause = w.word.ends_with([',', ';', ':']);
        let cut = (spoken >= MIN_SCENE_SECS && (sentence || gap >= PAUSE_SECS))
            || (spoken >= LONG_SCENE_SECS && (clause || gap >= 0.15))
            || spoken >= MAX_SCENE_SECS;
        if cut {
            let at = (w.end + words[i + 1].start) / 2.0;
            cuts.push(SceneCut {
                start,
                end: at,
                words: first..i + 1,
            });
            start = at;
            first = i + 1;
        }
    }
    let end = total.max(words[words.len() - 1].end);
    let tail_spoken = words[words.len() - 1].end - words[first].start;
    match cuts.last_mut() {
        Some(prev) if tail_spoken < MIN_SCENE_SECS / 2.0 => {
            prev.end = end;
            prev.words.end = words.len();
        }
        _ => cuts.push(SceneCut {
            start,
            end,
            words: first..words.len(),
        }),
    }
    cuts
}

/// Sentence case for a scene cut from an unpunctuated transcript: a capital first letter and a
/// closing full stop.
fn sentence_case(words: &mut [TimedWord]) {
    if let Some(first) = words.first_mut() {
        let mut c = first.word.chars();
        if let Some(f) = c.next()
            && f.is_lowercase()
        {
            first.word = f.to_uppercase().chain(c).collect();
        }
    }
    if let Some(last) = words.last_mut()
        && !last.word.ends_with(|c: char| c.is_ascii_punctuation())
    {
        last.word.push('.');
    }
}

/// The recording of a media-source job: its samples (48 kHz mono, adjusted), the transcript's
/// words (sentence-cased per scene when the engine gives no punctuation) and the scene cuts.
struct Recording {
    /// The source file in the video folder.
    file: String,
    samples: Vec<i16>,
    words: Vec<TimedWord>,
    cuts: Vec<SceneCut>,
}

/// Steps 1–3 and the cut: obtain, probe, decode, adjust, transcribe.
fn record(engine: &Engine, ctx: &Context, job: &Job, scale: f64) -> Result<Recording, JobFailure> {
    let settings = &engine.settings;
    let topic = &job.topic_id;
    let dir = settings.video_dir(topic);
    std::fs::create_dir_all(&dir).map_err(JobFailure::internal)?;

    engine.set_progress(topic, 2, 0.05 * scale, Some("Fetching the media"));
    let file = obtain(engine, ctx, job, &dir)?;
    let path: PathBuf = dir.join(&file);

    engine.set_progress(topic, 2, 0.15 * scale, Some("Reading the media"));
    let samples = decode(engine, job, &path, scale)?;
    let total = samples.len() as f64 / f64::from(SAMPLE_RATE);

    engine.set_progress(topic, 2, 0.25 * scale, Some("Transcribing the speech"));
    let transcriber =
        crate::ingest::transcribe::from_settings(settings, &ctx.fetcher, &ctx.runtime);
    let transcript = transcriber.transcribe(&samples, SAMPLE_RATE).map_err(|e| {
        tracing::warn!(topic = %topic, error = %e, "transcription failed");
        fail(
            Code::TranscriptionFailed,
            "The speech could not be transcribed.",
        )
        .because(e)
    })?;
    if transcript.words.is_empty() {
        return Err(fail(
            Code::TranscriptionFailed,
            "No speech was recognised in the media.",
        ));
    }
    let mut words = transcript.words;
    let cuts = cut_scenes(&words, total);
    let punctuated = words.iter().any(|w| w.word.ends_with(['.', '!', '?', ',']));
    if !punctuated {
        for c in &cuts {
            sentence_case(&mut words[c.words.clone()]);
        }
    }
    Ok(Recording {
        file,
        samples,
        words,
        cuts,
    })
}

/// Probes the duration (over the limit fails the job), decodes the first audio track to
/// 48 kHz mono and applies the job's `adjust`.
fn decode(engine: &Engine, job: &Job, path: &Path, scale: f64) -> Result<Vec<i16>, JobFailure> {
    let topic = &job.topic_id;
    let undecodable = || {
        fail(
            Code::MediaDecodeFailed,
            "The media could not be decoded: it is not an audio or video file this server can read.",
        )
    };
    if job.video()?.media_decodable == Some(false) {
        return Err(undecodable());
    }
    let duration = compositor::media::probe_duration(path).map_err(|e| {
        tracing::info!(topic = %topic, error = %e, "media not decodable");
        undecodable()
    })?;
    let max = engine
        .settings
        .section::<crate::ingest::config::MediaConfig>()
        .max_duration_secs;
    if duration > max + 0.05 {
        return Err(fail(
            Code::MediaTooLong,
            format!(
                "The media is {duration:.1} s long; media sources may be at most {max:.0} s (5 minutes)."
            ),
        ));
    }
    let track = compositor::media::decode_audio(path, SAMPLE_RATE).map_err(|e| {
        let message = match e {
            compositor::media::MediaError::NoAudio { .. } => {
                "The media has no audio track to narrate from.".to_string()
            }
            other => {
                tracing::info!(topic = %topic, error = %other, "audio not decodable");
                "The media's audio could not be decoded.".to_string()
            }
        };
        fail(Code::MediaDecodeFailed, message)
    })?;
    let mut samples = track.samples;
    if let Some(adjust) = &job.video()?.adjust {
        engine.set_progress(topic, 2, 0.2 * scale, Some("Treating the audio"));
        crate::ingest::adjust::apply(adjust, &mut samples, SAMPLE_RATE);
    }
    Ok(samples)
}

/// One scene draft per cut: its text, its slice of the recording with the words re-timed to
/// the slice, and for a video source the source itself as the presenter of that slice.
fn drafts(rec: &Recording, presenter_url: Option<&str>) -> Vec<SceneDraft> {
    let at = |t: f64| ((t * f64::from(SAMPLE_RATE)).round() as usize).min(rec.samples.len());
    rec.cuts
        .iter()
        .map(|cut| {
            let scene_words = &rec.words[cut.words.clone()];
            let text = scene_words
                .iter()
                .map(|w| w.word.as_str())
                .collect::<Vec<_>>()
                .join(" ");
            let samples = rec.samples[at(cut.start)..at(cut.end).max(at(cut.start))].to_vec();
            let duration = samples.len() as f64 / f64::from(SAMPLE_RATE);
            let words = scene_words
                .iter()
                .map(|w| TimedWord {
                    word: w.word.clone(),
                    start: (w.start - cut.start).clamp(0.0, duration),
                    end: (w.end - cut.start).clamp(0.0, duration),
                })
                .collect();
            SceneDraft {
                text,
                media: None,
                narration: Some(Narration {
                    sample_rate: SAMPLE_RATE,
                    samples,
                    words,
                }),
                presenter: presenter_url.map(|url| Presenter {
                    file: rec.file.clone(),
                    trim: VideoTrim {
                        start: cut.start,
                        end: cut.end,
                    },
                    url: url.to_string(),
                }),
            }
        })
        .collect()
}

/// The build task of a media-source job (steps 2–5): the recording becomes scene drafts, and
/// the one scene assembly ([`scenes::assemble`]) publishes each scene's slice of the audio
/// with its word sidecar, directs the scenes, gives B-roll to scenes without a presenter and
/// designs their overlays. Writes the video document.
pub fn build(engine: &Engine, ctx: &Context, job: &Job) -> Result<(), JobFailure> {
    let settings = &engine.settings;
    let topic = &job.topic_id;
    let request = job.video()?;
    let source = request.source;
    let scale = if job.output_type == OutputType::Video {
        RENDER_START
    } else {
        1.0
    };
    let rec = record(engine, ctx, job, scale)?;
    let video = matches!(source, Source::VideoUrl | Source::VideoFile);
    let presenter_url = video.then(|| request.media_url.as_deref().unwrap_or_default());
    let drafts = drafts(&rec, presenter_url);
    let script = drafts
        .iter()
        .map(|d| d.text.as_str())
        .collect::<Vec<_>>()
        .join("\n\n");
    let doc = VideoDocument {
        topic_id: topic.clone(),
        title: writer::title(&script),
        language: "English".into(),
        faceless: request.faceless,
        script,
        segments: Vec::new(),
        voice_id: String::new(),
        public_key: ids::file_token(),
        source: source_name(source).into(),
        writer: None,
        music: request.music.clone(),
    };
    let providers = providers_for(settings, ctx)?;
    let mut progress = |step: u8, p: f64, note: &str| {
        engine.set_progress(topic, step, (0.3 + 0.65 * p) * scale, Some(note));
    };
    let mut times = StageTimes::default();
    let goal = scenes::Goal {
        output_type: job.output_type,
        max_narration_secs: crate::build::script::MAX_SPEECH_SECS,
    };
    let doc = scenes::assemble(
        settings,
        &providers,
        doc,
        drafts,
        goal,
        &mut progress,
        &mut times,
    )?;
    tracing::info!(topic = %topic, scenes = doc.segments.len(), ?times, "scenes built from media");
    engine.set_progress(topic, 4, 0.95 * scale, Some("Scenes ready"));
    engine
        .store
        .write(|tx| tx.put_document(topic, &doc))
        .map_err(JobFailure::from)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(word: &str, start: f64, end: f64) -> TimedWord {
        TimedWord {
            word: word.into(),
            start,
            end,
        }
    }

    #[test]
    fn cuts_at_sentence_ends_and_pauses() {
        // Two sentences of ~5 s each, then a long unpunctuated stretch with one pause.
        let mut words = Vec::new();
        let mut t = 0.2;
        for s in 0..2 {
            for k in 0..12 {
                let last = k == 11;
                let word = if last {
                    format!("end{s}.")
                } else {
                    format!("w{s}{k}")
                };
                words.push(w(&word, t, t + 0.35));
                t += 0.42;
            }
            t += 0.3;
        }
        for k in 0..30 {
            words.push(w(&format!("x{k}"), t, t + 0.3));
            t += if k == 14 { 1.0 } else { 0.35 };
        }
        let cuts = cut_scenes(&words, t + 0.5);
        assert!(cuts.len() >= 3, "{cuts:?}");
        assert_eq!(cuts[0].start, 0.0);
        assert_eq!(cuts[0].words, 0..12);
        assert_eq!(cuts[1].words, 12..24);
        assert_eq!(cuts.last().unwrap().end, t + 0.5);
        for pair in cuts.windows(2) {
            assert_eq!(pair[0].end, pair[1].start);
            assert_eq!(pair[0].words.end, pair[1].words.start);
        }
        // The pause after x14 is a cut: the pause lies between the scenes.
        assert!(cuts.iter().any(|c| c.words.end == 24 + 15), "{cuts:?}");
    }

    #[test]
    fn short_tail_joins_the_previous_scene_and_long_speech_is_bounded() {
        let mut words: Vec<TimedWord> = (0..20)
            .map(|k| w("a.", k as f64 * 0.5, k as f64 * 0.5 + 0.4))
            .collect();
        words.push(w("tail", 10.0, 10.3));
        let cuts = cut_scenes(&words, 10.5);
        assert_eq!(cuts.last().unwrap().words.end, 21);
        // 60 s of words without pauses or punctuation: no scene over MAX_SCENE_SECS.
        let long: Vec<TimedWord> = (0..200)
            .map(|k| w("b", k as f64 * 0.3, k as f64 * 0.3 + 0.3))
            .collect();
        let cuts = cut_scenes(&long, 60.0);
        assert!(
            cuts.iter().all(|c| c.end - c.start <= MAX_SCENE_SECS + 0.5),
            "{cuts:?}"
        );
    }

    #[test]
    fn drafts_slice_the_recording_and_retime_words_to_each_slice() {
        let rate = f64::from(SAMPLE_RATE);
        let rec = Recording {
            file: "source.mp4".into(),
            samples: vec![1; (4.0 * rate) as usize],
            words: vec![
                w("One.", 0.2, 0.6),
                w("Two", 2.2, 2.5),
                w("three.", 2.6, 3.9),
            ],
            cuts: vec![
                SceneCut {
                    start: 0.0,
                    end: 1.5,
                    words: 0..1,
                },
                SceneCut {
                    start: 1.5,
                    end: 4.0,
                    words: 1..3,
                },
            ],
        };
        let audio = drafts(&rec, None);
        assert_eq!(audio.len(), 2);
        assert_eq!(audio[1].text, "Two three.");
        assert!(audio.iter().all(|d| d.presenter.is_none()));
        let n = audio[1].narration.as_ref().unwrap();
        assert!((n.duration() - 2.5).abs() < 1e-9);
        assert!((n.words[0].start - 0.7).abs() < 1e-9);
        assert!((n.words[1].end - 2.4).abs() < 1e-9);
        let video = drafts(&rec, Some("https://x.example/v.mp4"));
        let p = video[1].presenter.as_ref().unwrap();
        assert_eq!(p.file, "source.mp4");
        assert_eq!(
            p.trim,
            VideoTrim {
                start: 1.5,
                end: 4.0
            }
        );
    }

    #[test]
    fn finds_media_links_in_pages() {
        let page = url::Url::parse("https://videos.example.com/watch/42").unwrap();
        let og = r#"<html><head><META property="og:video:secure_url" content="https://cdn.example.com/v/42.mp4?a=1&amp;b=2">
            <meta property="og:audio" content="/a/42.mp3"></head></html>"#;
        assert_eq!(
            media_link_in_page(og, &page, false).unwrap().as_str(),
            "https://cdn.example.com/v/42.mp4?a=1&b=2"
        );
        assert_eq!(
            media_link_in_page(og, &page, true).unwrap().as_str(),
            "https://videos.example.com/a/42.mp3"
        );
        let video = "<body><video controls><source type='video/mp4' src=clip.mp4></video></body>";
        assert_eq!(
            media_link_in_page(video, &page, false).unwrap().as_str(),
            "https://videos.example.com/watch/clip.mp4"
        );
        assert!(media_link_in_page("<html><p>nothing</p><videos></html>", &page, false).is_none());
        assert!(media_link_in_page("<video src=\"javascript:alert(1)\">", &page, false).is_none());
        assert!(is_html(None, b"  <!DOCTYPE html><html>"));
        assert!(!is_html(Some("video/mp4"), b"\0\0\0 ftypisom"));
    }
}
