//! The one-shot commands: `reelsmith render` (a script file → an MP4 without the server) and
//! `reelsmith rerender` (re-render exported videos in a data dir after a renderer or asset
//! change). Both assemble the same core as the server (`pipeline::assemble`) and run the queued
//! tasks on this thread, so their output is what the API would produce.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::Duration;

use foundation::config::Config;
use foundation::model::{JobStatus, Language, OutputType, Source};
use pipeline::assemble::Core;
use video::ingest::CreateVideoRequest;

/// Options of `reelsmith render`.
pub struct RenderArgs {
    pub script: PathBuf,
    /// Where the MP4 goes; `None`: the scenes are built and nothing is encoded (for a contact
    /// sheet alone).
    pub out: Option<PathBuf>,
    /// A text source: `text`, `idea` or `blog`.
    pub source: Source,
    pub faceless: bool,
    pub language: Option<Language>,
    /// Keep the job's files here instead of a temporary folder.
    pub data_dir: Option<PathBuf>,
    /// Also write the video's contact sheet (a PNG, a frame per scene) here.
    pub contact_sheet: Option<PathBuf>,
}

fn runtime() -> Result<tokio::runtime::Runtime, String> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())
}

fn open(cfg: Config) -> Result<Core, String> {
    let bound = "127.0.0.1:0".parse().expect("static address");
    let settings = Arc::new(cfg.finish(bound)?);
    pipeline::assemble::open(settings).map_err(|e| match e {
        pipeline::assemble::StartError::Store(e) => {
            format!("cannot open the database (is a daemon using this data dir?): {e}")
        }
        e => e.to_string(),
    })
}

/// How often the progress line is redrawn.
const PROGRESS_EVERY: Duration = Duration::from_millis(200);

/// A progress line on stderr while `topic` works: a bar on a terminal, one line per step
/// otherwise. Stops as soon as `done`'s sender is dropped: a sleep between redraws made every
/// command wait up to 200 ms more after its work was done (a 150-word render's wall clock fell
/// into 0.2 s steps).
fn progress(core: &Core, topic: &str, done: Receiver<()>) -> std::thread::JoinHandle<()> {
    let store = core.store.clone();
    let topic = topic.to_string();
    std::thread::spawn(move || {
        let tty = std::io::stderr().is_terminal();
        let mut last_note = String::new();
        loop {
            if let Ok(Some(job)) = store.job(&topic) {
                let note = job.notes.clone().unwrap_or_default();
                let pct = (job.progress * 100.0).round() as usize;
                if tty {
                    let filled = pct.min(100) * 30 / 100;
                    eprint!(
                        "\r[{}{}] {pct:>3}%  {note:<40}",
                        "#".repeat(filled),
                        " ".repeat(30 - filled)
                    );
                    let _ = std::io::stderr().flush();
                } else if note != last_note {
                    eprintln!("{pct:>3}%  {note}");
                }
                last_note = note;
            }
            if done.recv_timeout(PROGRESS_EVERY) != Err(RecvTimeoutError::Timeout) {
                break;
            }
        }
        if tty {
            eprintln!();
        }
    })
}

/// Runs `topic`'s queued tasks with a progress display.
fn run_with_progress(core: &Core, topic: &str) -> Result<foundation::model::Job, String> {
    let (done, finished) = std::sync::mpsc::channel();
    let shown = progress(core, topic, finished);
    let engine = core.engine.clone();
    let job = engine.run_queued(topic).map_err(|e| e.message);
    drop(done);
    let _ = shown.join();
    job
}

/// The file behind a published video URL (`{origin_url}/videos/NAME`).
fn video_file(core: &Core, url: &str) -> Option<PathBuf> {
    let name = url.rsplit('/').next()?;
    Some(core.settings.data_dir.join("public/videos").join(name))
}

