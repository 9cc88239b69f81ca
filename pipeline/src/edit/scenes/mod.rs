//! Scene editing and geometry: `modify_scene`, `edit_session`, `scene_geometry`.
//!
//! [`Editor`] holds what they share: a lock per video (every change of a video's document runs
//! under it, so concurrent edits never lose an update), the edit sessions with their write-ahead
//! journals ([`session`]), and the realtime hub every successful edit publishes to.
//!
//! An edit is: read the request ([`parse::ModifySceneRequest`] into a [`ModifyScene`], no document needed) → check the video
//! is ready → fetch external inputs (branch A's media) outside the lock → under the lock: load
//! the document (the session's copy when a session is active), select the scene
//! ([`select`]), apply to a clone ([`apply::apply`] or `overlay_edits::apply`), persist (stage in
//! the session, or write the store) → publish `scene_modified`. Any error before persisting
//! drops the clone, so a rejected edit changes nothing.
//!
//! Voice uploads (H) and narrator-video uploads (I) answer at once with a `queue_id` and finish
//! on a background task, which applies under the same lock and publishes
//! `scene_voice_upload_applied` (H) or `scene_modified` (both), or `scene_upload_failed`.
//!
//! Handlers call these functions on blocking threads (they do file and redb I/O and may wait
//! on the lock).

pub mod applied;
pub mod apply;
pub mod arrange;
pub mod edit_session;
pub mod events;
pub mod fields;
pub mod geometry;
pub mod inspect;
pub mod parse;
pub mod restore;
pub mod select;
pub mod session;

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use compositor::spec::OverlaySpec;
use serde::Serialize;
use utoipa::ToSchema;

use crate::edit::realtime::Hub;
use foundation::config::Settings;
use foundation::document::{
    Roll, SceneRecord, Segment, SpecRef, SpecState, VideoDocument, spec_file_name, spec_state,
};
use foundation::error::{Code, Error, Result};
use foundation::fetch::{FetchError, Fetcher};
use foundation::media_check;
use foundation::model::Job;
use foundation::public::PublicFiles;
use foundation::store::{Store, StoreError};
use video::build::{Narration, SAMPLE_RATE, VoiceProvider, write_wav};

use applied::{Applied, RollSwitch};
use apply::PreparedMedia;
use events::{PublicError, SceneModified, UploadFailed};
use geometry::{GeometryQuery, SceneGeometry};
use parse::{Edit, Family, MediaKind, ModifyScene};
use select::{Clarification, Resolved, Selector};

/// Largest background, voice or narrator-video download when `fetch.max_bytes` is unset.
pub(crate) const DEFAULT_MAX_DOWNLOAD: u64 = 200 * 1024 * 1024;
/// Download time limit.
const DOWNLOAD_TIMEOUT: Duration = Duration::from_secs(120);

/// Realtime message of every successful edit.
pub(crate) const SCENE_MODIFIED: &str = "scene_modified";
/// Realtime message of a finished voice upload.
pub(crate) const VOICE_UPLOAD_APPLIED: &str = "scene_voice_upload_applied";
/// Realtime message of a failed voice or narrator-video upload.
pub(crate) const UPLOAD_FAILED: &str = "scene_upload_failed";

/// The shared state of scene editing.
pub struct Editor {
    pub store: Arc<Store>,
    pub settings: Arc<Settings>,
    pub hub: Arc<Hub>,
    pub voice: Arc<dyn VoiceProvider>,
    pub fetcher: Fetcher,
    pub runtime: tokio::runtime::Handle,
    /// Our public files, read where they lie (with the makers of files made on first use).
    pub public: PublicFiles,
    /// One lock per video, created on first use.
    locks: Mutex<HashMap<String, Arc<Mutex<()>>>>,
    pub sessions: session::Sessions,
}

/// What `modify_scene` answers.
#[derive(Debug)]
pub enum Outcome {
    /// 200: the edit applied, or a clarification (nothing changed).
    Reply(ModifySceneReply),
    /// 202: an upload is queued.
    Queued(Box<UploadQueued>),
}

/// `modify_scene`'s 200 body: the applied edit, or a clarification of an ambiguous text match.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
#[serde(untagged)]
pub enum ModifySceneReply {
    Applied(Box<SceneModification>),
    Clarification(Clarification),
}

/// An edit that applied (the handler adds `request_id`).
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct SceneModification {
    /// Always `scene_modification`.
    #[schema(example = "scene_modification")]
    pub object: &'static str,
    /// Always `applied`.
    pub status: &'static str,
    pub id: String,
    pub topic_id: String,
    pub voice_file: String,
    pub scene_id: u32,
    #[schema(minimum = 0.0, maximum = 1.0)]
    pub score: f64,
    /// The family of the fields sent (`background`, `layout`, `roll`, …).
    pub family: &'static str,
    /// What each field changed; its keys and shapes depend on the branch.
    pub applied: Applied,
    /// The updated Scene record, as `video_data` returns it, with `words`.
    pub segment: SceneRecord,
    pub edit_session: SessionFlag,
    /// Branch A: `image` or `video`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub media_type: Option<&'static str>,
    /// Branch A: the new background's URL.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub media_url: Option<String>,
}

