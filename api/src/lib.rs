//! The `/v1` HTTP layer (warp). Explicit DTO handling per endpoint family,
//! bearer auth, the error envelope with `request_id`, the public media
//! origin, the webhook test inbox and the review page. This is the only
//! crate that knows HTTP.
//!
//! [`run`] takes an already-bound listener and a shutdown future (the
//! mini-redis shape), so tests and the daemon start it the same way.

mod account;
mod assets;
mod blocking;
mod content;
mod editor;
mod errors;
mod filters;
mod inbox;
mod inspector;
mod links;
mod media;
mod metrics;
mod notify;
mod openapi;
mod pages;
mod plan;
mod publish;
mod reference;
mod reply;
mod scenes;
mod secure;
mod serve;
mod typography;
mod v1;
mod video_data;
mod webhook_deliveries;

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use foundation::config::{Config, Settings};
use foundation::fetch::Fetcher;
use foundation::jobs::Engine;
use foundation::public::PublicFiles;
use foundation::store::Store;
use tokio::net::TcpListener;
use tokio::sync::Notify;
use warp::Filter;

pub use errors::status_of;

/// What every handler can reach.
pub struct State {
    pub settings: Arc<Settings>,
    pub store: Arc<Store>,
    pub engine: Arc<Engine>,
    pub fetcher: Fetcher,
    pub inbox: inbox::Inboxes,
    pub public: PublicFiles,
    pub stills: video::render::Stills,
    /// The editor's per-scene preview clips (rendered one at a time, cached by scene).
    pub previews: video::render::PreviewClips,
    /// Editor tabs open on each video, for `scene_inspector`'s live actions.
    pub live: Arc<pipeline::edit::LiveEditors>,
    /// Scene editing: per-video locks, edit sessions, the realtime hub.
    pub editor: Arc<pipeline::edit::Editor>,
    /// Notification channels (notification/send, client links, error reports).
    pub notifier: Arc<pipeline::notify::Notifier>,
    /// B-roll search over the library or the configured stock provider.
    pub search: Arc<pipeline::media::Search>,
    /// `create_image`: the embedded designer or the images connector.
    pub images: Arc<pipeline::media::Images>,
    /// The template library of `foundation_videos`.
    pub templates: Arc<pipeline::plan::Templates>,
    /// Rings the webhook dispatcher (a redelivery goes out at once).
    pub webhook_wake: Arc<Notify>,
    /// Where `publish` posts go (the feed publisher or the connector).
    pub publisher: Arc<dyn pipeline::publish::Publisher>,
    /// Analytics dashboards computed lately.
    pub analytics: pipeline::publish::AnalyticsCache,
}

pub use pipeline::assemble::StartError;