pub fn render(cfg: Config, args: RenderArgs) -> Result<(), String> {
    let text = std::fs::read_to_string(&args.script)
        .map_err(|e| format!("{}: {e}", args.script.display()))?;
    let temp = args.data_dir.is_none().then(|| {
        std::env::temp_dir().join(format!(
            "reelsmith-render-{}-{}",
            std::process::id(),
            foundation::ids::file_token()
        ))
    });
    let mut cfg = cfg;
    if let Some(dir) = args.data_dir.clone().or_else(|| temp.clone()) {
        cfg.data_dir = dir;
    }
    let result = runtime()?.block_on(async {
        let core = open(cfg)?;
        let (source, language) = (args.source, args.language);
        let mut request = CreateVideoRequest {
            source: Some(source),
            output_type: Some(if args.out.is_some() {
                OutputType::Video
            } else {
                OutputType::Scene
            }),
            faceless: Some(args.faceless),
            language: language.filter(|_| source != Source::Text),
            ..CreateVideoRequest::default()
        };
        match source {
            Source::Idea => request.idea_text = Some(text),
            Source::Blog => request.blog_text = Some(text),
            _ => request.script_text = Some(text),
        }
        let mut accepted =
            video::ingest::validate_create_video(request, &core.settings, &core.fetcher, None)
                .await
                .map_err(|e| format!("{}: {}", e.code, e.message))?;
        // The API ignores `language` for scripts (the spec); here it picks the narrator voice.
        if let Some(l) = language {
            accepted.request.language = l;
        }
        let job = core
            .engine
            .create_video(foundation::accounts::DEFAULT_ACCOUNT, accepted, None)
            .map_err(|e| e.message)?;
        let topic = job.topic_id.clone();
        let engine_core = &core;
        let job = tokio::task::block_in_place(|| run_with_progress(engine_core, &topic))?;
        if job.status != JobStatus::Completed {
            let why = job.error.map(|e| e.message).unwrap_or_default();
            return Err(format!("the render failed: {why}"));
        }
        let doc = core
            .store
            .document::<foundation::document::VideoDocument>(&topic)
            .ok()
            .flatten()
            .ok_or("the job finished without its scenes")?;
        if let Some(out) = &args.out {
            let url = job.video_url.ok_or("the job finished without a video")?;
            let file = video_file(&core, &url).ok_or("unexpected video URL")?;
            copy_out(&file, out)?;
            eprintln!(
                "wrote {} ({:.1} s of video)",
                out.display(),
                doc.total_duration()
            );
        }
        if let Some(sheet) = &args.contact_sheet {
            write_contact_sheet(&core, &doc, sheet)?;
        }
        Ok(())
    });
    if let Some(dir) = temp {
        let _ = std::fs::remove_dir_all(dir);
    }
    result
}

/// Writes the contact sheet of `doc` to `path` (whole or absent, like the MP4).
fn write_contact_sheet(
    core: &Core,
    doc: &foundation::document::VideoDocument,
    path: &Path,
) -> Result<(), String> {
    let png = video::render::contact_sheet(&core.settings, doc)
        .map_err(|e| format!("the contact sheet failed: {}", e.message))?;
    let tmp = path.with_extension("png.part");
    std::fs::write(&tmp, png).map_err(|e| format!("{}: {e}", tmp.display()))?;
    std::fs::rename(&tmp, path).map_err(|e| format!("{}: {e}", path.display()))?;
    eprintln!("wrote {} ({} scenes)", path.display(), doc.segments.len());
    Ok(())
}

/// Copies the rendered file to `out` through a temporary name, so `out` is whole or absent.
fn copy_out(file: &Path, out: &Path) -> Result<(), String> {
    let tmp = out.with_extension("mp4.part");
    std::fs::copy(file, &tmp).map_err(|e| format!("{}: {e}", tmp.display()))?;
    std::fs::rename(&tmp, out).map_err(|e| format!("{}: {e}", out.display()))
}

/// Rewrites the job's new video URL onto the origin of its old one.
fn keep_origin(core: &Core, topic: &str, old: &str, new: &str) -> Result<String, String> {
    let (Some((origin, _)), Some((_, name))) =
        (old.rsplit_once("/videos/"), new.rsplit_once("/videos/"))
    else {
        return Ok(new.to_string());
    };
    let url = format!("{origin}/videos/{name}");
    core.store
        .write(|tx| -> Result<(), foundation::store::StoreError> {
            if let Some(mut job) = tx.job(topic)? {
                job.video_url = Some(url.clone());
                tx.put_job(&job)?;
            }
            Ok(())
        })
        .map_err(|e| e.to_string())?;
    Ok(url)
}