/// Whether the edit was staged in an active edit session.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct SessionFlag {
    pub active: bool,
    /// With an active session: its staged write count.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub staged_writes: Option<u64>,
}

/// 202: a voice (H) or narrator-video (I) upload is queued; the realtime stream reports the
/// outcome.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct UploadQueued {
    /// Always `scene_modification`.
    pub object: &'static str,
    /// `scene_voice_upload_queued` or `scene_narrator_video_upload_queued`.
    pub status: &'static str,
    pub queue_id: String,
    pub id: String,
    pub topic_id: String,
    pub voice_file: String,
    pub scene_id: u32,
    /// Empty until the upload is applied.
    pub applied: Applied,
}

/// Monotonic spec version tokens (milliseconds, never repeating within a process).
fn next_version() -> String {
    static LAST: AtomicU64 = AtomicU64::new(0);
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0);
    let mut prev = LAST.load(Ordering::Relaxed);
    loop {
        let next = now.max(prev + 1);
        match LAST.compare_exchange(prev, next, Ordering::Relaxed, Ordering::Relaxed) {
            Ok(_) => return next.to_string(),
            Err(p) => prev = p,
        }
    }
}

fn not_found() -> Error {
    Error::new(
        Code::VideoNotFound,
        "No video with this id exists on the account.",
    )
    .param("id")
}

fn fetch_error(e: FetchError, param: &str) -> Error {
    match e {
        FetchError::Blocked(why) => Error::new(
            Code::UnsupportedMediaUrl,
            format!("The URL cannot be fetched: {why}."),
        )
        .param(param),
        FetchError::TooLarge(n) => Error::new(
            Code::FileTooLarge,
            format!("The file is larger than {n} bytes."),
        )
        .param(param),
        other => Error::new(
            Code::DownloadFailed,
            format!("The file could not be downloaded: {}.", other.public()),
        )
        .param(param),
    }
}

/// What an asynchronous upload (branches H and I) needs, kept as
/// `data_dir/upload_queue/{queue_id}.json` from the 202 until the upload is applied or failed.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
struct PendingUpload {
    queue_id: String,
    topic: String,
    voice_file: String,
    kind: UploadKind,
    url: String,
}

#[derive(Debug, Clone, Copy, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
enum UploadKind {
    Voice,
    NarratorVideo,
}

impl PendingUpload {
    fn dir(data_dir: &std::path::Path) -> PathBuf {
        data_dir.join("upload_queue")
    }

    fn save(&self, data_dir: &std::path::Path) -> std::io::Result<()> {
        let bytes = serde_json::to_vec(self).map_err(std::io::Error::other)?;
        foundation::files::write_atomic(
            &Self::dir(data_dir).join(format!("{}.json", self.queue_id)),
            &bytes,
        )
    }

    fn done(data_dir: &std::path::Path, queue_id: &str) {
        let _ = std::fs::remove_file(Self::dir(data_dir).join(format!("{queue_id}.json")));
    }

    /// Every pending upload; unreadable entries are logged and dropped.
    fn all(data_dir: &std::path::Path) -> Vec<PendingUpload> {
        let Ok(entries) = std::fs::read_dir(Self::dir(data_dir)) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for entry in entries.flatten() {
            let path = entry.path();
            if path.extension().is_none_or(|e| e != "json") {
                continue;
            }
            match std::fs::read(&path)
                .ok()
                .and_then(|b| serde_json::from_slice::<PendingUpload>(&b).ok())
            {
                Some(p) => out.push(p),
                None => {
                    tracing::warn!(file = %path.display(), "dropping an unreadable queued upload");
                    let _ = std::fs::remove_file(&path);
                }
            }
        }
        out
    }
}

impl Editor {
    /// Opens the journal folder (`data_dir/journal`) and replays unfinished sessions.
    pub fn new(
        store: Arc<Store>,
        settings: Arc<Settings>,
        hub: Arc<Hub>,
        voice: Arc<dyn VoiceProvider>,
        fetcher: Fetcher,
        runtime: tokio::runtime::Handle,
        public: PublicFiles,
    ) -> std::io::Result<Editor> {
        let sessions = session::Sessions::open(&settings.data_dir.join("journal"))?;
        Ok(Editor {
            store,
            settings,
            hub,
            voice,
            fetcher,
            runtime,
            public,
            locks: Mutex::new(HashMap::new()),
            sessions,
        })
    }

    /// The lock of one video.
    pub fn lock(&self, topic: &str) -> Arc<Mutex<()>> {
        self.locks
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .entry(topic.to_string())
            .or_default()
            .clone()
    }

    fn job(&self, account: &str, topic: &str) -> Result<Job> {
        match self.store.job(topic)? {
            Some(j) if j.account == account => Ok(j),
            _ => Err(not_found()),
        }
    }