/// Starts everything on `listener` and serves until `shutdown` resolves:
/// then stops accepting, hands in-flight jobs back to the queue and closes
/// the store.
pub async fn run(
    listener: TcpListener,
    config: Config,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), StartError> {
    let bound: SocketAddr = listener
        .local_addr()
        .map_err(|e| StartError::Config(e.to_string()))?;
    let settings = Arc::new(config.finish(bound).map_err(StartError::Config)?);
    let core = pipeline::assemble::open(settings.clone())?;
    let data_dir = &settings.data_dir;
    if core.bootstrap_key.is_some() {
        // The key itself never goes to a log: only where it is (a file only we can read).
        tracing::info!(
            file = %data_dir.join("bootstrap-key").display(),
            "created account `default`; its API key is in this file (mode 0600)"
        );
    }
    if let Some(warning) = foundation::config::open_file_limit().and_then(|limit| {
        settings
            .section::<serve::HttpConfig>()
            .connections_over_file_limit(limit)
    }) {
        tracing::warn!("{warning}");
    }
    let (engine, dispatcher) = (core.engine.clone(), core.dispatcher.clone());
    let state = shared_state(&settings, core)?;
    let editor = state.editor.clone();

    let stopping = Arc::new(AtomicBool::new(false));
    let stop = Arc::new(Notify::new());
    let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
    let workers = tokio::spawn(engine.clone().run_workers(stopping.clone(), stop.clone()));
    let outbox = tokio::spawn({
        let mut rx = stop_rx.clone();
        dispatcher.run(async move {
            let _ = rx.wait_for(|s| *s).await;
        })
    });

    let sweeper = tokio::spawn(sweep_public_files(state.public.clone(), {
        let interval = settings.public.sweep_interval_secs;
        let mut rx = stop_rx.clone();
        (interval, async move {
            let _ = rx.wait_for(|s| *s).await;
        })
    }));

    let resumed = editor.resume_uploads();
    if resumed > 0 {
        tracing::info!(uploads = resumed, "resumed queued scene uploads");
    }
    let idle_commits = tokio::spawn(editor.clone().run_idle_commits({
        let mut rx = stop_rx.clone();
        async move {
            let _ = rx.wait_for(|s| *s).await;
        }
    }));

    metrics::install();
    let routes = metrics::observe(routes(state.clone()));
    let server = serve::serve(
        listener,
        routes,
        (*settings.section::<serve::HttpConfig>()).clone(),
        stop_rx.clone(),
    );
    println!("listening on http://{bound}");
    tracing::info!(%bound, base_url = %settings.base_url, "serving");

    let server = tokio::spawn(server);
    shutdown.await;
    tracing::info!("shutting down: no new requests, jobs go back to the queue");
    stopping.store(true, Ordering::SeqCst);
    stop.notify_waiters();
    let _ = stop_tx.send(true);
    let _ = tokio::time::timeout(std::time::Duration::from_secs(5), server).await;
    let _ = workers.await;
    let _ = outbox.await;
    let _ = sweeper.await;
    let _ = idle_commits.await;
    if let Err(e) = engine.release_leases(true) {
        tracing::error!(error = %e, "could not hand leases back");
    }
    drop(state);
    drop(engine);
    tracing::info!("stopped");
    Ok(())
}

/// The handlers' shared state over the opened `Core`: the editor (replaying edit journals),
/// notifier, search, image generation and templates beside it.
fn shared_state(
    settings: &Arc<Settings>,
    core: pipeline::assemble::Core,
) -> Result<Arc<State>, StartError> {
    let runtime = tokio::runtime::Handle::current();
    let (store, fetcher) = (core.store, core.fetcher);
    tracing::info!("Initializing scene editing (replaying edit journals)");
    let search = pipeline::media::Search::new(settings.clone(), &fetcher, &runtime)
        .map_err(StartError::Config)?;
    let public = PublicFiles::new(settings).making(search.on_demand());
    let editor = pipeline::edit::Editor::new(
        store.clone(),
        settings.clone(),
        Arc::new(pipeline::edit::Hub::new()),
        core.work.voice.clone(),
        fetcher.clone(),
        runtime.clone(),
        public.clone(),
    )
    .map_err(|e| StartError::DataDir(settings.data_dir.display().to_string(), e))?;
    let notifier =
        pipeline::notify::notifier(settings, store.clone(), fetcher.clone(), runtime.clone())
            .map_err(StartError::Config)?;
    let images = pipeline::media::Images::new(settings.clone(), store.clone(), &fetcher, &runtime)
        .map_err(StartError::Config)?;
    let templates =
        pipeline::plan::Templates::load(&settings.assets_dir).map_err(StartError::Config)?;
    Ok(Arc::new(State {
        notifier: Arc::new(notifier),
        settings: settings.clone(),
        store,
        engine: core.engine,
        fetcher,
        inbox: inbox::Inboxes::default(),
        public,
        stills: video::render::Stills::default(),
        previews: video::render::PreviewClips::default(),
        live: Arc::new(pipeline::edit::LiveEditors::default()),
        editor: Arc::new(editor),
        search: Arc::new(search),
        images: Arc::new(images),
        templates: Arc::new(templates),
        webhook_wake: core.dispatcher.wake.clone(),
        publisher: core.publisher,
        analytics: pipeline::publish::AnalyticsCache::new(
            settings
                .section::<pipeline::publish::PublishConfig>()
                .analytics_cache_secs,
        ),
    }))
}