/// Re-renders `topics` (or, with `all`, every exported video) in the data dir of `cfg`,
/// `jobs` videos at a time.
///
/// One render leaves part of the cores idle (x264's frame threads wait on each other, and at
/// each scene's start the next scene resolves on one core), so a batch fills them with a
/// second video: on 2 cores, two at a time. Each render in flight holds its
/// own peak memory (about 280 MB).
pub fn rerender(cfg: Config, all: bool, topics: Vec<String>, jobs: usize) -> Result<(), String> {
    if all != topics.is_empty() {
        return Err("give either --all or one or more --topic ID".into());
    }
    if jobs == 0 {
        return Err("--jobs must be at least 1".into());
    }
    // URLs stored with a video carry the daemon's public origin. Without one in the config,
    // this command cannot know it, so the new URL keeps the old one's origin.
    let explicit_origin = cfg.origin_url.is_some() || cfg.base_url.is_some();
    runtime()?.block_on(async {
        let core = open(cfg)?;
        let chosen: Vec<String> = if all {
            core.store
                .jobs()
                .map_err(|e| e.to_string())?
                .into_iter()
                .filter(|(_, j)| j.video_url.is_some())
                .map(|(t, _)| t)
                .collect()
        } else {
            topics
        };
        let batch = Batch {
            core: &core,
            topics: &chosen,
            explicit_origin,
            next: AtomicUsize::new(0),
            failed: AtomicUsize::new(0),
        };
        let runtime = tokio::runtime::Handle::current();
        tokio::task::block_in_place(|| {
            if jobs == 1 {
                return batch.work(true);
            }
            std::thread::scope(|scope| {
                let workers: Vec<_> = (0..jobs.min(chosen.len()))
                    .map(|_| {
                        scope.spawn(|| {
                            let _inside = runtime.enter();
                            batch.work(false)
                        })
                    })
                    .collect();
                workers.into_iter().try_for_each(|w| {
                    w.join()
                        .map_err(|_| "a render thread panicked".to_string())?
                })
            })
        })?;
        let failed = batch.failed.into_inner();
        eprintln!(
            "re-rendered {}, failed or skipped {failed}",
            chosen.len() - failed
        );
        if failed > 0 {
            Err(format!("{failed} video(s) were not re-rendered"))
        } else {
            Ok(())
        }
    })
}

/// The videos of one `rerender`, taken in turn by however many threads render them.
struct Batch<'a> {
    core: &'a Core,
    topics: &'a [String],
    explicit_origin: bool,
    /// The next topic to take.
    next: AtomicUsize,
    failed: AtomicUsize,
}

impl Batch<'_> {
    /// Takes topics until none is left; `bar` shows each render's progress (one render at a
    /// time only). A video that fails is counted and the next one taken; an error of the
    /// store stops the batch.
    fn work(&self, bar: bool) -> Result<(), String> {
        loop {
            let i = self.next.fetch_add(1, Ordering::SeqCst);
            let Some(topic) = self.topics.get(i) else {
                return Ok(());
            };
            eprintln!("[{}/{}] {topic}", i + 1, self.topics.len());
            match self.one(topic, bar)? {
                Ok(url) => eprintln!("  {topic}: {url}"),
                Err(why) => {
                    eprintln!("  {topic}: {why}");
                    self.failed.fetch_add(1, Ordering::SeqCst);
                }
            }
        }
    }

    /// Re-renders `topic`: its new URL, or why it was not re-rendered.
    fn one(&self, topic: &str, bar: bool) -> Result<Result<String, String>, String> {
        let core = self.core;
        let Some(before) = core.store.job(topic).map_err(|e| e.to_string())? else {
            return Ok(Err("no such video".into()));
        };
        if !core.engine.queue_rerender(topic).map_err(|e| e.message)? {
            return Ok(Err(
                "skipped: its scenes are not ready, or it is already queued".into(),
            ));
        }
        let job = if bar {
            run_with_progress(core, topic)?
        } else {
            core.engine.run_queued(topic).map_err(|e| e.message)?
        };
        let (JobStatus::Completed, Some(url)) = (&job.status, &job.video_url) else {
            let why = job.error.map(|e| e.message).unwrap_or_default();
            return Ok(Err(format!("failed: {why}")));
        };
        let mut url = url.clone();
        if let Some(old) = before.video_url.filter(|o| *o != url) {
            // The new MP4 replaces the old one.
            if let Some(path) = video_file(core, &old) {
                let _ = std::fs::remove_file(path);
            }
            if !self.explicit_origin {
                url = keep_origin(core, topic, &old, &url)?;
            }
        }
        Ok(Ok(url))
    }
}