    /// The document staged in an active edit session, if one is open.
    pub fn staged(&self, topic: &str) -> Option<VideoDocument> {
        self.sessions.doc(topic)
    }

    /// The current document: the session's copy when a session is active, else the store's.
    pub fn document(&self, topic: &str) -> Result<Option<VideoDocument>, StoreError> {
        if let Some(d) = self.sessions.doc(topic) {
            return Ok(Some(d));
        }
        self.store.document(topic)
    }

    fn public_root(&self) -> PathBuf {
        self.settings.data_dir.join("public")
    }

    /// Where a scene's spec file lives.
    pub(crate) fn spec_path(&self, doc: &VideoDocument, voice_file: &str) -> PathBuf {
        self.public_root()
            .join(doc.public_folder())
            .join(spec_file_name(voice_file))
    }

    /// The scene's overlay spec: staged in the session, else the file (None when missing).
    pub fn spec(&self, doc: &VideoDocument, voice_file: &str) -> Result<Option<OverlaySpec>> {
        if let Some(s) = self.sessions.spec(&doc.topic_id, voice_file) {
            return Ok(Some(s));
        }
        let path = self.spec_path(doc, voice_file);
        video::render::read_spec(&path)
            .map_err(|e| Error::internal(format!("{}: {e}", path.display())))
    }

    fn write_spec(&self, doc: &VideoDocument, voice_file: &str, spec: &OverlaySpec) -> Result<()> {
        let path = self.spec_path(doc, voice_file);
        let bytes = serde_json::to_vec_pretty(spec).map_err(Error::internal)?;
        foundation::files::write_atomic(&path, &bytes).map_err(Error::internal)
    }

    /// The spec state of a scene as the Scene record reports it.
    pub fn spec_meta(&self, doc: &VideoDocument, seg: &Segment) -> SpecRef {
        let file = spec_file_name(&seg.voice_file);
        let exists = self.sessions.spec(&doc.topic_id, &seg.voice_file).is_some()
            || self.spec_path(doc, &seg.voice_file).is_file();
        let state = spec_state(&seg.remotion_spec, exists);
        let version = if state == SpecState::Ready {
            seg.remotion_spec.clone()
        } else {
            String::new()
        };
        let url = if state == SpecState::Ready {
            format!(
                "{}/{}/{file}?v={version}",
                self.settings.origin_url,
                doc.public_folder()
            )
        } else {
            String::new()
        };
        SpecRef {
            file,
            url,
            version,
            exists,
            state,
        }
    }

    /// The overlay poster's state (file `{voice_file}_poster.png` beside the spec).
    pub(crate) fn poster_meta(&self, doc: &VideoDocument, seg: &Segment) -> geometry::PosterMeta {
        let file = format!("{}_poster.png", seg.voice_file);
        let rel = format!("tmp/{}", doc.poster_name(&seg.voice_file));
        let path = self.public_root().join(&rel);
        let mtime = |p: &std::path::Path| {
            std::fs::metadata(p)
                .and_then(|m| m.modified())
                .ok()
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .map(|d| d.as_millis())
        };
        let poster_time = mtime(&path);
        let exists = poster_time.is_some();
        let mut warnings = Vec::new();
        let state = if seg.overlay_disabled() {
            SpecState::Disabled
        } else if exists {
            SpecState::Ready
        } else {
            SpecState::Missing
        };
        if state == SpecState::Missing && !seg.remotion_spec.is_empty() {
            warnings.push("poster_not_generated".to_string());
        }
        if let (Some(p), Some(s)) = (poster_time, mtime(&self.spec_path(doc, &seg.voice_file)))
            && p < s
        {
            warnings.push("poster_older_than_spec".to_string());
        }
        let version = poster_time.map(|t| t.to_string()).unwrap_or_default();
        let url = if exists {
            format!("{}/{rel}?v={version}", self.settings.origin_url)
        } else {
            String::new()
        };
        geometry::PosterMeta {
            file,
            url,
            version,
            exists,
            state,
            warnings,
        }
    }

    /// A scene as `modify_scene` returns it: the Scene record of `video_data`, with word
    /// timings, and the spec state as an open edit session sees it.
    pub(crate) fn segment_record(&self, doc: &VideoDocument, index: usize) -> SceneRecord {
        let s = &doc.segments[index];
        let public_root = self.public_root();
        let mut record = doc.segment_public(
            index,
            &foundation::document::PublicView {
                review_url: "",
                origin_url: &self.settings.origin_url,
                public_root: &public_root,
                include_diagnostics: false,
            },
        );
        let meta = self.spec_meta(doc, s);
        record.words = Some(s.words.clone());
        record.has_narrator_video = Some(s.narrator_video.is_some());
        record.narration_state = Some(s.narration_state());
        record.remotion_spec_url = meta.url.clone();
        record.remotion_spec_version = meta.version.clone();
        record.remotion_spec_exists = meta.exists;
        record.remotion_spec_state = meta.state;
        record.agent_meta.remotion_spec = SpecRef {
            file: meta.file,
            url: meta.url,
            state: meta.state,
            exists: meta.exists,
            version: meta.version,
        };
        record
    }