/// Deletes expired public files every `interval` seconds until `stop` resolves.
async fn sweep_public_files(
    public: PublicFiles,
    (interval, stop): (u64, impl Future<Output = ()>),
) {
    let mut tick = tokio::time::interval(std::time::Duration::from_secs(interval));
    tokio::pin!(stop);
    loop {
        tokio::select! {
            _ = &mut stop => return,
            _ = tick.tick() => {
                let public = public.clone();
                let swept = tokio::task::spawn_blocking(move || {
                    public.sweep(std::time::SystemTime::now())
                })
                .await;
                match swept {
                    Ok(Ok(n)) if n > 0 => tracing::info!(files = n, "swept expired public files"),
                    Ok(Err(e)) => tracing::warn!(error = %e, "sweeping public files failed"),
                    _ => {}
                }
            }
        }
    }
}

/// The answer of `/healthz`.
#[derive(serde::Serialize, utoipa::ToSchema)]
struct Health {
    /// Always `ok`.
    status: &'static str,
}

/// Liveness check (no auth).
#[utoipa::path(
    get,
    path = "/healthz",
    operation_id = "healthz",
    tag = "reference",
    responses((status = 200, description = "The daemon is up.", body = Health)),
)]
fn healthz() -> warp::reply::Response {
    reply::json_reply(warp::http::StatusCode::OK, &Health { status: "ok" })
}

/// Claims the config sections this crate owns (`[http]`, `[metrics]`): each is read and
/// checked once, at start, by the composition root.
pub fn claim_sections(config: &Config) -> Result<(), String> {
    config.sections.claim::<serve::HttpConfig>(config.mode)?;
    config.sections.claim::<metrics::MetricsConfig>(config.mode)
}

/// Every route, with the rejection handler last.
pub fn routes(
    state: Arc<State>,
) -> impl Filter<Extract = (warp::reply::Response,), Error = std::convert::Infallible> + Clone {
    let healthz = warp::path!("healthz").and(warp::get()).map(healthz);
    // Public like any API reference: no key. Its request id travels in the header only, so the
    // body stays a valid OpenAPI object.
    let openapi = warp::path!("v1" / "openapi.json")
        .and(warp::get())
        .map(openapi::serve_document);
    let servable = {
        let public = state.public.clone();
        warp::path::peek()
            .and_then(move |tail: warp::path::Peek| servable(public.clone(), tail))
            .untuple_one()
    };
    let media = warp::path("media")
        .and(warp::get().or(warp::head()).unify())
        .and(servable)
        .and(warp::fs::dir(state.settings.data_dir.join("public")))
        .map(|f: warp::fs::File| {
            // Uploaded files (HTML, SVG) are served from this origin: never sniffed into
            // something else, never run as a page with access to it.
            let mut resp = reply::tag(warp::Reply::into_response(f));
            let h = resp.headers_mut();
            h.insert(
                "x-content-type-options",
                warp::http::HeaderValue::from_static("nosniff"),
            );
            h.insert(
                "content-security-policy",
                warp::http::HeaderValue::from_static("sandbox; default-src 'none'"),
            );
            resp
        })
        .boxed();
    // Each family is boxed, and so is each group of families: the combined filter type stays
    // shallow, so adding routes never hits the compiler's recursion limit, at the cost of one
    // indirection per family and group.
    let videos = healthz
        .boxed()
        .or(openapi.boxed())
        .unify()
        .or(v1::routes(state.clone()).boxed())
        .unify()
        .or(video_data::routes(state.clone()))
        .unify()
        .or(scenes::routes(state.clone()))
        .unify()
        .or(editor::routes(state.clone()))
        .unify()
        .or(inspector::routes(state.clone()))
        .unify()
        .or(typography::routes(state.clone()))
        .unify()
        .or(assets::routes(state.clone()))
        .unify()
        .boxed();
    let account = account::routes(state.clone())
        .or(webhook_deliveries::routes(state.clone()))
        .unify()
        .or(media::routes(state.clone()))
        .unify()
        .or(plan::routes(state.clone()))
        .unify()
        .or(content::routes(state.clone()).boxed())
        .unify()
        .or(notify::routes(state.clone(), state.notifier.clone()))
        .unify()
        .or(links::routes(state.clone(), state.notifier.clone()))
        .unify()
        .or(publish::routes(state.clone()))
        .unify()
        .boxed();
    let public = inbox::routes(state.clone())
        .boxed()
        .or(metrics::routes(state.clone()))
        .unify()
        .or(pages::routes(state.clone()).boxed())
        .unify()
        .or(media)
        .unify()
        .boxed();
    let headers = secure::Headers::new(&state.settings);
    videos
        .or(account)
        .unify()
        .or(public)
        .unify()
        .recover(errors::recover)
        .unify()
        .map(move |resp| headers.apply(resp))
}

