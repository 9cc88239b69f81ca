//! Putting the core together: data folders, the store, the providers and the job engine.
//! The daemon's server (`api::run`) and its one-shot commands (`reelsmith render`,
//! `reelsmith rerender`) assemble the same core here, so a render without the server is the
//! same pipeline as one through the API.

use std::sync::Arc;

use crate::publish::publisher::Publisher;
use foundation::config::{Config, Settings};
use foundation::fetch::Fetcher;
use foundation::jobs::{Engine, JobFailure, Rendered, TaskRunner};
use foundation::link_bases::LinkBases;
use foundation::model::{Job, PostResult, WrittenResult};
use foundation::store::Store;
use foundation::webhooks::Dispatcher;
use video::build::Context;

/// Claims the config sections this crate owns (`[notify]`, `[smtp]`, `[telegram]`, `[images]`,
/// `[edit]`, `[publish]`): each is read and checked once, at start, by the composition root.
pub fn claim_sections(config: &Config) -> Result<(), String> {
    use crate::notify::config as notify;
    let (s, mode) = (&config.sections, config.mode);
    s.claim::<notify::NotifyConfig>(mode)?;
    s.claim::<notify::SmtpConfig>(mode)?;
    s.claim::<notify::TelegramConfig>(mode)?;
    s.claim::<crate::media::config::ImagesConfig>(mode)?;
    s.claim::<crate::edit::config::EditConfig>(mode)?;
    s.claim::<crate::publish::config::PublishConfig>(mode)?;
    notify::check_together(&s.get(), &s.get())
}

/// Why the core could not start.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error("invalid configuration: {0}")]
    Config(String),
    #[error("cannot prepare the data directory {0}: {1}")]
    DataDir(String, std::io::Error),
    #[error(
        "another reelsmith process is using the data directory {0}; stop it, or give this one a data_dir of its own"
    )]
    InUse(String),
    #[error("cannot open the database: {0}")]
    Store(#[from] foundation::store::StoreError),
    #[error("cannot start the voice engine: {0}")]
    Voice(String),
}

/// The task runner of this process: a build goes to the media-source ingest or to text scene
/// building by the job's source, a render to the renderer, written content to `content`.
struct Tasks {
    ctx: Arc<Context>,
    publisher: Arc<dyn Publisher>,
    /// Render workers, when `queue.kind = "nats"`.
    farm: Option<Arc<video::render::Farm>>,
}

impl TaskRunner for Tasks {
    fn build(&self, engine: &Engine, job: &Job) -> Result<(), JobFailure> {
        let media = job.request().is_some_and(|r| r.source.is_media());
        let built = if media {
            video::ingest::build_from_media(engine, &self.ctx, job)
        } else {
            video::build::build_from_script(engine, &self.ctx, job)
        };
        // What the build held (a recording's decoded audio and its recogniser, the scenes'
        // pictures) is free now: handed back, the render that follows starts from a small
        // resident set instead of a heap the build fragmented.
        video::render::give_back_free_memory();
        built
    }

    fn render(&self, engine: &Engine, job: &Job) -> Result<Rendered, JobFailure> {
        let farm = self
            .farm
            .as_deref()
            .map(|f| f as &dyn video::render::Offload);
        let rendered = video::render::render_job(engine, job, farm);
        video::render::give_back_free_memory();
        rendered
    }

    fn write(&self, engine: &Engine, job: &Job) -> Result<WrittenResult, JobFailure> {
        crate::content::task::write(engine, &self.ctx, job)
    }

    fn publish(&self, engine: &Engine, job: &Job) -> Result<Vec<PostResult>, JobFailure> {
        crate::publish::task::publish(engine, self.publisher.as_ref(), job)
    }
}

/// The render workers `queue.kind` asks for (none for `embedded`).
fn farm(settings: &Settings) -> Result<Option<Arc<video::render::Farm>>, StartError> {
    use foundation::config::QueueKind;
    match settings.queue.kind {
        QueueKind::Embedded => Ok(None),
        QueueKind::Nats => video::render::Farm::new(settings)
            .map(|farm| Some(Arc::new(farm)))
            .map_err(StartError::Config),
    }
}

/// The assembled core.
pub struct Core {
    pub settings: Arc<Settings>,
    pub store: Arc<Store>,
    pub fetcher: Fetcher,
    pub engine: Arc<Engine>,
    pub dispatcher: Arc<Dispatcher>,
    /// The providers behind the work (the editor re-voices scenes with the same voice).
    pub work: Arc<Context>,
    /// Where `publish` posts go (the feed publisher or the connector).
    pub publisher: Arc<dyn Publisher>,
    /// The API key of the account created on an empty data dir (shown once).
    pub bootstrap_key: Option<String>,
}

/// The providers behind the work: embedded defaults, or connectors when configured.
pub fn providers(
    settings: &Settings,
    fetcher: &Fetcher,
    runtime: tokio::runtime::Handle,
) -> Result<Context, StartError> {
    let voice = embedded_voice(settings)?;
    Ok(Context {
        voice: Arc::new(voice),
        fetcher: fetcher.clone(),
        runtime,
    })
}