    /// Persists an edited document: staged in the active session, or written straight through
    /// (specs first, then the document in one store transaction).
    fn persist(&self, doc: &VideoDocument, specs: &BTreeMap<String, OverlaySpec>) -> Result<()> {
        let topic = &doc.topic_id;
        if self
            .settings
            .section::<crate::edit::config::EditConfig>()
            .cache_enabled
            && self
                .sessions
                .stage(topic, doc, specs, foundation::time::now())
                .map_err(Error::internal)?
        {
            return Ok(());
        }
        for (vf, spec) in specs {
            self.write_spec(doc, vf, spec)?;
        }
        self.store.write(|tx| tx.put_document(topic, doc))?;
        Ok(())
    }

    fn session_flag(&self, topic: &str) -> SessionFlag {
        let staged_writes = self.sessions.info(topic).map(|i| i.staged_writes);
        SessionFlag {
            active: staged_writes.is_some(),
            staged_writes,
        }
    }

    // ------------------------------------------------------------------------------------
    // modify_scene

    /// `POST /v1/modify_scene`.
    pub fn modify(self: &Arc<Self>, account: &str, req: &ModifyScene) -> Result<Outcome> {
        let (topic, selector) = (&req.id, &req.selector);
        let (family, edits) = (req.fields.family, &req.fields.edits);
        let job = self.job(account, topic)?;
        if job.step < 5 {
            return Err(scenes_not_ready());
        }
        if let (Family::Voice | Family::NarratorVideo, [upload]) = (family, edits.as_slice()) {
            return self.queue_upload(topic, selector, upload.clone());
        }
        let media = match edits.first() {
            Some(Edit::Background { url, kind }) => {
                Some(self.download_background(topic, url, *kind)?)
            }
            _ => None,
        };
        let out = self.modify_locked(topic, selector, family, edits, media.as_ref());
        if let Some(m) = &media
            && !matches!(out, Ok(Outcome::Reply(ModifySceneReply::Applied(_))))
        {
            let _ = std::fs::remove_file(self.settings.video_dir(topic).join(&m.file));
        }
        out
    }

    fn modify_locked(
        &self,
        topic: &str,
        selector: &Selector,
        family: Family,
        edits: &[Edit],
        media: Option<&PreparedMedia>,
    ) -> Result<Outcome> {
        let lock = self.lock(topic);
        let _guard = lock.lock().unwrap_or_else(|p| p.into_inner());
        let doc = self.document(topic)?.ok_or_else(scenes_not_ready)?;
        let (index, score) = match select::resolve(&doc, selector, "scene_modification")? {
            Resolved::Scene { index, score } => (index, score),
            Resolved::Clarify(c) => return Ok(Outcome::Reply(ModifySceneReply::Clarification(c))),
        };
        let baseline = self.baseline(&doc);
        let mut new = doc.clone();
        let voice_file = new.segments[index].voice_file.clone();
        let mut staged_specs = BTreeMap::new();
        let applied = if let Family::Overlay(_) = family {
            self.apply_overlay_edits(&mut new, index, edits)?
        } else {
            let (applied, spec) = self.apply_scene_edits(&mut new, index, edits, media)?;
            if let Some(spec) = spec {
                staged_specs.insert(voice_file.clone(), spec);
            }
            applied
        };
        self.persist(&new, &staged_specs)?;
        self.record_version(baseline, &new, family.as_str());
        let segment = self.segment_record(&new, index);
        self.hub.publish(
            topic,
            SCENE_MODIFIED,
            &voice_file,
            SceneModified {
                scene_id: new.segments[index].id,
                queue_id: None,
                family: family.as_str(),
                fields: edits.iter().map(edit_name).collect(),
                applied: &applied,
                segment: &segment,
            },
        );
        let scene_id = new.segments[index].id;
        Ok(Outcome::Reply(ModifySceneReply::Applied(Box::new(
            SceneModification {
                object: "scene_modification",
                status: "applied",
                id: topic.to_string(),
                topic_id: topic.to_string(),
                voice_file,
                scene_id,
                score,
                family: family.as_str(),
                applied,
                segment,
                edit_session: self.session_flag(topic),
                media_type: media.map(|m| m.kind.as_str()),
                media_url: media.map(|m| m.url.clone()),
            },
        ))))
    }

    /// Overlay-family edits of scene `index` of `doc`; they write the spec files themselves,
    /// so a new spec version busts caches.
    fn apply_overlay_edits(
        &self,
        doc: &mut VideoDocument,
        index: usize,
        edits: &[Edit],
    ) -> Result<Applied> {
        let ctx = crate::edit::overlay_edits::OverlayEditContext {
            settings: &self.settings,
            fetcher: &self.fetcher,
            runtime: &self.runtime,
        };
        let mut all = Applied::default();
        for e in edits {
            if let Edit::Overlay(o) = e {
                all.overlay(crate::edit::overlay_edits::apply(&ctx, doc, index, o)?);
            }
        }
        if !doc.segments[index].overlay_disabled() {
            doc.segments[index].remotion_spec = next_version();
        }
        Ok(all)
    }