/// Whether the `/media` file at `tail` may be served: a plain path (404 otherwise) that has not
/// expired (410), made first when it is a file made on first use (an illustration clip).
async fn servable(public: PublicFiles, tail: warp::path::Peek) -> Result<(), warp::Rejection> {
    let tail = tail.as_str().to_string();
    if !plain_media_path(&tail) {
        return Err(errors::reject(pipeline::Error::new(
            pipeline::Code::RouteNotFound,
            "No file at this path.",
        )));
    }
    if public.is_expired(&tail, std::time::SystemTime::now()) {
        return Err(errors::reject(pipeline::Error::new(
            pipeline::Code::FileExpired,
            "This temporary file has expired.",
        )));
    }
    if !public.may_make(&tail) {
        return Ok(());
    }
    // A file that cannot be made stays missing: the file route answers 404.
    let made = blocking::run(move || {
        public
            .make_missing(&tail)
            .map_err(|e| pipeline::Error::internal("a public file could not be made").because(e))
    })
    .await;
    if let Err(e) = made {
        tracing::warn!(error = %e, "serving a public file");
    }
    Ok(())
}

/// Longest name of one `/media` path segment (the usual file-system limit).
const MEDIA_SEGMENT_MAX: usize = 255;
/// Longest `/media` path.
const MEDIA_PATH_MAX: usize = 1024;

/// Whether a `/media` tail can name one of our files: decodable UTF-8 without control bytes
/// (NUL included), no segment over [`MEDIA_SEGMENT_MAX`] bytes, the whole at most
/// [`MEDIA_PATH_MAX`]. Anything else is a 404, never a file-system error.
fn plain_media_path(tail: &str) -> bool {
    let Ok(decoded) = percent_encoding::percent_decode_str(tail).decode_utf8() else {
        return false;
    };
    decoded.len() <= MEDIA_PATH_MAX
        && !decoded.chars().any(char::is_control)
        && decoded.split('/').all(|s| s.len() <= MEDIA_SEGMENT_MAX)
}

#[cfg(test)]
mod media_path_tests {
    use super::plain_media_path;

    #[test]
    fn nul_control_bytes_and_overlong_names_are_not_media_paths() {
        assert!(plain_media_path("videos/wcAbc_123.mp4"));
        assert!(plain_media_path("library/previews/clips/sun%20rise.png"));
        for bad in [
            "%00",
            "a%00b.mp4",
            "a%1bb",
            "x%ff%fe",
            &"a".repeat(256),
            &"a/".repeat(600),
        ] {
            assert!(!plain_media_path(bad), "{bad}");
        }
    }
}