/// The process's own narrator: the neural voices installed in `voice.models_dir` (unless the
/// config asks for espeak-ng alone), espeak-ng for the other languages.
fn embedded_voice(settings: &Settings) -> Result<video::build::Embedded, StartError> {
    use video::build::{Embedded, Espeak, Host, Piper, VoiceConfig, VoiceKind};
    let espeak = Espeak::new().map_err(|e| StartError::Voice(e.to_string()))?;
    let voice = settings.section::<VoiceConfig>();
    let neural = if voice.provider == VoiceKind::Piper {
        let dir = if voice.models_dir.as_os_str().is_empty() {
            settings.assets_dir.join("voices")
        } else {
            voice.models_dir.clone()
        };
        let host = match &voice.worker_program {
            Some(program) => Host::Child(program.clone()),
            None => Host::InProcess,
        };
        let voices = Piper::installed(&dir, &host).map_err(|e| StartError::Voice(e.to_string()))?;
        if voices.is_empty() {
            tracing::warn!(
                dir = %dir.display(),
                "no neural voice installed (make voices): espeak-ng speaks every language"
            );
        }
        voices
    } else {
        Vec::new()
    };
    let voice = Embedded::new(neural, espeak);
    for e in voice.engines() {
        tracing::info!(language = %e.language, engine = e.engine, voice = %e.voice_id, "narrator");
    }
    Ok(voice)
}

/// Deletes what a previous process left in `data_dir/uploads`: half-streamed `.part` files (no
/// upload is in flight before the server starts) and media uploads no queued job refers to (a
/// crash between storing an upload and creating its job). Returns how many files went.
fn clean_uploads(store: &Store, data_dir: &std::path::Path) -> std::io::Result<usize> {
    let dir = data_dir.join("uploads");
    if !dir.is_dir() {
        return Ok(0);
    }
    let wanted: std::collections::HashSet<String> = store
        .jobs()
        .map_err(std::io::Error::other)?
        .into_iter()
        .filter_map(|(_, job)| job.request()?.media_file.clone())
        .collect();
    let mut removed = 0;
    for entry in std::fs::read_dir(&dir)? {
        let entry = entry?;
        if !entry.file_type()?.is_file() {
            continue;
        }
        let name = entry.file_name().to_string_lossy().into_owned();
        if !wanted.contains(&format!("uploads/{name}")) {
            std::fs::remove_file(entry.path())?;
            removed += 1;
        }
    }
    Ok(removed)
}

/// Gives `path` the unix `mode` (the data directory 0700, the database 0600): keys, accounts and
/// unpublished media are the owner's alone. Public files are served by the daemon, never read
/// from the directory by others.
fn owner_only(path: &std::path::Path, mode: u32) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))?;
    }
    #[cfg(not(unix))]
    let _ = (path, mode);
    Ok(())
}

/// Creates the data folders, opens the store (creating the bootstrap account on an empty data
/// dir), and builds the providers and the engine. Must run inside a tokio runtime.
pub fn open(settings: Arc<Settings>) -> Result<Core, StartError> {
    let data_dir = settings.data_dir.clone();
    let data_dir_error = |e| StartError::DataDir(data_dir.display().to_string(), e);
    for sub in ["", "videos", "public", "public/videos"] {
        std::fs::create_dir_all(data_dir.join(sub)).map_err(data_dir_error)?;
    }
    tracing::info!("Initializing store");
    let db_path = data_dir.join("reelsmith.redb");
    // redb locks the file: a second process on the same directory is refused here, before
    // it touches anything.
    let store = match Store::open(&db_path) {
        Err(e) if e.is_in_use() => {
            return Err(StartError::InUse(data_dir.display().to_string()));
        }
        // Job links are read on the configured bases, whatever they were made with.
        opened => Arc::new(opened?.with_link_bases(LinkBases::of(&settings))),
    };
    owner_only(&data_dir, 0o700).map_err(data_dir_error)?;
    owner_only(&db_path, 0o600).map_err(data_dir_error)?;
    let bootstrap_key =
        foundation::accounts::bootstrap(&store, &data_dir).map_err(data_dir_error)?;
    match clean_uploads(&store, &data_dir) {
        Ok(0) => {}
        Ok(n) => tracing::info!(files = n, "removed uploads no job will use"),
        Err(e) => tracing::warn!(error = %e, "could not clean the uploads folder"),
    }

    tracing::info!("Initializing providers");
    let fetcher = Fetcher::new(&settings.fetch.allow, "Reelsmith/0.1");
    let work = Arc::new(providers(
        &settings,
        &fetcher,
        tokio::runtime::Handle::current(),
    )?);

    tracing::info!("Initializing jobs and webhooks");
    let dispatcher = Arc::new(Dispatcher::new(
        store.clone(),
        settings.clone(),
        fetcher.clone(),
    ));
    let publisher = crate::publish::configured(
        settings.clone(),
        store.clone(),
        &fetcher,
        tokio::runtime::Handle::current(),
    );
    let engine = Arc::new(Engine::new(
        store.clone(),
        settings.clone(),
        Arc::new(Tasks {
            ctx: work.clone(),
            publisher: publisher.clone(),
            farm: farm(&settings)?,
        }),
        dispatcher.wake.clone(),
    ));
    Ok(Core {
        settings,
        store,
        fetcher,
        engine,
        dispatcher,
        work,
        publisher,
        bootstrap_key,
    })
}