    /// Every other family's edits of scene `index` of `doc`, and the scene's overlay spec when
    /// they changed it (validated, with a new version on the scene), to be staged.
    fn apply_scene_edits(
        &self,
        doc: &mut VideoDocument,
        index: usize,
        edits: &[Edit],
        media: Option<&PreparedMedia>,
    ) -> Result<(Applied, Option<OverlaySpec>)> {
        let mut spec = None;
        if edits.iter().any(Edit::needs_spec) {
            if doc.segments[index].overlay_disabled() {
                return Err(apply::disabled());
            }
            let voice_file = doc.segments[index].voice_file.clone();
            spec = self.spec(doc, &voice_file)?;
        }
        let inputs = apply::Inputs {
            voice: self.voice.as_ref(),
            media,
            spec: spec.as_mut(),
        };
        let (applied, changed) = apply::apply(inputs, doc, index, edits)?;
        let Some(spec) = spec.filter(|_| changed) else {
            return Ok((applied, None));
        };
        spec.validate().map_err(|e| {
            Error::new(
                Code::InvalidValue,
                format!("The overlay would be invalid: {e}."),
            )
            .param("fields")
        })?;
        doc.segments[index].remotion_spec = next_version();
        Ok((applied, Some(spec)))
    }

    /// Branch A's download: guarded fetch, kind from `mediaType`, the extension or the bytes,
    /// decoded within limits by `foundation::media_check` (a refusal is 422 `media_decode_failed`),
    /// written under a fresh name in the video's folder.
    fn download_background(
        &self,
        topic: &str,
        url: &str,
        kind: Option<MediaKind>,
    ) -> Result<PreparedMedia> {
        let param = "fields";
        // Our own public files (search_broll results, uploads) are read where they lie.
        let local = self.public.local_file(url);
        let body = match local {
            Some(path) => std::fs::read(&path).map_err(|e| {
                Error::internal("public file unreadable")
                    .because(format!("{}: {e}", path.display()))
            })?,
            None => {
                self.runtime
                    .block_on(self.fetcher.get(url, self.max_download(), DOWNLOAD_TIMEOUT))
                    .map_err(|e| fetch_error(e, param))?
                    .body
            }
        };
        // The kind the client named or the URL implies; the bytes must agree and decode.
        let kind = kind.or_else(|| parse::kind_from_extension(url));
        let dir = self.settings.video_dir(topic);
        std::fs::create_dir_all(&dir).map_err(Error::internal)?;
        let token = foundation::ids::file_token();
        let scratch = dir.join(format!(".media_{token}.part"));
        let checked = media_check::check_bytes(&body, kind, &scratch)
            .map_err(|r| r.error(Code::MediaDecodeFailed, "`mediaUrl`", param))?;
        let file = format!("media_{token}.{}", checked.ext);
        match checked.kind {
            // The clip was written to be probed: it only changes name.
            MediaKind::Video => std::fs::rename(&scratch, dir.join(&file)),
            MediaKind::Image => foundation::files::write_atomic(&dir.join(&file), &body),
        }
        .map_err(Error::internal)?;
        let subject = match checked.kind {
            MediaKind::Image => video::build::subject_of_picture(&body, None),
            MediaKind::Video => None,
        };
        Ok(PreparedMedia {
            url: url.to_string(),
            kind: checked.kind,
            file,
            subject,
        })
    }

    /// The file behind one of our own unexpired public URLs.
    fn local_public(&self, url: &str) -> Option<PathBuf> {
        self.public.local_file(url)
    }

    fn max_download(&self) -> u64 {
        self.settings
            .fetch
            .max_bytes
            .unwrap_or(DEFAULT_MAX_DOWNLOAD)
    }

    // ------------------------------------------------------------------------------------
    // Uploads (H, I)

    fn queue_upload(
        self: &Arc<Self>,
        topic: &str,
        selector: &Selector,
        e: Edit,
    ) -> Result<Outcome> {
        let doc = self.document(topic)?.ok_or_else(scenes_not_ready)?;
        let index = match select::resolve(&doc, selector, "scene_modification")? {
            Resolved::Scene { index, .. } => index,
            Resolved::Clarify(c) => return Ok(Outcome::Reply(ModifySceneReply::Clarification(c))),
        };
        let url = match &e {
            Edit::VoiceUpload { url } | Edit::NarratorVideo { url } => url.clone(),
            _ => return Err(Error::internal("not an upload")),
        };
        if self.local_public(&url).is_none() {
            self.runtime
                .block_on(self.fetcher.guard(&url))
                .map_err(|e| fetch_error(e, "fields"))?;
        }
        let seg = &doc.segments[index];
        let queue_id = format!(
            "vq_{}{}",
            foundation::ids::file_token(),
            &foundation::ids::file_token()[..8]
        );
        let status = match e {
            Edit::VoiceUpload { .. } => "scene_voice_upload_queued",
            _ => "scene_narrator_video_upload_queued",
        };
        let pending = PendingUpload {
            queue_id: queue_id.clone(),
            topic: topic.to_string(),
            voice_file: seg.voice_file.clone(),
            kind: match e {
                Edit::VoiceUpload { .. } => UploadKind::Voice,
                _ => UploadKind::NarratorVideo,
            },
            url,
        };
        // Durable before it is acknowledged: a restart picks the upload up again.
        pending
            .save(&self.settings.data_dir)
            .map_err(Error::internal)?;
        self.spawn_upload(pending);
        Ok(Outcome::Queued(Box::new(UploadQueued {
            object: "scene_modification",
            status,
            queue_id,
            id: topic.to_string(),
            topic_id: topic.to_string(),
            voice_file: seg.voice_file.clone(),
            scene_id: seg.id,
            applied: Applied::default(),
        })))
    }

    /// Restarts the uploads a previous process queued but did not finish (call once at start).
    pub fn resume_uploads(self: &Arc<Self>) -> usize {
        let pending = PendingUpload::all(&self.settings.data_dir);
        let n = pending.len();
        for p in pending {
            tracing::info!(topic = %p.topic, queue_id = %p.queue_id, "resuming a queued upload");
            self.spawn_upload(p);
        }
        n
    }

    fn spawn_upload(self: &Arc<Self>, p: PendingUpload) {
        let this = self.clone();
        let span = tracing::info_span!("upload", topic_id = %p.topic, queue_id = %p.queue_id);
        let work = async move {
            let dir = this.settings.data_dir.clone();
            let queue_id = p.queue_id.clone();
            let e = match p.kind {
                UploadKind::Voice => Edit::VoiceUpload { url: p.url.clone() },
                UploadKind::NarratorVideo => Edit::NarratorVideo { url: p.url.clone() },
            };
            this.run_upload(p.topic, p.voice_file, p.queue_id, e, p.url)
                .await;
            PendingUpload::done(&dir, &queue_id);
        };
        self.runtime
            .spawn(tracing::Instrument::instrument(work, span));
    }

    async fn run_upload(
        self: Arc<Self>,
        topic: String,
        voice_file: String,
        queue_id: String,
        e: Edit,
        url: String,
    ) {
        let fetched = match self.local_public(&url) {
            // Our own public files (the editor's uploads) are read where they lie.
            Some(path) => std::fs::read(&path)
                .map(|body| foundation::fetch::Response {
                    status: 200,
                    content_type: None,
                    body,
                    final_url: url::Url::parse(&url).expect("a public URL parses"),
                })
                .map_err(|e| foundation::fetch::FetchError::Network(e.to_string())),
            None => {
                self.fetcher
                    .get(&url, self.max_download(), DOWNLOAD_TIMEOUT)
                    .await
            }
        };
        let result = match fetched {
            Err(err) => Err(fetch_error(err, "fields")),
            Ok(resp) => {
                let this = self.clone();
                let (t, vf, q) = (topic.clone(), voice_file.clone(), queue_id.clone());
                let span = tracing::Span::current();
                tokio::task::spawn_blocking(move || {
                    span.in_scope(|| this.apply_upload(&t, &vf, &q, &e, &url, resp.body))
                })
                .await
                .unwrap_or_else(|j| Err(Error::internal(j)))
            }
        };
        if let Err(err) = result {
            tracing::warn!(%topic, %queue_id, code = %err.code, message = %err.message, "upload failed");
            self.hub.publish(
                &topic,
                UPLOAD_FAILED,
                &voice_file,
                UploadFailed {
                    queue_id: &queue_id,
                    error: PublicError::of(&err),
                },
            );
        }
    }

    fn apply_upload(
        &self,
        topic: &str,
        voice_file: &str,
        queue_id: &str,
        e: &Edit,
        url: &str,
        bytes: Vec<u8>,
    ) -> Result<()> {
        let decoded = store_upload(&self.settings.video_dir(topic), voice_file, e, &bytes)?;
        let lock = self.lock(topic);
        let _guard = lock.lock().unwrap_or_else(|p| p.into_inner());
        let mut doc = self.document(topic)?.ok_or_else(scenes_not_ready)?;
        let baseline = self.baseline(&doc);
        let voice_id = apply::voice_id_of(&doc);
        let index = doc
            .segments
            .iter()
            .position(|s| s.voice_file == voice_file)
            .ok_or_else(|| {
                Error::new(
                    Code::SceneNotFound,
                    "The scene was deleted before the upload finished.",
                )
            })?;
        let seg = &mut doc.segments[index];
        let (file, seconds) = decoded;
        let applied = match e {
            Edit::VoiceUpload { .. } => {
                let before = seg.duration;
                seg.audio_file = file;
                seg.spoken_text = None;
                seg.duration = seconds;
                seg.words = apply::retime(self.voice.as_ref(), &seg.text, &voice_id, seconds);
                seg.narrator.audio_url = url.to_string();
                Applied::voice_upload(url, (before, seconds), seg.words.len())
            }
            _ => {
                let from = seg.roll;
                seg.narrator_video = Some(file);
                seg.narrator.video_url = url.to_string();
                // A B-roll target keeps its background and becomes A-roll.
                seg.roll = Roll::ARoll;
                Applied::narrator_video(url, RollSwitch { from, to: seg.roll }, seconds)
            }
        };
        self.persist(&doc, &BTreeMap::new())?;
        let family = match e {
            Edit::VoiceUpload { .. } => Family::Voice,
            _ => Family::NarratorVideo,
        };
        self.record_version(baseline, &doc, family.as_str());
        let segment = self.segment_record(&doc, index);
        let scene_id = doc.segments[index].id;
        let payload = SceneModified {
            scene_id,
            queue_id: Some(queue_id),
            family: family.as_str(),
            fields: vec![edit_name(e)],
            applied: &applied,
            segment: &segment,
        };
        if family == Family::Voice {
            self.hub
                .publish(topic, VOICE_UPLOAD_APPLIED, voice_file, &payload);
        }
        self.hub
            .publish(topic, SCENE_MODIFIED, voice_file, &payload);
        Ok(())
    }

    /// Flushes the session of `topic` (held lock): specs, then the document once, then the
    /// journal is deleted. Returns the staged write count, or `None` without a session.
    fn commit_locked(&self, topic: &str) -> Result<Option<u64>> {
        let Some(s) = self.sessions.take(topic) else {
            return Ok(None);
        };
        let flushed = (|| -> Result<()> {
            for (vf, spec) in &s.specs {
                self.write_spec(&s.doc, vf, spec)?;
            }
            self.store.write(|tx| tx.put_document(topic, &s.doc))?;
            Ok(())
        })();
        if let Err(e) = flushed {
            self.sessions.restore(topic, s);
            return Err(e);
        }
        let n = s.staged_writes;
        drop(s);
        if let Err(e) = self.sessions.forget(topic) {
            tracing::warn!(topic, error = %e, "committed, but the journal could not be removed");
        }
        tracing::info!(topic, staged = n, "edit session committed");
        Ok(Some(n))
    }

    /// Commits every session idle for `edit.session_idle_secs`; returns how many.
    pub(crate) fn commit_idle(&self) -> usize {
        let idle = self.sessions.idle(
            foundation::time::now(),
            self.settings
                .section::<crate::edit::config::EditConfig>()
                .session_idle_secs,
        );
        let mut n = 0;
        for topic in idle {
            let lock = self.lock(&topic);
            let _guard = lock.lock().unwrap_or_else(|p| p.into_inner());
            // Re-check under the lock: an edit may have just arrived.
            let still_idle = self
                .sessions
                .idle(
                    foundation::time::now(),
                    self.settings
                        .section::<crate::edit::config::EditConfig>()
                        .session_idle_secs,
                )
                .contains(&topic);
            if still_idle {
                match self.commit_locked(&topic) {
                    Ok(Some(_)) => n += 1,
                    Ok(None) => {}
                    Err(e) => tracing::error!(%topic, error = %e, "idle auto-commit failed"),
                }
            }
        }
        n
    }

    /// Runs [`Editor::commit_idle`] every `edit.idle_check_secs` until `stop` resolves.
    pub async fn run_idle_commits(self: Arc<Self>, stop: impl std::future::Future<Output = ()>) {
        let mut tick = tokio::time::interval(Duration::from_secs(
            self.settings
                .section::<crate::edit::config::EditConfig>()
                .idle_check_secs,
        ));
        tokio::pin!(stop);
        loop {
            tokio::select! {
                _ = &mut stop => return,
                _ = tick.tick() => {
                    let this = self.clone();
                    match tokio::task::spawn_blocking(move || this.commit_idle()).await {
                        Ok(n) if n > 0 => tracing::info!(sessions = n, "idle edit sessions committed"),
                        _ => {}
                    }
                }
            }
        }
    }

    // ------------------------------------------------------------------------------------
    // scene_geometry

    /// `POST /v1/scene_geometry`: the geometry body, or a clarification (`Err` never means
    /// ambiguity).
    pub fn geometry(&self, account: &str, req: &GeometryQuery) -> Result<GeometryReply> {
        let topic = req.id.as_str();
        self.job(account, topic)?;
        let doc = match self.document(topic) {
            Ok(Some(d)) => d,
            Ok(None) => {
                return Err(Error::new(
                    Code::ScriptNotReady,
                    "The video has no script yet; it is still processing.",
                )
                .param("id"));
            }
            Err(StoreError::Corrupt { .. }) => {
                return Err(Error::new(
                    Code::ScriptParseFailed,
                    "The video's stored script could not be read.",
                )
                .param("id"));
            }
            Err(e) => return Err(e.into()),
        };
        let (index, score) = match select::resolve(&doc, &req.selector, "scene_geometry")? {
            Resolved::Scene { index, score } => (index, score),
            Resolved::Clarify(c) => return Ok(GeometryReply::Clarification(c)),
        };
        let seg = &doc.segments[index];
        let spec = if seg.overlay_disabled() {
            None
        } else {
            self.spec(&doc, &seg.voice_file).map_err(|e| {
                tracing::error!(topic = %topic, error = %e, "scene geometry: spec unreadable");
                Error::new(
                    Code::SceneGeometryFailed,
                    "The scene's overlay spec could not be read.",
                )
            })?
        };
        let spec_meta = self.spec_meta(&doc, seg);
        let poster = req.include_diagnostics.then(|| self.poster_meta(&doc, seg));
        Ok(GeometryReply::Geometry(Box::new(geometry::build(
            &geometry::Input {
                doc: &doc,
                index,
                spec: spec.as_ref(),
                spec_meta,
                poster,
                include_diagnostics: req.include_diagnostics,
                score,
                company_id: account,
            },
        ))))
    }
}

/// `scene_geometry`'s 200 body: the geometry, or a clarification of an ambiguous text match.
#[derive(Debug, Clone, PartialEq, serde::Serialize, utoipa::ToSchema)]
#[serde(untagged)]
pub enum GeometryReply {
    Geometry(Box<SceneGeometry>),
    Clarification(Clarification),
}

/// A document for tests, built through serde so fields added later (all `#[serde(default)]`)
/// never break the tests.
#[cfg(test)]
pub(crate) fn test_doc(topic: &str, segments: Vec<Segment>) -> VideoDocument {
    let mut d: VideoDocument = serde_json::from_value(serde_json::json!({
        "topic_id": topic,
        "title": "t",
        "language": "English",
        "faceless": false,
        "script": "",
        "segments": [],
    }))
    .expect("minimal document");
    d.segments = segments;
    d
}

/// Stores the bytes of a queued upload in the video folder `dir` as scene `voice_file`'s new
/// voice (decoded to our WAV) or narrator video (checked, kept as sent): the file's name and
/// its length in seconds. Nothing is left behind when the bytes are refused.
fn store_upload(dir: &Path, voice_file: &str, e: &Edit, bytes: &[u8]) -> Result<(String, f64)> {
    std::fs::create_dir_all(dir).map_err(Error::internal)?;
    let tmp = dir.join(format!(".upload_{}.part", foundation::ids::file_token()));
    std::fs::write(&tmp, bytes).map_err(Error::internal)?;
    match e {
        Edit::VoiceUpload { .. } => store_voice(dir, &tmp, voice_file),
        _ => store_narrator_video(dir, &tmp, voice_file),
    }
}

fn store_voice(dir: &Path, tmp: &Path, voice_file: &str) -> Result<(String, f64)> {
    let track = compositor::media::decode_audio(tmp, SAMPLE_RATE);
    let _ = std::fs::remove_file(tmp);
    let track = track.map_err(|err| {
        Error::new(
            Code::MediaDecodeFailed,
            "The voice file could not be decoded as audio (WAV, MP3, M4A, OGG or FLAC).",
        )
        .because(err)
    })?;
    if track.samples.is_empty() {
        return Err(Error::new(
            Code::MediaDecodeFailed,
            "The voice file has no audio.",
        ));
    }
    let file = format!("{voice_file}_voice_{}.wav", foundation::ids::file_token());
    let n = Narration {
        sample_rate: SAMPLE_RATE,
        samples: track.samples,
        words: Vec::new(),
    };
    write_wav(&dir.join(&file), &n).map_err(Error::internal)?;
    Ok((file, n.duration()))
}

fn store_narrator_video(dir: &Path, tmp: &Path, voice_file: &str) -> Result<(String, f64)> {
    let checked = media_check::check_clip(tmp).map_err(|r| {
        let _ = std::fs::remove_file(tmp);
        r.error(Code::MediaDecodeFailed, "The narrator video", "fields")
    })?;
    let (seconds, ext) = (checked.duration.unwrap_or(0.0), checked.ext);
    let file = format!(
        "{voice_file}_narrator_{}.{ext}",
        foundation::ids::file_token()
    );
    std::fs::rename(tmp, dir.join(&file)).map_err(Error::internal)?;
    Ok((file, seconds))
}

pub(crate) use foundation::jobs::scenes_not_ready;

/// The field name an edit came from (for realtime messages).
fn edit_name(e: &Edit) -> &str {
    match e {
        Edit::Background { .. } => "mediaUrl",
        Edit::ObjectRect { .. } => "remotion.object.rect",
        Edit::GroupRect { .. } => "remotion.group.rect",
        Edit::NarratorRect(_) => "overlay.narrator.rect",
        Edit::CaptionY(_) => "overlay.caption.y",
        Edit::VoiceUpload { .. } => "voice.upload",
        Edit::NarratorVideo { .. } => "narrator.upload_video",
        Edit::Roll(_) => "roll.active",
        Edit::Text(_) => "segment.text",
        Edit::Meta(_) => "metadata",
        Edit::DisableOverlay => "disable_overlay",
        Edit::Music(_) => "video.music",
        Edit::Overlay(o) => o.field().as_str(),
    }
}
